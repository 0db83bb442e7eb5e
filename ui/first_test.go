package ui

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/ui/wire"
)

// TestFirstPageCheckIsThePagesState: the page without a hash starts its first run
// with the catalog's check (no worker asked), which is the engine's answer for the
// state the page sets; any other state asks the engine.
func TestFirstPageCheckIsThePagesState(t *testing.T) {
	c := NewRoot(NewEngine(1))
	c.applyState(State{Form: Cat.FirstPage.Clone()})
	st := c.state()
	got, ok := firstPageCheck(st)
	require.True(t, ok, "the first page's state %+v is not the catalog's %+v", st, Cat.FirstPageCheck.State)
	var want wire.Checked
	require.NoError(t, Ask("check", wire.Check{State: st}, &want))
	assert.Equal(t, want, got)
	require.NotNil(t, got.A)
	assert.Equal(t, Cat.FirstPageJSON, got.A.Config, "the run boot.js starts early")

	others := map[string]func(*State){
		"A/B":         func(s *State) { s.Mode = "ab" },
		"five seeds":  func(s *State) { s.Seeds = 5 },
		"another fs":  func(s *State) { s.Form["fs"] = "xfs" },
		"B's kernel":  func(s *State) { s.B["kernel"] = "6.1" },
		"a story":     func(s *State) { s.Repro = "kara-2016" },
		"embedded":    func(s *State) { s.Embed = true },
		"a table":     func(s *State) { s.Table = "wu-2011-T1" },
		"the default": func(s *State) { s.Form = Cat.Default.Clone() },
	}
	for name, change := range others {
		t.Run(name, func(t *testing.T) {
			s := c.state()
			s.Form, s.B = s.Form.Clone(), s.B.Clone()
			change(&s)
			_, ok := firstPageCheck(s)
			assert.False(t, ok)
		})
	}
}
