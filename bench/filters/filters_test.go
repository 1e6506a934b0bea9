// Package filters holds the speed benchmarks of the cbf and acbf packages, side
// by side so that one run measures ACBF against its peer, the CBF of the same
// memory. bench/filters.sh runs them interleaved and writes
// bench/results/filters.md.
//
// Names: <Op>/<filter>/k=<k>/mn=<m/n>, with n = 100,000 keys (65,771 for Build,
// the paper's join key count) and the budget of a CBF with m = (m/n)*n counters.
package filters

import (
	"fmt"
	"math"
	"testing"

	"github.com/acbfjoin/acbfjoin/acbf"
	"github.com/acbfjoin/acbfjoin/cbf"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

const n = 100_000

// dyn is what the benchmarks need of a filter.
type dyn interface {
	Contains([]byte) bool
	Remove([]byte) error
}

type variant struct {
	name string
	new  func(m uint64, k int) (dyn, func([]byte) error, uint64) // filter, add, resident bytes
}

func cbfVariant() variant {
	return variant{"cbf", func(m uint64, k int) (dyn, func([]byte) error, uint64) {
		f, err := cbf.New(m, k)
		if err != nil {
			panic(err)
		}
		return f, func(key []byte) error { f.Add(key); return nil }, (m + 1) / 2
	}}
}

func acbfVariant(name string, cfg func(m uint64, k int) acbf.Config) variant {
	return variant{name, func(m uint64, k int) (dyn, func([]byte) error, uint64) {
		f, err := acbf.New(cfg(m, k))
		if err != nil {
			panic(err)
		}
		return f, f.Add, 0
	}}
}

func variants() []variant {
	return []variant{
		cbfVariant(),
		acbfVariant("acbf1", func(m uint64, k int) acbf.Config { return acbf.ConfigJ(1, m, n, k) }),
		acbfVariant("acbf3", func(m uint64, k int) acbf.Config { return acbf.ConfigJ(3, m, n, k) }),
		acbfVariant("acbfopt", func(m uint64, k int) acbf.Config { return acbf.ConfigOptimal(m, n, k) }),
	}
}

type shape struct{ k, mn int }

func shapes() []shape {
	var out []shape
	for _, mn := range []int{8, 20} {
		for _, k := range []int{3, int(math.Round(float64(mn) * math.Ln2))} {
			out = append(out, shape{k, mn})
		}
	}
	return out
}

func (s shape) String() string { return fmt.Sprintf("k=%d/mn=%d", s.k, s.mn) }

// filled returns a filter of the variant holding keys 0..count-1.
func filled(v variant, s shape, count uint64) (dyn, func([]byte) error, uint64) {
	f, add, bytes := v.new(uint64(s.mn)*n, s.k)
	for _, key := range testutil.Keys(0, count) {
		if err := add(key); err != nil {
			panic(err)
		}
	}
	if a, ok := f.(*acbf.Filter); ok {
		bytes = a.Stats().ResidentBytes
	}
	return f, add, bytes
}

func perSecond(b *testing.B, unit string) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit)
}

// BenchmarkContains probes a filter holding n keys with a stream of 2^20 keys,
// half members and half not, so the cache sees the whole filter.
func BenchmarkContains(b *testing.B) {
	probes := make([][]byte, 1<<20)
	members, others := testutil.Keys(0, n), testutil.Keys(1<<40, uint64(len(probes)))
	for i := range probes {
		if i%2 == 0 {
			probes[i] = members[(i/2)%n]
		} else {
			probes[i] = others[i]
		}
	}
	for _, s := range shapes() {
		for _, v := range variants() {
			b.Run(v.name+"/"+s.String(), func(b *testing.B) {
				f, _, bytes := filled(v, s, n)
				b.ReportAllocs()
				b.ResetTimer()
				hits := 0
				for i := 0; i < b.N; i++ {
					if f.Contains(probes[i&(len(probes)-1)]) {
						hits++
					}
				}
				perSecond(b, "keys/s")
				b.ReportMetric(float64(bytes), "filter-bytes")
				if hits < min(b.N, len(probes))/2 {
					b.Fatalf("only %d hits in %d probes: false negatives", hits, b.N)
				}
			})
		}
	}
}

// BenchmarkUpdate is the paper's update (Fig. 7): with keys i..i+n-1 stored,
// remove key i and add key i+n, so the load stays at n. One op is one Remove
// plus one Add. Keys are encoded on the fly (no allocation).
func BenchmarkUpdate(b *testing.B) {
	for _, s := range shapes() {
		for _, v := range variants() {
			b.Run(v.name+"/"+s.String(), func(b *testing.B) {
				f, add, _ := filled(v, s, n)
				var out, in [8]byte
				b.ReportAllocs()
				b.ResetTimer()
				for i := uint64(0); i < uint64(b.N); i++ {
					if err := f.Remove(testutil.Key(out[:], i)); err != nil {
						b.Fatal(err)
					}
					if err := add(testutil.Key(in[:], i+n)); err != nil {
						b.Fatal(err)
					}
				}
				perSecond(b, "updates/s")
			})
		}
	}
}

// BenchmarkAdd times Adds that take a filter from n/2 to n keys, and
// BenchmarkRemove the Removes that take it back; the other half of each cycle
// runs with the timer stopped.
func BenchmarkAdd(b *testing.B)    { benchHalf(b, true) }
func BenchmarkRemove(b *testing.B) { benchHalf(b, false) }

func benchHalf(b *testing.B, timeAdd bool) {
	const half = n / 2
	batch := testutil.Keys(1<<41, half)
	for _, s := range shapes() {
		for _, v := range variants() {
			b.Run(v.name+"/"+s.String(), func(b *testing.B) {
				f, add, _ := filled(v, s, half)
				b.ReportAllocs()
				b.ResetTimer()
				for done := 0; done < b.N; {
					c := min(half, b.N-done)
					if !timeAdd {
						b.StopTimer()
					}
					for _, key := range batch[:c] {
						if err := add(key); err != nil {
							b.Fatal(err)
						}
					}
					if timeAdd {
						b.StopTimer()
					} else {
						b.StartTimer()
					}
					for _, key := range batch[:c] {
						if err := f.Remove(key); err != nil {
							b.Fatal(err)
						}
					}
					if !timeAdd {
						b.StopTimer()
					}
					b.StartTimer()
					done += c
				}
				perSecond(b, "keys/s")
			})
		}
	}
}

// BenchmarkBuild builds a filter for the paper's 65,771 join keys: acbf.Build
// (the bulk constructor) against a CBF filled by Add, and against ACBF by Add.
func BenchmarkBuild(b *testing.B) {
	const keysN = 65_771
	keys := testutil.Keys(3_070_801, keysN)
	for _, mn := range []int{8, 20} {
		for _, k := range []int{3, int(math.Round(float64(mn) * math.Ln2))} {
			m := uint64(mn) * keysN
			s := shape{k, mn}.String()
			b.Run("cbf-add/"+s, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					f, _ := cbf.New(m, k)
					for _, key := range keys {
						f.Add(key)
					}
				}
			})
			b.Run("acbfopt-build/"+s, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := acbf.Build(acbf.ConfigOptimal(m, keysN, k), keys); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("acbfopt-add/"+s, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					f, _ := acbf.New(acbf.ConfigOptimal(m, keysN, k))
					for _, key := range keys {
						if err := f.Add(key); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}
