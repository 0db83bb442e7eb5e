package lab

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/ui/wire"
)

// Answer answers one of the page's questions (wire: kind "catalog", "check",
// "decode", "case", "matrix", "sweep", "neverran", "measured", "accuracy") with the request and answer
// as JSON. The engine worker calls it for the page's "ask" messages
// (wasm/worker/PROTOCOL.md); the ui package's native tests call it directly.
func Answer(kind string, req []byte) ([]byte, error) {
	var out any
	switch kind {
	case "catalog":
		out = NewCatalog()
	case "check":
		var q wire.Check
		if err := json.Unmarshal(req, &q); err != nil {
			return nil, err
		}
		out = Check(q.State)
	case "decode":
		var q wire.Decode
		if err := json.Unmarshal(req, &q); err != nil {
			return nil, err
		}
		st, ferr := DecodeHash(q.Hash)
		out = wire.Decoded{State: st, Err: ferr}
	case "case":
		var q wire.ApplyCase
		if err := json.Unmarshal(req, &q); err != nil {
			return nil, err
		}
		f, ferr := ApplyCase(q.Form, q.Name)
		out = wire.CaseApplied{Form: f, Err: ferr}
	case "matrix":
		var q wire.MatrixPlan
		if err := json.Unmarshal(req, &q); err != nil {
			return nil, err
		}
		out = PlanMatrix(q)
	case "sweep":
		var q wire.SweepPlan
		if err := json.Unmarshal(req, &q); err != nil {
			return nil, err
		}
		out = PlanSweep(q)
	case "neverran":
		var q wire.NeverRan
		if err := json.Unmarshal(req, &q); err != nil {
			return nil, err
		}
		out = wire.NeverRanText{Text: NeverRanText(q)}
	case "measured":
		var q wire.MeasuredAsk
		if err := json.Unmarshal(req, &q); err != nil {
			return nil, err
		}
		var cfg engine.Config
		if err := json.Unmarshal([]byte(q.Config), &cfg); err != nil {
			return nil, fmt.Errorf("measured: config: %v", err)
		}
		out, err := measuredAnswer(cfg)
		if err != nil {
			return nil, err // the page shows it as the overlay's note
		}
		return json.Marshal(out)
	case "accuracy":
		var q wire.AccuracyAsk
		if err := json.Unmarshal(req, &q); err != nil {
			return nil, err
		}
		var cfg engine.Config
		if err := json.Unmarshal([]byte(q.Config), &cfg); err != nil {
			return nil, fmt.Errorf("accuracy: config: %v", err)
		}
		out, err := AccuracyFor(cfg)
		if err != nil {
			return nil, err
		}
		return json.Marshal(out)
	default:
		return nil, fmt.Errorf("ask: unknown question %q", kind)
	}
	return json.Marshal(out)
}

// Check is a state as the page runs it: its link, A's case name, A's (and in A/B
// and matrix mode B's) config, the extra seeds' configs, or every bad input (Errs,
// keyed by control; Err the first).
func Check(st State) wire.Checked {
	out := wire.Checked{Hash: EncodeHash(st), CaseBox: CaseName(st.Form)}
	cfg, bcfg, errs := configs(st)
	if len(errs) > 0 {
		out.Err, out.Errs = &errs[0], errs
		return out
	}
	a := runOf(pageConfig(cfg))
	out.A = &a
	out.SeedsA = seedConfigs(cfg, st.Seeds)
	if st.Mode == "ab" || st.Mode == "matrix" {
		b := runOf(pageConfig(bcfg))
		out.B = &b
		if st.Mode == "ab" {
			out.SeedsB = seedConfigs(bcfg, st.Seeds)
		}
	}
	return out
}

// configs are A's config and B's (A's with B's kernel and switches) and every
// bad input; an error in B's controls names "b."+field.
func configs(st State) (a, b engine.Config, errs []FieldError) {
	a, errs = FormErrors(st.Form)
	if len(errs) > 0 {
		return a, b, errs
	}
	g := st.Form.Clone()
	for k := range g {
		if strings.HasPrefix(k, "v.") {
			delete(g, k)
		}
	}
	for k, v := range st.B {
		g[k] = v
	}
	if g["kernel"] == "" {
		g["kernel"] = st.Form["kernel"]
	}
	b, berrs := FormErrors(g)
	if st.Mode == "ab" || st.Mode == "matrix" {
		for _, e := range berrs {
			errs = append(errs, FieldError{Field: "b." + e.Field, Msg: e.Msg})
		}
	}
	return a, b, errs
}

// seedConfigs are cfg with seeds seed+1 .. seed+n-1 (the page's extra seeds).
func seedConfigs(cfg engine.Config, n int) []string {
	var out []string
	for i := 1; i < n; i++ {
		r := cfg
		r.Seed = cfg.Seed + uint64(i)
		out = append(out, configJSON(r))
	}
	return out
}

// pageConfig is cfg as the page runs it (single and A/B): with the per-inode and
// per-task detail its views show (recording it does not change the run).
func pageConfig(cfg engine.Config) engine.Config {
	cfg.Detail = true
	return cfg
}

func configJSON(cfg engine.Config) string {
	b, _ := json.Marshal(cfg)
	return string(b)
}

// runOf is cfg with what the page shows about it.
func runOf(cfg engine.Config) wire.Run {
	return wire.Run{Config: configJSON(cfg), Preset: cfg.Kernel, Kernel: kernelLabel(cfg), Device: cfg.Disks[0].Device.String(),
		Runtime: cfg.Runtime.String(), Absent: AbsentColumns(cfg)}
}

// kernelLabel is the kernel preset with the switches set.
func kernelLabel(cfg engine.Config) string {
	s := cfg.Kernel
	for _, k := range sortedKeys(FormFromConfig(cfg)) {
		if strings.HasPrefix(k, "v.") {
			s += fmt.Sprintf(" %s=%s", k[2:], onOff(cfg.Variants[k[2:]]))
		}
	}
	return s
}

// ioLessColumns exist only in kernels with IO-less balance_dirty_pages (v3.2+): the
// dirty ratelimits and the setpoint of bdi_position_ratio. An IO-full kernel
// (2.6.30, 2.6.36) throttles by writing back itself and has none of them.
var ioLessColumns = []string{"setpoint_MB", "dirty_ratelimit_MBps", "balanced_ratelimit_MBps", "task_ratelimit_MBps"}

// AbsentColumns are the series cfg's kernel does not have.
func AbsentColumns(cfg engine.Config) map[string]bool {
	v, err := variantsOf(cfg)
	if ioFull, _ := v.Get("io_full_throttle"); err != nil || !ioFull {
		return nil
	}
	out := map[string]bool{}
	for _, c := range ioLessColumns {
		out[c] = true
	}
	return out
}

// NeverRanText is the A/B sentence naming the switches the two configs differ in
// whose paths ran zero times in both runs, or "".
func NeverRanText(q wire.NeverRan) string {
	var ca, cb engine.Config
	if json.Unmarshal([]byte(q.A), &ca) != nil || json.Unmarshal([]byte(q.B), &cb) != nil {
		return ""
	}
	va, erra := variantsOf(ca)
	vb, errb := variantsOf(cb)
	if erra != nil || errb != nil {
		return ""
	}
	names := engine.NeverRan(va, vb, q.ActA, q.ActB)
	if len(names) == 0 {
		return ""
	}
	return strings.Join(names, ", ") + ": this change never ran in this case"
}

func variantsOf(cfg engine.Config) (engine.Variants, error) {
	p, err := engine.LookupKernel(cfg.Kernel)
	if err != nil {
		return engine.Variants{}, err
	}
	return cfg.Variants.Apply(p.Variants)
}
