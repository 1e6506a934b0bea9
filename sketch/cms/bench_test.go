package cms

import (
	"fmt"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// benchConfigs are the sketches of the benchmarks: an L1-sized one, and the
// cmseval default (eps 1e-4, delta 0.01: 1.1 MB) and a 22 MB one (eps 1e-5,
// delta 1e-4), which live in L2 and memory.
var benchConfigs = []Config{{Width: 272, Depth: 3}, {Width: 27183, Depth: 5}, {Width: 271829, Depth: 10}}

func BenchmarkAdd(b *testing.B) {
	keys := testutil.Keys(0, 1<<16)
	for _, c := range benchConfigs {
		for _, cons := range []bool{false, true} {
			c.Conservative = cons
			name := fmt.Sprintf("depth=%d/width=%d/conservative=%v", c.Depth, c.Width, cons)
			b.Run(name, func(b *testing.B) {
				s := mustNew(b, c)
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					s.Add(keys[i&(len(keys)-1)], 1)
					i++
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "keys/s")
			})
		}
	}
}

func BenchmarkCount(b *testing.B) {
	keys := testutil.Keys(0, 1<<16)
	for _, c := range benchConfigs {
		b.Run(fmt.Sprintf("depth=%d/width=%d", c.Depth, c.Width), func(b *testing.B) {
			s := mustNew(b, c)
			for _, k := range keys {
				s.Add(k, 1)
			}
			b.ReportAllocs()
			i := 0
			var sink uint64
			for b.Loop() {
				sink += s.Count(keys[i&(len(keys)-1)])
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "keys/s")
			_ = sink
		})
	}
}

func BenchmarkInnerProduct(b *testing.B) {
	c := benchConfigs[1]
	s := mustNew(b, c)
	for _, k := range testutil.Keys(0, 1<<16) {
		s.Add(k, 1)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.InnerProduct(s)
	}
	b.ReportMetric(float64(8*c.Width*c.Depth)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}
