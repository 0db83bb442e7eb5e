package lab

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/harness"
	"github.com/wblab/wblab/ui/wire"
)

// HashVersion is the v= of the URL hash format this build writes and reads.
const HashVersion = "1"

// alwaysKeys are written even when they equal the case's defaults.
var alwaysKeys = []string{"kernel", "runtime", "seed"}

// EncodeHash writes the state as "v=1&case=...&kernel=...&device=...&runtime=...&seed=..."
// plus every control that differs from what the case name implies.
func EncodeHash(s State) string {
	var kv []string
	add := func(k, v string) { kv = append(kv, k+"="+escape(v)) }
	add("v", HashVersion)
	f := s.Form
	name := CaseName(f)
	base := FormFromConfig(engine.DefaultConfig())
	if name != "" {
		if cfg, err := harness.ConfigForCase(name); err == nil {
			base = FormFromConfig(cfg)
		}
		add("case", name)
	}
	for _, k := range alwaysKeys {
		add(k, f[k])
	}
	dev := f["device"]
	for _, k := range sortedKeys(f) {
		if strings.HasPrefix(k, "dev.") && strings.TrimSpace(f[k]) != "" {
			dev += "," + k[4:] + "=" + strings.TrimSpace(f[k])
		}
	}
	add("device", dev)
	skip := map[string]bool{"kernel": true, "runtime": true, "seed": true, "device": true, "case": true, "disks": true}
	for _, fl := range Fields("") {
		k := fl.ID
		if skip[k] || strings.HasPrefix(k, "dev.") {
			continue
		}
		switch {
		case strings.HasPrefix(k, "v."): // "" = the preset's switch
			if f[k] != "" {
				add(k, f[k])
			}
		case name == "" && caseFields[k], f[k] != base[k]:
			add(k, f[k])
		}
	}
	if d := f["disks"]; d != "" { // further disks: disk=SPEC, repeated
		for _, spec := range strings.Split(d, ";") {
			add("disk", spec)
		}
	}
	if s.Mode != "" {
		add("mode", s.Mode)
	}
	if s.B != nil {
		add("b.kernel", s.B["kernel"])
		for _, k := range sortedKeys(s.B) {
			if strings.HasPrefix(k, "v.") && s.B[k] != "" {
				add("b."+k, s.B[k])
			}
		}
	}
	if s.Table != "" {
		add("table", s.Table)
	}
	if s.Repro != "" {
		add("repro", s.Repro)
	}
	if s.Seeds > 1 {
		add("seeds", strconv.Itoa(s.Seeds))
	}
	if s.Embed {
		add("embed", "1")
	}
	return strings.Join(kv, "&")
}

// escape percent-encodes a hash value, keeping the characters of case names, device
// specs and kernel names readable ("/", ":", ",", "=", "+"). '+' is literal in this
// format (not a space), as kernel names like 2.6.36-rc1+fix need.
func escape(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("-_.~/:,=+@!*()", ch) >= 0 {
			b.WriteByte(ch)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", ch)
	}
	return b.String()
}

// parseHash splits "k=v&k=v" and percent-decodes keys and values ('+' stays '+').
func parseHash(h string) (url.Values, error) {
	out := url.Values{}
	for _, kv := range strings.Split(h, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		key, err := url.PathUnescape(k)
		if err != nil {
			return nil, fmt.Errorf("key %q: %v", k, err)
		}
		val, err := url.PathUnescape(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", key, err)
		}
		out[key] = append(out[key], val)
	}
	return out, nil
}

// DecodeHash reads a hash (with or without the leading '#'). Values are put into the
// form as text, so a bad value shows next to its control when the form is checked; an
// error here names a key the form cannot take at all.
func DecodeHash(h string) (State, *FieldError) {
	h = strings.TrimPrefix(h, "#")
	s := State{Form: FormFromConfig(engine.DefaultConfig())}
	if h == "" {
		return s, nil
	}
	vals, err := parseHash(h)
	if err != nil {
		return s, &FieldError{Field: "case", Msg: "link: " + err.Error()}
	}
	if v := vals.Get("v"); v != HashVersion {
		return s, &FieldError{Field: "case", Msg: fmt.Sprintf("link: version v=%q is not supported (this page reads v=%s)", v, HashVersion)}
	}
	var ferr *FieldError
	if name := vals.Get("case"); name != "" {
		var e *FieldError
		if s.Form, e = ApplyCase(s.Form, name); e != nil {
			ferr = e
		}
	}
	known := map[string]bool{"v": true, "case": true, "mode": true, "embed": true, "table": true, "repro": true}
	for _, fl := range Fields("") {
		known[fl.ID] = true
	}
	reject := func(format string, args ...any) {
		if ferr == nil {
			ferr = &FieldError{Field: "case", Msg: fmt.Sprintf(format, args...)}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(vals)) {
		v := vals[k][len(vals[k])-1]
		k = renamedSwitch(k)
		switch {
		case k == "disk":
			s.Form["disks"] = strings.Join(vals[k], ";")
		case k == "device":
			name, rest, _ := strings.Cut(v, ",")
			s.Form["device"] = name
			for _, kv := range strings.Split(rest, ",") {
				if dk, dv, ok := strings.Cut(kv, "="); ok {
					s.Form["dev."+dk] = dv
				}
			}
		case strings.HasPrefix(k, "b."):
			if k != "b.kernel" && !strings.HasPrefix(k, "b.v.") {
				reject("link: %s=%q: B takes only b.kernel and b.v.<switch>", k, v)
				continue
			}
			if s.B == nil {
				s.B = Form{}
			}
			s.B[k[2:]] = v
		case k == "mode":
			if v != "" && v != "ab" && v != "matrix" && v != "sweep" {
				reject("link: mode=%q is not a mode (ab, matrix, sweep, or none for a single run)", v)
				continue
			}
			s.Mode = v
		case k == "embed":
			if v != "" && v != "0" && v != "1" {
				reject("link: embed=%q: use embed=1 (or 0)", v)
				continue
			}
			s.Embed = v == "1"
		case k == "table":
			if _, ok := tableNames()[v]; !ok && v != "" {
				reject("link: table=%q is not a built-in table (%s)", v, strings.Join(slices.Sorted(maps.Keys(tableNames())), ", "))
				continue
			}
			s.Table = v
		case k == "seeds":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > wire.MaxPageSeeds {
				reject("link: seeds=%q: want a number of seeds in [1, %d]", v, wire.MaxPageSeeds)
				continue
			}
			s.Seeds = n
		case k == "repro":
			if _, ok := ReproByID(v); !ok && v != "" {
				reject("link: repro=%q is not a Reproduce preset", v)
				continue
			}
			s.Repro = v
		case known[k] || strings.HasPrefix(k, "v."):
			if k != "v" && k != "case" {
				s.Form[k] = v
			}
		default:
			reject("link: unknown key %q", k)
		}
	}
	return s, ferr
}

func tableNames() map[string]bool {
	out := map[string]bool{}
	for _, t := range Tables() {
		out[t.Name] = true
	}
	return out
}

// renamedSwitch is a hash key with a switch's former name ("v.bdi_knobs_v63",
// "b.v.bdi_knobs_v63") under the switch's current name: old links keep working.
func renamedSwitch(k string) string {
	for _, p := range []string{"v.", "b.v."} {
		if name, ok := strings.CutPrefix(k, p); ok {
			return p + engine.SwitchName(name)
		}
	}
	return k
}
