// Package levelshift is the Accurate Counting Bloom Filter of Li, Huang, Zhang
// and Qin (2013) in the paper's own whole-level layout, kept only to measure the
// paper's update cost beside our acbf.Filter. It is not for production: every
// update ranks and shifts whole levels, O(level size) per hash position.
//
// The first level B1 is a bitmap of m1 bits; level j+1 has one bit for every
// one of level j, at index rank_j(p) (offset indexing); a counter c is stored in
// unary down the levels, c ones then a terminating zero. Add and Remove are the
// paper's Algorithms 2 and 3: walk down the ones, then insert ("expand") or
// remove ("shrink") one bit of a level, moving all later bits of that level.
// Each level is a packed bitmap ([]uint64 words, LSB first, and a bit length),
// and the positions are those of package acbf (hashing.Sum and hashing.Probe),
// so Contains and Count agree with an acbf.Filter of the same m1 and k.
//
// Two granularities give bit-identical levels at different costs:
//
//   - Word: a rank is a popcount of the prefix words plus a masked partial
//     word, and a shift moves the tail of a level a word at a time with carries.
//   - Bit: a rank tests the prefix one bit at a time, and a shift moves the tail
//     one bit at a time with get and set, as a transcription over a bitmap
//     library without word operations would.
//
// Ops counts the bits that ranks span and the bits that shifts move, the same
// in both granularities, to test a cost model of the paper's Equation (2).
package levelshift

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

var (
	// ErrConfig is returned by New and Build for an invalid Config.
	ErrConfig = errors.New("levelshift: invalid configuration")
	// ErrFull is returned by Add and Build when the budget cannot hold k more
	// counter bits per key.
	ErrFull = errors.New("levelshift: filter is full")
	// ErrNotMember is returned by Remove when a counter of the key would go
	// below zero.
	ErrNotMember = errors.New("levelshift: key is not a member")
)

// MaxBudgetBits bounds Config.BudgetBits (512 MiB). Counters, positions and
// level indices then fit in 32 bits, and a layout whose updates cost O(level
// size) is unusable long before this size.
const MaxBudgetBits = 1 << 32

// Granularity selects how ranks and shifts are computed; both give the same
// levels.
type Granularity int

const (
	// Word ranks with bits.OnesCount64 over whole words and shifts a word at a
	// time with carries.
	Word Granularity = iota
	// Bit ranks and shifts one bit at a time with get and set.
	Bit
)

// String returns "Word" or "Bit".
func (g Granularity) String() string {
	switch g {
	case Word:
		return "Word"
	case Bit:
		return "Bit"
	}
	return fmt.Sprintf("Granularity(%d)", int(g))
}

// Config sizes a Filter.
type Config struct {
	FirstLevel  uint64 // m1, the bits of B1
	K           int    // hash functions, 1..64
	BudgetBits  uint64 // 4m, the bits of B1 plus all counter bits below it
	Granularity Granularity
}

// Validate reports why c cannot describe a filter (an error wrapping
// ErrConfig), or nil.
func (c Config) Validate() error {
	switch {
	case c.K < 1 || c.K > 64:
		return fmt.Errorf("%w: k = %d, want 1..64", ErrConfig, c.K)
	case c.BudgetBits > MaxBudgetBits:
		return fmt.Errorf("%w: budget %d bits, want at most %d", ErrConfig, c.BudgetBits, uint64(MaxBudgetBits))
	case c.FirstLevel < 1 || c.FirstLevel > c.BudgetBits:
		return fmt.Errorf("%w: first level m1 = %d bits, want 1..budget = %d", ErrConfig, c.FirstLevel, c.BudgetBits)
	case c.Granularity != Word && c.Granularity != Bit:
		return fmt.Errorf("%w: %v", ErrConfig, c.Granularity)
	}
	return nil
}

// Ops counts the work of Add and Remove (Build, Contains and Count are not
// counted). A rank of index p spans p bits; an expand at index i of a level of
// L bits moves L-i bits, a shrink at i moves L-i-1. The work of a Remove that
// fails after a decrement (and of its undo) is counted; Updates counts only
// the Add and Remove calls that succeeded.
type Ops struct {
	RankBits, ShiftBits, Updates uint64
}

// level is a packed bitmap of n bits; bits at n and beyond are zero.
type level struct {
	w []uint64
	n uint64
}

// Filter is an ACBF in the paper's whole-level layout. Make one with New or
// Build. It is not safe for concurrent use, not even by readers, since an
// update reuses internal scratch space.
type Filter struct {
	cfg Config
	lv  []level // lv[0] is B1; no empty level below B1 is kept
	n   uint64
	ops Ops
	pos []uint64 // scratch: the k positions of a key
}

// New returns an empty filter. O(m1/64).
func New(cfg Config) (*Filter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m1 := cfg.FirstLevel
	return &Filter{
		cfg: cfg,
		lv:  []level{{w: make([]uint64, words(m1)), n: m1}},
		pos: make([]uint64, cfg.K),
	}, nil
}

// Build returns a filter holding keys (duplicates count as separate
// insertions), with the same levels as adding them one by one, built in
// O(m1 + n*k) from a counter array: level j+1 lists, in increasing order of
// B1 position, one bit per position whose counter is >= j, set iff the
// counter is >= j+1. More keys than Cap returns an error wrapping ErrFull.
// Transient memory: 4 bytes per B1 position.
func Build(cfg Config, keys [][]byte) (*Filter, error) {
	f, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if n := uint64(len(keys)); n > f.Cap() {
		return nil, fmt.Errorf("%w: %d keys, capacity %d", ErrFull, n, f.Cap())
	}
	cnt := make([]uint32, cfg.FirstLevel) // counters <= n*k < MaxBudgetBits
	for _, key := range keys {
		for _, p := range f.positions(key) {
			cnt[p]++
		}
	}
	var list []uint32 // positions whose counter is >= d, ascending
	for p, c := range cnt {
		if c > 0 {
			setBit(f.lv[0].w, uint64(p))
			list = append(list, uint32(p))
		}
	}
	for d := uint32(1); len(list) > 0; d++ {
		l := level{w: make([]uint64, words(uint64(len(list)))), n: uint64(len(list))}
		keep := list[:0]
		for i, p := range list {
			if cnt[p] > d {
				setBit(l.w, uint64(i))
				keep = append(keep, p)
			}
		}
		f.lv, list = append(f.lv, l), keep
	}
	f.n = uint64(len(keys))
	return f, nil
}

// Add inserts key (Algorithm 2): each of its k counters grows by one. If
// fewer than k bits of the budget are idle it returns an error wrapping
// ErrFull and changes nothing. O(k * (depth ranks + one shift)), each over a
// whole level; amortised allocation only when a level outgrows its words.
func (f *Filter) Add(key []byte) error {
	if f.UsedBits()+uint64(f.cfg.K) > f.cfg.BudgetBits {
		return fmt.Errorf("%w: %d keys stored, capacity %d", ErrFull, f.n, f.Cap())
	}
	for _, p := range f.positions(key) {
		f.inc(p)
	}
	f.n++
	f.ops.Updates++
	return nil
}

// Remove deletes one occurrence of key (Algorithm 3). If a counter of key
// would go below zero (a zero B1 bit, or two hashes on a counter of 1) it
// returns an error wrapping ErrNotMember and leaves the levels unchanged.
// Removing a false positive succeeds and corrupts other keys' counters. Cost
// as Add.
func (f *Filter) Remove(key []byte) error {
	ps := f.positions(key)
	for _, p := range ps {
		if !getBit(f.lv[0].w, p) {
			return fmt.Errorf("%w: first-level bit %d is zero", ErrNotMember, p)
		}
	}
	for i, p := range ps {
		if !f.dec(p) {
			for j := i - 1; j >= 0; j-- { // the layout is a function of the counters
				f.inc(ps[j])
			}
			return fmt.Errorf("%w: counter %d is smaller than the hashes on it", ErrNotMember, p)
		}
	}
	f.n--
	f.ops.Updates++
	return nil
}

// Contains reports whether all k bits of key in B1 are one (Algorithm 1). O(k).
func (f *Filter) Contains(key []byte) bool {
	h1, h2 := hashing.Sum(key)
	for i := range f.cfg.K {
		if !getBit(f.lv[0].w, hashing.Probe(h1, h2, i, f.cfg.FirstLevel)) {
			return false
		}
	}
	return true
}

// Count returns the smallest of key's k counters. O(k * depth) ranks, each
// over a whole level.
func (f *Filter) Count(key []byte) int {
	c := -1
	for _, p := range f.positions(key) {
		if v := f.counter(p); c < 0 || v < c {
			c = v
		}
	}
	return c
}

// Len returns the number of keys stored. O(1).
func (f *Filter) Len() uint64 { return f.n }

// Cap returns the number of keys the budget holds: (budget - m1) / k. O(1).
func (f *Filter) Cap() uint64 {
	return (f.cfg.BudgetBits - f.cfg.FirstLevel) / uint64(f.cfg.K)
}

// UsedBits returns m1 + Len*k, the bits of all levels. O(1).
func (f *Filter) UsedBits() uint64 { return f.cfg.FirstLevel + f.n*uint64(f.cfg.K) }

// Levels returns the bit length of each level, B1 first; the levels below B1
// sum to Len*k. O(depth), allocates the result.
func (f *Filter) Levels() []uint64 {
	out := make([]uint64, len(f.lv))
	for i, l := range f.lv {
		out[i] = l.n
	}
	return out
}

// Ops returns the work counted since New, Build or ResetOps. O(1).
func (f *Filter) Ops() Ops { return f.ops }

// ResetOps zeroes the work counters. O(1).
func (f *Filter) ResetOps() { f.ops = Ops{} }

func (f *Filter) positions(key []byte) []uint64 {
	h1, h2 := hashing.Sum(key)
	for i := range f.pos {
		f.pos[i] = hashing.Probe(h1, h2, i, f.cfg.FirstLevel)
	}
	return f.pos
}

// inc adds one to the counter at B1 position p (Algorithm 2, one position).
func (f *Filter) inc(p uint64) {
	for j, i := 0, p; ; j++ {
		l := &f.lv[j]
		r := f.rank(l, i)
		if getBit(l.w, i) {
			i = r
			continue
		}
		setBit(l.w, i)
		if j+1 == len(f.lv) {
			// Reuses a trimmed level's words: n == 0 and all bits zero.
			f.lv = slices.Grow(f.lv, 1)[:j+2]
		}
		f.expand(&f.lv[j+1], r)
		return
	}
}

// dec subtracts one from the counter at B1 position p (Algorithm 3, one
// position); false, changing nothing, if it is zero.
func (f *Filter) dec(p uint64) bool {
	if !getBit(f.lv[0].w, p) {
		return false
	}
	j, i, above := 0, p, p
	for getBit(f.lv[j].w, i) {
		above, i = i, f.rank(&f.lv[j], i)
		j++
	}
	f.shrink(&f.lv[j], i)
	clearBit(f.lv[j-1].w, above)
	for len(f.lv) > 1 && f.lv[len(f.lv)-1].n == 0 {
		f.lv = f.lv[:len(f.lv)-1]
	}
	return true
}

// counter walks the levels from B1 position p; not counted in Ops.
func (f *Filter) counter(p uint64) int {
	j, i := 0, p
	for getBit(f.lv[j].w, i) {
		i = f.cfg.Granularity.rank(f.lv[j].w, i)
		j++
	}
	return j
}

func (f *Filter) rank(l *level, i uint64) uint64 {
	f.ops.RankBits += i
	return f.cfg.Granularity.rank(l.w, i)
}

// rank returns the ones of w in [0, i).
func (g Granularity) rank(w []uint64, i uint64) uint64 {
	var c uint64
	if g == Bit {
		for b := range i {
			if getBit(w, b) {
				c++
			}
		}
		return c
	}
	for _, x := range w[:i>>6] {
		c += uint64(bits.OnesCount64(x))
	}
	if r := i & 63; r != 0 {
		c += uint64(bits.OnesCount64(w[i>>6] & (1<<r - 1)))
	}
	return c
}

// expand inserts a zero at index i of l, moving bits [i, n) up by one.
func (f *Filter) expand(l *level, i uint64) {
	n := l.n
	f.ops.ShiftBits += n - i
	if words(n+1) > uint64(len(l.w)) {
		l.w = append(l.w, 0)
	}
	l.n++
	w := l.w
	if f.cfg.Granularity == Bit {
		for b := n; b > i; b-- {
			putBit(w, b, getBit(w, b-1))
		}
		clearBit(w, i)
		return
	}
	wi := i >> 6
	for j := n >> 6; j > wi; j-- {
		w[j] = w[j]<<1 | w[j-1]>>63
	}
	low := uint64(1)<<(i&63) - 1
	w[wi] = w[wi]&low | (w[wi]&^low)<<1
}

// shrink removes bit i of l, moving bits (i, n) down by one.
func (f *Filter) shrink(l *level, i uint64) {
	n := l.n
	f.ops.ShiftBits += n - i - 1
	l.n--
	w := l.w
	if f.cfg.Granularity == Bit {
		for b := i; b+1 < n; b++ {
			putBit(w, b, getBit(w, b+1))
		}
		clearBit(w, n-1)
		return
	}
	wi, last := i>>6, (n-1)>>6
	low := uint64(1)<<(i&63) - 1
	x := w[wi]
	for j := wi; j < last; j++ {
		w[j] = w[j]>>1 | w[j+1]<<63
	}
	w[last] >>= 1
	w[wi] = x&low | w[wi]&^low
}

func words(nbits uint64) uint64 { return (nbits + 63) >> 6 }

func getBit(w []uint64, i uint64) bool { return w[i>>6]>>(i&63)&1 != 0 }

func setBit(w []uint64, i uint64) { w[i>>6] |= 1 << (i & 63) }

func clearBit(w []uint64, i uint64) { w[i>>6] &^= 1 << (i & 63) }

func putBit(w []uint64, i uint64, v bool) {
	if v {
		setBit(w, i)
	} else {
		clearBit(w, i)
	}
}
