package cbf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/internal/parbuild"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// MaxK is the largest number of hash functions a Filter accepts.
const MaxK = 64

// MaxCounters is the largest number of counters a Filter accepts (2^36 counters,
// 32 GiB of counters): a bound that keeps every size computation far from
// overflow and lets a decoder reject absurd headers.
const MaxCounters = 1 << 36

// counterMax is the value at which a 4-bit counter saturates and sticks.
const counterMax = 15

var (
	// ErrNotMember is returned by Remove for a key that cannot be in the filter:
	// one of its counters is zero (or smaller than the number of its probes that
	// land on it).
	ErrNotMember = errors.New("cbf: key is not a member")
	// ErrShape is returned by Merge for filters of different m or k.
	ErrShape = errors.New("cbf: filters have different shapes")
	// ErrConfig is returned for invalid parameters.
	ErrConfig = errors.New("cbf: invalid parameters")
	// ErrFormat is returned when decoding input that is not a valid serialized
	// Filter: foreign magic, unknown version, impossible parameters, a bad
	// checksum or a truncated stream (which also matches io.ErrUnexpectedEOF).
	ErrFormat = errors.New("cbf: invalid serialized filter")
)

// Filter is a counting Bloom filter with m 4-bit counters, two per byte, and k
// probes per key. The zero value is not usable: create one with New or
// NewWithEstimates.
//
// Concurrency: Contains and Count only read and are safe for any number of
// concurrent callers while nobody calls Add, Remove, Merge or ReadFrom/
// UnmarshalBinary; those mutate and need exclusive access.
type Filter struct {
	m           uint64
	k           int
	counters    []byte // counter i is the low nibble of byte i/2 when i is even, the high nibble when odd
	n           uint64 // Adds minus successful Removes
	saturations uint64 // counters stuck at 15
}

// New returns an empty filter with m counters (4m bits) and k probes per key.
func New(m uint64, k int) (*Filter, error) {
	if err := validate(m, k); err != nil {
		return nil, err
	}
	return &Filter{m: m, k: k, counters: make([]byte, (m+1)/2)}, nil
}

func validate(m uint64, k int) error {
	if m < 1 || m > MaxCounters {
		return fmt.Errorf("%w: m = %d counters, want 1..%d", ErrConfig, m, uint64(MaxCounters))
	}
	if k < 1 || k > MaxK {
		return fmt.Errorf("%w: k = %d hash functions, want 1..%d", ErrConfig, k, MaxK)
	}
	return nil
}

// NewWithEstimates returns an empty filter sized so that n keys give a false
// positive probability of about p: m = ceil(-n ln p / (ln 2)^2) counters and
// k = round((m/n) ln 2), the classic Bloom filter optimum (Broder and
// Mitzenmacher, "Network Applications of Bloom Filters", 2004, Sec. 2.2).
func NewWithEstimates(n uint64, p float64) (*Filter, error) {
	if n < 1 {
		return nil, fmt.Errorf("%w: n = %d, want >= 1", ErrConfig, n)
	}
	if !(p > 0 && p < 1) {
		return nil, fmt.Errorf("%w: false positive probability %v, want 0 < p < 1", ErrConfig, p)
	}
	mf := math.Ceil(-float64(n) * math.Log(p) / (math.Ln2 * math.Ln2))
	if mf > MaxCounters {
		return nil, fmt.Errorf("%w: n = %d at p = %v needs %.0f counters, more than %d", ErrConfig, n, p, mf, uint64(MaxCounters))
	}
	m := uint64(mf)
	k := int(math.Round(float64(m) / float64(n) * math.Ln2))
	k = max(1, min(k, MaxK))
	return New(m, k)
}

// FPP is the false positive probability of a counting Bloom filter with m
// counters and k probes holding n keys, (1 - e^(-kn/m))^k (Fan, Cao, Almeida and
// Broder, "Summary Cache", IEEE/ACM ToN 2000; the paper's CBF formula).
func FPP(m, n uint64, k int) float64 {
	if m == 0 {
		return 1
	}
	return math.Pow(-math.Expm1(-float64(k)*float64(n)/float64(m)), float64(k))
}

// M returns the number of counters.
func (f *Filter) M() uint64 { return f.m }

// K returns the number of probes per key.
func (f *Filter) K() int { return f.k }

// Len returns the number of Adds minus the number of successful Removes.
func (f *Filter) Len() uint64 { return f.n }

// MemoryBits returns the filter's memory budget, 4m bits.
func (f *Filter) MemoryBits() uint64 { return 4 * f.m }

// Saturations returns the number of counters that have reached 15 and stick
// there. A counter saturates at most once (it is never decremented again), so
// this is also the number of counters currently at 15.
func (f *Filter) Saturations() uint64 { return f.saturations }

// FPP returns the formula false positive probability for the current Len.
func (f *Filter) FPP() float64 { return FPP(f.m, f.n, f.k) }

// FillFPP returns the false positive rate of this filter's counters for a key
// never added, its probes independent and uniform: (z/m)^k with z the
// non-zero counters. FPP is its expectation over random filters of Len keys;
// one filter's FillFPP differs from it by the chance in how its keys fell.
// O(m), no allocation.
func (f *Filter) FillFPP() float64 {
	var nz uint64
	for _, b := range f.counters {
		nz += uint64(nonZeroNibbles[b])
	}
	return math.Pow(float64(nz)/float64(f.m), float64(f.k))
}

// nonZeroNibbles[b] is the number of non-zero nibbles of byte b.
var nonZeroNibbles = func() (t [256]uint8) {
	for b := range t {
		if b&0x0f != 0 {
			t[b]++
		}
		if b&0xf0 != 0 {
			t[b]++
		}
	}
	return t
}()

func (f *Filter) get(i uint64) uint8 {
	return f.counters[i>>1] >> ((i & 1) << 2) & 0xf
}

// inc increments counter i, saturating at 15.
func (f *Filter) inc(i uint64) {
	shift := (i & 1) << 2
	b := &f.counters[i>>1]
	c := *b >> shift & 0xf
	if c == counterMax {
		return // stuck
	}
	*b += 1 << shift // no carry into the other nibble: c < 15
	if c+1 == counterMax {
		f.saturations++
	}
}

// dec decrements counter i unless it is saturated; the caller ensures it is > 0.
func (f *Filter) dec(i uint64) {
	shift := (i & 1) << 2
	b := &f.counters[i>>1]
	if *b>>shift&0xf == counterMax {
		return
	}
	*b -= 1 << shift
}

// Add inserts key: O(k) after one hash of the key, no allocation.
func (f *Filter) Add(key []byte) {
	h1, h2 := hashing.Sum(key)
	for i := 0; i < f.k; i++ {
		f.inc(hashing.Probe(h1, h2, i, f.m))
	}
	f.n++
}

// Build returns a filter of m counters and k probes holding keys, as New
// then Add of each key would: the same counters, Len and saturations. Above
// 2^18 probes it adds them on up to four goroutines (one a CPU), each
// owning a range of the counters' bytes: each reads every key and takes
// only the probes in its range, so no byte is written by two and the
// filter is the same whatever the count (TestBuildWorkers). O(m + n*k),
// the keys hashed once a goroutine.
func Build(m uint64, k int, keys [][]byte) (*Filter, error) {
	return BuildList(m, k, keylist.Of(keys))
}

// BuildList is Build of a keylist.List (packed integer keys take 8 bytes
// each, not 32).
func BuildList(m uint64, k int, keys keylist.List) (*Filter, error) {
	f, err := New(m, k)
	if err != nil {
		return nil, err
	}
	n := keys.Len()
	workers := buildWorkers(n*k, uint64(len(f.counters)))
	nb := uint64(len(f.counters))
	if workers <= 1 || nb < uint64(workers) {
		for i := range n {
			f.Add(keys.At(i))
		}
		return f, nil
	}
	sat := make([]uint64, workers)
	parbuild.Ranges(nb, workers, func(w int, lo, hi uint64) { // counters 2*lo .. 2*hi-1: whole bytes
		part := &Filter{m: f.m, k: f.k, counters: f.counters}
		for j := range n {
			h1, h2 := hashing.Sum(keys.At(j))
			for i := 0; i < k; i++ {
				if p := hashing.Probe(h1, h2, i, f.m); p>>1 >= lo && p>>1 < hi {
					part.inc(p)
				}
			}
		}
		sat[w] = part.saturations
	})
	for _, s := range sat {
		f.saturations += s
	}
	f.n = uint64(n)
	return f, nil
}

// buildWorkers is how many goroutines Build adds probes probes into an
// array of bytes bytes with (parbuild.RangeWorkers: one below
// parbuild.RangesMinBytes; a variable so that tests set it).
var buildWorkers = parbuild.RangeWorkers

// Contains reports whether key may be in the filter: true for every key added
// and not removed (no false negatives, as long as no non-member was removed),
// and true with probability about FPP() for other keys. O(k), no allocation.
func (f *Filter) Contains(key []byte) bool {
	h1, h2 := hashing.Sum(key)
	for i := 0; i < f.k; i++ {
		p := hashing.Probe(h1, h2, i, f.m)
		if f.counters[p>>1]>>((p&1)<<2)&0xf == 0 {
			return false
		}
	}
	return true
}

// ContainsSum is Contains for a key whose hashing.Sum is (h1, h2), so that a
// key tested against many filters is hashed once (a filter bank). O(k), no
// allocation; as safe for concurrent readers as Contains.
func (f *Filter) ContainsSum(h1, h2 uint64) bool {
	for i := 0; i < f.k; i++ {
		p := hashing.Probe(h1, h2, i, f.m)
		if f.counters[p>>1]>>((p&1)<<2)&0xf == 0 {
			return false
		}
	}
	return true
}

// ContainsBatch sets out[i] to Contains(keys[i]) for every key (len(out) >=
// len(keys)). It answers the same as Contains, faster on many keys: it hashes
// every key and loads the counter of its first probe first, so that the
// memory accesses of different keys overlap, then finishes the keys whose
// first counter is not zero. O(k) a key, no allocation; as safe for
// concurrent readers as Contains.
func (f *Filter) ContainsBatch(keys [][]byte, out []bool) {
	const block = 64
	var h1s, h2s [block]uint64
	for lo := 0; lo < len(keys); lo += block {
		n := min(block, len(keys)-lo)
		for i := range n {
			var h1, h2 uint64
			if k := keys[lo+i]; len(k) == 8 { // Sum's own fast path, inlined here
				h1, h2 = hashing.Sum8(binary.LittleEndian.Uint64(k))
			} else {
				h1, h2 = hashing.Sum(k)
			}
			h1s[i], h2s[i] = h1, h2
			p := hashing.Probe(h1, h2, 0, f.m)
			out[lo+i] = f.counters[p>>1]>>((p&1)<<2)&0xf != 0
		}
		for i := range n {
			if !out[lo+i] {
				continue
			}
			for j := 1; j < f.k; j++ {
				p := hashing.Probe(h1s[i], h2s[i], j, f.m)
				if f.counters[p>>1]>>((p&1)<<2)&0xf == 0 {
					out[lo+i] = false
					break
				}
			}
		}
	}
}

// Count returns the smallest of key's k counters: an upper bound on the number of
// times key was added and not removed. O(k), no allocation.
func (f *Filter) Count(key []byte) int {
	h1, h2 := hashing.Sum(key)
	c := uint8(counterMax)
	for i := 0; i < f.k; i++ {
		c = min(c, f.get(hashing.Probe(h1, h2, i, f.m)))
	}
	return int(c)
}

// Remove deletes one occurrence of key. If any of key's counters is zero (taking
// into account probes that hit the same counter twice) the key cannot have been
// added, Remove returns an error wrapping ErrNotMember and the filter is
// unchanged. Saturated counters are not decremented. O(k), no allocation.
//
// Removing a key that was never added but passes the check (a false positive)
// decrements counters that belong to other keys and can create false negatives:
// callers should remove only keys they added.
func (f *Filter) Remove(key []byte) error {
	h1, h2 := hashing.Sum(key)
	for i := 0; i < f.k; i++ {
		p := hashing.Probe(h1, h2, i, f.m)
		if f.get(p) == 0 {
			// Undo the decrements done so far, in reverse. They were all on
			// counters below 15, so the increments cannot saturate.
			for j := i - 1; j >= 0; j-- {
				q := hashing.Probe(h1, h2, j, f.m)
				if f.get(q) != counterMax {
					f.counters[q>>1] += 1 << ((q & 1) << 2)
				}
			}
			return fmt.Errorf("%w: counter %d is zero", ErrNotMember, p)
		}
		f.dec(p)
	}
	f.n--
	return nil
}

// Merge adds the counters of other to f (saturating at 15), as if every key added
// to other had been added to f. Both filters must have the same m and k, else it
// returns an error wrapping ErrShape and f is unchanged. O(m).
func (f *Filter) Merge(other *Filter) error {
	if other == nil || f.m != other.m || f.k != other.k {
		if other == nil {
			return fmt.Errorf("%w: other filter is nil", ErrShape)
		}
		return fmt.Errorf("%w: m=%d k=%d vs m=%d k=%d", ErrShape, f.m, f.k, other.m, other.k)
	}
	for i := range f.counters {
		a, b := f.counters[i], other.counters[i]
		lo := min(a&0xf+b&0xf, counterMax)
		hi := min(a>>4+b>>4, counterMax)
		if lo == counterMax && a&0xf != counterMax {
			f.saturations++
		}
		if hi == counterMax && a>>4 != counterMax {
			f.saturations++
		}
		f.counters[i] = hi<<4 | lo
	}
	f.n += other.n
	return nil
}

// Equal reports whether f and other have the same shape, counters and Len.
func (f *Filter) Equal(other *Filter) bool {
	if f.m != other.m || f.k != other.k || f.n != other.n || f.saturations != other.saturations {
		return false
	}
	return string(f.counters) == string(other.counters)
}
