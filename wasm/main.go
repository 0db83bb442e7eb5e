//go:build js && wasm

// Command wasm is the browser lab's UI (main.wasm): it mounts the Vugu page (ui.Root)
// on #vugu_mount_point. Simulations run in Web Workers (wasm/worker), never here, and
// the engine's registries, validation and case parsing are answered there too
// (package lab): this module links none of the model (tests/layout checks it).
package main

import (
	"runtime/debug"
	"time"

	"github.com/vugu/vugu"
	"github.com/vugu/vugu/domrender"
	"github.com/wblab/wblab/ui"
)

// GCPercent is the UI module's GOGC. Go's collector marks on the page's only
// thread, in one task, so each cycle is a pause of the page; at the default 100 a
// cold load ran several 20-40 ms cycles while its heap grew to its first tens of
// MB. A heap goal of 5x the live heap keeps them rare (issue 35: no main-thread
// task over 100 ms); the memory it costs is the garbage between cycles.
const GCPercent = 400

func main() {
	debug.SetGCPercent(GCPercent)
	// the engine's catalog first (the worker static/boot.js started is compiling
	// beside this module); the page's questions go to it
	t0 := time.Now()
	eng, err := ui.Boot()
	ui.Took("boot", t0)
	ui.Yield()
	if err != nil {
		ui.BootFailed("the engine worker did not answer: " + err.Error())
		return
	}
	renderer, err := domrender.New("#vugu_mount_point")
	if err != nil {
		panic(err)
	}
	defer renderer.Release()
	buildEnv, err := vugu.NewBuildEnv(renderer.EventEnv())
	if err != nil {
		panic(err)
	}
	root := ui.NewRoot(eng)
	for ok := true; ok; ok = renderer.EventWait() {
		ui.Yield() // a build in a task of its own, not in the last render's
		t0 := time.Now()
		out := buildEnv.RunBuild(root)
		ui.Took("build", t0)
		ui.Yield() // each step of a render in a task of its own
		t0 = time.Now()
		if err := renderer.Render(out); err != nil {
			panic(err)
		}
		ui.Took("render", t0)
		// no yield here: AfterRender writes the views the render may have emptied
		// (ui.FillHTML) in the same task, so none shows empty for a moment
		// domrender calls Rendered on child components only; the root draws its
		// charts here, after the DOM is in place.
		ee := renderer.EventEnv()
		ee.RLock()
		t0 = time.Now()
		root.AfterRender()
		ui.Took("after", t0)
		ee.RUnlock()
	}
}
