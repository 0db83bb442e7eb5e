package lab

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/repro"
)

func TestReproPresetsConfigure(t *testing.T) {
	want := map[string]map[string]string{
		"chinner2010":     {"fs": "xfs", "dd": "1", "bs": "1M", "count": "102400", "dirty_ratio": "20", "device": "chinner2010-vm", "kernel": "2.6.36-rc1", "mode": "ab", "b": "2.6.36-rc1+fix"},
		"wu2011":          {"device": engine.DefaultDevice, "kernel": "3.1.0-rc9-ioless-full", "mode": "matrix", "table": "T1", "b": "3.1.0-rc9-ioless-full-more_io_wait-5"},
		"axboe2009":       {"fs": "ext4", "device": "x25e", "cpus": "4", "memory": "2048", "kernel": "2.6.30-rc6", "mode": "ab", "b": "2.6.30-rc6+per-bdi"},
		"modern":          {"fs": "ext4", "dd": "10", "kernel": "3.1.0-rc9-ioless-full", "device": engine.DefaultDevice, "mode": "ab", "b": "6.1"},
		"kara2016":        {"fs": "ext3", "dd": "1", "bs": "1M", "count": "10000", "fsync": "on", "device": "kara2016-qd1", "kernel": "4.6", "mode": "ab", "b": "4.6+wbt+qd1"},
		"usbstick":        {"fs": "ext4", "dd": "1", "bs": "1M", "count": "1024", "device": "usb2-stick", "kernel": "3.1.0-rc9-ioless-full", "mode": "ab", "b": "6.1", "anon_mb": "3584", "swap": "on"},
		"wu2011stick":     {"fs": "ext4", "dd": "1000", "bs": "4k", "device": "usb2-stick", "kernel": "3.1.0-rc9-ioless-full", "mode": "ab", "b": "3.1.0-rc9-ioless-full", "v.bdp_global_exit": "on"},
		"axboe2009disks":  {"fs": "ext4", "dd": "1", "bs": "1M", "device": "x25e", "kernel": "2.6.30-rc6", "mode": "ab", "b": "2.6.30-rc6+per-bdi"},
		"strictlimitidle": {"fs": "ext4", "dd": "1", "bs": "1M", "count": "256", "device": "usb2-stick", "kernel": "6.1", "mode": "ab", "b": "6.12"},
	}
	if len(Repros()) != len(want) {
		t.Fatalf("%d presets", len(Repros()))
	}
	for _, r := range Repros() {
		w := want[r.ID]
		st := r.State
		for k, v := range w {
			got := st.Form[k]
			switch k {
			case "mode":
				got = st.Mode
			case "table":
				got = st.Table
			case "b":
				got = st.B["kernel"]
			}
			if got != v {
				t.Errorf("%s: %s = %q, want %q", r.ID, k, got, v)
			}
		}
		for _, e := range repro.Experiments() {
			if e.ID == r.ID {
				cfg, err := e.Setup()
				require.NoError(t, err)
				assert.Equal(t, FormFromConfig(cfg), st.Form, "%s: the controls are the reproduction's config", r.ID)
			}
		}
		if n := strings.Count(r.Explain, ". ") + 1; n != 2 || !strings.HasSuffix(r.Explain, ".") {
			t.Errorf("%s: explanation is not two sentences: %q", r.ID, r.Explain)
		}
		_, ferr := FormConfig(st.Form)
		if len(r.Missing) == 0 {
			if ferr != nil {
				t.Errorf("%s: %v", r.ID, ferr)
			}
			b := st.Form.Clone()
			b["kernel"] = st.B["kernel"]
			if _, ferr := FormConfig(b); ferr != nil {
				t.Errorf("%s B: %v", r.ID, ferr)
			}
		} else if ferr == nil || ferr.Field != "kernel" || len(r.Missing) == 0 {
			t.Errorf("%s: kernels missing (%s) but the form error is %v", r.ID, r.Missing, ferr)
		}
		t.Logf("%s: available %v (missing: %s)", r.ID, len(r.Missing) == 0, r.Missing)
		// the link keeps the preset
		back, err := DecodeHash(EncodeHash(st))
		if err != nil || back.Repro != r.ID || back.Mode != r.State.Mode || back.B["kernel"] != r.State.B["kernel"] {
			t.Errorf("%s: link lost the preset: %+v %v", r.ID, back, err)
		}
	}
}

// TestFormLimits: the page refuses what the engine refuses, at the control, saying the limit.
func TestFormLimits(t *testing.T) {
	f := FormFromConfig(engine.DefaultConfig())
	for _, c := range []struct{ id, v, want string }{
		{"dd", "100000", "workload.dd: 100000 is out of range 1-10000"},
		{"memory", "1048576", "memory_MB: 1 TiB is out of range 64 MiB-256 GiB"},
		{"runtime", "1ns", "runtime: 1 ns is out of range 1 ms-24 h"},
		{"runtime", "8760h", "runtime: 8760 h is out of range 1 ms-24 h"},
		{"dev.qd", "0", "qd"},
		{"cpus", "1000", "cpus: 1000 is out of range 1-256"},
		{"bs", "1G", "workload.bs"},
		{"fsync", "maybe", `fsync: "maybe": want on or off`},
		{"v.scaled_chunk", "maybe", `"maybe": use on, off or empty`},
	} {
		g := f.Clone()
		g[c.id] = c.v
		_, err := FormConfig(g)
		if err == nil || err.Field != c.id || !strings.Contains(err.Msg, c.want) {
			t.Errorf("%s=%s: got %v, want %q at %s", c.id, c.v, err, c.want, c.id)
		}
	}
}
