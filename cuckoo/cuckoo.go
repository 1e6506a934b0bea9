package cuckoo

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

// Limits and tuning constants.
const (
	// DefaultBucketSize is the bucket size the paper recommends (Sec. 5.1):
	// 4 slots reach about 95% load with a fingerprint only log2(2b) = 3 bits
	// longer than log2(1/FPP).
	DefaultBucketSize = 4
	// MaxBucketSize is the largest bucket size a Filter accepts.
	MaxBucketSize = 8
	// MaxFingerprintBits is the longest fingerprint a Filter accepts.
	MaxFingerprintBits = 32
	// MaxBuckets is the largest number of buckets a Filter accepts (2^30;
	// any number from 1 to it is allowed):
	// at the widest buckets (8 slots of 32 bits) that is 32 GiB of table,
	// the bound cbf.MaxCounters puts on a CBF. It keeps every size
	// computation far from overflow and lets a decoder reject absurd headers.
	MaxBuckets = 1 << 30
	// MaxKicks is the number of relocations Add tries before it gives up
	// with ErrFull (the paper's MaxNumKicks, Algorithm 1).
	MaxKicks = 500
	// MaxFullLoad is MaxLoad of the paper's configuration, b = 4 with
	// fingerprints of 7 bits or more: cuckoo filters of 4-slot buckets fill to
	// about 95% before insertions start to fail (paper, Sec. 5.1).
	MaxFullLoad = 0.95
)

// maxLoadPercent[b-1][min(f, 9)-1] is the load, in percent, that New sizes a
// filter of b-slot buckets and f-bit fingerprints for (see MaxLoad). Each
// entry is below the least first-failure load measured over 400 key sets of
// 3000-bucket tables (ACBFJOIN_LOAD_SETS=400 go test -run TestMaxLoad -v
// prints the measurement): where that least load came within half a point of
// an earlier, looser table, the entry is 97% of it (f >= 5) or 90% of it
// (f <= 4, whose first failures spread widely), then lowered so that it never
// falls as f grows, nor as b grows for f >= 3. The load of a partial-key cuckoo
// filter depends on f as well as b: a fingerprint of f bits can point to only
// 2^f - 1 alternate buckets, and with short fingerprints keys crowd into
// clusters of buckets that reach each other (Fan et al. 2014, Sec. 4; with
// b = 4 and f = 4 the first failure came from 78% load). b = 1 is plain cuckoo
// hashing with a heavy tail (first failures from 18% of a 3000-slot table at
// f = 8, and once in a test run at 3.6% with f = 6), so its limits are low and
// hold for most key sets, not all (Add then returns ErrFull below Cap); f <= 3
// with b <= 3 is all but useless.
var maxLoadPercent = [MaxBucketSize][9]uint64{
	// f = 1   2   3   4   5   6   7   8  9+
	{1, 1, 1, 3, 3, 10, 12, 17, 25},      // b = 1
	{1, 5, 12, 18, 48, 48, 80, 82, 84},   // b = 2
	{6, 12, 13, 40, 85, 90, 91, 92, 92},  // b = 3
	{10, 21, 40, 70, 90, 93, 95, 95, 95}, // b = 4
	{12, 17, 50, 80, 90, 95, 96, 96, 96}, // b = 5
	{14, 30, 60, 80, 91, 96, 97, 97, 97}, // b = 6
	{16, 40, 65, 91, 91, 97, 97, 97, 97}, // b = 7
	{18, 40, 75, 92, 95, 97, 98, 98, 98}, // b = 8
}

// loadPercent is maxLoadPercent for a valid (b, f).
func loadPercent(b int, fbits uint) uint64 {
	return maxLoadPercent[b-1][min(fbits, 9)-1]
}

// MaxLoad returns the load New sizes a filter of bucketSize-slot buckets and
// fingerprintBits-bit fingerprints for: a filter of capacity c has at least
// c/MaxLoad slots, and Cap is floor(slots*MaxLoad). It is 0.95 for the
// paper's b = 4 with f >= 7 (MaxFullLoad), up to 0.98 for b = 8, 0.84 for b =
// 2 and 0.25 for b = 1, and lower for short fingerprints; the values are
// measured (see the table in the source). Invalid parameters give 0. O(1).
func MaxLoad(bucketSize, fingerprintBits int) float64 {
	if validateSlots(bucketSize, fingerprintBits) != nil {
		return 0
	}
	return float64(loadPercent(bucketSize, uint(fingerprintBits))) / 100
}

var (
	// ErrFull is returned by Add when MaxKicks relocations found no free
	// slot; the filter is then exactly as before the call.
	ErrFull = errors.New("cuckoo: filter is full")
	// ErrNotMember is returned by Remove for a key whose fingerprint is in
	// neither of its two buckets: it is certainly not in the filter.
	ErrNotMember = errors.New("cuckoo: key is not a member")
	// ErrConfig is returned for invalid parameters.
	ErrConfig = errors.New("cuckoo: invalid parameters")
	// ErrFormat is returned when decoding input that is not a valid
	// serialized Filter: foreign magic, unknown version, impossible
	// parameters, a bad checksum, inconsistent contents or a truncated stream
	// (which also matches io.ErrUnexpectedEOF).
	ErrFormat = errors.New("cuckoo: invalid serialized filter")
)

// altMul is 2^64/phi, the multiplier of Knuth's multiplicative ("Fibonacci")
// hashing. A fingerprint's bucket sum H(fp) (see alt) is the top 32 bits of
// fp*altMul reduced to [0, buckets): two multiplies, and consecutive
// fingerprints land far apart (the three-distance theorem).
const altMul = 0x9e3779b97f4a7c15

// rngSeed seeds the kick generator of every new or decoded filter, so that the
// same operations give the same table.
const rngSeed = 0x2545f4914f6cdd1d

// Filter is a cuckoo filter: a table of Buckets() buckets of BucketSize() slots,
// each slot holding a FingerprintBits()-bit fingerprint or 0 (empty), packed
// into 64-bit words. The zero value is not usable: create one with New (or
// decode one with ReadFrom/UnmarshalBinary).
//
// # Layout
//
// Slot j of bucket i is slot s = i*b + j of the table, and occupies bits
// [s*f, (s+1)*f) of the little-endian bit string of words: bit p is bit p%64 of
// words[p/64]. A slot may straddle two words when 64 is not a multiple of f.
// Bits past buckets*b*f in the last word are zero.
//
// A bucket is tested word-parallel (SWAR): it is read as one or more windows of
// L = lanes slots (the largest divisor of b with L*f <= 64; one window for
// b*f <= 64, as with b = 4 and f <= 16), the window is XORed with the
// fingerprint repeated in every lane, and a lane that became zero is found with
// the classic zero-byte test generalised to f-bit lanes (see zeroLanes). With
// one window per bucket, Contains tests both buckets without a branch (see
// lookup).
//
// Concurrency: Contains, ContainsBatch, Len, Cap, LoadFactor, FPP, Equal,
// WriteTo and MarshalBinary only read and are safe for any number of concurrent
// callers while nobody calls Add, Remove, ReadFrom or UnmarshalBinary; those
// mutate and need exclusive access.
type Filter struct {
	words   []uint64
	buckets uint64 // 1..MaxBuckets, any number
	b       int    // slots per bucket
	fbits   uint   // bits per fingerprint
	n       uint64 // stored fingerprints
	// rng is the xorshift64 state that picks Add's kick victims. It is part
	// of the state (two filters that went through the same operations have
	// the same rng) but it is not serialized: a decoded filter restarts from
	// rngSeed. Equal ignores it.
	rng uint64

	// Derived from (buckets, b, fbits) by setShape.
	slotMask   uint64 // the low fbits bits
	bucketBits uint64 // b*fbits
	lanes      int    // slots per window
	windows    int    // windows per bucket, b/lanes
	windowBits uint   // lanes*fbits <= 64
	windowMask uint64 // the low windowBits bits
	lo, hi     uint64 // the lowest and the highest bit of every lane of a window
	// laneMul turns a bit position t < 64 of a window into its lane,
	// t/fbits = t*laneMul>>16 with laneMul = ceil(2^16/fbits): exact, since
	// the error t*(laneMul - 2^16/fbits)/2^16 < 64/2^16 stays below 1/fbits
	// for fbits <= 32, the least distance from t/fbits up to the next
	// integer. A multiply where a division by a variable cost 10-40 cycles
	// on every Add.
	laneMul uint64
}

// New returns an empty filter that holds at least capacity keys at load
// MaxLoad(bucketSize, fingerprintBits): BucketsFor(capacity, bucketSize,
// fingerprintBits) = ceil(capacity / (bucketSize * MaxLoad)) buckets (any number, not rounded to a power of two) of bucketSize
// slots (1..MaxBucketSize, DefaultBucketSize recommended) with
// fingerprints of fingerprintBits bits (1..MaxFingerprintBits; see
// FingerprintBitsFor). Invalid or absurd parameters (more than MaxBuckets
// buckets) give an error wrapping ErrConfig before anything is allocated.
// Memory: MemoryBits()/8 bytes, rounded up to 8.
func New(capacity uint64, bucketSize, fingerprintBits int) (*Filter, error) {
	if err := validateSlots(bucketSize, fingerprintBits); err != nil {
		return nil, err
	}
	// Exact integer form of ceil(capacity / (b * load)): the products stay
	// below 2^41 once capacity is bounded.
	maxCap := uint64(MaxBuckets) * uint64(bucketSize) * loadPercent(bucketSize, uint(fingerprintBits)) / 100
	if capacity < 1 || capacity > maxCap {
		return nil, fmt.Errorf("%w: capacity %d, want 1..%d at bucket size %d and %d-bit fingerprints", ErrConfig, capacity, maxCap, bucketSize, fingerprintBits)
	}
	buckets := BucketsFor(capacity, bucketSize, fingerprintBits)
	f := &Filter{}
	f.setShape(buckets, bucketSize, uint(fingerprintBits))
	f.words = make([]uint64, wordCount(buckets, bucketSize, uint(fingerprintBits)))
	return f, nil
}

// BucketsFor returns the number of buckets New gives a filter of capacity
// keys with bucketSize slots a bucket and fingerprintBits-bit fingerprints:
// ceil(capacity / (bucketSize * MaxLoad)), at least 1, the least number of
// buckets whose floor(buckets * bucketSize * MaxLoad) (Cap) is at least
// capacity. It is computed exactly in integers, ceil(capacity*100 /
// (bucketSize*percent)). The parameters must be valid for New (capacity at
// most MaxBuckets * bucketSize * MaxLoad, so that the result is at most
// MaxBuckets and capacity*100 cannot overflow); invalid ones give 0. O(1).
func BucketsFor(capacity uint64, bucketSize, fingerprintBits int) uint64 {
	if validateSlots(bucketSize, fingerprintBits) != nil {
		return 0
	}
	den := uint64(bucketSize) * loadPercent(bucketSize, uint(fingerprintBits))
	return max(1, (capacity*100+den-1)/den)
}

func validateSlots(b, fbits int) error {
	if b < 1 || b > MaxBucketSize {
		return fmt.Errorf("%w: bucket size %d, want 1..%d", ErrConfig, b, MaxBucketSize)
	}
	if fbits < 1 || fbits > MaxFingerprintBits {
		return fmt.Errorf("%w: fingerprint of %d bits, want 1..%d", ErrConfig, fbits, MaxFingerprintBits)
	}
	return nil
}

func validate(buckets uint64, b, fbits int) error {
	if err := validateSlots(b, fbits); err != nil {
		return err
	}
	if buckets < 1 || buckets > MaxBuckets {
		return fmt.Errorf("%w: %d buckets, want 1..%d", ErrConfig, buckets, uint64(MaxBuckets))
	}
	return nil
}

// wordCount is the number of 64-bit words of a table: ceil(buckets*b*f / 64).
func wordCount(buckets uint64, b int, fbits uint) uint64 {
	return (buckets*uint64(b)*uint64(fbits) + 63) / 64
}

// setShape sets the shape and the fields derived from it; the caller has
// validated it.
func (f *Filter) setShape(buckets uint64, b int, fbits uint) {
	f.buckets, f.b, f.fbits = buckets, b, fbits
	f.rng = rngSeed
	f.slotMask = 1<<fbits - 1
	f.bucketBits = uint64(b) * uint64(fbits)
	f.lanes = 1
	for l := b; l >= 1; l-- {
		if b%l == 0 && uint(l)*fbits <= 64 {
			f.lanes = l
			break
		}
	}
	f.windows = b / f.lanes
	f.windowBits = uint(f.lanes) * fbits
	f.windowMask = math.MaxUint64 >> (64 - f.windowBits)
	f.lo = 0
	for l := range f.lanes {
		f.lo |= 1 << (uint(l) * fbits)
	}
	f.hi = f.lo << (fbits - 1)
	f.laneMul = (1<<16 + uint64(fbits) - 1) / uint64(fbits)
}

// FPP is the expected false positive probability of a query for a non-member
// in a filter of bucket size b and f-bit fingerprints at load α = load:
//
//	FPP = 1 - (1 - 1/(2^f - 1))^(2bα)
//
// Derivation: a query reads the 2b slots of the key's two buckets; at load α
// about 2bα of them hold a fingerprint, and an occupied slot holds one of the
// 2^f - 1 non-zero fingerprints (0 marks an empty slot), independent of the
// query's, so it matches with probability 1/(2^f - 1). This is the paper's
// bound for a full table, 1 - (1 - 1/2^f)^(2b) ≈ 2b/2^f (Fan et al. 2014,
// Sec. 5.1), with the expected number of occupied slots in place of 2b and
// the empty value excluded. The fingerprint derivation gives fingerprint 1
// twice the probability of the others (see the package doc), which raises the
// true rate by a factor below 1 + 2^-f (0.4% at f = 8).
//
// Valid for b >= 1, f >= 1 and 0 <= load <= 1. O(1).
func FPP(bucketSize, fingerprintBits int, load float64) float64 {
	if load <= 0 || bucketSize < 1 {
		return 0
	}
	if fingerprintBits < 1 {
		return 1
	}
	// 1 - (1-q)^e computed as -expm1(e*log1p(-q)), accurate for small q.
	q := 1 / (math.Exp2(float64(fingerprintBits)) - 1)
	return -math.Expm1(2 * float64(bucketSize) * load * math.Log1p(-q))
}

// FingerprintBitsFor returns the fingerprint length f (2..MaxFingerprintBits)
// that meets FPP(bucketSize, f, MaxLoad(bucketSize, f)) <= p, the false
// positive rate of a filter filled to its capacity, with the fewest bits a
// key, f / MaxLoad(bucketSize, f); of equal costs, the shortest. Where the
// load no longer grows with f (f >= 7 for b = 4, f >= 9 for every b) that is
// the least f meeting p, which agrees with the paper's minimal fingerprint
// size f >= log2(2b/p) (Sec. 5.1) or is one bit shorter, the formula counting
// the empty slots and the 2^f - 1 non-zero values. A shorter f may meet a
// loose p at a low load but costs more memory, so it is not chosen (b = 4, p
// = 0.5: f = 3 reaches only 45% load, 6.7 bits a key; f = 4 gives 5). It is
// MaxFingerprintBits for any p that 32 bits cannot reach, or p <= 0 or NaN,
// and for an invalid bucketSize. O(MaxFingerprintBits).
func FingerprintBitsFor(p float64, bucketSize int) int {
	if bucketSize < 1 || bucketSize > MaxBucketSize {
		return MaxFingerprintBits
	}
	best, bestCost := MaxFingerprintBits, math.Inf(1)
	for fb := 2; fb <= MaxFingerprintBits; fb++ {
		load := MaxLoad(bucketSize, fb)
		if cost := float64(fb) / load; FPP(bucketSize, fb, load) <= p && cost < bestCost {
			best, bestCost = fb, cost
		}
	}
	return best
}

// Buckets returns the number of buckets, BucketsFor(capacity, BucketSize,
// FingerprintBits) for a filter from New: any number in 1..MaxBuckets.
func (f *Filter) Buckets() uint64 { return f.buckets }

// BucketSize returns the number of slots per bucket.
func (f *Filter) BucketSize() int { return f.b }

// FingerprintBits returns the fingerprint length in bits.
func (f *Filter) FingerprintBits() int { return int(f.fbits) }

// Len returns the number of stored fingerprints: successful Adds minus
// successful Removes.
func (f *Filter) Len() uint64 { return f.n }

// Cap returns the documented capacity, floor(Buckets*BucketSize*MaxLoad) with
// MaxLoad(BucketSize, FingerprintBits): at least the capacity passed to New,
// and less than BucketSize*MaxLoad above it. Adds beyond it may still
// succeed. Adds up to Cap succeed except with a small probability that grows
// as the table shrinks (see Add and TestMaxLoad).
func (f *Filter) Cap() uint64 { return f.buckets * uint64(f.b) * loadPercent(f.b, f.fbits) / 100 }

// LoadFactor returns Len / (Buckets*BucketSize), the fraction of slots in use.
func (f *Filter) LoadFactor() float64 {
	return float64(f.n) / float64(f.buckets*uint64(f.b))
}

// MemoryBits returns the size of the table, Buckets*BucketSize*FingerprintBits
// bits (the words round it up to a multiple of 64).
func (f *Filter) MemoryBits() uint64 { return f.bucketBits * f.buckets }

// FPP returns the formula false positive probability at the current load,
// FPP(BucketSize, FingerprintBits, LoadFactor).
func (f *Filter) FPP() float64 { return FPP(f.b, int(f.fbits), f.LoadFactor()) }

// locate returns key's first bucket, alternate bucket and fingerprint
// (partial-key cuckoo hashing, paper Sec. 3.1):
//
//	i1 = floor(h1 * buckets / 2^64)     (hashing.Reduce: Lemire's multiply-shift)
//	fp = the top f bits of h2, or 1 if those are 0
//	i2 = alt(i1, fp)
func (f *Filter) locate(key []byte) (i1, i2, fp uint64) {
	i1, fp = f.first(key)
	return i1, f.alt(i1, fp), fp
}

// first is locate without the second bucket.
func (f *Filter) first(key []byte) (i1, fp uint64) {
	h1, h2 := hashing.Sum(key)
	i1 = hashing.Reduce(h1, f.buckets)
	fp = h2 >> (64 - f.fbits)
	// 0 marks an empty slot, so map fingerprint 0 to 1 without a branch:
	// (fp-1)>>63 is 1 exactly when fp is 0 (fp < 2^32, so fp-1 has its top
	// bit set only by wrapping around).
	fp |= (fp - 1) >> 63
	return i1, fp
}

// alt returns the other bucket of fingerprint fp stored in bucket i:
//
//	alt(i, fp) = (H(fp) - i) mod buckets
//	H(fp)      = floor(x * buckets / 2^32),  x = the top 32 bits of fp*altMul mod 2^64
//
// H is Lemire's multiply-shift reduction (as hashing.Reduce) of a 32-bit
// hash of fp: the fingerprint has at most 32 bits, so H can take no more than
// 2^32 - 1 values anyway, and with buckets <= 2^30 the product x * buckets
// is below 2^62, a plain 64-bit multiply (in a paired timing it made Contains
// about 3% faster than the 128-bit hashing.Reduce).
//
// The two buckets of a fingerprint sum to H(fp) modulo buckets, a value that
// depends on fp alone, so alt is an involution for every number of buckets:
// alt(alt(i, fp), fp) = (H - (H - i)) mod buckets = i. A fingerprint can thus
// move between its two buckets knowing only the one it is in. (XOR with an
// offset, the paper's choice, needs a power of two: i XOR o may reach past
// any other table size.) The same subtract-and-wrap construction is used for
// tables of any even size by FastFilter/fastfilter_java's Cuckoo8
// (getBucket2: bucketCount - bucket - r, plus bucketCount if negative, with r
// an odd Lemire reduction of a fingerprint hash, so that its two buckets always
// differ). Here any size is allowed, so the two buckets coincide when
// 2i = H(fp) mod buckets, for about one key in buckets, as they do with XOR
// when the offset is 0; such a key simply has one bucket (b slots).
//
// H and i are in [0, buckets) and buckets <= 2^30, so H - i is negative as a
// signed integer exactly when it wrapped, and adding buckets then (selected by
// the sign mask, without a branch or a division) gives the residue.
func (f *Filter) alt(i, fp uint64) uint64 {
	d := ((fp*altMul)>>32*f.buckets)>>32 - i
	return d + f.buckets&uint64(int64(d)>>63)
}

// window returns the windowBits table bits that start at bit p, in the low bits.
func (f *Filter) window(p uint64) uint64 {
	w, off := p>>6, uint(p&63)
	x := f.words[w] >> off
	if off+f.windowBits > 64 { // the window straddles two words (off > 0 here)
		x |= f.words[w+1] << (64 - off)
	}
	return x & f.windowMask
}

// zeroLanes returns a word with the top bit of the lowest zero lane of x set (and
// possibly top bits of lanes above it), or 0 if no lane of x is zero: the
// zero-byte test (x - 0x0101..01) & ^x & 0x8080..80 (Mycroft 1987; Anderson's
// "Bit Twiddling Hacks", "Determine if a word has a zero byte") with f-bit
// lanes. A lane below the lowest zero lane is >= 1 and gets no borrow, so
// lane-1 keeps its top bit only if the lane had it, which ^x clears; the lowest
// zero lane becomes all ones. Lanes above it may be flagged by the borrow, so
// only the lowest flag is exact.
func (f *Filter) zeroLanes(x uint64) uint64 {
	return (x - f.lo) &^ x & f.hi
}

// has reports whether bucket i holds fingerprint fp.
func (f *Filter) has(i, fp uint64) bool {
	p := i * f.bucketBits
	pat := fp * f.lo // fp in every lane; no carries, fp < 2^f
	for range f.windows {
		if f.zeroLanes(f.window(p)^pat) != 0 {
			return true
		}
		p += uint64(f.windowBits)
	}
	return false
}

// lookup reports whether bucket i1 or i2 holds fp. With one window per bucket
// (b*f <= 64) it reads both buckets and tests them without a branch, so that a
// miss or a mispredicted answer does not hold up the loads of the next keys.
func (f *Filter) lookup(i1, i2, fp uint64) bool {
	if f.windows == 1 {
		pat := fp * f.lo
		x1 := f.window(i1*f.bucketBits) ^ pat
		x2 := f.window(i2*f.bucketBits) ^ pat
		return f.zeroLanes(x1)|f.zeroLanes(x2) != 0
	}
	return f.has(i1, fp) || f.has(i2, fp)
}

// find returns the slot (0..b-1) of the first occurrence of v in bucket i, or -1.
// v = 0 finds an empty slot.
func (f *Filter) find(i, v uint64) int {
	p := i * f.bucketBits
	pat := v * f.lo
	for w := range f.windows {
		if z := f.zeroLanes(f.window(p) ^ pat); z != 0 {
			return w*f.lanes + int(uint64(bits.TrailingZeros64(z))*f.laneMul>>16)
		}
		p += uint64(f.windowBits)
	}
	return -1
}

// slot returns the fingerprint in table slot s (bucket s/b, slot s%b).
func (f *Filter) slot(s uint64) uint64 {
	p := s * uint64(f.fbits)
	w, off := p>>6, uint(p&63)
	x := f.words[w] >> off
	if off+f.fbits > 64 {
		x |= f.words[w+1] << (64 - off)
	}
	return x & f.slotMask
}

// setSlot stores v (< 2^f) in table slot s.
func (f *Filter) setSlot(s, v uint64) {
	p := s * uint64(f.fbits)
	w, off := p>>6, uint(p&63)
	f.words[w] = f.words[w]&^(f.slotMask<<off) | v<<off
	if off+f.fbits > 64 { // the high part goes to the low bits of the next word
		sh := 64 - off
		f.words[w+1] = f.words[w+1]&^(f.slotMask>>sh) | v>>sh
	}
}

// put stores fp in the first empty slot of bucket i; false if it is full.
func (f *Filter) put(i, fp uint64) bool {
	j := f.find(i, 0)
	if j < 0 {
		return false
	}
	f.setSlot(i*uint64(f.b)+uint64(j), fp)
	return true
}

// random returns the next value of the kick generator: Marsaglia's xorshift64
// ("Xorshift RNGs", J. Stat. Softw. 2003, triple 13, 7, 17).
func (f *Filter) random() uint64 {
	x := f.rng
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	f.rng = x
	return x
}

// Add inserts key's fingerprint: into the first empty slot of bucket i1, else
// of i2, else it relocates (paper Algorithm 1, with a lookahead): starting
// from i1 or i2 at random, up to MaxKicks times, if (from the
// lookaheadAfter-th kick on) a fingerprint of the bucket has an empty slot in its other bucket it moves there and fp takes its
// place (done); if not, fp takes the place of a random fingerprint of the
// bucket, which becomes fp and goes on in its other bucket. If that fails Add
// returns an error wrapping ErrFull and undoes the relocations in reverse, so
// that the filter (kick generator included) is exactly as before the call; the
// paper's version instead loses the last evicted fingerprint, a false negative
// for some other key.
//
// The lookahead (one bucket read per slot, only on the rare relocation path)
// raises the load of the first failure: with b = 4, f = 16 and 26316 buckets
// (capacity 99,999) it came at 0.969-0.977 over 3000 key sets, against
// 0.953-0.970 for the paper's random walk on the same key sets (the fill of
// TestCapacitySizes; the XOR alternate on 2^15 buckets gave the same
// ranges). Small tables spread more: with 264 buckets (capacity 1000) the
// first failure came at 0.940-0.995, below Cap for 3 of 10,000 key sets (2 of
// 10,000 with 256 buckets and the XOR alternate).
//
// Multiset semantics: a key added twice is stored twice, and needs two
// Removes. A key fits at most 2*BucketSize times (its two buckets).
//
// Cost: O(1) expected below load MaxLoad, at most O(MaxKicks*BucketSize); no
// allocation except for the error on failure.
func (f *Filter) Add(key []byte) error {
	i1, fp := f.first(key)
	if f.put(i1, fp) {
		f.n++
		return nil
	}
	i2 := f.alt(i1, fp) // only when the first bucket is full
	if f.put(i2, fp) {
		f.n++
		return nil
	}
	return f.relocate(i1, i2, fp)
}

// relocate is the kick-out loop of Add, kept out of Add so that the common case
// does not set up the path.
func (f *Filter) relocate(i1, i2, fp uint64) error {
	var path [MaxKicks]uint64 // path[k] = the table slot written by kick k
	rng := f.rng
	b := uint64(f.b)
	i := i1
	if f.random()&1 == 1 {
		i = i2
	}
	for k := range MaxKicks {
		if k >= lookaheadAfter && f.lookahead(i, fp) {
			f.n++
			return nil
		}
		j, _ := bits.Mul64(f.random(), b) // a uniform slot of the bucket (Lemire's reduction)
		s := i*b + j
		path[k] = s
		victim := f.slot(s)
		f.setSlot(s, fp)
		fp = victim
		i = f.alt(i, fp)
		if f.put(i, fp) {
			f.n++
			return nil
		}
	}
	// fp is homeless. Walk the path back: slot path[k] holds what kick k put
	// there, and gets back what it held, the fingerprint homeless after kick
	// k; the last restored one is the new key's, which is dropped.
	for k := MaxKicks - 1; k >= 0; k-- {
		s := path[k]
		put := f.slot(s)
		f.setSlot(s, fp)
		fp = put
	}
	f.rng = rng
	return fmt.Errorf("%w: no free slot after %d relocations, %d of %d slots in use", ErrFull, MaxKicks, f.n, f.buckets*b)
}

// lookaheadAfter is the kicks relocate makes before it starts looking ahead.
// Most relocations end within a few kicks, where the lookahead's b extra
// bucket reads (each a cache miss in a large table) cost more than they
// save: looking ahead from the first kick, filling a filter of 10^6 keys to
// load 0.95 took 1.21x seiflotfy/cuckoofilter's time an Add, from the fourth
// about 1.05x (bench/results/filter-kinds.md), and the first failure came at
// the same load (b = 4, f = 16: 0.9714-0.9763 over 100 key sets of 26316
// buckets against 0.9690-0.9768; 0.9508-0.9953 over 4000 sets of 264
// buckets against 0.9545-0.9953; TestCapacitySizes' log with more sets).
const lookaheadAfter = 4

// lookahead looks for a fingerprint of the full bucket i whose other bucket has
// an empty slot; if there is one it moves it there, puts fp in its place and
// returns true.
func (f *Filter) lookahead(i, fp uint64) bool {
	b := uint64(f.b)
	for s := i * b; s < (i+1)*b; s++ {
		v := f.slot(s)
		if a := f.alt(i, v); a != i && f.put(a, v) {
			f.setSlot(s, fp)
			return true
		}
	}
	return false
}

// Remove deletes one copy of key's fingerprint from bucket i1 or, if i1 has none,
// from i2 (paper Algorithm 3). If neither holds it, key was certainly never
// added (or was removed as often as added): Remove returns ErrNotMember and
// the filter is unchanged. O(1), no allocation.
//
// Removing a key that was never added but is a false positive removes a copy of
// another key's fingerprint, and can make that key a false negative: callers
// should remove only keys they added. (Because a fingerprint and one of its
// buckets determine the other bucket, that key has the same fingerprint and the
// same two buckets, so adding the removed key back repairs it.)
func (f *Filter) Remove(key []byte) error {
	i1, i2, fp := f.locate(key)
	b := uint64(f.b)
	if j := f.find(i1, fp); j >= 0 {
		f.setSlot(i1*b+uint64(j), 0)
	} else if j := f.find(i2, fp); j >= 0 {
		f.setSlot(i2*b+uint64(j), 0)
	} else {
		return ErrNotMember
	}
	f.n--
	return nil
}

// Contains reports whether key may be in the filter: true for every key added
// and not removed (no false negatives, as long as no non-member was removed),
// and true with probability about FPP() for other keys (paper Algorithm 2).
// O(1): one hash and two buckets; no allocation.
func (f *Filter) Contains(key []byte) bool {
	i1, i2, fp := f.locate(key)
	return f.lookup(i1, i2, fp)
}

// ContainsBatch sets out[i] to Contains(keys[i]) for every key (len(out) >=
// len(keys)). It answers the same as Contains, faster on many keys: by blocks
// of 64 keys it first hashes every key, then reads both buckets of each without
// a branch between them, so that the cache misses of different keys overlap
// instead of following each hash. O(1) a key, no allocation; as safe for
// concurrent readers as Contains.
func (f *Filter) ContainsBatch(keys [][]byte, out []bool) {
	const block = 64
	var i1s, i2s, fps [block]uint64
	out = out[:len(keys)]
	for lo := 0; lo < len(keys); lo += block {
		n := min(block, len(keys)-lo)
		for j, key := range keys[lo : lo+n] {
			i1s[j], i2s[j], fps[j] = f.locate(key)
		}
		for j := range n {
			out[lo+j] = f.lookup(i1s[j], i2s[j], fps[j])
		}
	}
}

// Equal reports whether f and o have the same shape, Len and table: what
// MarshalBinary writes. It ignores the kick generator (see Filter).
func (f *Filter) Equal(o *Filter) bool {
	if o == nil {
		return false
	}
	return f.buckets == o.buckets && f.b == o.b && f.fbits == o.fbits && f.n == o.n &&
		slices.Equal(f.words, o.words)
}

// occupied counts the non-zero slots with SWAR: for each lane,
// (x & low) + low carries into the lane's top bit iff the lane's low f-1 bits
// are not all zero (no carry leaves the lane: the sum is below 2^f), and OR x
// adds the top bit itself. O(MemoryBits/64).
func (f *Filter) occupied() uint64 {
	low := f.windowMask &^ f.hi
	var c uint64
	p := uint64(0)
	for range f.buckets * uint64(f.windows) {
		x := f.window(p)
		c += uint64(bits.OnesCount64(((x & low) + low | x) & f.hi))
		p += uint64(f.windowBits)
	}
	return c
}
