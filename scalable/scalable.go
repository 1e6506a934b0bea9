package scalable

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

// MaxBits is the most bits a Filter holds in all its sub-filters (2^36 bits,
// 8 GiB): a bound that keeps every size computation far from overflow and lets
// a decoder reject absurd headers.
const MaxBits = 1 << 36

// MaxFilters is the most sub-filters a Filter holds.
const MaxFilters = 64

// MaxCapacity is the largest design capacity n_i of one sub-filter (2^53, the
// largest range in which float64 holds every integer): it keeps the capacities
// exact and their sum, Len, far from overflow.
const MaxCapacity = 1 << 53

// The defaults of a zero Config field.
const (
	defaultInitialCapacity = 1000
	defaultFPP             = 0.001
	defaultGrowth          = 2
	defaultTightening      = 0.5
)

var (
	// ErrConfig is returned by New for an invalid Config; the message names the
	// field.
	ErrConfig = errors.New("scalable: invalid configuration")
	// ErrFull is returned by Add when the next sub-filter would pass MaxBits or
	// MaxFilters; the filter is unchanged.
	ErrFull = errors.New("scalable: filter is full")
	// ErrFormat is returned when decoding input that is not a valid serialized
	// Filter: foreign magic, unknown version, an invalid Config, sub-filters
	// whose shape or fill contradicts it, a bad checksum or a truncated stream
	// (which also matches io.ErrUnexpectedEOF).
	ErrFormat = errors.New("scalable: invalid serialized filter")
)

// Config sizes a Filter with the paper's four parameters. A zero field takes
// its default.
type Config struct {
	// InitialCapacity is n0, the keys of the first sub-filter: 1..MaxCapacity,
	// and small enough that the first sub-filter, about 1.44 n0 log2(1/P0)
	// bits, fits MaxBits; default 1000.
	InitialCapacity uint64
	// FPP is P0, the error of the first sub-filter: 0 < P0 < 1, default 0.001.
	FPP float64
	// Growth is s, the factor between the capacities of consecutive
	// sub-filters, a float64: any finite value >= 1, not only an integer
	// (1.5 makes each sub-filter hold half as many keys again as the one
	// before; n_i = floor(n0 * s^i)); default 2 (the paper suggests 2 for
	// slow growth, 4 for fast). With s = 1 every sub-filter has capacity n0.
	Growth float64
	// Tightening is r, the factor between the errors of consecutive
	// sub-filters: 0 < r < 1, default 0.5 (the paper suggests 0.8 to 0.9 for
	// the least memory in the long run).
	Tightening float64
}

// withDefaults returns c with its zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.InitialCapacity == 0 {
		c.InitialCapacity = defaultInitialCapacity
	}
	if c.FPP == 0 {
		c.FPP = defaultFPP
	}
	if c.Growth == 0 {
		c.Growth = defaultGrowth
	}
	if c.Tightening == 0 {
		c.Tightening = defaultTightening
	}
	return c
}

// validate reports which field of a Config with defaults applied is invalid,
// or nil. The negated comparisons also reject NaN.
func (c Config) validate() error {
	if c.InitialCapacity < 1 || c.InitialCapacity > MaxCapacity {
		return fmt.Errorf("%w: InitialCapacity = %d, want 1..%d", ErrConfig, c.InitialCapacity, uint64(MaxCapacity))
	}
	if !(c.FPP > 0 && c.FPP < 1) {
		return fmt.Errorf("%w: FPP = %v, want 0 < FPP < 1", ErrConfig, c.FPP)
	}
	if !(c.Growth >= 1 && c.Growth <= math.MaxFloat64) {
		return fmt.Errorf("%w: Growth = %v, want a finite value >= 1", ErrConfig, c.Growth)
	}
	if !(c.Tightening > 0 && c.Tightening < 1) {
		return fmt.Errorf("%w: Tightening = %v, want 0 < Tightening < 1", ErrConfig, c.Tightening)
	}
	return nil
}

// shape is the design of one sub-filter.
type shape struct {
	capacity uint64 // n_i, keys it takes before the next sub-filter is added
	k        int    // k_i, slices (one probe each)
	slice    uint64 // s_i, bits a slice
	first    uint64 // g_i = k_0 + ... + k_{i-1}, the filter-wide number of its slice 0 (its probes' stream)
}

// bits returns k_i * s_i, the sub-filter's bits.
func (s shape) bits() uint64 { return uint64(s.k) * s.slice }

// words returns the number of 64-bit words that hold the sub-filter's bits.
func (s shape) words() uint64 { return (s.bits() + 63) / 64 }

// shape returns the design of sub-filter i of a valid Config (see the package
// doc), or why it cannot exist. It is the one place the sizing rule is
// written: New, Add and the decoder all go through it. The capacity and error
// are products of float64 multiplications, exact IEEE-754 operations, and k_i
// comes from the exponent of p_i, so only m_i depends on math.Log. O(i).
func (c Config) shape(i int) (shape, error) {
	n, p := float64(c.InitialCapacity), c.FPP
	var first uint64 // the sum of k_l = 1 - exponent(p_l) over l < i
	for range i {
		_, e := math.Frexp(p)
		first += uint64(1 - e)
		n *= c.Growth
		p *= c.Tightening
	}
	n = math.Floor(n)
	if !(n <= MaxCapacity) {
		return shape{}, fmt.Errorf("sub-filter %d: capacity n0*s^%d = %.4g keys, more than %d", i, i, n, uint64(MaxCapacity))
	}
	if p == 0 {
		return shape{}, fmt.Errorf("sub-filter %d: error P0*r^%d underflows", i, i)
	}
	// k = ceil(log2(1/p)) exactly: with p = f * 2^e and 1/2 <= f < 1,
	// log2(1/p) = -e + log2(1/f) and 0 < log2(1/f) <= 1, so k = 1 - e.
	_, e := math.Frexp(p)
	k := 1 - e
	m := math.Ceil(n * -math.Log(p) / (math.Ln2 * math.Ln2))
	if !(m <= MaxBits) {
		return shape{}, fmt.Errorf("sub-filter %d: %.4g keys at error %.4g need %.4g bits, more than %d", i, n, p, m, uint64(MaxBits))
	}
	sh := shape{capacity: uint64(n), k: k, first: first}
	sh.slice = (uint64(m) + uint64(k) - 1) / uint64(k)
	if sh.bits() > MaxBits {
		return shape{}, fmt.Errorf("sub-filter %d: %d slices of %d bits, more than %d", i, k, sh.slice, uint64(MaxBits))
	}
	return sh, nil
}

// sub is one partitioned Bloom filter: k slices of s bits, slice j holding bits
// j*s .. (j+1)*s - 1 of words (bit b is bit b%64 of words[b/64]). The bits past
// k*s in the last word are zero.
type sub struct {
	shape
	keys  uint64 // c_i, keys added to this sub-filter (<= capacity)
	words []uint64
}

// golden is 2^64 / phi, splitmix64's increment: odd, so g*golden takes 2^64
// distinct values for g < 2^64.
const golden = 0x9e3779b97f4a7c15

// wyC is the constant of wyrand's output function.
const wyC = 0x8bb84b93962eacc9

// mix is the output function of wyrand (Wang Yi's wyhash, final version 4:
// _wymix(s, s ^ 0x8bb84b93962eacc9)), the high and low halves of the 128-bit
// product z * (z XOR wyC) XORed: one multiplication, where splitmix64's
// output function takes two and three xor-shifts (with it Add and Contains
// took 10-30% longer). Not a bijection (0 and wyC both give 0), which
// nothing here needs: what it gives is that inputs differing in any way give
// unrelated outputs, high bits included.
//
// A key of hash (h1, h2) has its bit in the filter's slice number g (slice j
// of sub-filter i has g = first_i + j) at Reduce(mix((h1 + g*golden) XOR h2),
// s_i). The callers keep h1 + g*golden as a running sum.
func mix(z uint64) uint64 {
	hi, lo := bits.Mul64(z, z^wyC)
	return hi ^ lo
}

// add sets the key's bit in every slice: in slice j, bit
// Reduce(mix((h1 + (first+j)*golden) XOR h2), s).
func (sf *sub) add(h1, h2 uint64) {
	words, s := sf.words, sf.slice // locals: the compiler reloads fields every iteration
	z := h1 + sf.first*golden
	base := uint64(0)
	for range sf.k {
		b := base + hashing.Reduce(mix(z^h2), s)
		words[b>>6] |= 1 << (b & 63)
		z += golden
		base += s
	}
}

// has reports whether the key's bit is set in every slice. O(k), and for a
// non-member at fill 1/2, two probes on average.
func (sf *sub) has(h1, h2 uint64) bool {
	return sf.hasFrom(h1+sf.first*golden, h2, 0)
}

// hasFrom is has for slices j..k-1, with z = h1 + (first+j)*golden.
func (sf *sub) hasFrom(z, h2 uint64, j int) bool {
	words, s, k := sf.words, sf.slice, sf.k // locals: 2-4% faster Contains
	base := uint64(j) * s
	for ; j < k; j++ {
		b := base + hashing.Reduce(mix(z^h2), s)
		if words[b>>6]&(1<<(b&63)) == 0 {
			return false
		}
		z += golden
		base += s
	}
	return true
}

// fpp is the partitioned filter's formula error with c keys in k slices of s
// bits: each slice received c probes, so it has a fraction 1 - (1 - 1/s)^c of
// ones and a non-member passes all k with probability that fraction to the k.
// Computed as -expm1(c*log1p(-1/s)) to keep its precision at small c/s.
func fpp(s, c uint64, k int) float64 {
	if c == 0 {
		return 0
	}
	fill := -math.Expm1(float64(c) * math.Log1p(-1/float64(s)))
	return math.Pow(fill, float64(k))
}

// Filter is a scalable Bloom filter: a list of partitioned Bloom filters of
// growing capacity and shrinking error (see the package doc). The zero value
// is not usable: create one with New (or decode one with ReadFrom or
// UnmarshalBinary).
//
// Concurrency: Contains, ContainsBatch and the accessors only read and are
// safe for any number of concurrent callers while nobody calls Add, ReadFrom or
// UnmarshalBinary; those mutate and need exclusive access.
type Filter struct {
	cfg  Config // defaults applied
	subs []sub  // at least one after New; keys go to the last
	n    uint64 // keys added, the sum of subs[i].keys
	bits uint64 // the sum of subs[i].bits()
}

// New returns an empty filter for cfg, with its first sub-filter allocated
// (k_0 * s_0 bits, about 1.44 n0 log2(1/P0)). An invalid Config, or a first
// sub-filter of more than MaxBits bits, gives an error wrapping ErrConfig that
// names the field.
func New(cfg Config) (*Filter, error) {
	cfg = cfg.withDefaults()
	sh, err := cfg.firstShape()
	if err != nil {
		return nil, err
	}
	f := &Filter{cfg: cfg}
	f.push(sh)
	return f, nil
}

// firstShape validates a Config with defaults applied and returns the shape
// of its first sub-filter, or the error New returns (wrapping ErrConfig).
func (c Config) firstShape() (shape, error) {
	if err := c.validate(); err != nil {
		return shape{}, err
	}
	sh, err := c.next(0, 0)
	if err != nil {
		return shape{}, fmt.Errorf("%w: InitialCapacity = %d at FPP = %v: %v", ErrConfig, c.InitialCapacity, c.FPP, err)
	}
	return sh, nil
}

// next returns the shape of sub-filter i of a valid Config, to follow i
// sub-filters of bits bits in all, or why it cannot be added (MaxFilters,
// MaxBits, or a shape that does not exist). Add, the decoder and Plan all
// grow through it.
func (c Config) next(i int, bits uint64) (shape, error) {
	if i >= MaxFilters {
		return shape{}, fmt.Errorf("%d sub-filters, the most allowed", MaxFilters)
	}
	sh, err := c.shape(i)
	if err != nil {
		return shape{}, err
	}
	if sh.bits() > MaxBits-bits {
		return shape{}, fmt.Errorf("sub-filter %d of %d bits would bring the filter's %d bits past %d", i, sh.bits(), bits, uint64(MaxBits))
	}
	return sh, nil
}

// next returns the shape of the sub-filter that would follow the current
// ones, or why it cannot be added.
func (f *Filter) next() (shape, error) { return f.cfg.next(len(f.subs), f.bits) }

// push appends an empty sub-filter of shape sh.
func (f *Filter) push(sh shape) {
	f.subs = append(f.subs, sub{shape: sh, words: make([]uint64, sh.words())})
	f.bits += sh.bits()
}

// Add inserts key into the last sub-filter, first appending a new one if the
// last holds its capacity. O(k) after one hash of the key, and no allocation
// except the new sub-filter's. When the new sub-filter would pass MaxFilters or
// MaxBits it returns an error wrapping ErrFull and the filter is unchanged.
func (f *Filter) Add(key []byte) error {
	l := len(f.subs)
	if l == 0 || f.subs[l-1].keys == f.subs[l-1].capacity {
		if err := f.grow(); err != nil {
			return err
		}
		l++
	}
	sf := &f.subs[l-1]
	h1, h2 := hashing.Sum(key)
	sf.add(h1, h2)
	sf.keys++
	f.n++
	return nil
}

// grow appends the next sub-filter (Add's slow path).
func (f *Filter) grow() error {
	if f.cfg == (Config{}) {
		return fmt.Errorf("%w: zero Filter, create one with New", ErrConfig)
	}
	sh, err := f.next()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrFull, err)
	}
	f.push(sh)
	return nil
}

// Contains reports whether key may be in the filter: true for every key added
// (no false negatives), and true with probability about FPP() for other keys.
// It hashes the key once and asks the sub-filters newest first: the newest is
// the largest and holds the most keys. O(sum of k_i) at most, no allocation.
func (f *Filter) Contains(key []byte) bool {
	h1, h2 := hashing.Sum(key)
	for i := len(f.subs) - 1; i >= 0; i-- {
		if f.subs[i].has(h1, h2) {
			return true
		}
	}
	return false
}

// ContainsBatch sets out[i] to Contains(keys[i]) for every key (len(out) >=
// len(keys)). It answers the same as Contains, faster on many keys: it hashes
// a block of 64 keys, then for each sub-filter, newest first, loads the first
// probe of every key still unanswered before finishing those whose first bit
// is set, so that the memory accesses of different keys overlap. No
// allocation; as safe for concurrent readers as Contains.
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
		}
		// open has bit i set while key lo+i has not been found in any
		// sub-filter yet.
		open := uint64(1)<<n - 1 // n == 64 shifts to 0, and 0 - 1 is all ones
		for si := len(f.subs) - 1; si >= 0 && open != 0; si-- {
			sf := &f.subs[si]
			// Probe 0 of every open key: a key whose bit is clear is not in
			// this sub-filter. cand keeps the others.
			var cand uint64
			z0 := sf.first * golden
			for rest := open; rest != 0; rest &= rest - 1 {
				i := bits.TrailingZeros64(rest)
				b := hashing.Reduce(mix((h1s[i]+z0)^h2s[i]), sf.slice)
				cand |= (sf.words[b>>6] >> (b & 63) & 1) << i
			}
			// Probes 1..k-1 of the candidates, starting from slice 1.
			for ; cand != 0; cand &= cand - 1 {
				i := bits.TrailingZeros64(cand)
				if sf.hasFrom(h1s[i]+z0+golden, h2s[i], 1) {
					open &^= 1 << i
				}
			}
		}
		for i := range n {
			out[lo+i] = open>>i&1 == 0
		}
	}
}

// Len returns the number of keys added (every Add counts, repeats included).
func (f *Filter) Len() uint64 { return f.n }

// Filters returns the number of sub-filters, at least 1 after New.
func (f *Filter) Filters() int { return len(f.subs) }

// MemoryBits returns the bits of all sub-filters, the sum of k_i * s_i. The
// words that hold them round each sub-filter up to a multiple of 64 bits.
func (f *Filter) MemoryBits() uint64 { return f.bits }

// Config returns the filter's Config with the defaults applied.
func (f *Filter) Config() Config { return f.cfg }

// FPP returns the formula false positive probability at the current fill,
// 1 - prod_i (1 - (1 - (1 - 1/s_i)^{c_i})^{k_i}) with c_i the keys of
// sub-filter i (see the package doc): the expectation, over the random
// placement of c_i keys, of the rate FillFPP gives for the bits those keys
// set. It depends on the Config and Len only (Config.Plan gives it before
// building). O(Filters()).
func (f *Filter) FPP() float64 {
	var logPass float64 // log of the probability that no sub-filter has the key
	for i := range f.subs {
		sf := &f.subs[i]
		logPass += passLog(sf.shape, sf.keys)
	}
	return -math.Expm1(logPass)
}

// passLog returns log(1 - fpp) for a sub-filter of shape sh holding c keys,
// the term FPP and Plan sum (in the same order, so that they agree exactly).
func passLog(sh shape, c uint64) float64 { return math.Log1p(-fpp(sh.slice, c, sh.k)) }

// FillFPP returns the false positive rate of this filter's actual bits for a
// random non-member:
//
//	1 - prod_i (1 - prod_j ones_ij / s_i)
//
// with ones_ij the set bits of slice j of sub-filter i. A non-member's probes
// are independent and uniform over each slice (the model the probes are
// built to follow, see the package doc), so it passes sub-filter i with
// probability prod_j ones_ij/s_i and, every slice of the filter having a
// probe of its own, is a false positive of the filter with the probability
// above. That is the exact rate given the filter's contents, where FPP() is
// its expectation over random fills: one filter's FillFPP() differs from
// FPP() by the chance of where its keys landed (a few percent for small
// sub-filters), and its measured rate differs from FillFPP() only by the
// binomial noise of the queries. O(MemoryBits/64).
func (f *Filter) FillFPP() float64 {
	var logPass float64
	for i := range f.subs {
		sf := &f.subs[i]
		pass := 1.0 // the probability that the key passes every slice so far
		for j := range uint64(sf.k) {
			pass *= float64(onesIn(sf.words, j*sf.slice, (j+1)*sf.slice)) / float64(sf.slice)
		}
		logPass += math.Log1p(-pass)
	}
	return -math.Expm1(logPass)
}

// Bound returns P0 / (1 - r), the paper's bound on the false positive
// probability however many keys are added (see the package doc).
func (f *Filter) Bound() float64 { return f.cfg.FPP / (1 - f.cfg.Tightening) }

// Equal reports whether f and other have the same Config and the same
// sub-filters, fill and bits alike. O(MemoryBits/64).
func (f *Filter) Equal(other *Filter) bool {
	if f.cfg != other.cfg || f.n != other.n || f.bits != other.bits || len(f.subs) != len(other.subs) {
		return false
	}
	for i := range f.subs {
		a, b := &f.subs[i], &other.subs[i]
		if a.shape != b.shape || a.keys != b.keys || len(a.words) != len(b.words) {
			return false
		}
		for j := range a.words {
			if a.words[j] != b.words[j] {
				return false
			}
		}
	}
	return true
}

// Plan is the size of a filter of some Config after some number of Adds, as
// Config.Plan predicts it.
type Plan struct {
	Filters int     // sub-filters, Filters() after the Adds
	Bits    uint64  // bits of all sub-filters, MemoryBits() after the Adds
	FPP     float64 // the formula false positive probability, FPP() after the Adds
}

// Plan returns, without building anything, what a filter New(c) reports
// after n Adds (every Add counts, as in Len): the sub-filters it needs (one
// when n = 0), their bits, and FPP(), each exactly equal to what Filters(),
// MemoryBits() and FPP() return. An invalid Config gives the error of New,
// wrapping ErrConfig; n keys that would need a sub-filter past MaxFilters or
// MaxBits give an error wrapping ErrFull, saying why as the first failing
// Add would. O(Filters^2) arithmetic, no allocation.
func (c Config) Plan(n uint64) (Plan, error) {
	c = c.withDefaults()
	sh, err := c.firstShape()
	if err != nil {
		return Plan{}, err
	}
	var p Plan
	var logPass float64
	left := n
	for {
		p.Filters++
		p.Bits += sh.bits()
		keys := min(left, sh.capacity)
		logPass += passLog(sh, keys)
		left -= keys
		if left == 0 {
			break
		}
		if sh, err = c.next(p.Filters, p.Bits); err != nil {
			return Plan{}, fmt.Errorf("%w: %d keys need more than %d sub-filters: %v", ErrFull, n, p.Filters, err)
		}
	}
	p.FPP = -math.Expm1(logPass)
	return p, nil
}
