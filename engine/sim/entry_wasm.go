//go:build wasm

package sim

// less is 1 if a is before b, else 0, without branches. On wasm bits.Sub64 is not
// an intrinsic (its borrow takes eight operations), while a comparison is one
// instruction whose 0 or 1 result Go uses as is (a bool converted by the "if"
// below compiles to no branch); a Go branch would cost a jump through the
// function's dispatch table.
func (a entry) less(b entry) uint64 {
	return b2u(a.at < b.at) | b2u(a.at == b.at)&b2u(a.key < b.key)
}

// b2u is 1 for true, 0 for false.
func b2u(b bool) uint64 {
	var x uint64
	if b {
		x = 1
	}
	return x
}
