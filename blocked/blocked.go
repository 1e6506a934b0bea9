package blocked

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/internal/parbuild"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// BlockBits is the size of a block: one 64-byte cache line, 8 words of 64 bits.
const BlockBits = 512

// MaxK is the largest number of probes per key a Filter accepts. The blocked
// filter's best k (OptimalK) stays at or below 16 up to 40 bits per key
// (false positive rate 7.7e-7); past that the false positives come from the
// spread of the block loads, not from too few probes, so more probes buy
// little (at 48 bits per key k = 18 beats k = 16 by 6%) and cost a third word
// of probe bits (see probeWord).
const MaxK = 16

// MaxBits is the largest number of bits a Filter accepts (2^38 bits, 32 GiB,
// the same memory bound as cbf.MaxCounters): it keeps every size computation
// far from overflow and lets a decoder reject absurd headers. It is a multiple
// of BlockBits.
const MaxBits = 1 << 38

const (
	wordsPerBlock = BlockBits / 64 // 8
	lineBytes     = BlockBits / 8  // 64
	probeBits     = 9              // log2(BlockBits): bits of hash per probe
	probesPerWord = 64 / probeBits // 7 probes from a 64-bit word (63 bits used)
)

var (
	// ErrConfig is returned for invalid parameters.
	ErrConfig = errors.New("blocked: invalid parameters")
	// ErrFormat is returned when decoding input that is not a valid serialized
	// Filter: foreign magic, unknown version, impossible parameters, more ones
	// than k*Len, a bad checksum or a truncated stream (which also matches
	// io.ErrUnexpectedEOF).
	ErrFormat = errors.New("blocked: invalid serialized filter")
)

// Physical layout.
//
// The m bits form m/512 blocks of 8 consecutive uint64 words; bit j of block b
// is bit j%64 of word 8b + j/64. The word array starts on a 64-byte boundary
// (newWords), so every block is exactly one cache line.
//
// A key is hashed once (hashing.Sum: murmur3 x64 128, two halves h1, h2). Its
// block is hashing.Reduce(h1, blocks), the multiply-high reduction, which reads
// the high bits of h1. Its k bit positions inside the block come from h2 only:
//
//	probe i, for i < 7:  bits 9i .. 9i+8 of h2
//	probe i, for i >= 7: bits 9(i%7) .. 9(i%7)+8 of probeWord(h2, i/7)
//
// where probeWord(h2, j) for j >= 1 is the splitmix64 finalizer of h2 + j*γ (γ
// the 64-bit golden ratio): a bijection of h2 with full avalanche, so its
// 9-bit slices are as independent of h2's slices, and of each other, as bits
// of a good hash are. Every probe is thus a fresh, independent, uniform 9-bit
// value: probes are drawn with replacement, as the false positive model
// (FPP) assumes. For k <= 7 (OptimalK up to 11 bits per key) it costs a shift
// and a mask per probe and no multiplication.
//
// Why not Kirsch-Mitzenmacher inside the block (g_i = h2 + i*h1 mod 512)? With
// only 512 positions its weaknesses are not asymptotic: an h1 that is a
// multiple of 2^(9-r) gives at most 2^r distinct probes, so all k probes fall
// on one bit for 1 key in 512, on at most 2 bits for 1 in 256, on at most 4
// for 1 in 128; this raises the false positive rate above the formula, and
// the whole pattern would have only 2^18 values. Slicing one hash costs less
// and has none of this.
//
// All k probes of a key read or write the one cache line of its block: one
// cache miss a query, against up to k for a classic Bloom filter.

// Filter is a cache-line blocked Bloom filter (Putze, Sanders and Singler,
// "Cache-, Hash- and Space-Efficient Bloom Filters", WEA 2007): m
// bits in blocks of 512, k probes per key, all inside one block. The zero
// value is not usable: create one with New.
//
// Concurrency: Contains, ContainsBatch and FillFPP only read and are safe
// for any number of concurrent callers while nobody calls Add or ReadFrom/
// UnmarshalBinary; those mutate and need exclusive access.
type Filter struct {
	bits     uint64   // m, a multiple of BlockBits
	blocks   uint64   // m / BlockBits
	k        int      // probes per key
	n        uint64   // number of Adds
	words    []uint64 // m/64 words, block b is words[8b : 8b+8], 64-byte aligned
	padWords uint64   // words allocated before words[0] to align it (0 in practice)
}

// New returns an empty filter with at least bits bits, rounded up to a
// multiple of BlockBits (at least one block), and k probes per key; k is
// best chosen with OptimalK. Parameters are checked before anything is
// allocated: bits above MaxBits or k outside 1..MaxK give an error wrapping
// ErrConfig. O(m) to zero the bits.
func New(bits uint64, k int) (*Filter, error) {
	if err := validate(bits, k); err != nil {
		return nil, err
	}
	blocks := max(1, (bits+BlockBits-1)/BlockBits)
	words, pad := newWords(blocks * wordsPerBlock)
	return &Filter{bits: blocks * BlockBits, blocks: blocks, k: k, words: words, padWords: pad}, nil
}

func validate(bits uint64, k int) error {
	if bits > MaxBits {
		return fmt.Errorf("%w: %d bits, want at most %d", ErrConfig, bits, uint64(MaxBits))
	}
	if k < 1 || k > MaxK {
		return fmt.Errorf("%w: k = %d probes, want 1..%d", ErrConfig, k, MaxK)
	}
	return nil
}

// newWords returns n zeroed words whose first word starts a cache line, and the
// number of words allocated before it to get there. Go's allocator already
// aligns every size a Filter asks for (a multiple of 64 bytes: size classes
// that are multiples of 64, or whole pages), so the first allocation is kept
// in practice; the second, 7 words longer, is the guarantee.
func newWords(n uint64) (words []uint64, pad uint64) {
	if w := make([]uint64, n); aligned(w) {
		return w, 0
	}
	return alignedIn(make([]uint64, n+wordsPerBlock-1), n)
}

// alignedIn returns the n words of w (len(w) >= n+7) that start at its first
// cache line boundary, and the number of words skipped before them. The heap
// does not move objects, so an address checked once stays aligned.
func alignedIn(w []uint64, n uint64) (words []uint64, pad uint64) {
	pad = uint64((lineBytes - uintptr(unsafe.Pointer(&w[0]))%lineBytes) % lineBytes / 8)
	return w[pad : pad+n : pad+n], pad
}

// aligned reports whether w starts on a cache line boundary.
func aligned(w []uint64) bool {
	return len(w) > 0 && uintptr(unsafe.Pointer(&w[0]))%lineBytes == 0
}

// Bits returns m, the number of bits (a multiple of BlockBits).
func (f *Filter) Bits() uint64 { return f.bits }

// K returns the number of probes per key.
func (f *Filter) K() int { return f.k }

// Len returns the number of Adds (a key added twice counts twice), at most
// 2^64-1: it saturates there rather than wrap to 0, which would make FPP()
// 0 and the serialized filter fail its own k*Len check.
func (f *Filter) Len() uint64 { return f.n }

// MemoryBits returns the bits the filter's array takes: Bits(), plus the
// alignment padding if the allocator did not return a 64-byte aligned array
// (at most 448 bits; none in practice, see newWords).
func (f *Filter) MemoryBits() uint64 { return f.bits + 64*f.padWords }

// FPP returns the false positive probability expected of a filter of this
// size at its current Len, FPP(Bits(), Len(), K()): the mean over random key
// sets. FillFPP is the rate of this filter's actual bits.
func (f *Filter) FPP() float64 { return FPP(f.bits, f.n, f.k) }

// block returns the block of a key whose first hash half is h1. The slice to
// array pointer conversion is the one bounds check; indexing the array with a
// value below 8 needs none.
func (f *Filter) block(h1 uint64) *[wordsPerBlock]uint64 {
	b := hashing.Reduce(h1, f.blocks)
	return (*[wordsPerBlock]uint64)(f.words[b*wordsPerBlock:])
}

// probeWord returns the word whose 9-bit slices are probes 7j .. 7j+6: h2
// itself for j = 0, else the splitmix64 finalizer (Steele, Lea and Flood,
// "Fast Splittable Pseudorandom Number Generators", OOPSLA 2014) of h2 + j*γ.
func probeWord(h2 uint64, j int) uint64 {
	if j == 0 {
		return h2
	}
	z := h2 + uint64(j)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Add inserts key: one hash, then k bits set in one cache line. O(k), no
// allocation. Deletion is not supported (a bit may be shared by several keys;
// use cbf for a filter that removes).
func (f *Filter) Add(key []byte) {
	var h1, h2 uint64
	if len(key) == 8 { // hashing.Sum's own fast path, written here so that it inlines
		h1, h2 = hashing.Sum8(binary.LittleEndian.Uint64(key))
	} else {
		h1, h2 = hashing.Sum(key)
	}
	blk := f.block(h1)
	setBits(blk, h2, min(f.k, probesPerWord))
	for j := 1; j*probesPerWord < f.k; j++ {
		setBits(blk, probeWord(h2, j), min(f.k-j*probesPerWord, probesPerWord))
	}
	if f.n < math.MaxUint64 { // Len saturates, never wraps to 0 (a decoded header can start it at 2^64-1)
		f.n++
	}
}

// Build returns a filter of bits bits (as New rounds them) and k probes
// holding keys, as New then Add of each key would. From 2^18 probes on it
// adds them on up to four goroutines (one a CPU), each owning a range of
// the blocks: each reads every key and adds only those of its blocks, so
// no block is written by two and the filter is the same whatever the
// count (TestBuildWorkers). O(m + n*k), the keys hashed once a goroutine.
func Build(bits uint64, k int, keys [][]byte) (*Filter, error) {
	return BuildList(bits, k, keylist.Of(keys))
}

// BuildList is Build of a keylist.List (packed integer keys take 8 bytes
// each, not 32).
func BuildList(bits uint64, k int, keys keylist.List) (*Filter, error) {
	f, err := New(bits, k)
	if err != nil {
		return nil, err
	}
	n := keys.Len()
	workers := buildWorkers(n*k, f.blocks*BlockBits/8)
	if workers <= 1 || f.blocks < uint64(workers) {
		for i := range n {
			f.Add(keys.At(i))
		}
		return f, nil
	}
	parbuild.Ranges(f.blocks, workers, func(_ int, lo, hi uint64) {
		for i := range n {
			h1, h2 := hashing.Sum(keys.At(i))
			if b := hashing.Reduce(h1, f.blocks); b < lo || b >= hi {
				continue
			}
			blk := f.block(h1)
			setBits(blk, h2, min(f.k, probesPerWord))
			for j := 1; j*probesPerWord < f.k; j++ {
				setBits(blk, probeWord(h2, j), min(f.k-j*probesPerWord, probesPerWord))
			}
		}
	})
	f.n = uint64(n)
	return f, nil
}

// buildWorkers is how many goroutines Build adds probes probes into an
// array of bytes bytes with (parbuild.RangeWorkers: one below
// parbuild.RangesMinBytes; a variable so that tests set it).
var buildWorkers = parbuild.RangeWorkers

// Contains reports whether key may be in the filter: true for every key added
// (no false negatives), and true with probability about FPP() for other keys.
// O(k) within one cache line, no allocation.
func (f *Filter) Contains(key []byte) bool {
	var h1, h2 uint64
	if len(key) == 8 {
		h1, h2 = hashing.Sum8(binary.LittleEndian.Uint64(key))
	} else {
		h1, h2 = hashing.Sum(key)
	}
	// has, written out so that the first 7 probes inline.
	blk := f.block(h1)
	clear := clearBits(blk, h2, min(f.k, probesPerWord))
	if f.k > probesPerWord {
		clear |= moreClearBits(blk, h2, f.k)
	}
	return clear&1 == 0
}

// ContainsSum is Contains for a key whose hashing.Sum is (h1, h2), so that a
// key tested against many filters is hashed once (a filter bank). O(k), no
// allocation; as safe for concurrent readers as Contains.
func (f *Filter) ContainsSum(h1, h2 uint64) bool { return has(f.block(h1), h2, f.k) }

// has reports whether the k probes of h2 are all set in blk. It tests all k
// without a branch on the bits: once the line is loaded the other probes are
// L1 hits that cost a cycle or two each, while a branch on a bit of a line
// still on its way is mispredicted for about every other non-member and then
// keeps the processor from running ahead to the next query's cache miss. (A
// classic filter is the other way round: its later probes are further
// misses, so it stops at the first clear bit.)
func has(blk *[wordsPerBlock]uint64, h2 uint64, k int) bool {
	clear := clearBits(blk, h2, min(k, probesPerWord))
	if k > probesPerWord {
		clear |= moreClearBits(blk, h2, k)
	}
	return clear&1 == 0
}

// moreClearBits is clearBits for probes 7..k-1. It is out of line: filters of
// up to 11 bits per key (k = OptimalK <= 7) never call it.
func moreClearBits(blk *[wordsPerBlock]uint64, h2 uint64, k int) (clear uint64) {
	for j := 1; j*probesPerWord < k; j++ {
		clear |= clearBits(blk, probeWord(h2, j), min(k-j*probesPerWord, probesPerWord))
	}
	return clear
}

// setBits sets the bits of the c probes sliced from x (c <= 7) in blk.
func setBits(blk *[wordsPerBlock]uint64, x uint64, c int) {
	for ; c > 0; c-- {
		blk[x>>6&7] |= 1 << (x & 63) // the low 9 bits of x: word x>>6&7, bit x&63 of it
		x >>= probeBits
	}
}

// clearBits returns a word whose bit 0 is set if any of the c probes sliced
// from x (c <= 7) finds its bit of blk clear; its other bits mean nothing.
func clearBits(blk *[wordsPerBlock]uint64, x uint64, c int) (clear uint64) {
	for ; c > 0; c-- {
		// The low 9 bits of x: word x>>6&7, bit x&63 of it, moved to bit 0
		// and inverted.
		clear |= ^blk[x>>6&7] >> (x & 63)
		x >>= probeBits
	}
	return clear
}

// batchSize is the number of keys ContainsBatch hashes before testing them.
const batchSize = 64

// ContainsBatch sets out[i] to Contains(keys[i]) for every key (len(out) >=
// len(keys)). It answers the same as Contains, faster on many keys and on
// filters larger than the cache: for every 64 keys it first hashes them all,
// then loads the word of each one's first probe, loads that do not depend on
// each other and come few instructions apart, so that many cache misses are
// in flight at once, and then finishes the keys whose first bit is set, from
// cache. O(k) a key, no allocation; as safe for concurrent readers as
// Contains.
func (f *Filter) ContainsBatch(keys [][]byte, out []bool) {
	out = out[:len(keys)] // one bounds check, and a short out panics before any work
	var blks [batchSize]*[wordsPerBlock]uint64
	var h2s [batchSize]uint64
	for lo := 0; lo < len(keys); lo += batchSize {
		n := min(batchSize, len(keys)-lo)
		ks, res := keys[lo:lo+n], out[lo:lo+n]
		// Pass 1: hash. No memory access but the keys.
		for i, key := range ks {
			var h1, h2 uint64
			if len(key) == 8 {
				h1, h2 = hashing.Sum8(binary.LittleEndian.Uint64(key))
			} else {
				h1, h2 = hashing.Sum(key)
			}
			blks[i], h2s[i] = f.block(h1), h2
		}
		// Pass 2: the first probe of each key, a handful of instructions
		// each, so that the reorder window holds dozens of these loads.
		for i := range res {
			res[i] = clearBits(blks[i], h2s[i], 1)&1 == 0
		}
		// Pass 3: the other probes, from lines now in cache.
		for i := range res {
			if res[i] {
				res[i] = has(blks[i], h2s[i], f.k)
			}
		}
	}
}

// ContainsInts sets out[i] to Contains of keys[i]'s key.Of bytes (8 bytes,
// big-endian, the sign bit flipped) for every key
// (len(out) >= len(keys)), as ContainsBatch does on those bytes, whose
// little-endian word (what hashing.Sum8 hashes) is that value's bytes
// reversed. No slice a key; O(k) a key, no allocation; as safe for
// concurrent readers as Contains.
func (f *Filter) ContainsInts(keys []int64, out []bool) {
	out = out[:len(keys)]
	var blks [batchSize]*[wordsPerBlock]uint64
	var h1s, h2s [batchSize]uint64
	for lo := 0; lo < len(keys); lo += batchSize {
		n := min(batchSize, len(keys)-lo)
		ks, res := keys[lo:lo+n], out[lo:lo+n]
		hashing.Sum8Ints(ks, h1s[:n], h2s[:n]) // eight a step where the CPU can
		for i, h1 := range h1s[:n] {           // as ContainsBatch's passes
			blks[i] = f.block(h1)
		}
		for i := range res {
			res[i] = clearBits(blks[i], h2s[i], 1)&1 == 0
		}
		for i := range res {
			if res[i] {
				res[i] = has(blks[i], h2s[i], f.k)
			}
		}
	}
}

// Equal reports whether f and other have the same bits, k, Len and contents.
// A nil *Filter equals only nil.
func (f *Filter) Equal(other *Filter) bool {
	if f == nil || other == nil {
		return f == other
	}
	if f.bits != other.bits || f.k != other.k || f.n != other.n {
		return false
	}
	for i, w := range f.words {
		if other.words[i] != w {
			return false
		}
	}
	return true
}
