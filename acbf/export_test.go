package acbf

import (
	"io"
	"math/bits"

	"github.com/acbfjoin/acbfjoin/internal/wire"
)

func newTestWriter(w io.Writer) *wire.Writer { return wire.NewWriter(w) }

// onesB1 counts the ones of the first level. O(m1/64).
func (f *Filter) onesB1() uint64 {
	var c int
	for _, x := range f.b1 {
		c += bits.OnesCount64(x)
	}
	return uint64(c)
}
