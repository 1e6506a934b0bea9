package filters

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/bits-and-blooms/bloom/v3"

	"github.com/acbfjoin/acbfjoin/cbf"
)

// bloomFilter adapts bits-and-blooms' Test to Contains.
type bloomFilter struct{ f *bloom.BloomFilter }

func (b bloomFilter) Contains(key []byte) bool { return b.f.Test(key) }

func init() {
	register(&Spec{
		Kind:   Bloom,
		Doc:    "a plain Bloom filter of the same memory (bits-and-blooms/bloom/v3); cannot delete",
		Order:  2,
		Sized:  true,
		Fields: []string{"K"},
		// All 4m bits are one Bloom filter.
		Layout: func(m, n uint64, k int) (Params, error) {
			return Params{M: m, K: k, FirstLevelBits: 4 * m, MemoryBits: 4 * m}, nil
		},
		Words:       func(p Params) string { return fmt.Sprintf("m=%d bits, k=%d", p.FirstLevelBits, p.K) },
		CountersFor: func(bits, n uint64, k int) uint64 { return uint64(math.Ceil(float64(bits) / 4)) },
		// The Bloom optimum for its own 4m bits, not the counters' k.
		DefaultK: func(m, n uint64) int { return defaultK(4*float64(m), float64(n)) },
		Add: func(f Filter, key []byte) error {
			f.(bloomFilter).f.Add(key)
			return nil
		},
		Build: func(p Params, keys [][]byte) (Filter, int64, error) {
			f := bloom.New(uint(p.FirstLevelBits), uint(p.K))
			for _, key := range keys {
				f.Add(key)
			}
			var sz countWriter
			if _, err := f.WriteTo(&sz); err != nil {
				return nil, 0, err
			}
			return bloomFilter{f}, int64(sz), nil
		},
		Encode: func(f Filter, w io.Writer) error {
			_, err := f.(bloomFilter).f.WriteTo(w)
			return err
		},
		Decode: func(data []byte) (Filter, error) {
			// bits-and-blooms allocates whatever its header claims before
			// reading (found by fuzzing: a claim of 2^40 bits); check the sizes
			// against the data first. Its format, big-endian: m, k, then the
			// bitset's length in bits and its words.
			if len(data) < 24 {
				return nil, fmt.Errorf("bloom filter: %d bytes, want at least 24", len(data))
			}
			m, k, bitsLen := binary.BigEndian.Uint64(data), binary.BigEndian.Uint64(data[8:]), binary.BigEndian.Uint64(data[16:])
			if k < 1 || k > MaxK || bitsLen != m || m == 0 || uint64(len(data)-24) != 8*((m+63)/64) {
				return nil, fmt.Errorf("bloom filter: header (m=%d, k=%d, %d bits) does not match its %d bytes", m, k, bitsLen, len(data))
			}
			var f bloom.BloomFilter
			if _, err := f.ReadFrom(bytes.NewReader(data)); err != nil {
				return nil, fmt.Errorf("bloom filter: %w", err)
			}
			return bloomFilter{&f}, nil
		},
		// (ones/m)^k: bits-and-blooms' probes are double hashing of its
		// four murmur3 words, close to independent.
		FillFPP: func(f Filter) float64 {
			b := f.(bloomFilter).f
			return math.Pow(float64(b.BitSet().Count())/float64(b.Cap()), float64(b.K()))
		},
		// The Bloom formula (1 - e^(-kn/m))^k with its 4m bits.
		FPP: func(p Params, n uint64) float64 { return cbf.FPP(p.FirstLevelBits, n, p.K) },
	})
}

// countWriter counts the bytes written to it.
type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}
