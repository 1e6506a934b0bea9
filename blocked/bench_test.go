package blocked

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// classic is the peer of the benchmarks: a classic (unblocked) Bloom filter of
// m bits whose k probes spread over all of them (hashing.Probe, the scheme of
// cbf and acbf), with the same hash and the same 8-byte fast path as Filter.
type classic struct {
	m     uint64
	k     int
	words []uint64
}

func newClassic(m uint64, k int) *classic {
	return &classic{m: m, k: k, words: make([]uint64, (m+63)/64)}
}

func sum(key []byte) (h1, h2 uint64) {
	if len(key) == 8 {
		return hashing.Sum8(binary.LittleEndian.Uint64(key))
	}
	return hashing.Sum(key)
}

func (c *classic) Add(key []byte) {
	h1, h2 := sum(key)
	for i := range c.k {
		p := hashing.Probe(h1, h2, i, c.m)
		c.words[p>>6] |= 1 << (p & 63)
	}
}

func (c *classic) Contains(key []byte) bool {
	h1, h2 := sum(key)
	for i := range c.k {
		p := hashing.Probe(h1, h2, i, c.m)
		if c.words[p>>6]&(1<<(p&63)) == 0 {
			return false
		}
	}
	return true
}

// TestClassicPeer: the benchmark's peer is a Bloom filter: no false negatives,
// and its false positive rate is the classic formula's (4 sd).
func TestClassicPeer(t *testing.T) {
	const n, queries = 20_000, 200_000
	c := newClassic(10*n, 7)
	for _, key := range testutil.Keys(0, n) {
		c.Add(key)
	}
	for _, key := range testutil.Keys(0, n) {
		if !c.Contains(key) {
			t.Fatalf("classic Contains(%x) = false, want true", key)
		}
	}
	fp := 0
	var key [8]byte
	for i := range queries {
		if c.Contains(testutil.Key(key[:], 1<<40+uint64(i))) {
			fp++
		}
	}
	got, want := float64(fp)/queries, classicFPP(10*n, n, 7)
	if sd := math.Sqrt(want * (1 - want) / queries); math.Abs(got-want) > 4*sd {
		t.Errorf("classic peer: measured FP %.4g, formula %.4g, sd %.2g", got, want, sd)
	}
}

// probeKey writes the i-th query key into buf: for even i a member (a key
// 0..n-1 picked by a multiplicative hash of i, reduced without a division),
// for odd i a non-member. Keys are made on the fly so that the benchmark reads
// no key array: only the filter competes for the cache.
func probeKey(buf []byte, i, n uint64) []byte {
	if i&1 == 0 {
		return testutil.Key(buf, hashing.Reduce(i*0x9e3779b97f4a7c15, n))
	}
	return testutil.Key(buf, 1<<40+i)
}

// peers returns a blocked filter (k = OptimalK) and a classic one (k =
// round(bpk ln 2), its own optimum) of the same bits, holding keys 0..n-1.
func peers(b *testing.B, n, bpk uint64) (*Filter, *classic) {
	f := mustNew(b, bpk*n, OptimalK(float64(bpk)))
	c := newClassic(f.Bits(), int(math.Round(float64(bpk)*math.Ln2)))
	var buf [8]byte
	for i := range n {
		key := testutil.Key(buf[:], i)
		f.Add(key)
		c.Add(key)
	}
	return f, c
}

// The query loops, one per kind and written out, so that both call their
// Contains directly (a func value would add an indirect call to each).

func queryBlocked(b *testing.B, f *Filter, n uint64) {
	var buf [8]byte
	b.ReportAllocs()
	b.ResetTimer()
	hits := 0
	for i := range uint64(b.N) {
		if f.Contains(probeKey(buf[:], i, n)) {
			hits++
		}
	}
	finish(b, hits)
}

func queryClassic(b *testing.B, c *classic, n uint64) {
	var buf [8]byte
	b.ReportAllocs()
	b.ResetTimer()
	hits := 0
	for i := range uint64(b.N) {
		if c.Contains(probeKey(buf[:], i, n)) {
			hits++
		}
	}
	finish(b, hits)
}

func queryBatch(b *testing.B, f *Filter, n uint64) {
	var bufs [batchSize][8]byte
	keys := make([][]byte, batchSize)
	for i := range keys {
		keys[i] = bufs[i][:]
	}
	out := make([]bool, batchSize)
	b.ReportAllocs()
	b.ResetTimer()
	hits := 0
	for lo := 0; lo < b.N; lo += batchSize {
		m := min(batchSize, b.N-lo)
		for i := range m {
			probeKey(keys[i], uint64(lo+i), n)
		}
		f.ContainsBatch(keys[:m], out)
		for _, ok := range out[:m] {
			if ok {
				hits++
			}
		}
	}
	finish(b, hits)
}

// finish reports keys/s and fails on false negatives (half the queries are
// members).
func finish(b *testing.B, hits int) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "keys/s")
	if hits < b.N/2 {
		b.Fatalf("only %d hits in %d queries: false negatives", hits, b.N)
	}
}

// BenchmarkContains: queries, half members and half not, on filters of n =
// 1,000,000 keys (1.25 MB at 10 bits per key: more than a core's L2 cache
// here, less than the L3): the blocked filter by Contains and by
// ContainsBatch, against the classic peer of the same bits. One op is one
// key.
func BenchmarkContains(b *testing.B) {
	const n = 1_000_000
	for _, bpk := range []uint64{10, 16} {
		f, c := peers(b, n, bpk)
		b.Run(fmt.Sprintf("kind=blocked/bpk=%d", bpk), func(b *testing.B) { queryBlocked(b, f, n) })
		b.Run(fmt.Sprintf("kind=classic/bpk=%d", bpk), func(b *testing.B) { queryClassic(b, c, n) })
		b.Run(fmt.Sprintf("kind=blocked-batch/bpk=%d", bpk), func(b *testing.B) { queryBatch(b, f, n) })
	}
}

// BenchmarkContainsDRAM is BenchmarkContains at n = 50,000,000 keys and 10
// bits per key, 62.5 MB a filter: larger than the L3 cache, so that most
// queries go to memory. The setup takes a few seconds.
func BenchmarkContainsDRAM(b *testing.B) {
	const n, bpk = 50_000_000, 10
	f, c := peers(b, n, bpk)
	b.Run(fmt.Sprintf("kind=blocked/bpk=%d", bpk), func(b *testing.B) { queryBlocked(b, f, n) })
	b.Run(fmt.Sprintf("kind=classic/bpk=%d", bpk), func(b *testing.B) { queryClassic(b, c, n) })
	b.Run(fmt.Sprintf("kind=blocked-batch/bpk=%d", bpk), func(b *testing.B) { queryBatch(b, f, n) })
}

// BenchmarkAdd: Adds into filters sized for n = 1,000,000 keys at 10 bits per
// key, keys drawn from 0..n-1 as probeKey draws members, against the classic
// peer.
func BenchmarkAdd(b *testing.B) {
	const n, bpk = 1_000_000, 10
	f := mustNew(b, bpk*n, OptimalK(bpk))
	c := newClassic(f.Bits(), int(math.Round(bpk*math.Ln2)))
	b.Run(fmt.Sprintf("kind=blocked/bpk=%d", bpk), func(b *testing.B) {
		var buf [8]byte
		b.ReportAllocs()
		b.ResetTimer()
		for i := range uint64(b.N) {
			f.Add(testutil.Key(buf[:], hashing.Reduce(i*0x9e3779b97f4a7c15, n)))
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "keys/s")
	})
	b.Run(fmt.Sprintf("kind=classic/bpk=%d", bpk), func(b *testing.B) {
		var buf [8]byte
		b.ReportAllocs()
		b.ResetTimer()
		for i := range uint64(b.N) {
			c.Add(testutil.Key(buf[:], hashing.Reduce(i*0x9e3779b97f4a7c15, n)))
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "keys/s")
	})
}
