package topk

import (
	"fmt"
	"testing"
)

// BenchmarkAdd: Add of a Zipf(1.1) stream of 8-byte keys, top 100 at 113,560
// bytes (BoomFilters' TopK at epsilon 0.001, delta 0.01, see
// bench/peers/topk) and at a tenth of that.
func BenchmarkAdd(b *testing.B) {
	st := zipfStream(1, 1<<20, 1_000_000, 1.1)
	for _, mem := range []uint64{113_560, 11_356} {
		for _, kind := range kinds {
			b.Run(fmt.Sprintf("kind=%s/bytes=%d", kind.name, mem), func(b *testing.B) {
				s := kind.make(b, 100, mem, 1)
				b.ReportAllocs()
				b.ResetTimer()
				i := 0
				for b.Loop() {
					s.Add(st.keys[st.ids[i]], 1)
					i = (i + 1) & (len(st.ids) - 1)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "keys/s")
			})
		}
	}
}
