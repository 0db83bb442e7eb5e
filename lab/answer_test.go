package lab

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/ui/wire"
)

func TestTables(t *testing.T) {
	ts := Tables()
	if len(ts) != 6 || ts[0].Name != "T1" || len(ts[0].Cases) != 24 {
		t.Fatalf("tables: %d", len(ts))
	}
}

func TestHashSeeds(t *testing.T) {
	f := FormFromConfig(engine.DefaultConfig())
	h := EncodeHash(State{Form: f, Seeds: 5})
	assert.Contains(t, h, "&seeds=5")
	s, ferr := DecodeHash("#" + h)
	require.Nil(t, ferr)
	assert.Equal(t, 5, s.Seeds)
	assert.NotContains(t, EncodeHash(State{Form: f, Seeds: 1}), "seeds=", "one seed is the default")
	for _, bad := range []string{"0", "21", "x"} {
		_, ferr := DecodeHash("#" + EncodeHash(State{Form: f}) + "&seeds=" + bad)
		require.NotNil(t, ferr, bad)
		assert.Contains(t, ferr.Msg, "want a number of seeds in [1, 20]", bad)
	}
}

func TestTableSetupDiffs(t *testing.T) {
	t2, ok := TableByName("T2")
	if !ok || t2.Base == t2.Test {
		t.Fatalf("T2 %+v", t2)
	}
	same := tableSetup(t2)
	b := same
	b.Kernel = t2.Test
	short := same
	short.Runtime = engine.Duration(10 * time.Second)
	for _, tc := range []struct {
		name       string
		base, test engine.Config
		want       []string
	}{
		{"the thread's setup", same, b, nil},
		{"B on the base kernel", same, same, []string{"B kernel " + t2.Base + " (thread: " + t2.Test + ")"}},
		{"a short runtime", short, b, []string{"A runtime 10s (thread: 10m0s)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SetupDiffs(t2, t2.Cases[0], tc.base, tc.test)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("diffs %q, want %q", got, tc.want)
			}
		})
	}
}

// The page with no hash runs the first page's form; boot.js starts
// engine.FirstPageConfig() before the UI exists, and the UI takes that run over only
// when the two JSON texts are equal.
func TestDefaultFormIsTheEarlyRun(t *testing.T) {
	c := NewCatalog()
	ck := Check(State{Form: c.FirstPage.Clone()})
	require.Nil(t, ck.Err)
	require.Equal(t, c.FirstPageJSON, ck.A.Config)
	b, err := json.Marshal(engine.FirstPageConfig())
	require.NoError(t, err)
	require.Equal(t, string(b), c.FirstPageJSON)
}

// TestAnswerEveryKind: every question the page asks goes through JSON both ways and
// says something; a bad question is an error naming it.
func TestAnswerEveryKind(t *testing.T) {
	c := NewCatalog()
	ab := State{Form: c.Default.Clone(), Mode: "ab", B: Form{"kernel": "6.1"}, Seeds: 3}
	tests := []struct {
		kind string
		req  any
		resp any
		ok   func(t *testing.T, resp any)
	}{
		{"catalog", nil, &wire.Catalog{}, func(t *testing.T, r any) {
			got := r.(*wire.Catalog)
			assert.Equal(t, len(engine.Switches()), len(got.Switches))
			assert.Equal(t, len(engine.KernelPresets()), len(got.KernelDocs))
			assert.NotEmpty(t, got.SeriesDocs["dirty_MB"].Kernel)
			assert.Len(t, got.Tables, 6)
		}},
		{"check", wire.Check{State: ab}, &wire.Checked{}, func(t *testing.T, r any) {
			got := r.(*wire.Checked)
			require.Nil(t, got.Err)
			require.NotNil(t, got.B)
			assert.Equal(t, "6.1", got.B.Preset)
			assert.Len(t, got.SeedsA, 2)
			assert.Len(t, got.SeedsB, 2)
			assert.Contains(t, got.Hash, "mode=ab")
			assert.Equal(t, "thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X", got.CaseBox)
		}},
		{"check", wire.Check{State: State{Form: Form{"dd": "x"}}}, &wire.Checked{}, func(t *testing.T, r any) {
			got := r.(*wire.Checked)
			require.NotNil(t, got.Err)
			assert.Equal(t, "dd", got.Err.Field)
			assert.Nil(t, got.A)
		}},
		{"decode", wire.Decode{Hash: "#v=1&case=thresh=1G/xfs-10dd-4k-8p-4096M-1024M:10-X&mode=ab"}, &wire.Decoded{}, func(t *testing.T, r any) {
			got := r.(*wire.Decoded)
			require.Nil(t, got.Err)
			assert.Equal(t, "xfs", got.State.Form["fs"])
			assert.Equal(t, "ab", got.State.Mode)
		}},
		{"case", wire.ApplyCase{Form: c.Default.Clone(), Name: "thresh=8M/ext4-100dd-4k-8p-4096M-8M:10-X"}, &wire.CaseApplied{}, func(t *testing.T, r any) {
			got := r.(*wire.CaseApplied)
			require.Nil(t, got.Err)
			assert.Equal(t, "100", got.Form["dd"])
		}},
		{"case", wire.ApplyCase{Form: c.Default.Clone(), Name: "nonsense"}, &wire.CaseApplied{}, func(t *testing.T, r any) {
			assert.Equal(t, "case", r.(*wire.CaseApplied).Err.Field)
		}},
		{"matrix", wire.MatrixPlan{State: State{Form: c.Tables[0].Setup, B: Form{"kernel": c.Tables[0].Test}, Mode: "matrix", Table: "T1"},
			Cases: c.Tables[0].Cases, Seeds: 2}, &wire.Planned{}, func(t *testing.T, r any) {
			got := r.(*wire.Planned)
			require.Nil(t, got.Err)
			require.Len(t, got.Cells, 24)
			assert.Len(t, got.Cells[0][1].Configs, 2)
			assert.Empty(t, got.Diffs, "T1's own setup")
			assert.True(t, strings.HasPrefix(got.Header, "3.1.0-rc9"), got.Header)
		}},
		{"measured", wire.MeasuredAsk{Config: configJSON(MeasuredCases()[0].Cfg)}, &wire.MeasuredMatch{}, func(t *testing.T, r any) {
			got := r.(*wire.MeasuredMatch)
			require.NotNil(t, got.Match)
			assert.Equal(t, MeasuredCases()[0].Name, got.Match.Name)
			assert.NotEmpty(t, got.Match.Series.Names)
			assert.Positive(t, got.Match.WriteBWMBps)
			assert.Len(t, got.Links, len(MeasuredCases()))
		}},
		{"measured", wire.MeasuredAsk{Config: c.FirstPageJSON}, &wire.MeasuredMatch{}, func(t *testing.T, r any) {
			got := r.(*wire.MeasuredMatch)
			assert.Nil(t, got.Match, "the first page's case has no reference")
			assert.Empty(t, got.Links, "a 3.1 case: the page offers no links and the worker loads no references")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			req, err := json.Marshal(tc.req)
			require.NoError(t, err)
			out, err := Answer(tc.kind, req)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(out, tc.resp))
			tc.ok(t, tc.resp)
		})
	}
	_, err := Answer("nonsense", nil)
	assert.ErrorContains(t, err, `unknown question "nonsense"`)
	_, err = Answer("measured", []byte(`{"Config":"{"}`))
	assert.ErrorContains(t, err, "measured: config")
}

func TestChartsForTheKernel(t *testing.T) {
	for _, tc := range []struct {
		kernel string
		absent bool
	}{{"2.6.30-rc6", true}, {"2.6.36-rc1", true}, {"3.1.0-rc9-ioless-full", false}, {"6.1", false}} {
		cfg := engine.DefaultConfig()
		cfg.Kernel = tc.kernel
		assert.Equal(t, tc.absent, AbsentColumns(cfg)["setpoint_MB"], tc.kernel)
	}
}

// TestDevicePlaceholders: each device field's placeholder is the preset's value;
// a choice the spec leaves empty shows what empty means (destage_age: run), and
// the form takes the other choice.
func TestDevicePlaceholders(t *testing.T) {
	c := NewCatalog()
	hdd := c.DeviceValues["wu2011-hdd"]
	assert.Equal(t, "run", hdd["destage_age"])
	assert.Equal(t, "cfq", hdd["elevator"])
	assert.Equal(t, "16", hdd["wcache_segs"])
	f := c.Default.Clone()
	f["device"], f["dev.destage_age"] = "wu2011-hdd", "write"
	cfg, ferr := FormConfig(f)
	require.Nil(t, ferr)
	assert.Equal(t, "write", cfg.Disks[0].Device.DestageAge)
	f["dev.destage_age"] = "never"
	_, ferr = FormConfig(f)
	require.NotNil(t, ferr)
	assert.Equal(t, "dev.destage_age", ferr.Field)
	assert.Contains(t, ferr.Error(), "run|write")
}
