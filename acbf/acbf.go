package acbf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

var (
	// ErrFull is returned by Add, Build and Merge when the idle space cannot hold
	// the new elements' k counter bits each.
	ErrFull = errors.New("acbf: filter is full")
	// ErrNotMember is returned by Remove for a key with a zero counter: it was
	// certainly never added.
	ErrNotMember = errors.New("acbf: key is not a member")
	// ErrShape is returned by Merge for filters of different configurations.
	ErrShape = errors.New("acbf: filters have different shapes")
	// ErrConfig is returned for an invalid Config.
	ErrConfig = errors.New("acbf: invalid configuration")
	// ErrFormat is returned when decoding input that is not a valid serialized
	// Filter (foreign magic, unknown version, impossible parameters, levels that
	// contradict each other, a bad checksum, or a truncated stream, which also
	// matches io.ErrUnexpectedEOF).
	ErrFormat = errors.New("acbf: invalid serialized filter")
)

// Physical layout.
//
// The first level B1 is a plain bit array of m1 bits: a query reads only it.
//
// Offset indexing (Section 3.1) keeps the order of positions from one level to the
// next: the bit for position p of level j sits at index rank_j(p) of level j+1.
// So if B1 is cut into blocks of W positions, the bits that descend from block b
// form one contiguous segment in every level, and the segments of block b come
// right after those of block b-1. We store, for each block ("bucket"), the
// concatenation of its segments of levels 2, 3, ... in a small local bit vector.
// Global level j is the concatenation over buckets of their level-j segments,
// which is exactly what WriteTo writes.
//
// Within bucket b, the level-2 segment starts at 0 and its length is the number
// of ones of B1 in the block; the level-(j+1) segment follows the level-j one
// and its length is the number of ones in it. The child of local bit x of a
// segment is at (start of the next segment) + (ones of the segment before x),
// which equals the global offset indexing of the paper minus the bucket's start
// in each level. So Algorithms 2 and 3 run entirely inside one bucket: an update
// shifts O(W) bits instead of a whole level, and the "rank directory" is the
// bucket index itself.
//
// Buckets live in one arena of words, in order, each with some spare words. A
// bucket that needs a word more takes one from the nearest bucket with a spare
// word, moving the buckets in between by one word (see layout for why one
// exists). The arena is sized for the counter bits of Capacity elements, not for
// the whole idle space, and grows geometrically if more are stored, so memory
// (and a decoder's allocation) follows the data; the logical capacity check
// against the 4m-bit budget is separate and exact.

// bucketShiftFor picks log2 of the bucket width W in bits: 2048 unless n keys
// are expected to put more than 1024 counter bits (16 words to shift) in such a
// bucket, then 1024. The choice affects only speed and the per-bucket overhead
// (192 bits per bucket), never the logical structure.
func bucketShiftFor(m1, n uint64, k int) uint {
	// Expected counter bits per W-bit bucket at n elements: k*n*W/m1.
	if float64(uint64(k)*n)*2048/float64(m1) <= 1024 {
		return 11
	}
	return 10
}

// bucketMeta is the bookkeeping of one bucket, kept together so that an update
// touches one cache line of it.
type bucketMeta struct {
	start uint64 // arena word where the bucket begins
	nbits uint64 // counter bits stored in the bucket
	// rank is the bucket's rank directory over B1: the bucket's W positions form
	// four sub-blocks of W/4, and bits 16j..16j+15 hold the number of ones of B1
	// in sub-blocks 0..j (so the top field is the bucket's total). A rank query
	// then popcounts at most one sub-block.
	rank uint64
}

// rankDelta[s] adds one to the rank fields of sub-blocks s..3.
var rankDelta = [4]uint64{
	1 | 1<<16 | 1<<32 | 1<<48,
	1<<16 | 1<<32 | 1<<48,
	1<<32 | 1<<48,
	1 << 48,
}

// Filter is the multilevel Accurate Counting Bloom Filter of Li, Huang, Zhang
// and Qin (2013). The zero value is not usable: create one with New or Build.
//
// Concurrency: Contains, Count, Len, Stats, Config, Equal, WriteTo and
// MarshalBinary only read, and are safe for concurrent callers while nobody calls
// Add, Remove, Merge, ReadFrom or UnmarshalBinary, which need exclusive access.
type Filter struct {
	cfg     Config // FirstLevel resolved
	m1      uint64
	k       int
	capBits uint64 // 4m - m1: bits available below the first level
	n       uint64 // stored elements

	b1 []uint64 // first level, m1 bits; bits from m1 on are zero

	shift uint         // log2 of the bucket width W in bits (10 or 11)
	nb    uint64       // number of buckets: ceil(m1 / W)
	meta  []bucketMeta // nb+1 entries; meta[nb].start = len(arena)
	arena []uint64     // all buckets' local bits; unused bits are zero
	// reserve is the number of counter bits the arena is sized for (see layout).
	reserve uint64

	// lvl[i] is the size in bits of level i+2 (so lvl[0] is B2). Trailing zero
	// entries are trimmed: len(lvl)+1 is the number of non-empty levels.
	lvl []uint64

	scratch []uint64 // k probe positions, reused by Remove
}

// New returns an empty filter for cfg, or an error wrapping ErrConfig that says
// why cfg is infeasible (m1 < 1, or m1 + n*k > 4m). It allocates the first level
// and counter space for Capacity elements; adding more (possible when
// FirstLevel leaves more than n*k idle bits) grows the counter space.
func New(cfg Config) (*Filter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.FirstLevel = cfg.FirstLevelBits()
	f := newShape(cfg, nil)
	f.layout(nil, cfg.Capacity*uint64(cfg.K))
	return f, nil
}

// newShape allocates everything but the arena; b1 is the first level to use, or
// nil for an empty one.
func newShape(cfg Config, b1 []uint64) *Filter {
	m1 := cfg.FirstLevel
	if b1 == nil {
		b1 = make([]uint64, words(m1))
	}
	f := &Filter{
		cfg:     cfg,
		m1:      m1,
		k:       cfg.K,
		capBits: 4*cfg.Counters - m1,
		b1:      b1,
		shift:   bucketShiftFor(m1, cfg.Capacity, cfg.K),
		scratch: make([]uint64, 0, cfg.K),
	}
	f.nb = (m1 + 1<<f.shift - 1) >> f.shift
	f.meta = make([]bucketMeta, f.nb+1)
	return f
}

// layout allocates a zeroed arena for at least reserveBits counter bits (never
// fewer than sum(nbits)) and places bucket b, holding nbits[b] bits (0 if nbits
// is nil), with the spare words spread evenly. O(buckets + arena words).
//
// The arena has words(reserve) + 2*buckets + 1 words. A bucket wastes less than
// a word, so while the counter bits U <= reserve, the buckets other than one
// that is full hold at least one spare word: grow always finds one.
func (f *Filter) layout(nbits []uint64, reserveBits uint64) {
	var used, sum uint64
	for _, n := range nbits {
		used += words(n)
		sum += n
	}
	f.reserve = max(reserveBits, sum)
	total := words(f.reserve) + 2*f.nb + 1
	spare := total - used
	var off uint64
	for b := uint64(0); b < f.nb; b++ {
		// bucket b gets its own words plus its share of the spare words.
		f.meta[b].start = off + (b*spare)/f.nb
		if nbits != nil {
			f.meta[b].nbits = nbits[b]
			off += words(nbits[b])
		}
	}
	f.meta[f.nb].start = total
	f.arena = make([]uint64, total)
}

// nbitsAll returns the counter bits of every bucket.
func (f *Filter) nbitsAll() []uint64 {
	out := make([]uint64, f.nb)
	for b := range out {
		out[b] = f.meta[b].nbits
	}
	return out
}

// rebuildRanks recomputes every bucket's rank directory from B1. O(m1/64).
func (f *Filter) rebuildRanks() {
	sub := uint64(1) << (f.shift - 8) // words per sub-block
	for b := uint64(0); b < f.nb; b++ {
		var r, acc uint64
		for s := uint64(0); s < 4; s++ {
			lo := min((b<<(f.shift-6))+s*sub, uint64(len(f.b1)))
			hi := min(lo+sub, uint64(len(f.b1)))
			for _, x := range f.b1[lo:hi] {
				acc += uint64(bits.OnesCount64(x))
			}
			r |= acc << (16 * s)
		}
		f.meta[b].rank = r
	}
}

// expand re-lays the arena for at least half as many counter bits again as now
// (capped by the idle space, and at least one more than stored), keeping every
// bucket's bits. Amortised O(1) per stored bit.
func (f *Filter) expand() {
	nbits := f.nbitsAll()
	var used uint64
	for _, n := range nbits {
		used += n
	}
	reserve := min(f.capBits, max(used+1, f.reserve+f.reserve/2+64))
	old, oldMeta := f.arena, slices.Clone(f.meta)
	f.layout(nbits, reserve)
	for b := uint64(0); b < f.nb; b++ {
		copy(f.arena[f.meta[b].start:], old[oldMeta[b].start:oldMeta[b].start+words(nbits[b])])
	}
}

// FillFPP returns the false positive rate of this filter for a key never
// added, its probes independent and uniform: (z/m1)^k with z the ones of the
// first level, which is all a query reads. FPP is its expectation over random
// filters of Len keys. O(m1/64), no allocation.
func (f *Filter) FillFPP() float64 {
	var ones uint64
	for _, w := range f.b1 {
		ones += uint64(bits.OnesCount64(w))
	}
	return math.Pow(float64(ones)/float64(f.m1), float64(f.k))
}

// Config returns the configuration, with FirstLevel resolved to m1.
func (f *Filter) Config() Config { return f.cfg }

// K returns the number of hash functions.
func (f *Filter) K() int { return f.k }

// FirstLevelBits returns m1.
func (f *Filter) FirstLevelBits() uint64 { return f.m1 }

// Len returns the number of stored elements (adds minus removes).
func (f *Filter) Len() uint64 { return f.n }

// Cap returns the number of elements the filter can hold: floor((4m - m1)/k),
// which is exactly Capacity for the optimal first level.
func (f *Filter) Cap() uint64 { return f.capBits / uint64(f.k) }

// FPP returns the formula false positive probability for the current Len.
func (f *Filter) FPP() float64 { return FPP(f.m1, f.n, f.k) }

func (f *Filter) bucket(b uint64) []uint64 { return f.arena[f.meta[b].start:f.meta[b+1].start] }

// b1Rank returns the number of ones of B1 in bucket b before position p (the
// local offset of p's child in the level-2 segment) and in the whole bucket (the
// level-2 segment length), from the rank directory and a popcount of at most
// one sub-block (W/256 words).
func (f *Filter) b1Rank(b, p uint64) (before, total uint64) {
	r := f.meta[b].rank
	s := (p >> (f.shift - 2)) & 3 // sub-block of p in its bucket
	// Shifting r up one field puts "ones in sub-blocks 0..s-1" at field s, and 0
	// at field 0.
	before = (r << 16 >> (16 * s)) & 0xffff
	lo := p >> 6 &^ (1<<(f.shift-8) - 1) // first word of p's sub-block
	pw := p >> 6
	var c int
	for _, x := range f.b1[lo:pw] {
		c += bits.OnesCount64(x)
	}
	c += bits.OnesCount64(f.b1[pw] & (1<<(p&63) - 1))
	return before + uint64(c), r >> 48
}

// setB1 sets B1 bit p (which must be 0) and updates the rank directory.
func (f *Filter) setB1(b, p uint64) {
	setBit(f.b1, p)
	f.meta[b].rank += rankDelta[(p>>(f.shift-2))&3]
}

// clearB1 clears B1 bit p (which must be 1) and updates the rank directory.
func (f *Filter) clearB1(b, p uint64) {
	clearBit(f.b1, p)
	f.meta[b].rank -= rankDelta[(p>>(f.shift-2))&3]
}

// counter returns the value of the counter at B1 position p: the number of ones
// on its path down the levels. O(W/64 + c*(bucket bits)/64).
func (f *Filter) counter(p uint64) int {
	if !getBit(f.b1, p) {
		return 0
	}
	b := p >> f.shift
	idx, segLen := f.b1Rank(b, p)
	w := f.bucket(b)
	var segStart uint64
	c := 1
	for {
		pos := segStart + idx
		if !getBit(w, pos) {
			return c
		}
		next := segStart + segLen
		r := popRange(w, segStart, pos)
		segLen = r + popRange(w, pos, next)
		segStart, idx = next, r
		c++
	}
}

// increment adds one to the counter at B1 position p (Algorithm 2 for one hash
// position): walk down while the bit is 1; set the terminating 0 to 1 and insert
// a new terminating 0 in the next level at the rank of that bit. The caller has
// checked that one more counter bit fits in the idle space.
func (f *Filter) increment(p uint64) {
	b := p >> f.shift
	idx, segLen := f.b1Rank(b, p)
	if !getBit(f.b1, p) {
		f.setB1(b, p)
		f.insertBit(b, idx) // the level-2 segment starts at 0
		f.levelAdd(0)
		return
	}
	w := f.bucket(b)
	var segStart uint64
	c := 1 // counter value if the bit at this level is 0
	for {
		pos := segStart + idx
		next := segStart + segLen
		r := popRange(w, segStart, pos)
		if !getBit(w, pos) {
			setBit(w, pos)
			f.insertBit(b, next+r)
			f.levelAdd(c)
			return
		}
		segLen = r + popRange(w, pos, next)
		segStart, idx = next, r
		c++
	}
}

// decrement subtracts one from the counter at B1 position p (Algorithm 3 for one
// hash position): walk down to the terminating 0, remove it from its level and
// clear the 1 above it, which becomes the new terminator. It returns false, and
// changes nothing, if the counter is zero.
func (f *Filter) decrement(p uint64) bool {
	if !getBit(f.b1, p) {
		return false
	}
	b := p >> f.shift
	idx, segLen := f.b1Rank(b, p)
	w := f.bucket(b)
	var segStart, prev uint64
	c := 1
	for {
		pos := segStart + idx
		if !getBit(w, pos) {
			deleteBit(w, pos, f.meta[b].nbits)
			f.meta[b].nbits--
			if c == 1 {
				f.clearB1(b, p)
			} else {
				clearBit(w, prev) // prev < pos: not moved by the deletion
			}
			f.levelSub(c - 1)
			return true
		}
		next := segStart + segLen
		r := popRange(w, segStart, pos)
		segLen = r + popRange(w, pos, next)
		segStart, idx, prev = next, r, pos
		c++
	}
}

// levelAdd records one more bit in level i+2.
func (f *Filter) levelAdd(i int) {
	if i == len(f.lvl) {
		f.lvl = append(f.lvl, 0)
	}
	f.lvl[i]++
}

// levelAddN records c more bits in level i+2 (levels are filled in order).
func (f *Filter) levelAddN(i int, c uint64) { levelAdd(&f.lvl, i, c) }

// levelAdd is levelAddN on the level counts lvl (a filter's, or a build
// goroutine's own, added to the filter's after).
func levelAdd(lvl *[]uint64, i int, c uint64) {
	if i == len(*lvl) {
		*lvl = append(*lvl, 0)
	}
	(*lvl)[i] += c
}

// levelSub records one bit fewer in level i+2.
func (f *Filter) levelSub(i int) {
	f.lvl[i]--
	for len(f.lvl) > 0 && f.lvl[len(f.lvl)-1] == 0 {
		f.lvl = f.lvl[:len(f.lvl)-1]
	}
}

// insertBit inserts a 0 at local index i of bucket b, growing the bucket by a
// word if needed.
func (f *Filter) insertBit(b, i uint64) {
	m := &f.meta[b]
	if words(m.nbits+1) > f.meta[b+1].start-m.start {
		f.grow(b)
	}
	insertZero(f.bucket(b), i, m.nbits)
	m.nbits++
}

func (f *Filter) spare(b uint64) bool {
	return f.meta[b+1].start-f.meta[b].start > words(f.meta[b].nbits)
}

// grow gives bucket b one more word, taken from the nearest bucket that has a
// spare one; the buckets in between move by one word. O(words moved). If no
// bucket has a spare word (only possible once more counter bits are stored than
// the arena was laid out for), the arena is expanded first.
func (f *Filter) grow(b uint64) {
	if !f.takeSpare(b) {
		f.expand()
		// The new layout may have given b itself a spare word (always so
		// when b is the only bucket: a first level of one bucket, m1 <=
		// 2048 bits, had no other bucket to take from and panicked here).
		if words(f.meta[b].nbits+1) <= f.meta[b+1].start-f.meta[b].start {
			return
		}
		if !f.takeSpare(b) {
			panic("acbf: internal error: no spare word after expanding the arena")
		}
	}
}

func (f *Filter) takeSpare(b uint64) bool {
	for d := uint64(1); d < f.nb; d++ {
		if r := b + d; r < f.nb && f.spare(r) {
			// Move buckets b+1..r up by one word; the word freed at the old
			// start of b+1 becomes b's last word.
			s, e := f.meta[b+1].start, f.meta[r].start+words(f.meta[r].nbits)
			copy(f.arena[s+1:e+1], f.arena[s:e])
			f.arena[s] = 0
			for x := b + 1; x <= r; x++ {
				f.meta[x].start++
			}
			return true
		}
		if d <= b && f.spare(b-d) {
			// Move buckets l+1..b down by one word; the freed word lands at
			// the end of b.
			l := b - d
			s, e := f.meta[l+1].start, f.meta[b].start+words(f.meta[b].nbits)
			copy(f.arena[s-1:e-1], f.arena[s:e])
			f.arena[e-1] = 0
			for x := l + 1; x <= b; x++ {
				f.meta[x].start--
			}
			return true
		}
	}
	return false
}

// Contains reports whether key may be in the filter (Algorithm 1): all k bits of
// the first level are 1. No false negatives for added keys, as long as no
// non-member was removed; false positives with probability about FPP(). O(k)
// after one hash of the key, no allocation.
func (f *Filter) Contains(key []byte) bool {
	h1, h2 := hashing.Sum(key)
	for i := 0; i < f.k; i++ {
		p := hashing.Probe(h1, h2, i, f.m1)
		if f.b1[p>>6]&(1<<(p&63)) == 0 {
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
		p := hashing.Probe(h1, h2, i, f.m1)
		if f.b1[p>>6]&(1<<(p&63)) == 0 {
			return false
		}
	}
	return true
}

// ContainsBatch sets out[i] to Contains(keys[i]) for every key (len(out) >=
// len(keys)). It answers the same as Contains, faster on many keys: it hashes
// every key and loads the word of its first probe first, so that the memory
// accesses of different keys overlap instead of waiting on one another, then
// finishes the keys whose first bit is set. O(k) a key, no allocation; as
// safe for concurrent readers as Contains.
func (f *Filter) ContainsBatch(keys [][]byte, out []bool) {
	var h1s, h2s [batchBlock]uint64
	// The filter's fields in locals: stores to out could alias f as far as
	// the compiler knows, which reloaded them from f at every key.
	b1, m1, k := f.b1, f.m1, f.k
	for lo := 0; lo < len(keys); lo += batchBlock {
		n := min(batchBlock, len(keys)-lo)
		ks, o := keys[lo:lo+n], out[lo:lo+n]
		var set uint64 // bit i: o[i]
		for i, key := range ks {
			var h1, h2 uint64
			if len(key) == 8 { // Sum's own fast path, inlined here
				h1, h2 = hashing.Sum8(binary.LittleEndian.Uint64(key))
			} else {
				h1, h2 = hashing.Sum(key)
			}
			h1s[i], h2s[i] = h1, h2
			p := hashing.Probe(h1, h2, 0, m1)
			bit := b1[p>>6] >> (p & 63) & 1
			o[i] = bit != 0
			set |= bit << i
		}
		laterProbes(b1, m1, k, &h1s, &h2s, set, o)
	}
}

// batchBlock is the keys ContainsBatch and ContainsInts hash before they
// probe further.
const batchBlock = 64

// laterProbes finishes a block of keys whose first probes set o: a key
// whose first bit is set is tested at its probes 1 to k-1 (hashes h1s,
// h2s), and o[i] cleared at the first clear bit. O(k) a key.
//
// About a fifth of the keys pass the first probe of the NBER join's filter
// (its first level a fifth full), and a branch on that bit, key by key, was
// mispredicted at that rate. So the keys that passed are found without a
// branch (the bits of set), all of them tested at probe 1 in one branch-free pass that
// keeps those that pass again (a twenty-fifth of the keys), and only those
// go on key by key, stopping at the first clear bit. On keys that do not
// repeat (BenchmarkContainsBatch) 7.7-8.2 -> 6.2-6.8 cpu-ns a key at 65,771
// keys; at 10^6 (3.25 MB, past the L2 cache) within the noise. Testing all
// k-1 probes branch-free, or in rounds, was slower there (the rounds'
// loads wait on each other's). Where more than half of a block passed the
// first probe (a filter of few bits a key, as --filter auto picks under a
// small budget), the branch is mostly taken and predicted, and that pass
// cost more than it saved (4 bits a key, k = 3: 14.1 -> 16.3 cpu-ns a key):
// such a block goes key by key from probe 1, as before.
//
// set holds o as bits (bit i: o[i]), made by the first probes' loop: the
// passes walk its set bits (TrailingZeros), not the block's 64 verdicts
// (BenchmarkContainsBatch, Intel Xeon, 3 alternated runs: 65,771 keys
// 4.82 -> 4.13 cpu-ns a key as integers, 6.44 -> 6.13 as bytes; 10^6
// keys 11.8 -> 10.5 and 17.5 -> 15.5).
func laterProbes(b1 []uint64, m1 uint64, k int, h1s, h2s *[batchBlock]uint64, set uint64, o []bool) {
	if k < 2 {
		return
	}
	first := 1
	if 2*bits.OnesCount64(set) <= len(o) {
		first = 2
		var again uint64
		for m := set; m != 0; m &= m - 1 {
			i := bits.TrailingZeros64(m)
			p := hashing.Probe(h1s[i], h2s[i], 1, m1)
			bit := b1[p>>6] >> (p & 63) & 1
			again |= bit << i
			o[i] = bit != 0
		}
		set = again
	}
	for m := set; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		for j := first; j < k; j++ {
			p := hashing.Probe(h1s[i], h2s[i], j, m1)
			if b1[p>>6]&(1<<(p&63)) == 0 {
				o[i] = false
				break
			}
		}
	}
}

// ContainsInts sets out[i] to Contains of keys[i]'s key.Of bytes (8 bytes,
// big-endian, the sign bit flipped) for every key (len(out) >= len(keys)),
// as ContainsBatch does on those bytes: their little-endian word, which
// hashing.Sum8 hashes, is the value's bytes reversed. No slice a key; O(k)
// a key, no allocation; as safe for concurrent readers as Contains.
func (f *Filter) ContainsInts(keys []int64, out []bool) {
	var h1s, h2s [batchBlock]uint64
	b1, m1, k := f.b1, f.m1, f.k
	for lo := 0; lo < len(keys); lo += batchBlock {
		n := min(batchBlock, len(keys)-lo)
		ks, o := keys[lo:lo+n], out[lo:lo+n]
		hashing.Sum8Ints(ks, h1s[:n], h2s[:n]) // eight a step where the CPU can
		var set uint64                         // bit i: o[i]
		for i, h1 := range h1s[:n] {
			p := hashing.Reduce(h1, m1) // probe 0
			bit := b1[p>>6] >> (p & 63) & 1
			o[i] = bit != 0
			set |= bit << i
		}
		laterProbes(b1, m1, k, &h1s, &h2s, set, o)
	}
}

// Count returns the smallest of key's k counters: an upper bound on the number of
// times key was added and not removed. O(k * (W/64 + counter bits of a bucket)).
func (f *Filter) Count(key []byte) int {
	h1, h2 := hashing.Sum(key)
	c := -1
	for i := 0; i < f.k; i++ {
		v := f.counter(hashing.Probe(h1, h2, i, f.m1))
		if c < 0 || v < c {
			c = v
		}
		if c == 0 {
			break
		}
	}
	return c
}

// Add inserts key (Algorithm 2): each of its k counters grows by one, taking one
// bit of the idle space. If fewer than k idle bits remain, Add returns an error
// wrapping ErrFull and changes nothing. O(k * W/64) amortised, no allocation.
func (f *Filter) Add(key []byte) error {
	if (f.n+1)*uint64(f.k) > f.capBits {
		return fmt.Errorf("%w: %d elements stored, capacity %d (%d idle bits, %d needed)",
			ErrFull, f.n, f.Cap(), f.capBits-f.n*uint64(f.k), f.k)
	}
	h1, h2 := hashing.Sum(key)
	for i := 0; i < f.k; i++ {
		f.increment(hashing.Probe(h1, h2, i, f.m1))
	}
	f.n++
	return nil
}

// Remove deletes one occurrence of key (Algorithm 3). If one of key's counters is
// zero (counting twice a position hit by two of its hashes) the key was never
// added: Remove returns an error wrapping ErrNotMember and changes nothing.
// O(k * W/64), no allocation.
//
// Removing a false positive (a key never added whose counters are all non-zero)
// succeeds and decrements counters of other keys, which can make members test
// negative: remove only keys that were added.
func (f *Filter) Remove(key []byte) error {
	h1, h2 := hashing.Sum(key)
	ps := f.scratch[:0]
	for i := 0; i < f.k; i++ {
		p := hashing.Probe(h1, h2, i, f.m1)
		if !getBit(f.b1, p) {
			return fmt.Errorf("%w: first-level bit %d is zero", ErrNotMember, p)
		}
		ps = append(ps, p)
	}
	for i, p := range ps {
		if !f.decrement(p) {
			// Two hashes share p and its counter was 1: undo what was done.
			for j := i - 1; j >= 0; j-- {
				f.increment(ps[j])
			}
			return fmt.Errorf("%w: counter %d is smaller than the number of hashes on it", ErrNotMember, p)
		}
	}
	f.n--
	return nil
}

// Stats describes the memory use of a Filter.
type Stats struct {
	BudgetBits     uint64   // 4m, the memory budget
	FirstLevelBits uint64   // m1
	LevelBits      []uint64 // LevelBits[j] is the size of level j+1 in bits; LevelBits[0] = m1
	CounterBits    uint64   // bits below the first level: always Elements*k
	UsedBits       uint64   // FirstLevelBits + CounterBits
	IdleBits       uint64   // BudgetBits - UsedBits
	Depth          int      // number of non-empty levels, B1 included (the deepest level)
	Elements       uint64   // stored elements, Len()
	// ResidentBytes is the memory the structure actually holds: first level,
	// arena (the idle space is reserved), and per-bucket bookkeeping.
	ResidentBytes uint64
}

// Stats returns the level sizes and memory use. O(depth).
func (f *Filter) Stats() Stats {
	s := Stats{
		BudgetBits:     4 * f.cfg.Counters,
		FirstLevelBits: f.m1,
		LevelBits:      append([]uint64{f.m1}, f.lvl...),
		Depth:          1 + len(f.lvl),
		Elements:       f.n,
	}
	for _, x := range f.lvl {
		s.CounterBits += x
	}
	s.UsedBits = s.FirstLevelBits + s.CounterBits
	s.IdleBits = s.BudgetBits - s.UsedBits
	s.ResidentBytes = 8*uint64(len(f.b1)+len(f.arena)) + uint64(len(f.meta))*uint64(unsafe.Sizeof(bucketMeta{}))
	return s
}
