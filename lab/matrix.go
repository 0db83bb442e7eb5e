package lab

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/harness"
	"github.com/wblab/wblab/ui/wire"
)

// Tables are Wu 2011's tables T1..T6, read from the harness's matrices (once, when
// first asked: not in every engine worker's start).
var Tables = sync.OnceValue(func() []wire.Table {
	var out []wire.Table
	for _, name := range harness.Matrices() {
		m, err := harness.LookupMatrix(name)
		if err != nil {
			continue
		}
		t := wire.Table{Name: strings.TrimPrefix(m.Name, "wu-2011-"), Base: m.Base, Test: m.Test}
		for _, r := range m.Rows {
			t.Cases = append(t.Cases, r.Case)
			t.BaseBW = append(t.BaseBW, r.ThreadBaseMBps)
			t.TestBW = append(t.TestBW, r.ThreadTestMBps)
		}
		t.Setup = FormFromConfig(tableSetup(t))
		out = append(out, t)
	}
	return out
})

// TableByName finds a built-in table.
func TableByName(name string) (wire.Table, bool) {
	for _, t := range Tables() {
		if t.Name == name {
			return t, true
		}
	}
	return wire.Table{}, false
}

// tableSetup is the thread's run of the table (the harness: the default config,
// 600 s, seed 1, with the base kernel); each case then sets its own fields.
func tableSetup(t wire.Table) engine.Config {
	cfg := engine.DefaultConfig()
	cfg.Kernel = t.Base
	return cfg
}

// SetupDiffs lists where base (A's config) and test (B's) differ from the thread's
// setup for case name, as "field ours (thread: theirs)".
func SetupDiffs(t wire.Table, name string, base, test engine.Config) []string {
	c, err := harness.ParseCase(name)
	if err != nil {
		return nil
	}
	want := tableSetup(t)
	c.Apply(&want)
	wantB := want
	wantB.Kernel = t.Test
	var out []string
	for _, p := range []struct {
		side      string
		got, want engine.Config
	}{{"A", base, want}, {"B", test, wantB}} {
		got := p.got
		c.Apply(&got)
		for _, d := range configDiffs(got, p.want) {
			if p.side == "B" && !strings.HasPrefix(d, "kernel") && !strings.HasPrefix(d, "variants") {
				continue // B shares A's fields
			}
			out = append(out, p.side+" "+d)
		}
	}
	return out
}

// configDiffs compares two configs field by field (their JSON), as
// "field ours (thread: theirs)".
func configDiffs(got, want engine.Config) []string {
	flat := func(c engine.Config) map[string]string {
		b, _ := json.Marshal(c)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		out := map[string]string{}
		var walk func(prefix string, v any)
		walk = func(prefix string, v any) {
			if mm, ok := v.(map[string]any); ok {
				for k, x := range mm {
					walk(strings.TrimPrefix(prefix+"."+k, "."), x)
				}
				return
			}
			b, _ := json.Marshal(v)
			out[prefix] = string(b)
		}
		walk("", m)
		return out
	}
	g, w := flat(got), flat(want)
	keys := map[string]bool{}
	for k := range g {
		keys[k] = true
	}
	for k := range w {
		keys[k] = true
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if g[k] != w[k] {
			out = append(out, fmt.Sprintf("%s %s (thread: %s)", k, human(g[k]), human(w[k])))
		}
	}
	return out
}

// human shows a config JSON value: durations as Go durations, strings unquoted.
func human(v string) string {
	if v == "" || v == "null" {
		return "unset"
	}
	if s, err := strconv.Unquote(v); err == nil {
		return s
	}
	return v
}

// PlanMatrix is a matrix's runs: every case on A's config (base) and B's (test),
// seeds paired across the columns, summary runs.
func PlanMatrix(q wire.MatrixPlan) wire.Planned {
	var p wire.Planned
	cfg, bcfg, errs := configs(q.State)
	if len(errs) > 0 {
		p.Err = &errs[0]
		return p
	}
	p.Base, p.Test = kernelLabel(cfg), kernelLabel(bcfg)
	p.Header = harness.TableHeader(p.Base, p.Test)
	if len(q.Cases) == 0 {
		p.Err = &FieldError{Field: "cases", Msg: "cases: the list is empty"}
		return p
	}
	if t, ok := TableByName(q.State.Table); ok {
		p.Diffs = SetupDiffs(t, q.Cases[0], cfg, bcfg)
	}
	p.Cells = make([][2]wire.MatrixCell, len(q.Cases))
	for i, name := range q.Cases {
		for col, base := range []engine.Config{cfg, bcfg} {
			cc, err := harness.ParseCase(name)
			if err != nil {
				p.Cells[i][col].Err = err.Error()
				continue
			}
			run := base
			cc.Apply(&run)
			if err := run.Validate(); err != nil {
				p.Cells[i][col].Err = err.Error()
				continue
			}
			for s := range max(q.Seeds, 1) {
				r := run
				r.Seed = run.Seed + uint64(s)
				p.Cells[i][col].Configs = append(p.Cells[i][col].Configs, configJSON(r))
			}
		}
	}
	return p
}
