package lab

import (
	"encoding/json"
	"testing"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/ui/wire"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHashOldSwitchName: a link written when bdi_knobs_v62 was bdi_knobs_v63
// loads the switch under its new name, in A and in B.
func TestHashOldSwitchName(t *testing.T) {
	s, ferr := DecodeHash("#v=1&kernel=6.1&v.bdi_knobs_v63=on&mode=ab&b.kernel=6.1&b.v.bdi_knobs_v63=off")
	require.Nil(t, ferr)
	assert.Equal(t, "on", s.Form["v.bdi_knobs_v62"])
	assert.NotContains(t, s.Form, "v.bdi_knobs_v63")
	assert.Equal(t, "off", s.B["v.bdi_knobs_v62"])
	cfg, ferr := FormConfig(s.Form)
	require.Nil(t, ferr)
	assert.Equal(t, map[string]bool{"bdi_knobs_v62": true}, map[string]bool(cfg.Variants))
	assert.Contains(t, EncodeHash(s), "v.bdi_knobs_v62=on")
}

// TestFormEveryError: four bad controls give four errors in one check, each at
// its control and naming its field and range in human units; the page's answer
// carries them all.
func TestFormEveryError(t *testing.T) {
	f := FormFromConfig(engine.DefaultConfig())
	f["dd"], f["dirty_bytes"], f["memory"], f["runtime"] = "-3", "abc", "0", "99999h"
	_, errs := FormErrors(f)
	want := []FieldError{
		{Field: "dirty_bytes", Msg: `dirty_bytes: "abc" is not a size (e.g. 100M)`},
		{Field: "memory", Msg: "memory_MB: 0 MiB is out of range 64 MiB-256 GiB"},
		{Field: "runtime", Msg: "runtime: 99999 h is out of range 1 ms-24 h"},
		{Field: "dd", Msg: "workload.dd: -3 is out of range 1-10000"},
	}
	assert.Equal(t, want, errs)
	b, err := json.Marshal(wire.Check{State: State{Form: f}})
	require.NoError(t, err)
	out, err := Answer("check", b)
	require.NoError(t, err)
	var got wire.Checked
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Equal(t, want, got.Errs)
	assert.Equal(t, &want[0], got.Err)
}
