package cms

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

// MaxDepth is the largest number of rows a Sketch accepts: delta = e^-64 is
// about 1.6e-28, far below any use.
const MaxDepth = 64

// MaxCounters is the largest Width*Depth a Sketch accepts (2^32 counters, 32
// GiB): a bound that keeps every size computation far from overflow and lets a
// decoder reject absurd headers before allocating.
const MaxCounters = 1 << 32

// saturated is the value at which a counter (or Total) sticks.
const saturated = math.MaxUint64

var (
	// ErrShape is returned by Merge, Subtract and InnerProduct for sketches of
	// different Config (or a nil one).
	ErrShape = errors.New("cms: sketches have different configurations")
	// ErrConservative is returned by Subtract and InnerProduct for sketches
	// with conservative update, which are not linear (see the package doc).
	ErrConservative = errors.New("cms: operation needs a plain (not conservative) sketch")
	// ErrUnderflow is returned by Subtract when a counter (or the Total) of the
	// sketch subtracted is larger than the receiver's: it cannot summarize a
	// part of the receiver's stream.
	ErrUnderflow = errors.New("cms: subtracted sketch is larger than the receiver")
	// ErrConfig is returned for invalid parameters.
	ErrConfig = errors.New("cms: invalid parameters")
	// ErrFormat is returned when decoding input that is not a valid serialized
	// Sketch: foreign magic, unknown version, impossible parameters, counters
	// that break the sketch's invariants, a bad checksum or a truncated stream
	// (which also matches io.ErrUnexpectedEOF).
	ErrFormat = errors.New("cms: invalid serialized sketch")
)

// Config sizes a Sketch. Sketches combine (Merge, Subtract, InnerProduct) only
// with an equal Config: equal shape, update rule and Seed.
type Config struct {
	Width, Depth int // counters per row (1..), rows (1..MaxDepth); Width*Depth <= MaxCounters
	// Conservative selects conservative update (Estan and Varghese 2002):
	// lower overestimates, but the sketch is no longer linear. Subtract and
	// InnerProduct refuse it; Merge of two conservative sketches is an upper
	// bound of the concatenated stream, no larger than the plain sketch's, but
	// not equal to the conservative sketch of the concatenated stream (see the
	// package doc).
	Conservative bool
	Seed         uint64 // mixed into the row hashes; 0 is fine
}

// ForError returns the plain Config of a Seed-0 sketch whose point queries
// exceed the true count by more than eps*N with probability at most delta:
// Width = ceil(e/eps), Depth = ceil(ln(1/delta)) (CM05 Sec. 3 and Theorem 1),
// so that Eps() <= eps and Delta() <= delta. It returns an error wrapping
// ErrConfig unless 0 < eps < 1, 0 < delta < 1 and the sketch fits MaxDepth
// and MaxCounters.
func ForError(eps, delta float64) (Config, error) {
	if !(eps > 0 && eps < 1) {
		return Config{}, fmt.Errorf("%w: eps = %v, want 0 < eps < 1", ErrConfig, eps)
	}
	if !(delta > 0 && delta < 1) {
		return Config{}, fmt.Errorf("%w: delta = %v, want 0 < delta < 1", ErrConfig, delta)
	}
	w := math.Ceil(math.E / eps)
	d := max(1, math.Ceil(-math.Log(delta)))
	if d > MaxDepth {
		return Config{}, fmt.Errorf("%w: delta = %v needs %.0f rows, more than %d", ErrConfig, delta, d, MaxDepth)
	}
	if w*d > MaxCounters {
		return Config{}, fmt.Errorf("%w: eps = %v, delta = %v need %.0f counters, more than %d", ErrConfig, eps, delta, w*d, uint64(MaxCounters))
	}
	c := Config{Width: int(w), Depth: int(d)}
	return c, c.Validate()
}

// Validate returns an error wrapping ErrConfig if c cannot make a Sketch.
func (c Config) Validate() error {
	switch {
	case c.Depth < 1 || c.Depth > MaxDepth:
		return fmt.Errorf("%w: Depth = %d, want 1..%d", ErrConfig, c.Depth, MaxDepth)
	case c.Width < 1 || uint64(c.Width) > MaxCounters/uint64(c.Depth):
		return fmt.Errorf("%w: Width = %d at Depth %d, want 1..%d counters in all", ErrConfig, c.Width, c.Depth, uint64(MaxCounters))
	}
	return nil
}

// Eps returns e/Width, the relative error of a point query bounded with
// probability 1 - Delta() (CM05 Theorem 1). +Inf for Width <= 0.
func (c Config) Eps() float64 {
	if c.Width <= 0 {
		return math.Inf(1)
	}
	return math.E / float64(c.Width)
}

// Delta returns e^-Depth, the probability that a point query exceeds the true
// count by more than Eps()*N (CM05 Theorem 1).
func (c Config) Delta() float64 { return math.Exp(-float64(c.Depth)) }

// Sketch is a count-min sketch of Depth rows of Width uint64 counters. The
// zero value is not usable except as the receiver of ReadFrom or
// UnmarshalBinary: create one with New.
//
// Memory: 8 bytes per counter (MemoryBytes). Concurrency: the read methods
// (Count, CountHash, Total, InnerProduct, Equal, Clone, MemoryBytes, WriteTo,
// MarshalBinary) are safe for concurrent callers while nobody calls a
// mutating one (Add, AddHash, Merge, Subtract, Reset, ReadFrom,
// UnmarshalBinary), which needs exclusive access.
type Sketch struct {
	cfg      Config
	w        uint64   // Width
	s1, s2   uint64   // seed masks of h1 and h2 (seedMasks)
	counters []uint64 // row j, column i at j*w+i
	total    uint64   // sum of the counts, saturating
}

// New returns an empty sketch, or an error wrapping ErrConfig. O(Width*Depth).
func New(c Config) (*Sketch, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return newSketch(c, make([]uint64, c.Width*c.Depth)), nil
}

// newSketch builds a Sketch of a valid c on counters (len Width*Depth).
func newSketch(c Config, counters []uint64) *Sketch {
	s1, s2 := seedMasks(c.Seed)
	return &Sketch{cfg: c, w: uint64(c.Width), s1: s1, s2: s2, counters: counters}
}

// seedMasks derives the two masks xored into h1 and h2 from the seed
// (SplitMix64 of the seed xored with digits of pi, as sketch/topk does).
func seedMasks(seed uint64) (uint64, uint64) {
	return mix64(seed ^ 0x243f6a8885a308d3), mix64(seed ^ 0x13198a2e03707344)
}

// mix64 is the SplitMix64 output function (Steele, Lea and Flood, "Fast
// Splittable Pseudorandom Number Generators", OOPSLA 2014): a bijection of
// uint64 whose every output bit depends on every input bit.
func mix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// rowHash turns the key's hashing.Sum halves into the seeded pair whose
// double-hashing sequence gives the columns. Mixing after the xor matters:
// xor alone would keep two keys whose h1 share their top bits in the same
// column under every seed, since Reduce reads the top bits.
func (s *Sketch) rowHash(h1, h2 uint64) (uint64, uint64) {
	return mix64(h1 ^ s.s1), mix64(h2 ^ s.s2)
}

// satAdd returns a+b, or 2^64-1 if that overflows.
func satAdd(a, b uint64) uint64 {
	s, carry := bits.Add64(a, b, 0)
	if carry != 0 {
		return saturated
	}
	return s
}

// Config returns the sketch's configuration.
func (s *Sketch) Config() Config { return s.cfg }

// Total returns N, the sum of the counts added and merged minus those
// subtracted; it saturates at 2^64-1 and then sticks. O(1).
func (s *Sketch) Total() uint64 { return s.total }

// MemoryBytes returns the bytes of the counters, 8*Width*Depth; the fixed
// Sketch header (under 100 bytes) is not counted. O(1).
func (s *Sketch) MemoryBytes() uint64 { return 8 * uint64(len(s.counters)) }

// Add adds count occurrences of key: one counter per row grows by count
// (under conservative update only up to the key's new estimate), saturating
// at 2^64-1. A count of 0 does nothing. One hash of the key (O(len(key)))
// plus O(Depth), no allocation.
func (s *Sketch) Add(key []byte, count uint64) {
	h1, h2 := hashing.Sum(key)
	s.AddHash(h1, h2, count)
}

// AddHash is Add for a key whose hashing.Sum is (h1, h2), for callers that
// hash each key once for several structures. O(Depth), no allocation.
func (s *Sketch) AddHash(h1, h2 uint64, count uint64) {
	if count == 0 {
		return
	}
	g1, g2 := s.rowHash(h1, h2)
	w, c := s.w, s.counters
	d := uint64(s.cfg.Depth)
	if s.cfg.Conservative {
		// Estan and Varghese 2002: the new estimate is the old minimum plus
		// count; raise each counter to it, never lower one.
		est := uint64(saturated)
		for j := range d {
			est = min(est, c[j*w+hashing.Probe(g1, g2, int(j), w)])
		}
		est = satAdd(est, count)
		for j := range d {
			p := &c[j*w+hashing.Probe(g1, g2, int(j), w)]
			*p = max(*p, est)
		}
	} else {
		for j := range d {
			p := &c[j*w+hashing.Probe(g1, g2, int(j), w)]
			*p = satAdd(*p, count)
		}
	}
	s.total = satAdd(s.total, count)
}

// Count returns the point estimate of key: the smallest of its Depth
// counters, never below the true count, and above it by more than Eps()*N
// with probability at most Delta() (CM05 Theorem 1). One hash of the key plus
// O(Depth), no allocation.
func (s *Sketch) Count(key []byte) uint64 {
	h1, h2 := hashing.Sum(key)
	return s.CountHash(h1, h2)
}

// CountHash is Count for a key whose hashing.Sum is (h1, h2). O(Depth), no
// allocation.
func (s *Sketch) CountHash(h1, h2 uint64) uint64 {
	g1, g2 := s.rowHash(h1, h2)
	w, c := s.w, s.counters
	est := uint64(saturated)
	for j := range uint64(s.cfg.Depth) {
		est = min(est, c[j*w+hashing.Probe(g1, g2, int(j), w)])
	}
	return est
}

// compatible returns an error wrapping ErrShape unless o is a sketch of the
// same Config as s.
func (s *Sketch) compatible(o *Sketch) error {
	if o == nil {
		return fmt.Errorf("%w: other sketch is nil", ErrShape)
	}
	if s.cfg != o.cfg {
		return fmt.Errorf("%w: %+v vs %+v", ErrShape, s.cfg, o.cfg)
	}
	return nil
}

// Merge adds the counters and Total of o to s (saturating). For plain
// sketches the result is exactly the sketch of the two streams concatenated;
// for conservative ones an upper bound of it (see the package doc). On a
// different Config it returns an error wrapping ErrShape and s is unchanged.
// O(Width*Depth), no allocation.
func (s *Sketch) Merge(o *Sketch) error {
	if err := s.compatible(o); err != nil {
		return err
	}
	for i, c := range o.counters {
		s.counters[i] = satAdd(s.counters[i], c)
	}
	s.total = satAdd(s.total, o.total)
	return nil
}

// Subtract takes the counters and Total of o from s: if o is the sketch of a
// part of s's stream (a batch added earlier), the result is exactly the
// sketch of the rest, which keeps sliding windows. A saturated counter or
// Total of s stays saturated.
//
// It returns an error and leaves s unchanged for a different Config
// (ErrShape), conservative sketches (ErrConservative), and an o with a
// counter or Total larger than s's (ErrUnderflow); all are checked before
// anything changes. Subtracting a sketch that passes these checks but is not
// of a sub-stream of s's stream makes the frequencies s summarizes negative
// somewhere, and Count may then fall below them. O(Width*Depth), no
// allocation.
func (s *Sketch) Subtract(o *Sketch) error {
	if err := s.compatible(o); err != nil {
		return err
	}
	if s.cfg.Conservative {
		return fmt.Errorf("%w: Subtract", ErrConservative)
	}
	if o.total > s.total {
		return fmt.Errorf("%w: Total %d > %d", ErrUnderflow, o.total, s.total)
	}
	for i, c := range o.counters {
		if c > s.counters[i] {
			return fmt.Errorf("%w: counter %d (row %d): %d > %d", ErrUnderflow, i, uint64(i)/s.w, c, s.counters[i])
		}
	}
	for i, c := range o.counters {
		if s.counters[i] != saturated {
			s.counters[i] -= c
		}
	}
	if s.total != saturated {
		s.total -= o.total
	}
	return nil
}

// InnerProduct returns the estimate of the join size f·g = sum_x f(x)g(x) of
// the streams summarized by s (f) and o (g): the smallest over the rows of the
// dot product of s's row with o's row (saturating). It is never below f·g,
// and above it by more than Eps()*|f|_1*|g|_1 with probability at most
// Delta() (CM05 Theorem 3).
//
// It returns an error wrapping ErrShape for a different Config and
// ErrConservative for conservative sketches, whose rows can give less than
// f·g. O(Width*Depth), no allocation.
func (s *Sketch) InnerProduct(o *Sketch) (uint64, error) {
	if err := s.compatible(o); err != nil {
		return 0, err
	}
	if s.cfg.Conservative {
		return 0, fmt.Errorf("%w: InnerProduct", ErrConservative)
	}
	best := uint64(saturated)
	for j := range s.cfg.Depth {
		a := s.counters[j*s.cfg.Width : (j+1)*s.cfg.Width]
		b := o.counters[j*s.cfg.Width : (j+1)*s.cfg.Width]
		b = b[:len(a)] // one bounds check for the loop
		var dot uint64
		for i, x := range a {
			hi, lo := bits.Mul64(x, b[i])
			if hi != 0 {
				dot = saturated
				break
			}
			dot = satAdd(dot, lo)
		}
		best = min(best, dot)
	}
	return best, nil
}

// Reset empties the sketch, keeping its Config and memory. O(Width*Depth).
func (s *Sketch) Reset() {
	clear(s.counters)
	s.total = 0
}

// Clone returns an independent copy of s. O(Width*Depth).
func (s *Sketch) Clone() *Sketch {
	t := *s
	t.counters = append([]uint64(nil), s.counters...)
	return &t
}

// Equal reports whether s and o have the same Config, counters and Total, bit
// for bit (two nil sketches are equal). O(Width*Depth).
func (s *Sketch) Equal(o *Sketch) bool {
	if s == nil || o == nil {
		return s == o
	}
	if s.cfg != o.cfg || s.total != o.total || len(s.counters) != len(o.counters) {
		return false
	}
	for i, c := range s.counters {
		if o.counters[i] != c {
			return false
		}
	}
	return true
}
