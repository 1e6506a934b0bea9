package fuse

import (
	"encoding/binary"
	"testing"

	"github.com/FastFilter/xorfilter"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// BenchmarkContains: a query of 10^6 8-byte keys at f = 8, ours and the
// library's on the same values (go test -bench . ./fuse).
func BenchmarkContains(b *testing.B) {
	keys := testutil.Keys(0, 1_000_000)
	probes := testutil.Keys(1<<40, 1<<16)
	f := mustBuild(b, keys, 8)
	b.Run("fuse", func(b *testing.B) {
		n := 0
		for i := range b.N {
			if f.Contains(probes[i&(1<<16-1)]) {
				n++
			}
		}
	})
	vals := make([]uint64, len(keys))
	for i, k := range keys {
		vals[i] = binary.LittleEndian.Uint64(k)
	}
	lib, err := xorfilter.NewBinaryFuse[uint8](vals)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("xorfilter", func(b *testing.B) {
		n := 0
		for i := range b.N {
			if lib.Contains(binary.LittleEndian.Uint64(probes[i&(1<<16-1)])) {
				n++
			}
		}
	})
}
