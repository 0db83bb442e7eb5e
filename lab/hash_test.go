package lab

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wblab/wblab/engine"
)

func cfgJSON(t *testing.T, f Form) string {
	t.Helper()
	cfg, err := FormConfig(f)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	cfg.Case = ""
	b, _ := json.Marshal(cfg)
	return string(b)
}

func TestHashRoundTrip(t *testing.T) {
	f := FormFromConfig(engine.DefaultConfig())
	edits := []map[string]string{
		{},
		{"dd": "10", "count": "1000", "fsync": "on", "seed": "7", "runtime": "30s"},
		{"dirty_bytes": "", "dirty_ratio": "20", "bg_bytes": "50M", "bg_ratio": "0", "hz": "250"},
		{"expire": "1500", "writeback": "100", "trace": "on", "memory": "1024", "cpus": "2"},
		{"trace": "on", "trace_window": "100s-110s"},
		{"disks": "usb2-stick,fs=ext4,dd=1,bs=1M,count=64,max_ratio=5;nvme,fs=xfs,editors=1"},
		{"anon_mb": "3500", "swap": "on", "readers": "1", "read_random": "on", "editors": "2", "max_ratio": "50", "editor_interval": "500ms"},
	}
	for _, vn := range []string{"scaled_chunk", "wcp_terminate_le0"} {
		edits = append(edits, map[string]string{"v." + vn: "off"})
	}
	for _, e := range edits {
		g := f.Clone()
		for k, v := range e {
			g[k] = v
		}
		h := EncodeHash(State{Form: g, Mode: "ab", B: Form{"kernel": g["kernel"], "v.scaled_chunk": "off"}})
		if !strings.HasPrefix(h, "v=1&case=") {
			t.Fatalf("hash %q", h)
		}
		s, err := DecodeHash("#" + h)
		if err != nil {
			t.Fatalf("decode %q: %v", h, err)
		}
		if a, b := cfgJSON(t, g), cfgJSON(t, s.Form); a != b {
			t.Errorf("hash %q\n got %s\nwant %s", h, b, a)
		}
		if s.Mode != "ab" || s.B["v.scaled_chunk"] != "off" {
			t.Errorf("hash %q: mode/B lost: %+v", h, s)
		}
	}
}

func TestHashCaseName(t *testing.T) {
	s, err := DecodeHash("#v=1&case=thresh=100M/generic-10dd-4k-8p-4096M-100M:10-X&seed=3")
	if err != nil {
		t.Fatal(err)
	}
	if s.Form["dd"] != "10" || s.Form["seed"] != "3" {
		t.Fatalf("form %v", s.Form)
	}
	if _, err := DecodeHash("#v=9"); err == nil {
		t.Fatal("v=9 accepted")
	}
}

func TestFormErrors(t *testing.T) {
	f := FormFromConfig(engine.DefaultConfig())
	for id, v := range map[string]string{"dd": "0", "fs": "ntfs", "bs": "3000", "memory": "x", "runtime": "forever", "cpus": "999"} {
		g := f.Clone()
		g[id] = v
		if _, err := FormConfig(g); err == nil || err.Field != id {
			t.Errorf("%s=%q: got %v, want an error on %s", id, v, err, id)
		}
	}
}
