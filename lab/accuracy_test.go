package lab

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/ui/wire"
	"github.com/wblab/wblab/validate"
)

// TestAccuracyAnswer: the page's "accuracy" question gets the committed table and a
// note per disk card for a 6.1 config, the table alone for another kernel.
func TestAccuracyAnswer(t *testing.T) {
	table, err := validate.Accuracy()
	require.NoError(t, err)
	ask := func(cfg engine.Config) wire.AccuracyNotes {
		b, err := json.Marshal(cfg)
		require.NoError(t, err)
		req, err := json.Marshal(wire.AccuracyAsk{Config: string(b)})
		require.NoError(t, err)
		out, err := Answer("accuracy", req)
		require.NoError(t, err)
		var n wire.AccuracyNotes
		require.NoError(t, json.Unmarshal(out, &n))
		return n
	}
	cfg := engine.DefaultConfig()
	cfg.Kernel = validate.Kernel
	cfg.Disks[0].Workload.Editors = 1
	n := ask(cfg)
	assert.Equal(t, validate.Kernel, n.Kernel)
	assert.Len(t, n.Rows, len(table.Rows))
	require.Len(t, n.Disks, 1)
	assert.Equal(t, table.NoteFor(cfg, validate.KindDiskRate), n.Disks[0].WriteRate)
	assert.Equal(t, table.NoteFor(cfg, validate.KindEditorP99), n.Disks[0].EditorP99)
	assert.Equal(t, table.NoteFor(cfg, validate.KindWriterOne), n.Disks[0].Writer, "one dd: the one-writer kind")
	assert.NotEmpty(t, n.Disks[0].EditorP50)

	cfg.Disks[0].Workload.Editors = 0
	assert.Empty(t, ask(cfg).Disks[0].EditorP50, "no editor, no editor note")

	cfg.Kernel = "2.6.32"
	assert.Empty(t, ask(cfg).Disks, "the references measured 6.1 only")

	assert.Equal(t, validate.NoCoverNote, wire.NoCover)

	_, err = Answer("accuracy", []byte(`{"Config":"{"}`))
	assert.ErrorContains(t, err, "accuracy: config")
}
