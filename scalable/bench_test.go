package scalable

import (
	"fmt"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// benchCases are the filters of the benchmarks: the default Config grown from
// n0 = 1000 (1, 4 and 7 sub-filters at 1,000, 10,000 and 100,000 keys), and
// one sized for 100,000 keys from the start (n0 = 100,000: one sub-filter).
var benchCases = []struct {
	cfg  Config
	keys uint64
}{
	{Config{}, 1_000},
	{Config{}, 10_000},
	{Config{}, 100_000},
	{Config{InitialCapacity: 100_000}, 100_000},
}

// BenchmarkAdd builds a filter from empty to 100,000 keys an operation: the
// default Config grows from n0 = 1000 through 7 sub-filters, so the
// allocations a build are those of the sub-filters and their list; n0 =
// 100,000 allocates its one sub-filter. Reports keys/s and ns a key.
func BenchmarkAdd(b *testing.B) {
	const n = 100_000
	keys := testutil.Keys(0, n)
	for _, cfg := range []Config{{}, {InitialCapacity: n}} {
		b.Run(fmt.Sprintf("n0=%d/keys=%d", cfg.withDefaults().InitialCapacity, n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				f, err := New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				for _, key := range keys {
					if err := f.Add(key); err != nil {
						b.Fatal(err)
					}
				}
			}
			keysPerSec := float64(n) * float64(b.N) / b.Elapsed().Seconds()
			b.ReportMetric(keysPerSec, "keys/s")
			b.ReportMetric(1e9/keysPerSec, "ns/key")
		})
	}
}

// BenchmarkContains queries the filters of benchCases with members (found,
// often in the newest sub-filter) and non-members (every sub-filter asked):
// one key an operation, with Contains, and 1,000 keys an operation with
// ContainsBatch. Reports keys/s.
func BenchmarkContains(b *testing.B) {
	for _, bc := range benchCases {
		n := bc.keys
		f, err := New(bc.cfg)
		if err != nil {
			b.Fatal(err)
		}
		members := testutil.Keys(0, n)
		for _, key := range members {
			if err := f.Add(key); err != nil {
				b.Fatal(err)
			}
		}
		queries := map[string][][]byte{"member": members, "nonmember": testutil.Keys(1<<40, 100_000)}
		for _, q := range []string{"member", "nonmember"} {
			keys := queries[q]
			name := fmt.Sprintf("n0=%d/keys=%d/filters=%d/query=%s", f.Config().InitialCapacity, n, f.Filters(), q)
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				hits := 0
				for i := range b.N {
					if f.Contains(keys[i%len(keys)]) {
						hits++
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "keys/s")
				if q == "member" && hits != b.N {
					b.Fatalf("%d of %d members found", hits, b.N)
				}
			})
			b.Run(name+"/batch=1000", func(b *testing.B) {
				b.ReportAllocs()
				out := make([]bool, 1000)
				for i := range b.N {
					lo := (i * 1000) % (len(keys) - 999)
					f.ContainsBatch(keys[lo:lo+1000], out)
				}
				b.ReportMetric(1000*float64(b.N)/b.Elapsed().Seconds(), "keys/s")
			})
		}
	}
}
