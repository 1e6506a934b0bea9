package acbf

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/internal/parbuild"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// Build returns a filter for cfg holding every key of keys (duplicates count as
// separate insertions), with exactly the structure that Adding the keys one by
// one would give. It runs in O(m1/64 + n*k) time: one pass sets the first level,
// counts the probes per bucket and collects the repeats (probes that land on an
// already-set first-level bit, about a tenth of n*k at the optimum); a counting
// sort groups the repeats by bucket; each bucket's levels are then written in
// one sweep, instead of n*k shifting inserts. The first pass runs on up to
// four goroutines, each owning a range of the first level (firstLevel);
// the result does not depend on how many. If the keys need more than the idle
// space it returns an error wrapping ErrFull.
//
// Build reads keys only; it does not retain them. Transient memory: 6 bytes per
// repeated probe (10 for a first level of more than 2^32 bits).
func Build(cfg Config, keys [][]byte) (*Filter, error) {
	return BuildList(cfg, keylist.Of(keys))
}

// BuildList is Build of a keylist.List (packed integer keys take 8 bytes
// each, not 32).
func BuildList(cfg Config, keys keylist.List) (*Filter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.FirstLevel = cfg.FirstLevelBits()
	f := newShape(cfg, nil)
	n := uint64(keys.Len())
	if n > f.Cap() {
		return nil, fmt.Errorf("%w: %d keys, capacity %d", ErrFull, n, f.Cap())
	}
	k := f.k

	// A probe on a clear B1 bit makes a counter of 1; every further probe on
	// that bit adds one and is kept in rep. Expected repeats [derived]: n*k
	// probes minus the m1*(1 - e^(-nk/m1)) distinct bits they set.
	nk := float64(n) * float64(k)
	estimate := nk - float64(f.m1)*(-math.Expm1(-nk/float64(f.m1)))
	// The repeats' positions take 4 bytes each when B1's do (m1 <= 2^32,
	// every filter of fewer than about 6*10^8 keys), not 8: 27 MB less at
	// 10^7 keys.
	var off []int
	var grouped []uint16
	if f.m1 <= 1<<32 {
		off, grouped = groupRepeats(f, firstLevel[uint32](f, keys, int(estimate*1.1)+64))
	} else {
		off, grouped = groupRepeats(f, firstLevel[uint64](f, keys, int(estimate*1.1)+64))
	}
	f.rebuildRanks()
	// A bucket holds one counter bit per probe that landed in it: one per set
	// B1 bit plus one per repeat.
	nbits := make([]uint64, f.nb)
	for b := range nbits {
		nbits[b] = f.meta[b].rank>>48 + uint64(off[b+1]-off[b])
	}
	f.layout(nbits, cfg.Capacity*uint64(k))
	// The buckets' counters, on goroutines that each own a range of
	// buckets (a bucket's words are its own: layout) and count their
	// levels' bits apart, added up after. The 10^7-key filter's 0.1 s
	// of this loop ran on one core (perf).
	workers := max(1, min(buildWorkers(int(n)*k), int(f.nb)))
	lvls := make([][]uint64, workers)
	parbuild.Ranges(f.nb, workers, func(w int, lo, hi uint64) {
		var lvl []uint64
		defer func() { lvls[w] = lvl }()
		t := newTally(f.shift)
		for b := lo; b < hi; b++ {
			// t.cnt[q] counts the repeats at q: its counter is t.cnt[q] + 1.
			// The positions with a counter >= 2 are marked, then listed in
			// order.
			for _, q := range grouped[off[b]:off[b+1]] {
				t.cnt[q]++
				t.mark[q>>6] |= 1 << (q & 63)
			}
			twice := t.active[:0]
			for i, x := range t.mark {
				for ; x != 0; x &= x - 1 {
					twice = append(twice, uint16(i<<6+bits.TrailingZeros64(x)))
				}
				t.mark[i] = 0
			}
			f.emitBucket(b, t, twice, 1, &lvl)
		}
	})
	for _, lvl := range lvls {
		for i, c := range lvl {
			f.levelAddN(i, c)
		}
	}
	f.n = n
	return f, nil
}

// groupRepeats groups the repeats (positions in B1) by bucket, a counting
// sort (order within a bucket does not matter to the tally): bucket b's
// local positions are grouped[off[b]:off[b+1]]. O(repeats + buckets); 2
// bytes a repeat.
func groupRepeats[T uint32 | uint64](f *Filter, reps [][]T) (off []int, grouped []uint16) {
	off = make([]int, f.nb+1)
	for _, rep := range reps {
		for _, p := range rep {
			off[uint64(p)>>f.shift+1]++
		}
	}
	for b := 1; b < len(off); b++ {
		off[b] += off[b-1]
	}
	mask := uint64(1)<<f.shift - 1
	grouped = make([]uint16, off[f.nb])
	next := slices.Clone(off[:f.nb])
	for _, rep := range reps {
		for _, p := range rep {
			b := uint64(p) >> f.shift
			grouped[next[b]] = uint16(uint64(p) & mask)
			next[b]++
		}
	}
	return off, grouped
}

// buildWorkers is how many goroutines a build of probes probes takes:
// Scatter's for a first level beyond the cache, and the counters' levels'
// (parbuild.Ranges over the buckets) (parbuild.Workers; a variable so
// that tests set it).
var buildWorkers = parbuild.Workers

// scatters is whether firstLevel goes through parbuild.Scatter
// (parbuild.Scatters; a variable so that tests set it).
var scatters = parbuild.Scatters

// firstLevel sets the first level from every probe of keys and returns the
// repeats (the probes that landed on a bit already set), in lists whose
// order does not matter to the tally; capacity is about how many. A build
// that parbuild.Scatters says is large enough goes through parbuild.Scatter:
// each key hashed once, its probes grouped by part of B1 and applied part
// by part in key order, on buildWorkers goroutines that each own a range
// of parts, so that the repeats and bits are the ones a single pass would
// make (the filter is the same whatever the count: TestBuildWorkers) and
// the bits set stay in the cache; each goroutine of parbuild.Ranges, over
// every key and its range of B1, took 3.5-5 s of CPU for the first level
// of 10^7 keys (32 MB), nearly every probe a miss. A first level smaller
// than parbuild.ScatterMinParts parts stays in the cache and is built by
// one goroutine in key order. O(n*k) probes.
func firstLevel[T uint32 | uint64](f *Filter, keys keylist.List, capacity int) [][]T {
	n := keys.Len()
	workers := buildWorkers(n * f.k)
	if !scatters(n*f.k, f.m1) {
		// One goroutine (parbuild.RangesMinBytes: below Scatter's space
		// of 4 MiB, goroutines each over every key and a range of B1 were
		// slower than one: 100,000 keys 9.2 against 3.9 ms, 10^6 keys 72
		// against 46 ms, BenchmarkBuildList's keys, AMD EPYC family 26).
		return [][]T{firstLevelRange(f, keys, 0, f.m1, make([]T, 0, capacity))}
	}
	workers = max(1, workers)
	reps := make([][]T, workers)
	for w := range reps {
		reps[w] = make([]T, 0, capacity/workers+64)
	}
	k, m1, b1 := f.k, f.m1, f.b1
	parbuild.Scatter(n, m1, workers, k, func(i int, dst []uint64) []uint64 {
		h1, h2 := hashing.Sum(keys.At(i))
		for j := range k {
			dst = append(dst, hashing.Probe(h1, h2, j, m1))
		}
		return dst
	}, func(w, q int, offs []uint32) {
		// Branch-free: every probe is written at the end of rep, which
		// grows by one only when its bit was set already.
		b := b1[uint64(q)*parbuild.ScatterPart/64:]
		base := uint64(q) * parbuild.ScatterPart
		rep := slices.Grow(reps[w], len(offs))
		r := len(rep)
		rep = rep[:cap(rep)]
		for _, o := range offs {
			word := &b[o>>6]
			old := *word
			rep[r] = T(base + uint64(o))
			r += int(old >> (o & 63) & 1)
			*word = old | 1<<(o&63)
		}
		reps[w] = rep[:r]
	})
	return reps
}

// firstLevelRange sets the bits of B1 at the probes of keys in [lo, hi)
// and appends to rep the probes there that found their bit set.
func firstLevelRange[T uint32 | uint64](f *Filter, keys keylist.List, lo, hi uint64, rep []T) []T {
	k := f.k
	for i := range keys.Len() {
		h1, h2 := hashing.Sum(keys.At(i))
		for j := 0; j < k; j++ {
			p := hashing.Probe(h1, h2, j, f.m1)
			if p < lo || p >= hi {
				continue
			}
			w, bit := &f.b1[p>>6], uint64(1)<<(p&63)
			if *w&bit != 0 {
				rep = append(rep, T(p))
			}
			*w |= bit
		}
	}
	return rep
}

// tally holds the counters of one bucket while it is being written.
type tally struct {
	cnt    []uint64 // cnt[q]: counter at local position q; all zero between buckets
	mark   []uint64 // bitmap of local positions; all zero between buckets
	active []uint16 // scratch list of local positions
}

func newTally(shift uint) *tally {
	return &tally{
		cnt:    make([]uint64, 1<<shift),
		mark:   make([]uint64, 1<<(shift-6)),
		active: make([]uint16, 0, 1<<shift),
	}
}

// b1Ones appends to dst the local positions of the ones of B1 in bucket b, in
// increasing order. O(W/64 + ones).
func (f *Filter) b1Ones(b uint64, dst []uint16) []uint16 {
	lo := b << (f.shift - 6)
	hi := min(lo+1<<(f.shift-6), uint64(len(f.b1)))
	for wi := lo; wi < hi; wi++ {
		for x := f.b1[wi]; x != 0; x &= x - 1 { // clear the lowest one each round
			dst = append(dst, uint16((wi-lo)<<6+uint64(bits.TrailingZeros64(x))))
		}
	}
	return dst
}

// emitBucket writes bucket b's segments of levels 2, 3, ... in unary (a position
// with counter c has bits in levels 2..c+1: 1 while the counter goes on, 0 at the
// end) and updates the level sizes. B1 and the rank directory must be set, and
// the arena laid out for the bucket's counter bits. twice lists, in increasing
// order, the local positions whose counter is at least 2; the counter of such a
// position is t.cnt[q] + base. Only they have ones below B1: the level-2 segment
// is all zeros (as laid out) but for a one at the rank of each of them. t.cnt is
// left zero for them; twice is overwritten. O(W/256 * len(twice) + counter bits
// above level 2).
func (f *Filter) emitBucket(b uint64, t *tally, twice []uint16, base uint64, lvl *[]uint64) {
	w := f.bucket(b)
	lo := b << f.shift
	_, seg := f.b1Rank(b, lo) // level-2 segment length: the ones of B1 in the bucket
	if seg > 0 {
		levelAdd(lvl, 0, seg)
	}
	for _, q := range twice {
		idx, _ := f.b1Rank(b, lo+uint64(q))
		setBit(w, idx)
	}
	pos := seg
	active := twice
	for level := uint64(3); len(active) > 0; level++ {
		levelAdd(lvl, int(level-2), uint64(len(active)))
		next := active[:0] // compact in place: next[i] is written after active[i] is read
		for _, q := range active {
			if t.cnt[q]+base >= level {
				setBit(w, pos)
				next = append(next, q)
			} else {
				t.cnt[q] = 0
			}
			pos++
		}
		active = next
	}
	if pos != f.meta[b].nbits {
		panic(fmt.Sprintf("acbf: internal error: bucket %d wrote %d bits, laid out for %d", b, pos, f.meta[b].nbits))
	}
}

// tallyBucket adds the counters of bucket b of f to t.cnt. O(W/64 + counter bits
// of the bucket).
func (f *Filter) tallyBucket(b uint64, t *tally) {
	active := f.b1Ones(b, t.active[:0])
	w := f.bucket(b)
	var pos uint64
	for len(active) > 0 {
		next := active[:0]
		for _, q := range active {
			t.cnt[q]++
			if getBit(w, pos) {
				next = append(next, q)
			}
			pos++
		}
		active = next
	}
}

// Merge adds the counters of other to f, as if every element of other had been
// added to f. other must have the same Config, else the error wraps ErrShape; if
// the union does not fit in the idle space the error wraps ErrFull. On error f is
// unchanged. O(m1/64 + counter bits of both).
func (f *Filter) Merge(other *Filter) error {
	if other == nil {
		return fmt.Errorf("%w: other filter is nil", ErrShape)
	}
	if f.cfg != other.cfg {
		return fmt.Errorf("%w: %+v vs %+v", ErrShape, f.cfg, other.cfg)
	}
	if f.n+other.n > f.Cap() {
		return fmt.Errorf("%w: %d + %d elements, capacity %d", ErrFull, f.n, other.n, f.Cap())
	}
	g := newShape(f.cfg, nil)
	nbits := make([]uint64, f.nb)
	for b := range nbits {
		nbits[b] = f.meta[b].nbits + other.meta[b].nbits
	}
	g.layout(nbits, max(f.reserve, other.reserve))
	for i := range g.b1 {
		g.b1[i] = f.b1[i] | other.b1[i]
	}
	g.rebuildRanks()
	t := newTally(f.shift)
	scratch := make([]uint16, 0, 1<<f.shift)
	for b := uint64(0); b < f.nb; b++ {
		f.tallyBucket(b, t)
		other.tallyBucket(b, t)
		// Positions with a counter of 1 have no ones below B1.
		twice := t.active[:0]
		for _, q := range g.b1Ones(b, scratch[:0]) {
			if t.cnt[q] >= 2 {
				twice = append(twice, q)
			} else {
				t.cnt[q] = 0
			}
		}
		g.emitBucket(b, t, twice, 0, &g.lvl)
	}
	g.n = f.n + other.n
	*f = *g
	return nil
}
