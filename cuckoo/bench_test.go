package cuckoo

import (
	"fmt"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// benchN is the number of keys of BenchmarkFill's filter, as in
// bench/filters (n = 100,000).
const benchN = 100_000

// benchSizes are the capacities n of the filters of BenchmarkContains,
// ContainsBatch, Add and Remove: n = 100,000 as in bench/filters, and
// 1,000,000 (a table of 1-2 MiB, about the size of the caches).
var benchSizes = []uint64{100_000, 1_000_000}

func benchShapes() []struct{ b, f int } {
	return []struct{ b, f int }{{4, 8}, {4, 16}}
}

// benchCases calls fn for every size of benchSizes and shape of benchShapes,
// as the sub-benchmark "n=N/b=B/f=F".
func benchCases(b *testing.B, fn func(b *testing.B, n uint64, bs, fb int)) {
	for _, n := range benchSizes {
		for _, s := range benchShapes() {
			b.Run(fmt.Sprintf("n=%d/b=%d/f=%d", n, s.b, s.f), func(b *testing.B) { fn(b, n, s.b, s.f) })
		}
	}
}

// benchFilter returns a filter of capacity n holding keys 0..count-1.
func benchFilter(b *testing.B, n uint64, bs, fb int, count uint64) *Filter {
	f := mustNew(b, n, bs, fb)
	for _, key := range testutil.Keys(0, count) {
		if err := f.Add(key); err != nil {
			b.Fatal(err)
		}
	}
	return f
}

func perSecond(b *testing.B, unit string) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit)
}

// probeStream returns 2^20 keys, half members of benchFilter (keys 0..n-1) and
// half not, so that the cache sees the whole filter.
func probeStream(n uint64) [][]byte {
	probes := make([][]byte, 1<<20)
	members, others := testutil.Keys(0, min(n, uint64(len(probes)/2))), testutil.Keys(1<<40, uint64(len(probes)))
	for i := range probes {
		if i%2 == 0 {
			probes[i] = members[(i/2)%len(members)]
		} else {
			probes[i] = others[i]
		}
	}
	return probes
}

// BenchmarkContains probes a filter holding n keys (load about 0.95) with the
// probe stream, one key at a time.
func BenchmarkContains(b *testing.B) {
	benchCases(b, func(b *testing.B, n uint64, bs, fb int) {
		probes := probeStream(n)
		f := benchFilter(b, n, bs, fb, n)
		b.ReportAllocs()
		b.ResetTimer()
		hits := 0
		for i := 0; i < b.N; i++ {
			if f.Contains(probes[i&(len(probes)-1)]) {
				hits++
			}
		}
		perSecond(b, "keys/s")
		if hits < min(b.N, len(probes))/2 {
			b.Fatalf("only %d hits in %d probes: false negatives", hits, b.N)
		}
	})
}

// BenchmarkContainsBatch is BenchmarkContains through ContainsBatch, 1024 keys
// a call; one op is one key.
func BenchmarkContainsBatch(b *testing.B) {
	const batch = 1024
	out := make([]bool, batch)
	benchCases(b, func(b *testing.B, n uint64, bs, fb int) {
		probes := probeStream(n)
		f := benchFilter(b, n, bs, fb, n)
		b.ReportAllocs()
		b.ResetTimer()
		hits := 0
		for done := 0; done < b.N; done += batch {
			lo := done & (len(probes) - 1)
			keys := probes[lo : lo+min(batch, b.N-done)]
			f.ContainsBatch(keys, out)
			for _, hit := range out[:len(keys)] {
				if hit {
					hits++
				}
			}
		}
		perSecond(b, "keys/s")
		if hits < min(b.N, len(probes))/2 {
			b.Fatalf("only %d hits in %d probes: false negatives", hits, b.N)
		}
	})
}

// BenchmarkAdd times the Adds that take a filter of capacity n from n/2 to n
// keys (load about 0.475 to 0.95), and BenchmarkRemove the Removes that take
// it back; the other half of each cycle runs with the timer stopped.
func BenchmarkAdd(b *testing.B)    { benchHalf(b, true) }
func BenchmarkRemove(b *testing.B) { benchHalf(b, false) }

func benchHalf(b *testing.B, timeAdd bool) {
	benchCases(b, func(b *testing.B, n uint64, bs, fb int) {
		half := n / 2
		batch := testutil.Keys(1<<41, half)
		f := benchFilter(b, n, bs, fb, half)
		b.ReportAllocs()
		b.ResetTimer()
		for done := 0; done < b.N; {
			c := min(int(half), b.N-done)
			if !timeAdd {
				b.StopTimer()
			}
			for _, key := range batch[:c] {
				if err := f.Add(key); err != nil {
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

// BenchmarkFill times filling an empty filter of capacity n to Cap() keys
// (load 0.95), where relocations are frequent; one op is one Add.
func BenchmarkFill(b *testing.B) {
	for _, s := range benchShapes() {
		b.Run(fmt.Sprintf("b=%d/f=%d", s.b, s.f), func(b *testing.B) {
			f := mustNew(b, benchN, s.b, s.f)
			keys := testutil.Keys(0, f.Cap())
			b.ReportAllocs()
			b.ResetTimer()
			for done := 0; done < b.N; {
				b.StopTimer()
				f = mustNew(b, benchN, s.b, s.f)
				b.StartTimer()
				c := min(len(keys), b.N-done)
				for _, key := range keys[:c] {
					if err := f.Add(key); err != nil {
						b.Fatal(err)
					}
				}
				done += c
			}
			perSecond(b, "keys/s")
		})
	}
}

// BenchmarkContainsLarge compares Contains and ContainsBatch on a filter of
// 10^7 keys (20 MiB at f = 16, load 0.95), far larger than the caches, where
// ContainsBatch overlaps the cache and TLB misses of different keys. Probes
// are half members, half not.
func BenchmarkContainsLarge(b *testing.B) {
	const n = 10_000_000
	probes := make([][]byte, 1<<20)
	buf := make([]byte, 8*len(probes))
	for i := range probes {
		k := buf[8*i : 8*i+8 : 8*i+8]
		if i%2 == 0 {
			testutil.Key(k, uint64(i)*7919%n)
		} else {
			testutil.Key(k, 1<<40+uint64(i))
		}
		probes[i] = k
	}
	out := make([]bool, 1024)
	for _, s := range benchShapes() {
		f := mustNew(b, n, s.b, s.f)
		var key [8]byte
		for i := uint64(0); i < n; i++ {
			if err := f.Add(testutil.Key(key[:], i)); err != nil {
				b.Fatal(err)
			}
		}
		shape := fmt.Sprintf("b=%d/f=%d", s.b, s.f)
		b.Run("Contains/"+shape, func(b *testing.B) {
			b.ReportAllocs()
			hits := 0
			for i := 0; i < b.N; i++ {
				if f.Contains(probes[i&(len(probes)-1)]) {
					hits++
				}
			}
			perSecond(b, "keys/s")
			if hits < min(b.N, len(probes))/2 {
				b.Fatalf("only %d hits in %d probes: false negatives", hits, b.N)
			}
		})
		b.Run("ContainsBatch/"+shape, func(b *testing.B) {
			b.ReportAllocs()
			for done := 0; done < b.N; done += len(out) {
				lo := done & (len(probes) - 1)
				f.ContainsBatch(probes[lo:lo+min(len(out), b.N-done)], out)
			}
			perSecond(b, "keys/s")
		})
	}
}
