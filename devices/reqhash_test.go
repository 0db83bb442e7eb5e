package devices

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReqHashIsAMap: under random puts, overwrites, gets and deletes (keys
// clustered as merge keys are, and spread), reqHash answers as a Go map does,
// through growth and backward-shift deletion.
func TestReqHashIsAMap(t *testing.T) {
	tests := []struct {
		name   string
		size   int   // the elevator's request count hint
		keys   int64 // keys drawn from [0, keys) scaled by stride
		stride int64
		ops    int
	}{
		{"few keys, small table", 4, 16, 1, 20000},
		{"sector-like keys", 128, 4096, 8 << 1, 50000},
		{"more keys than the hint: growth", 8, 1 << 12, 2, 50000},
		{"spread keys", 256, 1 << 40, 1, 50000},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(i), 11))
			h := newReqHash(tc.size)
			m := map[int64]*Request{}
			reqs := make([]*Request, 64)
			for j := range reqs {
				reqs[j] = &Request{Sector: int64(j)}
			}
			for range tc.ops {
				k := r.Int64N(tc.keys) * tc.stride
				switch r.IntN(3) {
				case 0:
					q := reqs[r.IntN(len(reqs))]
					h.put(k, q)
					m[k] = q
				case 1:
					h.del(k)
					delete(m, k)
				}
				require.Same(t, m[k], h.get(k), "key %d", k)
				require.Equal(t, len(m), h.n)
			}
			for k, q := range m {
				require.Same(t, q, h.get(k))
			}
		})
	}
}
