package acbf

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/acbfjoin/acbfjoin/keylist"
)

// BenchmarkBuildList: the build of n packed 8-byte keys at 32 bits a key
// and k = 6 (the join's default ACBF), with the first level's goroutines
// as the machine gives them. At 10^7 keys the first level is 32 MB.
//
//	go test ./acbf -run - -bench BuildList -benchtime 3x
func BenchmarkBuildList(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000, 10_000_000} {
		arena := make([]byte, 8*n)
		for i := range n {
			binary.LittleEndian.PutUint64(arena[8*i:], uint64(i)*7919+3)
		}
		keys := keylist.Packed(arena, 8)
		cfg := ConfigOptimal(uint64(8*n), uint64(n), 6) // 4m bits: 32 a key
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := BuildList(cfg, keys); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
		})
	}
}
