package harness

import (
	"strings"
	"testing"

	"github.com/wblab/wblab/engine"
)

// FuzzParseCase checks that ParseCase never panics, that every error names a part
// ("case.…"), and that accepted names round-trip: String then ParseCase gives an equal
// Case, and String is stable. Seeds are in testdata/fuzz/FuzzParseCase.
func FuzzParseCase(f *testing.F) {
	f.Add("thresh=100M/ext4-10dd-4k-8p-4096M-100M:10-X")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCase(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "case.") {
				t.Fatalf("ParseCase(%q): error %q does not name a case part", s, err)
			}
			if c != (Case{}) {
				t.Fatalf("ParseCase(%q): error %q with a non-zero Case %#v", s, err, c)
			}
			return
		}
		str := c.String()
		if strings.TrimSpace(s) != str {
			t.Fatalf("ParseCase(%q).String() = %q", s, str)
		}
		again, err := ParseCase(str)
		if err != nil {
			t.Fatalf("ParseCase(%q) (from %q): %v", str, s, err)
		}
		if again != c {
			t.Fatalf("round trip of %q: %#v != %#v", s, again, c)
		}
		if (c.Dirty.Bytes == 0) == (c.Dirty.Ratio == 0) || (c.Background.Bytes == 0) == (c.Background.Ratio == 0) {
			t.Fatalf("ParseCase(%q): a limit must be exactly one of bytes and ratio: %#v", s, c)
		}
		// A canonical rebuild from the numbers parses to the same numbers.
		n := c
		n.Dir, n.BS.Text, n.Memory.Text, n.Dirty.Text, n.Background.Text = "", "", "", "", ""
		back, err := ParseCase(n.String())
		if err != nil {
			t.Fatalf("canonical %q (from %q): %v", n.String(), s, err)
		}
		if back.BS.Bytes != c.BS.Bytes || back.Memory.Bytes != c.Memory.Bytes ||
			back.Dirty.Bytes != c.Dirty.Bytes || back.Dirty.Ratio != c.Dirty.Ratio ||
			back.Background.Bytes != c.Background.Bytes || back.Background.Ratio != c.Background.Ratio {
			t.Fatalf("canonical %q (from %q) parsed to %#v", n.String(), s, back)
		}
		cfg := engine.DefaultConfig()
		c.Apply(&cfg)
		_ = cfg.Validate()
		_ = CaseOf(cfg).String()
	})
}

// FuzzCaseSet checks that Case.Set never panics, names the part in its errors, and
// leaves a case whose name either parses back to it or fails naming a part.
func FuzzCaseSet(f *testing.F) {
	f.Add(uint8(0), "ext4")
	f.Add(uint8(5), "20")
	f.Add(uint8(6), "50M")
	f.Add(uint8(4), "64M")
	f.Fuzz(func(t *testing.T, i uint8, v string) {
		c, err := ParseCase("thresh=1000M:999M/generic-1dd-64k-8p-4096M-1000M:999M-X")
		if err != nil {
			t.Fatal(err)
		}
		part := "nosuch"
		if int(i) < len(CaseParts) {
			part = CaseParts[i]
		}
		if err := c.Set(part, v); err != nil {
			if !strings.HasPrefix(err.Error(), "case") {
				t.Fatalf("Set(%q, %q): error %q does not name a case part", part, v, err)
			}
			return
		}
		again, err := ParseCase(c.String())
		if err != nil {
			if !strings.HasPrefix(err.Error(), "case.") {
				t.Fatalf("Set(%q, %q) then ParseCase(%q): %q", part, v, c.String(), err)
			}
			return
		}
		if again != c {
			t.Fatalf("Set(%q, %q): %#v parses back as %#v", part, v, c, again)
		}
	})
}
