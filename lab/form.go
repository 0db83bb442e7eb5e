// Package lab answers the page's questions from the engine, inside the engine worker
// (worker.wasm): the catalog of the registries the page shows (catalog.go), form ⇄
// Config, the URL hash, case names, matrix plans, the switches that never ran and the
// measured references. The UI (package ui, main.wasm) asks through package wire and
// links none of the model.
package lab

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/harness"
	"github.com/wblab/wblab/ui/wire"
)

// The page's form, state and input errors (package wire).
type (
	Field      = wire.Field
	Form       = wire.Form
	FieldError = wire.FieldError
	State      = wire.State
)

// Fields lists the controls in display order: the fixed ones, then the device keys of
// model and the kernel switches (both read from the engine at runtime).
func Fields(model string) []Field {
	fieldsMu.Lock()
	defer fieldsMu.Unlock()
	if f, ok := fieldsCache[model]; ok {
		return f
	}
	f := fields(model)
	fieldsCache[model] = f
	return f
}

// fieldsCache memoizes Fields (the device parameters and kernel switches are fixed at
// build time; the page asks on every render).
var (
	fieldsMu    sync.Mutex
	fieldsCache = map[string][]Field{}
)

func fields(model string) []Field {
	var out []Field
	diskFields := func(group string) {
		for _, k := range engine.DiskKeys { // the first disk's controls: its --disk keys
			if k.Group == group {
				out = append(out, Field{ID: k.Key, Label: k.FormLabel(), Kind: k.Kind, Group: group, Help: k.Doc})
			}
		}
	}
	configFields := func(groups ...string) {
		for _, k := range engine.ConfigKeys {
			if k.Form != "" && slices.Contains(groups, k.Group) {
				kind := k.Kind
				if kind == "" {
					kind = "text"
				}
				out = append(out, Field{ID: k.Form, Label: k.Label, Kind: kind, Group: k.Group, Help: k.Help})
			}
		}
	}
	diskFields("workload")
	configFields("sysctl", "machine")
	out = append(out, Field{ID: "device", Label: "device preset", Kind: "select", Group: "device"})
	for _, p := range engine.DeviceParams(model) {
		help := p.Doc + " " + p.Range
		if p.Block {
			help = "block layer, set by the kernel preset (empty: the kernel's value, shown greyed): " + help
		}
		out = append(out, Field{ID: "dev." + p.Key, Label: p.Key, Kind: "text", Group: "device", Help: help})
	}
	diskFields("device")
	configFields("kernel")
	for _, sw := range engine.Switches() {
		out = append(out, Field{ID: "v." + sw.Name, Label: sw.Name, Kind: "tri", Group: "kernel", Help: sw.Doc + ". Models " + sw.Models + "; from " + sw.Source + "."})
	}
	out = append(out,
		Field{ID: "disks", Label: "further disks", Kind: "disks", Group: "disks",
			Help: "each further disk as DEVICE,fs=...,dd=...,editors=...,readers=...,max_ratio=... (wblab help run); the first disk is the device above"})
	configFields("run")
	return out
}

// Options lists a select field's choices, read from the engine.
func Options(id string) []string {
	switch id {
	case "fs":
		return engine.Filesystems()
	case "hz":
		return []string{"100", "250", "300", "1000"}
	case "device":
		var out []string
		for _, s := range engine.DevicePresets() {
			out = append(out, s.Name)
		}
		return out
	case "kernel":
		var out []string
		for _, p := range engine.KernelPresets() {
			out = append(out, p.Name)
		}
		return out
	}
	return nil
}

// TraceLines is how many trace lines "record trace" keeps.
const TraceLines = engine.PageTraceLines

// FormFromConfig renders cfg into control texts: the ConfigKeys and the first
// disk's DiskKeys by their rows, then the device, switches, reclaim, trace and
// further disks.
func FormFromConfig(cfg engine.Config) Form {
	f := Form{"device": cfg.Disks[0].Device.Name}
	for _, k := range engine.ConfigKeys {
		if k.Form != "" {
			f[k.Form] = k.Text(&cfg)
		}
	}
	for _, k := range engine.DiskKeys {
		f[k.Key] = k.Text(cfg.Disks[0])
	}
	for k, v := range deviceOverrides(cfg.Disks[0].Device) {
		f["dev."+k] = v
	}
	for k, v := range cfg.Disks[0].Block {
		f["dev."+k] = v
	}
	for k, v := range cfg.Variants {
		f["v."+k] = onOff(v)
	}
	if len(cfg.Disks) > 1 { // further disks, in the --disk form, ";"-separated
		specs := make([]string, len(cfg.Disks)-1)
		for i, d := range cfg.Disks[1:] {
			specs[i] = d.String()
		}
		f["disks"] = strings.Join(specs, ";")
	}
	return f
}

// deviceOverrides are the spec's keys that differ from its preset, as ParseSpec text.
func deviceOverrides(s engine.DeviceSpec) map[string]string {
	out := map[string]string{}
	parts := strings.Split(s.String(), ",")
	for _, kv := range parts[1:] {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = v
		}
	}
	return out
}

// DeviceValues are every key's value of a spec (for placeholders).
func DeviceValues(s engine.DeviceSpec) map[string]string {
	s.Name = "\x00" // not a preset: String lists every non-zero key
	out := deviceOverrides(s)
	for _, p := range engine.DeviceParams(s.Model) {
		if _, ok := out[p.Key]; !ok {
			out[p.Key] = "0"
			if p.Empty != "" {
				out[p.Key] = p.Empty
			}
		}
	}
	return out
}

// BlockValues are a block layer's keys as --device text values (for placeholders).
func BlockValues(b engine.Block) map[string]string {
	us := b.WBTLatNs / 1000
	return map[string]string{
		"max_sectors_kb": strconv.Itoa(b.MaxSectorsKB), "nr_requests": strconv.Itoa(b.NrRequests),
		"mq": onOff(b.BlkMQ), "plug_count": strconv.Itoa(b.PlugCount), "plug_bytes": fmtSize(b.PlugBytes),
		"wbt": onOff(b.WBT), "wbt_lat_us": strconv.FormatInt(us, 10), "wbt_depth": strconv.Itoa(b.WBTDepth),
		"wbt_qd1": onOff(b.WBTQD1), "wbt_v6": onOff(b.WBTV6), "wbt_draft": onOff(b.WBTDraft),
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// fmtSize prints bytes with the largest of G, M, k dividing them exactly (as the
// ConfigKeys' sizes print).
func fmtSize(n int64) string { return engine.FormatSize(n) }

// FormConfig builds and validates the Config the form describes. A parse or engine
// validation error comes back as a FieldError naming the control (the first of
// FormErrors).
func FormConfig(f Form) (engine.Config, *FieldError) {
	cfg, errs := FormErrors(f)
	if len(errs) > 0 {
		return cfg, &errs[0]
	}
	return cfg, nil
}

// FormErrors builds and validates the Config the form describes, with every bad
// input at once: each a FieldError naming its control and, in the message, its
// field and allowed range ("memory_MB: 0 MiB is out of range 64 MiB-256 GiB").
// A control whose text does not parse keeps the default value, so the engine's
// check of the rest still runs.
func FormErrors(f Form) (engine.Config, []FieldError) {
	cfg := engine.DefaultConfig()
	var errs []FieldError
	bad := func(id, msg string) {
		for _, e := range errs {
			if e.Field == id {
				return // one error per control: its parse error, else the engine's first
			}
		}
		errs = append(errs, FieldError{Field: id, Msg: msg})
	}
	for _, id := range sortedKeys(f) {
		if v := f[id]; strings.HasPrefix(id, "v.") && v != "on" && v != "off" && v != "" {
			bad(id, fmt.Sprintf("%s: %q: use on, off or empty (the kernel preset's switch)", id[2:], v))
		}
	}
	for _, k := range engine.ConfigKeys {
		if k.Form == "" {
			continue
		}
		if err := k.Parse(&cfg, f[k.Form]); err != nil {
			bad(k.Form, k.ParseError(err).Error())
		}
	}
	for _, k := range engine.DiskKeys {
		if err := k.Parse(&cfg.Disks[0], f[k.Key]); err != nil {
			bad(k.Key, err.Error())
		}
	}
	spec := f["device"]
	for _, k := range sortedKeys(f) {
		if strings.HasPrefix(k, "dev.") && strings.TrimSpace(f[k]) != "" {
			spec += "," + k[4:] + "=" + strings.TrimSpace(f[k])
		}
	}
	if err := keyRow("device").Parse(&cfg, spec); err != nil {
		bad(deviceField(err.Error(), f), err.Error())
	}
	var sw []string // the v.* controls, as --variants text
	for _, k := range sortedKeys(f) {
		if strings.HasPrefix(k, "v.") && (f[k] == "on" || f[k] == "off") {
			sw = append(sw, k[2:]+"="+strconv.FormatBool(f[k] == "on"))
		}
	}
	cfg.Variants = nil
	if err := keyRow("variants").Parse(&cfg, strings.Join(sw, ",")); err != nil {
		bad(fieldOf("variants: "+err.Error(), f), "variants: "+err.Error())
	}
	if v := strings.TrimSpace(f["disks"]); v != "" {
		for _, spec := range strings.Split(v, ";") {
			d, err := engine.ParseDisk(spec)
			if err != nil {
				bad("disks", err.Error())
				break
			}
			cfg.Disks = append(cfg.Disks, d)
		}
	}
	cfg.Case = harness.CaseOf(cfg).String() // the run's label in cards and exports
	if err := cfg.Validate(); err != nil {
		for _, e := range joined(err) {
			bad(fieldOf(e.Error(), f), e.Error())
		}
	}
	return cfg, errs
}

// keyRow is the ConfigKeys row of a setting the form composes from several
// controls (device: the preset and dev.*; variants: the v.* controls).
func keyRow(json string) engine.ConfigKey {
	k, ok := engine.LookupConfigKey(json)
	if !ok {
		panic("lab: no ConfigKeys row " + json)
	}
	return k
}

// joined are the errors errors.Join put together, or err alone.
func joined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// engineFields maps the engine's error prefixes to form fields; the ConfigKeys
// add theirs (JSON name to control), the DiskKeys the first disk's
// ("workload.dd" and "bdi.max_ratio" to the key).
var engineFields = func() map[string]string {
	m := map[string]string{
		"trace_lines": "trace", "trace_from": "trace_window", "trace_until": "trace_window",
		"dirty_bytes/dirty_ratio": "dirty_bytes", "dirty_background_bytes/dirty_background_ratio": "bg_bytes",
		"sample_interval": "runtime", "reclaim.anon_MB": "anon_mb", "workload.dd × runtime": "dd",
	}
	for _, k := range engine.ConfigKeys {
		if k.Form != "" {
			m[k.JSON] = k.Form
		}
	}
	for _, k := range engine.DiskKeys {
		m[k.Key], m["workload."+k.Key], m["bdi."+k.Key] = k.Key, k.Key, k.Key
	}
	return m
}()

// fieldOf finds the control an engine error message names ("workload.dd: ...").
func fieldOf(msg string, f Form) string {
	head, _, _ := strings.Cut(msg, ":")
	head, _, _ = strings.Cut(head, " (")
	if id, ok := engineFields[head]; ok {
		return id
	}
	if strings.HasPrefix(head, "variants") {
		for _, v := range engine.SwitchNames() {
			if strings.Contains(msg, v) {
				return "v." + v
			}
		}
		return "kernel"
	}
	if strings.HasPrefix(head, "device") {
		return deviceField(msg, f)
	}
	if strings.HasPrefix(head, "disks") || strings.HasPrefix(head, "disk:") || strings.HasPrefix(msg, "disk:") {
		return "disks" // "disks[1].bdi.max_ratio: ...", the disk list editor shows it
	}
	return "case"
}

// deviceField picks the device key a devices error names, else the preset select.
func deviceField(msg string, f Form) string {
	for k := range f {
		if !strings.HasPrefix(k, "dev.") {
			continue
		}
		key := k[4:]
		if strings.Contains(msg, "device."+key+" ") || strings.Contains(msg, "device."+key+":") ||
			strings.Contains(msg, ": "+key+"=") {
			return k
		}
	}
	return "device"
}

func sortedKeys(f Form) []string {
	out := make([]string, 0, len(f))
	for k := range f {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ApplyCase sets the controls a case name carries, keeping the others.
func ApplyCase(f Form, name string) (Form, *FieldError) {
	c, err := harness.ParseCase(strings.TrimSpace(name))
	if err != nil {
		return f, &FieldError{Field: "case", Msg: err.Error()}
	}
	if _, err := c.KernelPreset(); err != nil {
		return f, &FieldError{Field: "case", Msg: err.Error()}
	}
	cfg, _ := FormConfig(f) // a partly invalid form keeps what parsed
	c.Apply(&cfg)
	out := FormFromConfig(cfg)
	for k, v := range f { // keep texts of fields the case does not set
		if !caseFields[k] && k != "kernel" {
			out[k] = v
		}
	}
	return out, nil
}

// caseFields are the controls a case name sets.
var caseFields = map[string]bool{"fs": true, "dd": true, "bs": true, "cpus": true, "memory": true,
	"dirty_bytes": true, "dirty_ratio": true, "bg_bytes": true, "bg_ratio": true}

// CaseName is the case name of the form's config, or "" when the form is invalid.
func CaseName(f Form) string {
	cfg, err := FormConfig(f)
	if err != nil {
		return ""
	}
	return harness.CaseOf(cfg).String()
}
