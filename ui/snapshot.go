//go:build !(js && wasm)

package ui

import (
	"bytes"
	"fmt"

	"github.com/vugu/vugu"
	"github.com/vugu/vugu/staticrender"
)

// Snapshot is the first page (no hash) as main.wasm's first render shows it, in
// HTML: the catalog's form and the build's precomputed first run (msgs: its
// messages, as static/boot.js delivers static/first.json to the page), rendered by
// Vugu's static renderer. ./build.sh build writes it as static/first.html (package
// wasm/prerender); boot.js puts it in the mount point before main.wasm runs, so the
// first result is on screen while the modules compile, and Vugu's first render,
// which matches elements by position, finds the same elements and keeps them
// (tests/browser TestSnapshotIsTheFirstRender). The snapshot has no charts (uPlot
// draws them after the first render) and no event handlers until main.wasm mounts.
func Snapshot(catalog []byte, msgs []Msg) (string, error) {
	if err := setCatalog(catalog); err != nil {
		return "", err
	}
	var b bytes.Buffer
	r := staticrender.New(&b)
	env, err := vugu.NewBuildEnv(r.EventEnv())
	if err != nil {
		return "", err
	}
	eng := &snapEngine{msgs: msgs}
	SetAsker(eng.Ask)
	root := NewRoot(eng)
	if err := r.Render(env.RunBuild(root)); err != nil {
		return "", err
	}
	if a := root.Results.A; a == nil || a.Res == nil || !a.Prerendered {
		return "", fmt.Errorf("snapshot: the first page did not take the precomputed run (status %q)", root.Results.Status())
	}
	return b.String(), nil
}

// snapEngine is the page's engine for Snapshot: the first page's run is the
// precomputed one, delivered at once (Init waits for it); nothing else runs.
type snapEngine struct {
	msgs  []Msg
	onMsg func(Msg)
}

func (e *snapEngine) Run(id int, cfg string, summary bool) {
	if e.onMsg == nil {
		return
	}
	if summary || cfg != Cat.FirstPageJSON {
		e.onMsg(Msg{Type: "error", ID: id, Message: "the snapshot runs only the first page's case"})
		return
	}
	go func() { // after Run returns, as the pool's goroutine hands them over
		for _, m := range e.msgs {
			m.ID = id
			e.onMsg(m)
		}
	}()
}
func (*snapEngine) Cancel(int)          {}
func (*snapEngine) Workers() int        { return 1 }
func (e *snapEngine) OnMsg(f func(Msg)) { e.onMsg = f }

// Ask never answers: the page's first render comes before any answer of the worker
// (which is still compiling worker.wasm then), and an answer renders later.
func (*snapEngine) Ask(string, []byte) ([]byte, error) {
	select {}
}
func (*snapEngine) Catalog() ([]byte, error) { return nil, fmt.Errorf("the snapshot has no engine") }
func (*snapEngine) Prerendered() bool        { return true }
