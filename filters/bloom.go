package filters

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/acbfjoin/acbfjoin/keylist"
	"github.com/bits-and-blooms/bloom/v3"

	"github.com/acbfjoin/acbfjoin/cbf"
)

// Bloom is a plain Bloom filter of the CBF budget's 4m bits
// (bits-and-blooms/bloom/v3, the seeds' filter), which cannot delete.
const Bloom Kind = "bloom"

// bloomFilter adapts bits-and-blooms' Test to Contains.
type bloomFilter struct {
	f *bloom.BloomFilter
	p *bloomProbe // its Test, without a division a probe
}

func newBloomFilter(f *bloom.BloomFilter) bloomFilter { return bloomFilter{f, newBloomProbe(f)} }

// Contains is the library's Test(key), by bloomProbe.
func (b bloomFilter) Contains(key []byte) bool { return b.p.contains(key) }

// bloomParams are a Bloom filter's: Bits = 4m bits (the budget of m
// counters, M) probed k times.
type bloomParams struct {
	M    uint64 `json:"m"` // counters of the budget: Bits = 4M
	K    int    `json:"k"`
	Bits uint64 `json:"bits"`
}

func (p bloomParams) String() string { return fmt.Sprintf("bloom(m=%d,k=%d)", p.Bits, p.K) }
func (p bloomParams) Shape() string  { return fmt.Sprintf("k=%d", p.K) }
func (p bloomParams) Summary() Summary {
	return Summary{M: p.M, K: p.K, FirstLevelBits: p.Bits, MemoryBits: p.Bits}
}

type bloomKind struct{ counterBudget }

func init() {
	k := bloomKind{}
	k.counterBudget = counterBudget{
		// All 4m bits are one Bloom filter.
		layout: func(m, n uint64, k int) (Params, error) { return bloomParams{M: m, K: k, Bits: 4 * m}, nil },
		countersFor: func(bits, n uint64, k int) uint64 {
			return uint64(math.Ceil(float64(bits) / 4))
		},
		// The Bloom optimum for its own 4m bits, not the counters' k.
		defaultK: func(m, n uint64) int { return defaultK(4*float64(m), float64(n)) },
		fpp:      k.fpp,
	}
	register(&Spec{Kind: Bloom, Doc: "a plain Bloom filter of the same memory (bits-and-blooms/bloom/v3's bits and format); cannot delete",
		Order: 2, Sized: true, Options: []Option{optionK(MaxK)}, f: k})
}

func (k bloomKind) size(n uint64, s Sizing) (Params, error) { return k.counterBudget.size(n, s, n) }

func (bloomKind) build(p Params, keys keylist.List) (Filter, Params, int64, error) {
	bp := p.(bloomParams)
	bf := newBloomFilter(bloom.New(uint(bp.Bits), uint(bp.K)))
	bf.p.addAll(keys) // on several goroutines for many keys
	var sz countWriter
	if _, err := bf.f.WriteTo(&sz); err != nil {
		return nil, nil, 0, err
	}
	return bf, p, int64(sz), nil
}

func (bloomKind) add(f Filter, key []byte) error {
	f.(bloomFilter).p.add(key)
	return nil
}

func (bloomKind) encode(f Filter, w io.Writer) error {
	_, err := f.(bloomFilter).f.WriteTo(w)
	return err
}

func (bloomKind) decode(data []byte) (Filter, Params, error) {
	// bits-and-blooms allocates whatever its header claims before reading
	// (found by fuzzing: a claim of 2^40 bits); check the sizes against the
	// data first. Its format, big-endian: m, k, then the bitset's length in
	// bits and its words.
	if len(data) < 24 {
		return nil, nil, fmt.Errorf("bloom filter: %d bytes, want at least 24", len(data))
	}
	m, k, bitsLen := binary.BigEndian.Uint64(data), binary.BigEndian.Uint64(data[8:]), binary.BigEndian.Uint64(data[16:])
	if k < 1 || k > MaxK || bitsLen != m || m == 0 || uint64(len(data)-24) != 8*((m+63)/64) {
		return nil, nil, fmt.Errorf("bloom filter: header (m=%d, k=%d, %d bits) does not match its %d bytes", m, k, bitsLen, len(data))
	}
	var f bloom.BloomFilter
	if _, err := f.ReadFrom(bytes.NewReader(data)); err != nil {
		return nil, nil, fmt.Errorf("bloom filter: %w", err)
	}
	return newBloomFilter(&f), bloomParams{M: m / 4, K: int(k), Bits: m}, nil // its bits are 4m of a budget of m counters
}

// fillFPP is (ones/m)^k: bits-and-blooms' probes are double hashing of its
// four murmur3 words, close to independent.
func (bloomKind) fillFPP(f Filter) float64 {
	b := f.(bloomFilter).f
	return math.Pow(float64(b.BitSet().Count())/float64(b.Cap()), float64(b.K()))
}

// fpp is the Bloom formula (1 - e^(-kn/m))^k with its 4m bits.
func (bloomKind) fpp(p Params, n uint64) float64 {
	bp := p.(bloomParams)
	return cbf.FPP(bp.Bits, n, bp.K)
}

// fillSpread is bloomFillSpread over its bits.
func (bloomKind) fillSpread(p Params, n uint64) float64 {
	bp := p.(bloomParams)
	return bloomFillSpread(float64(bp.Bits), bp.K, n)
}

// bloomFillSpread is the variance of a Bloom filter's fill rate (m bits,
// k probes a key, n keys) over filters of random keys: with kn probes the
// number of bits left zero has mean m e^-l and variance about m e^-l (1 -
// (1 + l) e^-l), l = kn/m (the occupancy problem: Kolchin, Sevast'yanov
// and Chistyakov, "Random Allocations", 1978, ch. I); the rate q^k of a
// fill q then has variance about (k q^(k-1))^2 Var(zeros)/m^2 (the delta
// method). It is what makes a small filter's rate stray from the formula
// by more than its binomial sd. -1 for no bits or no probes.
func bloomFillSpread(m float64, k int, n uint64) float64 {
	if m == 0 || k == 0 {
		return -1
	}
	kf := float64(k)
	l := kf * float64(n) / m
	e := math.Exp(-l)
	varZeros := m * e * (1 - (1+l)*e)
	q := 1 - e
	d := kf * math.Pow(q, kf-1)
	return d * d * varZeros / (m * m)
}

// countWriter counts the bytes written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

func (bloomKind) paramsOf(f Filter) Params {
	b := f.(bloomFilter).f
	return bloomParams{M: uint64(b.Cap()) / 4, K: int(b.K()), Bits: uint64(b.Cap())}
}
