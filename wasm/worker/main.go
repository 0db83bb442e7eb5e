//go:build js && wasm

// Command worker is the engine-only WebAssembly binary that static/worker.js runs in a
// Web Worker. Protocol (structured-clone objects):
//
//	in:  {type: "run", id, config: "<Config JSON>", summary}   {type: "cancel", id}
//	     (summary: true leaves the time series, inodes and trace out of the result)
//	out: {type: "ready"}
//	     {type: "progress", id, done, total}          (simulated seconds)
//	     {type: "result", id, result: "<Result JSON>", trace: "<text>"}
//	     {type: "error", id, message}                  (validation, cancel, panic)
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/hack-pad/safejs"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/sim"
)

var (
	mu      sync.Mutex
	cancels = map[int]context.CancelFunc{}
)

func post(msg map[string]any) {
	self := safejs.Global()
	v, err := safejs.ValueOf(msg)
	if err != nil {
		return
	}
	_, _ = self.Call("postMessage", v)
}

// yield blocks until a JS macrotask has run, so queued messages (cancel) are seen.
func yield() {
	ch := make(chan struct{})
	var f safejs.Func
	f, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
		close(ch)
		f.Release()
		return nil
	})
	if err != nil {
		return
	}
	if _, err := safejs.Global().Call("setTimeout", f.Value(), 0); err != nil {
		f.Release()
		return
	}
	<-ch
}

func run(id int, cfgJSON string, summary bool) {
	defer func() {
		if r := recover(); r != nil {
			post(map[string]any{"type": "error", "id": id, "message": fmt.Sprintf("engine panic: %v\n%s", r, debug.Stack())})
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	mu.Lock()
	cancels[id] = cancel
	mu.Unlock()
	defer func() {
		mu.Lock()
		delete(cancels, id)
		mu.Unlock()
		cancel()
	}()
	var cfg engine.Config
	if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil {
		post(map[string]any{"type": "error", "id": id, "message": "config: " + err.Error()})
		return
	}
	last := time.Now()
	res, err := engine.RunWith(ctx, cfg, engine.RunOptions{Progress: func(done, total sim.Time) {
		if time.Since(last) < 40*time.Millisecond {
			return
		}
		post(map[string]any{"type": "progress", "id": id, "done": float64(done) / 1e9, "total": float64(total) / 1e9})
		yield()
		last = time.Now()
	}})
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("cancelled")
		}
		post(map[string]any{"type": "error", "id": id, "message": err.Error()})
		return
	}
	if summary {
		res.Series, res.Inodes, res.Trace = nil, nil, nil
	}
	out, err := json.Marshal(res)
	if err != nil {
		post(map[string]any{"type": "error", "id": id, "message": "result: " + err.Error()})
		return
	}
	var tr strings.Builder
	_ = res.WriteTrace(&tr)
	post(map[string]any{"type": "result", "id": id, "result": string(out), "trace": tr.String()})
}

func handle(_ safejs.Value, args []safejs.Value) any {
	if len(args) == 0 {
		return nil
	}
	m := args[0]
	typ := str(m, "type")
	idv, _ := m.Get("id")
	id, _ := idv.Int()
	switch typ {
	case "run":
		cfg := str(m, "config")
		sv, _ := m.Get("summary")
		summary, _ := sv.Bool()
		go run(id, cfg, summary)
	case "cancel":
		mu.Lock()
		if c := cancels[id]; c != nil {
			c()
		}
		mu.Unlock()
	case "panic": // test hook: a worker that panics must be reported, not hang
		go func() {
			defer func() {
				if r := recover(); r != nil {
					post(map[string]any{"type": "error", "id": id, "message": fmt.Sprintf("worker panic: %v", r)})
				}
			}()
			panic("requested by test")
		}()
	}
	return nil
}

func str(v safejs.Value, key string) string {
	x, err := v.Get(key)
	if err != nil {
		return ""
	}
	s, _ := x.String()
	return s
}

func main() {
	f, err := safejs.FuncOf(handle)
	if err != nil {
		panic(err)
	}
	self := safejs.Global()
	_ = self.Set("wblabHandle", f.Value())
	if start, err := self.Get("wblabStarted"); err == nil && start.Type() == safejs.TypeFunction {
		_, _ = start.Invoke()
	}
	post(map[string]any{"type": "ready"})
	select {}
}
