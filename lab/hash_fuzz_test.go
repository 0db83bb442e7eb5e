package lab

import (
	"encoding/json"
	"strings"
	"testing"
)

// controlIDs are the ids a FieldError may name: every control (any device model), the
// case box (links and case names) and the matrix case list.
func controlIDs() map[string]bool {
	ids := map[string]bool{"case": true, "cases": true}
	for _, m := range []string{""} {
		for _, f := range Fields(m) {
			ids[f.ID] = true
		}
	}
	return ids
}

func knownField(id string) bool {
	return controlIDs()[id] || strings.HasPrefix(id, "dev.") || strings.HasPrefix(id, "v.") || strings.HasPrefix(id, "b.")
}

// FuzzDecodeHash checks the page's URL-hash decoder: it never panics; every rejection
// (by the decoder or by the form it fills) is shown at a control and its message names
// the key or the engine field; a hash that decodes to a valid config round-trips
// through EncodeHash to the same config and page state. Seeds are in
// testdata/fuzz/FuzzDecodeHash.
func FuzzDecodeHash(f *testing.F) {
	f.Add("#v=1&case=thresh=100M/xfs-10dd-4k-8p-4096M-100M:10-X&kernel=3.1.0-rc9-ioless-full&runtime=60s&seed=2")
	f.Fuzz(func(t *testing.T, h string) {
		st, err := DecodeHash(h)
		if err != nil {
			if !knownField(err.Field) || err.Msg == "" {
				t.Fatalf("DecodeHash(%q): error %+v does not name a control", h, err)
			}
			if err.Field == "case" && !strings.HasPrefix(err.Msg, "link: ") && !strings.HasPrefix(err.Msg, "case.") {
				t.Fatalf("DecodeHash(%q): error %q names neither a link key nor a case part", h, err.Msg)
			}
			return
		}
		cfg, ferr := FormConfig(st.Form)
		if ferr != nil {
			if !knownField(ferr.Field) || ferr.Msg == "" || ferr.Field == "case" {
				t.Fatalf("DecodeHash(%q): form error %+v is not at a control", h, ferr)
			}
			return
		}
		h2 := EncodeHash(st)
		st2, err := DecodeHash(h2)
		if err != nil {
			t.Fatalf("DecodeHash(%q) → EncodeHash %q: %v", h, h2, err)
		}
		cfg2, ferr := FormConfig(st2.Form)
		if ferr != nil {
			t.Fatalf("DecodeHash(%q) → EncodeHash %q: config %v", h, h2, ferr)
		}
		cfg.Case, cfg2.Case = "", ""
		a, _ := json.Marshal(cfg)
		b, _ := json.Marshal(cfg2)
		if string(a) != string(b) {
			t.Fatalf("round trip of %q via %q:\n got %s\nwant %s", h, h2, b, a)
		}
		if st.Mode != st2.Mode || st.Embed != st2.Embed || st.Table != st2.Table || st.Repro != st2.Repro {
			t.Fatalf("round trip of %q via %q: state %+v != %+v", h, h2, st2, st)
		}
		for k, v := range st.B {
			if v != "" && st2.B[k] != v {
				t.Fatalf("round trip of %q via %q: B[%s] %q != %q", h, h2, k, st2.B[k], v)
			}
		}
		if h3 := EncodeHash(st2); h3 != h2 {
			t.Fatalf("EncodeHash not stable for %q: %q then %q", h, h2, h3)
		}
	})
}
