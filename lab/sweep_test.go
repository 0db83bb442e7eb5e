package lab

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/ui/wire"
)

// TestPlanSweep: the page's sweep asks the engine for its runs: every threshold
// and dd count on the chosen filesystems, each config on the form's machine (its
// kernel, run length, seed), with the seeds asked for (seed, seed+1, ... per cell); a
// bad form or filesystem is the answer's error.
func TestPlanSweep(t *testing.T) {
	form := func(kv ...string) Form {
		f := FormFromConfig(engine.DefaultConfig())
		for i := 0; i+1 < len(kv); i += 2 {
			f[kv[i]] = kv[i+1]
		}
		return f
	}
	for _, tc := range []struct {
		name    string
		form    Form
		fs      []string
		seeds   int
		runs    int
		errWant string
	}{
		{"two filesystems", form("runtime", "2m0s", "seed", "7"), []string{"ext4", "xfs"}, 0, 48, ""},
		{"default filesystems", form(), nil, 1, 96, ""},
		{"five seeds", form("seed", "3"), []string{"btrfs"}, 5, 120, ""},
		{"bad filesystem", form(), []string{"zfs"}, 1, 0, "zfs"},
		{"bad form", form("runtime", "-3s"), []string{"ext4"}, 1, 0, "runtime"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := Answer("sweep", mustJSON(t, wire.SweepPlan{State: State{Form: tc.form, Mode: "sweep"}, Filesystems: tc.fs, Seeds: tc.seeds}))
			require.NoError(t, err)
			var p wire.SweepPlanned
			require.NoError(t, json.Unmarshal(raw, &p))
			if tc.errWant != "" {
				require.NotNil(t, p.Err)
				assert.Contains(t, p.Err.Error(), tc.errWant)
				return
			}
			require.Nil(t, p.Err)
			require.Len(t, p.Runs, tc.runs)
			want, ferr := FormConfig(tc.form)
			require.Nil(t, ferr)
			assert.Equal(t, max(tc.seeds, 1), p.Seeds)
			seen := map[string]bool{}
			for i, r := range p.Runs {
				assert.Equal(t, i%p.Seeds, r.Seed, "a cell's seeds follow each other")
				var c engine.Config
				require.NoError(t, json.Unmarshal([]byte(r.Config), &c))
				assert.Equal(t, r.FS, c.Disks[0].Filesystem)
				assert.Equal(t, int64(r.ThreshMB)<<20, c.DirtyBytes)
				assert.Equal(t, r.DD, c.Disks[0].Workload.DD)
				assert.Equal(t, want.Kernel, c.Kernel)
				assert.Equal(t, want.Runtime, c.Runtime)
				assert.Equal(t, want.Seed+uint64(r.Seed), c.Seed)
				assert.Equal(t, want.Disks[0].Device.Name, c.Disks[0].Device.Name)
				seen[r.FS] = true
			}
			assert.Len(t, seen, len(p.Filesystems))
			assert.Equal(t, want.Runtime.Time().Seconds(), p.RuntimeS)
		})
	}
}

// TestDecodeHashSweepMode: a link may open the sweep.
func TestDecodeHashSweepMode(t *testing.T) {
	st, ferr := DecodeHash("#v=1&mode=sweep")
	require.Nil(t, ferr)
	assert.Equal(t, "sweep", st.Mode)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
