package ui

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/ui/wire"
)

// TestCheckAndProbeFindEveryError: four bad fields typed one after the other are
// four errors, whether the engine's answer lists them all or names the first only
// (the fields it does not name are checked on their own).
func TestCheckAndProbeFindEveryError(t *testing.T) {
	bad := map[string]string{"dd": "-3", "dirty_bytes": "abc", "memory": "0", "runtime": "99999h"}
	f := Cat.FirstPage.Clone()
	for k, v := range bad {
		f[k] = v
	}
	st := State{Form: f}
	var ck CheckedAll
	require.NoError(t, Ask("check", wire.Check{State: st}, &ck))
	errs := ck.errs()
	require.NotEmpty(t, errs)
	assert.Empty(t, ck.CaseBox, "an invalid form has no case name")
	named := map[string]bool{}
	for _, e := range errs {
		named[e.Field] = true
	}
	all := append(errs, probeErrs(nil, st, named, nil)...)
	got := map[string]string{}
	for _, e := range all {
		got[e.Field] = e.Msg
	}
	for k := range bad {
		assert.NotEmpty(t, got[k], "no error for %s=%s (got %v)", k, bad[k], got)
	}
	assert.Len(t, got, len(bad), "%v", got)
}

// TestProbeErrsSkipsGoodAndKnown: a valid change and a field whose error is shown
// already are not reported.
func TestProbeErrsSkipsGoodAndKnown(t *testing.T) {
	f := Cat.FirstPage.Clone()
	f["dd"], f["memory"] = "2", "0"
	errs := probeErrs(nil, State{Form: f}, nil, map[string]bool{"memory": true})
	assert.Empty(t, errs)
	errs = probeErrs(nil, State{Form: f}, nil, nil)
	require.Len(t, errs, 1)
	assert.Equal(t, "memory", errs[0].Field)
}

// TestSplitErr: the worker's first line is the short message, the rest the details.
func TestSplitErr(t *testing.T) {
	for _, c := range []struct{ in, short, details string }{
		{"cancelled", "cancelled", ""},
		{"invariant x: 3 > 2 (at t=1.000000s, seed 1)\nconfig {\"a\":1}", "invariant x: 3 > 2 (at t=1.000000s, seed 1)", "config {\"a\":1}"},
	} {
		s, d := splitErr(c.in)
		assert.Equal(t, c.short, s)
		assert.Equal(t, c.details, d)
	}
}

// TestCaseNote: the case box says why it has no name, or what its name leaves out.
func TestCaseNote(t *testing.T) {
	for _, c := range []struct {
		box, disks string
		errs       map[string]string
		want       string
	}{
		{"thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X", "", nil, ""},
		{"", "", map[string]string{"dd": "x", "memory": "y", "case": "z"}, "no case name: 2 input errors"},
		{"", "usb2-stick,fs=ext4", map[string]string{}, "no case name: 2 disks"},
		{"thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X", "a; b", nil, "the case name sets disk 8:0 only: the form has 3 disks"},
	} {
		f := &FormPanel{Form: Form{"disks": c.disks}, Errs: c.errs, CaseBox: c.box}
		assert.Equal(t, c.want, f.CaseNote(), "%+v", c)
	}
}

// TestSplitFieldErr: the engine's joined errors go to the fields their keys name.
func TestSplitFieldErr(t *testing.T) {
	got := splitFieldErr(&FieldError{Field: "dirty_bytes", Msg: "dirty_bytes: 100 MiB is out of range 8 KiB-0 bytes\nmemory_MB: 0 bytes is out of range 64 MiB-256 GiB\nsomething else"})
	require.Len(t, got, 2)
	assert.Equal(t, FieldError{Field: "dirty_bytes", Msg: "dirty_bytes: 100 MiB is out of range 8 KiB-0 bytes; something else"}, *got[0])
	assert.Equal(t, FieldError{Field: "memory", Msg: "memory_MB: 0 bytes is out of range 64 MiB-256 GiB"}, *got[1])
	assert.Equal(t, "dd", fieldOfKey("workload.dd"))
	assert.Equal(t, "", fieldOfKey("no such key"))
}
