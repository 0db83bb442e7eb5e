package ui

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// The page with no hash runs the form's default config; boot.js starts
// engine.FirstPageConfig() before the UI exists, and the UI takes that run over only
// when the two JSON texts are equal.
func TestDefaultFormIsTheEarlyRun(t *testing.T) {
	st, err := DecodeHash("")
	require.Nil(t, err)
	cfg, ferr := firstPage(st).Form.Config()
	require.Nil(t, ferr)
	b, jerr := json.Marshal(pageConfig(cfg))
	require.NoError(t, jerr)
	require.Equal(t, DefaultConfigJSON(), string(b))
}
