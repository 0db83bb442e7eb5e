package devices

// reqHash maps an elevator merge key (mkey: sector and direction) to the request
// that ends (or starts) there: the elevator's back and front merge hashes
// (elv_rqhash in block/elevator.c keeps the back one as a hash list). It behaves as
// a map[int64]*Request (get, put, del) in an open-addressed table with linear
// probing and backward-shift deletion, hashed by one multiplication: a Go map
// hashes with memhash64, which on wasm is its software fallback, and probes its
// control groups without SIMD.
type reqHash struct {
	keys  []int64
	reqs  []*Request // nil: free slot
	shift uint       // 64 - log2(len(keys))
	n     int
}

// newReqHash returns a table sized for about n requests.
func newReqHash(n int) reqHash {
	var h reqHash
	h.alloc(max(n, 8))
	return h
}

func (h *reqHash) alloc(n int) {
	size, bits := 16, uint(4)
	for size < 2*n { // load at most 1/2
		size, bits = size*2, bits+1
	}
	h.keys = make([]int64, size)
	h.reqs = make([]*Request, size)
	h.shift = 64 - bits
	h.n = 0
}

func (h *reqHash) slot(k int64) int { return int(uint64(k) * 0x9e3779b97f4a7c15 >> h.shift) }

// get returns the request at k, or nil.
func (h *reqHash) get(k int64) *Request {
	mask := len(h.keys) - 1
	for i := h.slot(k); ; i = (i + 1) & mask {
		r := h.reqs[i]
		if r == nil || h.keys[i] == k {
			return r
		}
	}
}

// put sets the request at k (r is not nil).
func (h *reqHash) put(k int64, r *Request) {
	if 2*(h.n+1) > len(h.keys) {
		h.grow()
	}
	mask := len(h.keys) - 1
	i := h.slot(k)
	for ; h.reqs[i] != nil; i = (i + 1) & mask {
		if h.keys[i] == k {
			h.reqs[i] = r
			return
		}
	}
	h.keys[i], h.reqs[i] = k, r
	h.n++
}

// del removes k if present.
func (h *reqHash) del(k int64) {
	mask := len(h.keys) - 1
	i := h.slot(k)
	for ; ; i = (i + 1) & mask {
		if h.reqs[i] == nil {
			return
		}
		if h.keys[i] == k {
			break
		}
	}
	// backward-shift deletion: move later entries of the probe run into the hole
	// when their home slot does not lie cyclically in (hole, their slot]
	for j := (i + 1) & mask; h.reqs[j] != nil; j = (j + 1) & mask {
		home := h.slot(h.keys[j])
		if (j-home)&mask >= (j-i)&mask {
			h.keys[i], h.reqs[i] = h.keys[j], h.reqs[j]
			i = j
		}
	}
	h.keys[i], h.reqs[i] = 0, nil
	h.n--
}

func (h *reqHash) grow() {
	keys, reqs := h.keys, h.reqs
	h.alloc(len(keys)) // twice the entries' room
	for i, r := range reqs {
		if r != nil {
			h.put(keys[i], r)
		}
	}
}
