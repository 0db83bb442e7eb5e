//go:build js && wasm

// Command worker is the engine's WebAssembly binary that static/worker.js runs in a
// Web Worker. Its messages to and from the page are in PROTOCOL.md (run, cancel, ask;
// ready, progress, chunk, result, error, answer): it runs configs and answers the
// page's questions (package lab), so the UI module links no model.
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hack-pad/safejs"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/lab"
	"github.com/wblab/wblab/validate"
)

// ProgressSteps: a run reports its progress at least every 1/ProgressSteps of its
// simulated time (issue 35: the bar moves by 5 % at most), and else at most every
// chunkEvery of wall time.
const ProgressSteps = 20

// chunkEvery is the least wall time between two chunk or progress messages of a run
// (the first chunk goes at the first sample).
const chunkEvery = 50 * time.Millisecond

var (
	mu      sync.Mutex
	cancels = map[int]context.CancelFunc{}
)

// post sends msg to the page; transfer lists objects (ArrayBuffers) moved, not copied.
// Values may be safejs.Values (ValueOf does not take them inside maps).
func post(msg map[string]any, transfer ...any) {
	self := safejs.Global()
	oc, err := self.Get("Object")
	if err != nil {
		return
	}
	v, err := oc.New()
	if err != nil {
		return
	}
	for k, x := range msg {
		if err := v.Set(k, x); err != nil {
			return
		}
	}
	if len(transfer) > 0 {
		_, _ = self.Call("postMessage", v, transfer)
		return
	}
	_, _ = self.Call("postMessage", v)
}

// float64Array copies vs into a new JS Float64Array (one copy through a Uint8Array).
func float64Array(vs []float64) (safejs.Value, error) {
	b := make([]byte, 8*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	u8c, err := safejs.Global().Get("Uint8Array")
	if err != nil {
		return safejs.Undefined(), err
	}
	u8, err := u8c.New(len(b))
	if err != nil {
		return safejs.Undefined(), err
	}
	if _, err := safejs.CopyBytesToJS(u8, b); err != nil {
		return safejs.Undefined(), err
	}
	buf, err := u8.Get("buffer")
	if err != nil {
		return safejs.Undefined(), err
	}
	f64c, err := safejs.Global().Get("Float64Array")
	if err != nil {
		return safejs.Undefined(), err
	}
	return f64c.New(buf)
}

// yield blocks until a JS macrotask has run, so queued messages (cancel) are seen. It
// goes through a MessageChannel: a setTimeout(0) nested in timer callbacks waits 4 ms.
func yield() {
	yieldOnce.Do(func() {
		mc, err := safejs.Global().Get("MessageChannel")
		if err != nil {
			return
		}
		ch, err := mc.New()
		if err != nil {
			return
		}
		p1, _ := ch.Get("port1")
		p2, _ := ch.Get("port2")
		f, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
			select {
			case yieldCh <- struct{}{}:
			default:
			}
			return nil
		})
		if err != nil {
			return
		}
		_ = p1.Set("onmessage", f.Value())
		yieldPort = p2
	})
	if yieldPort.IsUndefined() {
		return
	}
	if _, err := yieldPort.Call("postMessage", 0); err != nil {
		return
	}
	<-yieldCh
}

var (
	yieldOnce sync.Once
	yieldPort = safejs.Undefined()
	yieldCh   = make(chan struct{}, 1)
)

// job is one "run" message.
type job struct {
	id              int
	cfg             string // Config JSON; "" with dflt
	dflt            bool   // run engine.FirstPageConfig()
	summary, stream bool
}

func run(j job) {
	id := j.id
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
	if j.dflt {
		j.cfg = lab.FirstPageConfigJSON()
	}
	var cfg engine.Config
	if err := json.Unmarshal([]byte(j.cfg), &cfg); err != nil {
		post(map[string]any{"type": "error", "id": id, "message": "config: " + err.Error()})
		return
	}
	var opt engine.RunOptions
	last := time.Now()
	var rows []float64 // row-major, not yet posted
	sent, cols := 0, len(engine.SeriesNames())
	flush := func(done, total engine.Time) {
		n := len(rows) / cols
		data, err := float64Array(rows)
		if err != nil {
			return
		}
		m := map[string]any{"type": "chunk", "id": id, "from": sent, "rows": n, "cols": cols, "data": data,
			"done": float64(done) / 1e9, "total": float64(total) / 1e9}
		if sent == 0 {
			names := make([]any, cols)
			for i, s := range engine.SeriesNames() {
				names[i] = s
			}
			m["names"], m["config"] = names, j.cfg
		}
		buf, _ := data.Get("buffer")
		post(m, buf)
		sent += n
		rows = rows[:0]
	}
	if j.stream {
		opt.Sample = func(row []float64) { rows = append(rows, row...) }
	}
	var step engine.Time // the next ProgressStep of the simulated time
	opt.Progress = func(done, total engine.Time) {
		if j.stream && sent == 0 && len(rows) > 0 {
			flush(done, total) // the first rows at once
			yield()
			last = time.Now()
			step = done + total/ProgressSteps
			return
		}
		if time.Since(last) < chunkEvery && done < step {
			return
		}
		step = done + total/ProgressSteps
		if j.stream {
			flush(done, total)
		} else {
			post(map[string]any{"type": "progress", "id": id, "done": float64(done) / 1e9, "total": float64(total) / 1e9})
		}
		yield()
		last = time.Now()
	}
	res, err := engine.RunWith(ctx, cfg, opt)
	if err != nil && ctx.Err() != nil && res != nil && j.stream {
		// a cancelled streamed run: its result up to the cancel time (RuntimeS), which
		// the page shows as the cancelled run's figures (ui.ResultsView)
		err = nil
	}
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("cancelled")
		}
		msg := err.Error()
		if d := engine.ErrorDetails(err); d != "" {
			msg += "\n" + d // a failure's config JSON: the page folds the lines after the first
		}
		post(map[string]any{"type": "error", "id": id, "message": msg})
		return
	}
	if j.stream && len(rows) > 0 {
		flush(engine.Time(res.RuntimeS*1e9), engine.Time(res.RuntimeS*1e9))
	}
	if j.summary { // what a matrix or sweep cell shows: no series, tasks, inodes, trace
		res = &engine.Result{Case: res.Case, Kernel: res.Kernel, Device: res.Device, Filesystem: res.Filesystem,
			Seed: res.Seed, RuntimeS: res.RuntimeS, WriteBWMBps: res.WriteBWMBps, WriteBWMethod: res.WriteBWMethod,
			WrittenMB: res.WrittenMB, DirtiedMB: res.DirtiedMB, CPUS: res.CPUS, Events: res.Events, BusyLoops: res.BusyLoops,
			Iostat: res.Iostat, Media: res.Media}
	}
	out, trace, err := lab.ResultMessage(res, j.stream)
	if err != nil {
		post(map[string]any{"type": "error", "id": id, "message": "result: " + err.Error()})
		return
	}
	post(map[string]any{"type": "result", "id": id, "result": out, "trace": trace})
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
		go run(job{id: id, cfg: str(m, "config"), dflt: flag(m, "default"), summary: flag(m, "summary"), stream: flag(m, "stream")})
	case "ask": // a question of the page's (package lab), answered at once
		// on a goroutine of its own: the measured question may wait for a fetch, which
		// needs the event loop this handler holds; it runs before control goes back to JS
		go ask(id, str(m, "kind"), str(m, "req"))
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

// ask answers a question of the page's.
func ask(id int, kind, req string) {
	defer func() {
		if r := recover(); r != nil {
			post(map[string]any{"type": "answer", "id": id, "message": fmt.Sprintf("engine panic: %v", r)})
		}
	}()
	out, err := lab.Answer(kind, []byte(req))
	if err != nil {
		post(map[string]any{"type": "answer", "id": id, "message": err.Error()})
		return
	}
	post(map[string]any{"type": "answer", "id": id, "answer": string(out)})
}

func flag(v safejs.Value, key string) bool {
	x, err := v.Get(key)
	if err != nil || x.Type() != safejs.TypeBoolean {
		return false
	}
	b, _ := x.Bool()
	return b
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
	// the measured references are not in this module: fetched when first needed
	validate.SetReferenceBundle(func() ([]byte, error) { return fetchBytes(validate.BundleName) })
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
