package ui

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/wblab/wblab/engine"
)

// HashVersion is the v= of the URL hash format this build writes and reads.
const HashVersion = "1"

// State is what the URL hash carries: the form (A), the mode and B's kernel choice.
type State struct {
	Form  Form
	Mode  string // "", "ab" or "matrix"
	B     Form   // B's kernel and switches ("kernel", "v.*"); nil when unset
	Embed bool
	Table string // matrix case list: a built-in table name or ""
}

// alwaysKeys are written even when they equal the case's defaults.
var alwaysKeys = []string{"kernel", "runtime", "seed"}

// EncodeHash writes the state as "v=1&case=...&kernel=...&device=...&runtime=...&seed=..."
// plus every control that differs from what the case name implies.
func EncodeHash(s State) string {
	var kv []string
	add := func(k, v string) { kv = append(kv, k+"="+escape(v)) }
	add("v", HashVersion)
	f := s.Form
	name := f.CaseName()
	base := FormFromConfig(engine.DefaultConfig())
	if name != "" {
		if cfg, err := engine.ConfigForCase(name); err == nil {
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
	skip := map[string]bool{"kernel": true, "runtime": true, "seed": true, "device": true, "case": true}
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
	if s.Embed {
		add("embed", "1")
	}
	return strings.Join(kv, "&")
}

// escape keeps '/', ':', ',' and '=' readable.
func escape(v string) string {
	e := url.QueryEscape(v)
	r := strings.NewReplacer("%2F", "/", "%3A", ":", "%2C", ",", "%3D", "=", "%2B", "+")
	return r.Replace(e)
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
	vals, err := url.ParseQuery(h)
	if err != nil {
		return s, &FieldError{Field: "case", Msg: "link: " + err.Error()}
	}
	if v := vals.Get("v"); v != HashVersion {
		return s, &FieldError{Field: "case", Msg: fmt.Sprintf("link: version v=%q is not supported (this page reads v=%s)", v, HashVersion)}
	}
	var ferr *FieldError
	if name := vals.Get("case"); name != "" {
		var e *FieldError
		if s.Form, e = s.Form.ApplyCase(name); e != nil {
			ferr = e
		}
	}
	known := map[string]bool{"v": true, "case": true, "mode": true, "embed": true, "table": true}
	for _, fl := range Fields("") {
		known[fl.ID] = true
	}
	for k, vs := range vals {
		v := vs[len(vs)-1]
		switch {
		case k == "device":
			name, rest, _ := strings.Cut(v, ",")
			s.Form["device"] = name
			for _, kv := range strings.Split(rest, ",") {
				if dk, dv, ok := strings.Cut(kv, "="); ok {
					s.Form["dev."+dk] = dv
				}
			}
		case strings.HasPrefix(k, "b."):
			if s.B == nil {
				s.B = Form{}
			}
			s.B[k[2:]] = v
		case k == "mode":
			s.Mode = v
		case k == "embed":
			s.Embed = v == "1"
		case k == "table":
			s.Table = v
		case known[k] || strings.HasPrefix(k, "v."):
			if k != "v" && k != "case" {
				s.Form[k] = v
			}
		default:
			if ferr == nil {
				ferr = &FieldError{Field: "case", Msg: fmt.Sprintf("link: unknown key %q", k)}
			}
		}
	}
	return s, ferr
}
