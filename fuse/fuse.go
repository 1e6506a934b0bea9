package fuse

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/FastFilter/xorfilter"
	"github.com/acbfjoin/acbfjoin/keylist"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

// MaxKeys is the most keys a filter holds: the library's array indexes are
// 32-bit.
const MaxKeys = 1 << 31

// ErrFormat is wrapped by every decoding error.
var ErrFormat = errors.New("fuse: invalid serialized filter")

// Filter is a binary fuse filter with fingerprints of 8, 16 or 32 bits.
type Filter struct {
	bits int
	n    uint64 // distinct keys given to Build
	f8   *xorfilter.BinaryFuse[uint8]
	f16  *xorfilter.BinaryFuse[uint16]
	f32  *xorfilter.BinaryFuse[uint32]
}

// ValidBits reports whether f is a fingerprint width a filter takes: 8, 16
// or 32.
func ValidBits(f int) bool { return f == 8 || f == 16 || f == 32 }

// FPP is the false positive rate of a filter of f-bit fingerprints: 2^-f
// (see the package documentation).
func FPP(f int) float64 { return math.Ldexp(1, -f) }

// Slots is the entries of the array of a filter of n keys: the library's
// layout (arity 3), O(1).
func Slots(n uint64) uint64 {
	if n == 0 {
		return 0 // an empty filter has no array
	}
	sl := segmentLength(n)
	capacity := uint64(0)
	if n > 1 {
		capacity = uint64(math.Round(float64(n) * sizeFactor(n)))
	}
	segments := max(3, (capacity+sl-1)/sl)
	return segments * sl
}

// segmentLength and sizeFactor are xorfilter's calculateSegmentLength and
// calculateSizeFactor for arity 3 (Graf and Lemire, Sec. 4), its cap of
// 2^18 included; TestSlots checks them against the built arrays.
func segmentLength(n uint64) uint64 {
	return min(1<<18, uint64(1)<<int(math.Floor(math.Log(float64(n))/math.Log(3.33)+2.25)))
}

func sizeFactor(n uint64) float64 {
	return math.Max(1.125, 0.875+0.25*math.Log(1e6)/math.Log(float64(n)))
}

// reduce is a key's 64-bit value (see the package documentation).
func reduce(key []byte) uint64 {
	if len(key) == 8 {
		return binary.LittleEndian.Uint64(key)
	}
	h1, _ := hashing.Sum(key)
	return h1
}

// Build returns the filter of keys (distinct; not retained) with f-bit
// fingerprints. O(n log n) for the sort, then the library's O(n)
// construction.
func Build(keys [][]byte, f int) (*Filter, error) {
	return BuildList(keylist.Of(keys), f)
}

// BuildList is Build of a keylist.List.
func BuildList(keys keylist.List, f int) (*Filter, error) {
	if !ValidBits(f) {
		return nil, fmt.Errorf("fuse: %d-bit fingerprints, want 8, 16 or 32", f)
	}
	n := keys.Len()
	if uint64(n) > MaxKeys {
		return nil, fmt.Errorf("fuse: %d keys, at most %d", n, uint64(MaxKeys))
	}
	flt := &Filter{bits: f, n: uint64(n)}
	if n == 0 {
		return flt, nil
	}
	vals := make([]uint64, n)
	for i := range vals {
		vals[i] = reduce(keys.At(i))
	}
	slices.Sort(vals)
	var err error
	switch f {
	case 8:
		flt.f8, err = xorfilter.NewBinaryFuse[uint8](vals)
	case 16:
		flt.f16, err = xorfilter.NewBinaryFuse[uint16](vals)
	default:
		flt.f32, err = xorfilter.NewBinaryFuse[uint32](vals)
	}
	if err != nil {
		return nil, fmt.Errorf("fuse: build of %d keys: %w", n, err)
	}
	return flt, nil
}

// Contains reports whether key may be in the set: always for a key that
// was built in, with probability FPP(f) for another. O(len(key)) for the
// hash, then three memory reads.
func (f *Filter) Contains(key []byte) bool {
	switch {
	case f.f8 != nil:
		return f.f8.Contains(reduce(key))
	case f.f16 != nil:
		return f.f16.Contains(reduce(key))
	case f.f32 != nil:
		return f.f32.Contains(reduce(key))
	}
	return false // no keys
}

// FingerprintBits is f.
func (f *Filter) FingerprintBits() int { return f.bits }

// Len is the distinct keys it was built from.
func (f *Filter) Len() uint64 { return f.n }

// Slots is the entries of its array.
func (f *Filter) Slots() uint64 {
	switch {
	case f.f8 != nil:
		return uint64(len(f.f8.Fingerprints))
	case f.f16 != nil:
		return uint64(len(f.f16.Fingerprints))
	case f.f32 != nil:
		return uint64(len(f.f32.Fingerprints))
	}
	return 0
}

// MemoryBits is its array's bits.
func (f *Filter) MemoryBits() uint64 { return f.Slots() * uint64(f.bits) }

// Equal reports whether f and g are the same filter: the same fingerprint
// width, keys, seed, segments and array. O(MemoryBits).
func (f *Filter) Equal(g *Filter) bool {
	fs, fl, fc := f.shape()
	gs, gl, gc := g.shape()
	if f.bits != g.bits || f.n != g.n || fs != gs || fl != gl || fc != gc {
		return false
	}
	switch {
	case f.f8 != nil:
		return g.f8 != nil && slices.Equal(f.f8.Fingerprints, g.f8.Fingerprints)
	case f.f16 != nil:
		return g.f16 != nil && slices.Equal(f.f16.Fingerprints, g.f16.Fingerprints)
	case f.f32 != nil:
		return g.f32 != nil && slices.Equal(f.f32.Fingerprints, g.f32.Fingerprints)
	}
	return g.Slots() == 0
}
