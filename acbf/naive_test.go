package acbf

import (
	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

// naive is a literal, slow transcription of the paper's Algorithms 1-3 on level
// bitmaps held as []bool, with linear ranks and whole-level shifts. It is the
// reference the fast Filter is checked against, bit for bit.
type naive struct {
	m1     uint64
	k      int
	levels [][]bool // levels[0] is B1
	n      uint64
}

func newNaive(m1 uint64, k int) *naive {
	return &naive{m1: m1, k: k, levels: [][]bool{make([]bool, m1)}}
}

func rank(level []bool, i int) int {
	r := 0
	for _, b := range level[:i] {
		if b {
			r++
		}
	}
	return r
}

func (a *naive) level(j int) []bool {
	for len(a.levels) <= j {
		a.levels = append(a.levels, nil)
	}
	return a.levels[j]
}

// inc is Algorithm 2 for one hash position.
func (a *naive) inc(p int) {
	j, idx := 0, p
	for a.levels[j][idx] {
		idx = rank(a.levels[j], idx)
		j++
	}
	a.levels[j][idx] = true
	r := rank(a.levels[j], idx)
	next := a.level(j + 1)
	next = append(next, false)
	copy(next[r+1:], next[r:])
	next[r] = false
	a.levels[j+1] = next
}

// dec is Algorithm 3 for one hash position; false if the counter is zero.
func (a *naive) dec(p int) bool {
	if !a.levels[0][p] {
		return false
	}
	j, idx := 0, p
	prevJ, prevIdx := -1, -1
	for a.levels[j][idx] {
		prevJ, prevIdx = j, idx
		idx = rank(a.levels[j], idx)
		j++
	}
	lv := a.levels[j]
	a.levels[j] = append(lv[:idx], lv[idx+1:]...)
	a.levels[prevJ][prevIdx] = false
	for len(a.levels) > 1 && len(a.levels[len(a.levels)-1]) == 0 {
		a.levels = a.levels[:len(a.levels)-1]
	}
	return true
}

func (a *naive) counter(p int) int {
	j, idx := 0, p
	for a.levels[j][idx] {
		idx = rank(a.levels[j], idx)
		j++
	}
	return j
}

func (a *naive) positions(key []byte) []int {
	h1, h2 := hashing.Sum(key)
	ps := make([]int, a.k)
	for i := range ps {
		ps[i] = int(hashing.Probe(h1, h2, i, a.m1))
	}
	return ps
}

func (a *naive) add(key []byte) {
	for _, p := range a.positions(key) {
		a.inc(p)
	}
	a.n++
}

func (a *naive) remove(key []byte) bool {
	ps := a.positions(key)
	for i, p := range ps {
		if !a.dec(p) {
			for j := i - 1; j >= 0; j-- {
				a.inc(ps[j])
			}
			return false
		}
	}
	a.n--
	return true
}

func (a *naive) count(key []byte) int {
	c := -1
	for _, p := range a.positions(key) {
		if v := a.counter(p); c < 0 || v < c {
			c = v
		}
	}
	return c
}

// levelsOf returns the logical levels of f as []bool, from its first level and
// its serialized lower-level stream.
func levelsOf(f *Filter) [][]bool {
	out := [][]bool{make([]bool, f.m1)}
	for i := range out[0] {
		out[0][i] = getBit(f.b1, uint64(i))
	}
	stream := f.lowerStream()
	var off uint64
	for _, s := range f.lvl {
		lv := make([]bool, s)
		for i := range lv {
			lv[i] = getBit(stream, off+uint64(i))
		}
		off += s
		out = append(out, lv)
	}
	return out
}
