//go:build !wasm

package sim

import "math/bits"

// less is 1 if a is before b, else 0: the borrow out of the 128-bit subtraction
// a - b, without branches (SUB/SBB on amd64).
func (a entry) less(b entry) uint64 {
	_, borrow := bits.Sub64(a.key, b.key, 0)
	_, borrow = bits.Sub64(a.at, b.at, borrow)
	return borrow
}
