//go:build !(js && wasm)

package lab

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/ui/wire"
	"github.com/wblab/wblab/validate"
)

// TestMeasuredLoadFailure: the engine worker's fetch of the references failing
// (validate.SetReferenceBundle with a fake fetcher) is the measured question's error,
// which the page shows where the overlay would be; the failure is not kept, and a
// bundle that loads is fetched once per process.
func TestMeasuredLoadFailure(t *testing.T) {
	ms := MeasuredCases()
	require.NotEmpty(t, ms)
	measuredMu.Lock()
	saved := measured
	measured, measuredLoaded = nil, false
	measuredMu.Unlock()
	t.Cleanup(func() {
		validate.SetReferenceBundle(nil)
		measuredMu.Lock()
		measured, measuredLoaded = saved, true
		measuredMu.Unlock()
	})
	ask, err := json.Marshal(wire.MeasuredAsk{Config: configJSON(ms[0].Cfg)})
	require.NoError(t, err)
	other, err := json.Marshal(wire.MeasuredAsk{Config: configJSON(engine.FirstPageConfig())})
	require.NoError(t, err)

	fetches := 0
	validate.SetReferenceBundle(func() ([]byte, error) {
		fetches++
		return nil, errors.New("references.gz: HTTP 404")
	})
	for i := 0; i < 2; i++ {
		_, err = Answer("measured", ask)
		assert.EqualError(t, err, "the references measured on Linux 6.1 could not be loaded: references.gz: HTTP 404")
	}
	assert.Equal(t, 2, fetches, "a failure is not kept")
	_, err = Answer("measured", other)
	assert.NoError(t, err, "another kernel's question loads nothing")
	assert.Equal(t, 2, fetches)

	var b bytes.Buffer
	require.NoError(t, validate.WriteBundle(&b))
	fetches = 0
	validate.SetReferenceBundle(func() ([]byte, error) { fetches++; return b.Bytes(), nil })
	for i := 0; i < 2; i++ {
		out, err := Answer("measured", ask)
		require.NoError(t, err)
		var got wire.MeasuredMatch
		require.NoError(t, json.Unmarshal(out, &got))
		require.NotNil(t, got.Match)
		assert.Equal(t, ms[0].Name, got.Match.Name)
		assert.Len(t, got.Links, len(ms))
	}
	assert.Equal(t, 1, fetches, "fetched once, then kept")
}
