//go:build js && wasm

package main

import (
	"errors"
	"fmt"

	"github.com/hack-pad/safejs"
)

// fetchBytes GETs url (relative to worker.js) with the worker's fetch and returns the
// body: the reference bundle (validate.BundleName), fetched when the measured question
// first needs it. Call it off the message handler's goroutine (a handler that waits
// for a promise blocks the event loop that would settle it).
func fetchBytes(url string) ([]byte, error) {
	p, err := safejs.Global().Call("fetch", url)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %v", url, err)
	}
	resp, err := await(p)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %v", url, err)
	}
	okv, _ := resp.Get("ok")
	if ok, _ := okv.Bool(); !ok {
		st, _ := resp.Get("status")
		n, _ := st.Int()
		return nil, fmt.Errorf("%s: HTTP %d", url, n)
	}
	bp, err := resp.Call("arrayBuffer")
	if err != nil {
		return nil, fmt.Errorf("%s: %v", url, err)
	}
	buf, err := await(bp)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", url, err)
	}
	u8c, err := safejs.Global().Get("Uint8Array")
	if err != nil {
		return nil, err
	}
	u8, err := u8c.New(buf)
	if err != nil {
		return nil, err
	}
	n, err := u8.Length()
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	if _, err := safejs.CopyBytesToGo(b, u8); err != nil {
		return nil, err
	}
	return b, nil
}

// await waits for promise p: its value, or its rejection's text as the error.
func await(p safejs.Value) (safejs.Value, error) {
	type settled struct {
		v   safejs.Value
		err error
	}
	ch := make(chan settled, 1)
	arg := func(args []safejs.Value) safejs.Value {
		if len(args) == 0 {
			return safejs.Undefined()
		}
		return args[0]
	}
	then, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		ch <- settled{v: arg(args)}
		return nil
	})
	if err != nil {
		return safejs.Undefined(), err
	}
	defer then.Release()
	catch, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		msg := "rejected"
		if s, err := arg(args).Call("toString"); err == nil {
			if t, err := s.String(); err == nil {
				msg = t
			}
		}
		ch <- settled{err: errors.New(msg)}
		return nil
	})
	if err != nil {
		return safejs.Undefined(), err
	}
	defer catch.Release()
	if _, err := p.Call("then", then.Value(), catch.Value()); err != nil {
		return safejs.Undefined(), err
	}
	s := <-ch
	return s.v, s.err
}
