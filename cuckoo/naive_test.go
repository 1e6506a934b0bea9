package cuckoo

import (
	"math/bits"
	"slices"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

// naive is a literal, slow transcription of the paper's Algorithms 1-3 on
// buckets held as [][]uint32, with the hashing of the package doc recomputed
// from its text and the same kick generator. It differs from the paper's
// Algorithm 1 in two ways, as the Filter does: before each kick from the
// lookaheadAfter-th on it looks one step ahead, and a failed insertion restores the table (here from a copy taken
// before the first kick). It is the reference the packed, SWAR Filter
// is checked against, slot for slot.
type naive struct {
	buckets [][]uint32
	f       uint
	n       uint64
	rng     uint64
}

func newNaive(buckets uint64, b, f int) *naive {
	t := &naive{buckets: make([][]uint32, buckets), f: uint(f), rng: rngSeed}
	for i := range t.buckets {
		t.buckets[i] = make([]uint32, b)
	}
	return t
}

func (t *naive) next() uint64 {
	t.rng ^= t.rng << 13
	t.rng ^= t.rng >> 7
	t.rng ^= t.rng << 17
	return t.rng
}

// hash: i1 = floor(h1 * m / 2^64); fp = top f bits of h2, 0 -> 1;
// i2 = alt(i1, fp).
func (t *naive) hash(key []byte) (i1, i2 uint64, fp uint32) {
	h1, h2 := hashing.Sum(key)
	m := uint64(len(t.buckets))
	i1 = mulHigh(h1, m)
	fp = uint32(h2 >> (64 - t.f))
	if fp == 0 {
		fp = 1
	}
	return i1, t.alt(i1, fp), fp
}

// alt: (H - i) mod m with H = floor(x * m / 2^32), x the top 32 bits of
// fp*0x9e3779b97f4a7c15 mod 2^64 (here as the high word of x*2^32 times m),
// computed with a division.
func (t *naive) alt(i uint64, fp uint32) uint64 {
	m := uint64(len(t.buckets))
	x := uint64(fp) * 0x9e3779b97f4a7c15 >> 32
	h := mulHigh(x<<32, m)
	return (h + m - i) % m
}

// mulHigh is floor(x * m / 2^64), the high word of the 128-bit product.
func mulHigh(x, m uint64) uint64 {
	hi, _ := bits.Mul64(x, m)
	return hi
}

// emptySlot returns the first empty slot of bucket i, or -1.
func (t *naive) emptySlot(i uint64) int {
	return slices.Index(t.buckets[i], 0)
}

// insert is Algorithm 1.
func (t *naive) insert(key []byte) bool {
	i1, i2, fp := t.hash(key)
	for _, i := range []uint64{i1, i2} {
		if j := t.emptySlot(i); j >= 0 {
			t.buckets[i][j] = fp
			t.n++
			return true
		}
	}
	saved := make([][]uint32, len(t.buckets))
	for i := range t.buckets {
		saved[i] = slices.Clone(t.buckets[i])
	}
	rng := t.rng
	i := i1
	if t.next()%2 == 1 {
		i = i2
	}
	for k := range MaxKicks {
		// The one-step lookahead: a fingerprint of bucket i that can move to an
		// empty slot of its other bucket makes room for fp.
		for e, v := range t.buckets[i] {
			if k < lookaheadAfter {
				break
			}
			if a := t.alt(i, v); a != i {
				if j := t.emptySlot(a); j >= 0 {
					t.buckets[a][j] = v
					t.buckets[i][e] = fp
					t.n++
					return true
				}
			}
		}
		e, _ := bits.Mul64(t.next(), uint64(len(t.buckets[i])))
		fp, t.buckets[i][e] = t.buckets[i][e], fp
		i = t.alt(i, fp)
		if j := t.emptySlot(i); j >= 0 {
			t.buckets[i][j] = fp
			t.n++
			return true
		}
	}
	t.buckets, t.rng = saved, rng
	return false
}

// lookup is Algorithm 2.
func (t *naive) lookup(key []byte) bool {
	i1, i2, fp := t.hash(key)
	return slices.Contains(t.buckets[i1], fp) || slices.Contains(t.buckets[i2], fp)
}

// remove is Algorithm 3, removing from i1 first.
func (t *naive) remove(key []byte) bool {
	i1, i2, fp := t.hash(key)
	for _, i := range []uint64{i1, i2} {
		if j := slices.Index(t.buckets[i], fp); j >= 0 {
			t.buckets[i][j] = 0
			t.n--
			return true
		}
	}
	return false
}

// diff returns the first slot where f and t differ, or -1.
func (t *naive) diff(f *Filter) int {
	b := len(t.buckets[0])
	for i, bucket := range t.buckets {
		for j, v := range bucket {
			if f.slot(uint64(i*b+j)) != uint64(v) {
				return i*b + j
			}
		}
	}
	return -1
}
