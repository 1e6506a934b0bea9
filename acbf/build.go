package acbf

import (
	"fmt"
	"math/bits"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

// Build returns a filter for cfg holding every key of keys (duplicates count as
// separate insertions), with exactly the structure that Adding the keys one by
// one would give. It runs in O(m1/64 + n*k) time: probes are counting-sorted by
// bucket, each bucket's counters are tallied in a small table, and its levels are
// written in one pass, instead of n*k shifting inserts. If the keys need more
// than the idle space it returns an error wrapping ErrFull.
//
// Build reads keys only; it does not retain them. Memory: 16 bytes per key plus
// 2 bytes per probe, transient.
func Build(cfg Config, keys [][]byte) (*Filter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.FirstLevel = cfg.FirstLevelBits()
	f := newShape(cfg, nil)
	n := uint64(len(keys))
	if n > f.Cap() {
		return nil, fmt.Errorf("%w: %d keys, capacity %d", ErrFull, n, f.Cap())
	}
	k := f.k

	// Hash every key once; probes are recomputed from (h1, h2), which is cheaper
	// than storing n*k positions.
	hs := make([]uint64, 2*n)
	counts := make([]uint64, f.nb+1) // bucket histogram, then offsets
	for i, key := range keys {
		h1, h2 := hashing.Sum(key)
		hs[2*i], hs[2*i+1] = h1, h2
		for j := 0; j < k; j++ {
			counts[hashing.Probe(h1, h2, j, f.m1)>>f.shift]++
		}
	}
	// A bucket holds one counter bit per probe that lands in it.
	f.layout(counts[:f.nb], cfg.Capacity*uint64(k))
	var sum uint64
	for b := range counts {
		c := counts[b]
		counts[b] = sum
		sum += c
	}
	local := make([]uint16, sum) // local offsets, grouped by bucket
	mask := uint64(1)<<f.shift - 1
	for i := uint64(0); i < n; i++ {
		h1, h2 := hs[2*i], hs[2*i+1]
		for j := 0; j < k; j++ {
			p := hashing.Probe(h1, h2, j, f.m1)
			b := p >> f.shift
			local[counts[b]] = uint16(p & mask)
			counts[b]++
			setBit(f.b1, p)
		}
	}
	// counts[b] is now the end of bucket b's probes, which is where b+1 starts.
	t := newTally(f.shift)
	var from uint64
	for b := uint64(0); b < f.nb; b++ {
		to := counts[b]
		for _, q := range local[from:to] {
			t.cnt[q]++
		}
		from = to
		f.emitBucket(b, t)
	}
	f.n = n
	return f, nil
}

// tally holds the counters of one bucket while it is being written.
type tally struct {
	cnt    []uint64 // cnt[q]: counter at local position q; all zero between buckets
	active []uint16 // scratch list of local positions
}

func newTally(shift uint) *tally {
	return &tally{cnt: make([]uint64, 1<<shift), active: make([]uint16, 0, 1<<shift)}
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

// emitBucket writes bucket b's segments of levels 2, 3, ... from t.cnt, in unary
// (a position with counter c has bits in levels 2..c+1: 1 while the counter goes
// on, 0 at the end), updates the level sizes, and clears t.cnt. B1 must already
// have a one exactly where t.cnt is non-zero, and the arena must be laid out for
// nbits[b] bits. O(W/64 + counter bits of the bucket).
func (f *Filter) emitBucket(b uint64, t *tally) {
	active := f.b1Ones(b, t.active[:0])
	w := f.bucket(b)
	var pos uint64
	for level := uint64(2); len(active) > 0; level++ {
		if int(level-2) == len(f.lvl) {
			f.lvl = append(f.lvl, 0)
		}
		f.lvl[level-2] += uint64(len(active))
		next := active[:0] // compact in place: next[i] is written after active[i] is read
		for _, q := range active {
			if t.cnt[q] >= level {
				setBit(w, pos)
				next = append(next, q)
			} else {
				t.cnt[q] = 0
			}
			pos++
		}
		active = next
	}
	if pos != f.nbits[b] {
		panic(fmt.Sprintf("acbf: internal error: bucket %d wrote %d bits, laid out for %d", b, pos, f.nbits[b]))
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
		nbits[b] = f.nbits[b] + other.nbits[b]
	}
	g.layout(nbits, max(f.reserve, other.reserve))
	for i := range g.b1 {
		g.b1[i] = f.b1[i] | other.b1[i]
	}
	t := newTally(f.shift)
	for b := uint64(0); b < f.nb; b++ {
		f.tallyBucket(b, t)
		other.tallyBucket(b, t)
		g.emitBucket(b, t)
	}
	g.n = f.n + other.n
	*f = *g
	return nil
}
