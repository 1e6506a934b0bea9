package parbuild

import (
	"runtime"
	"slices"
	"sync"
	"testing"
)

// TestWorkers: one goroutine below MinProbes, else one a CPU up to
// MaxWorkers.
func TestWorkers(t *testing.T) {
	if got := Workers(MinProbes - 1); got != 1 {
		t.Errorf("Workers(%d) = %d, want 1", MinProbes-1, got)
	}
	if got, want := Workers(MinProbes), min(runtime.GOMAXPROCS(0), MaxWorkers); got != want {
		t.Errorf("Workers(%d) = %d, want %d", MinProbes, got, want)
	}
}

// TestRanges: the ranges cover [0, n) once, in order of w, for counts
// that divide n and that do not, and for n below the count.
func TestRanges(t *testing.T) {
	for _, c := range []struct {
		n       uint64
		workers int
	}{{100, 4}, {7, 3}, {2, 4}, {0, 2}, {1 << 20, 1}} {
		var mu sync.Mutex
		got := make([][2]uint64, c.workers)
		Ranges(c.n, c.workers, func(w int, lo, hi uint64) {
			mu.Lock()
			got[w] = [2]uint64{lo, hi}
			mu.Unlock()
		})
		next := uint64(0)
		for w, r := range got {
			if r[0] != next || r[1] < r[0] {
				t.Fatalf("n %d, %d workers: range %d is %v after %d", c.n, c.workers, w, r, next)
			}
			next = r[1]
		}
		if next != c.n {
			t.Fatalf("n %d, %d workers: the ranges end at %d", c.n, c.workers, next)
		}
	}
}

// TestScatter: against a model (every key's probes in key order): each
// part's probes reach apply in key order, whole, once, from the goroutine
// that owns the part, for spaces of one part and of several, rounds of
// one and several, and more goroutines than parts.
func TestScatter(t *testing.T) {
	for _, c := range []struct {
		n       int
		space   uint64
		workers int
		perKey  int
	}{
		{0, 100, 2, 3},
		{10, 100, 3, 3},
		{1000, 5*ScatterPart + 17, 2, 3},
		{300000, 5*ScatterPart + 17, 2, 3},
		{200000, 3 * ScatterPart, 4, 5},
		{100000, 2 * ScatterPart, 7, 1},
	} {
		probes := func(i int, dst []uint64) []uint64 {
			for j := range c.perKey {
				x := uint64(i)*0x9e3779b97f4a7c15 + uint64(j)*0xbf58476d1ce4e5b9
				x ^= x >> 29
				dst = append(dst, x%c.space)
			}
			return dst
		}
		parts := int((c.space + ScatterPart - 1) / ScatterPart)
		want := make([][]uint64, parts) // each part's probes in key order
		for i := range c.n {
			for _, p := range probes(i, nil) {
				want[p/ScatterPart] = append(want[p/ScatterPart], p)
			}
		}
		got := make([][]uint64, parts)
		owner := make([]int, parts)
		for q := range owner {
			owner[q] = -1
		}
		var mu sync.Mutex
		Scatter(c.n, c.space, c.workers, c.perKey, probes, func(w, q int, offs []uint32) {
			mu.Lock()
			defer mu.Unlock()
			if owner[q] >= 0 && owner[q] != w {
				t.Fatalf("%+v: part %d applied by goroutines %d and %d", c, q, owner[q], w)
			}
			owner[q] = w
			for _, o := range offs {
				if o >= ScatterPart {
					t.Fatalf("%+v: part %d: offset %d", c, q, o)
				}
				got[q] = append(got[q], uint64(q)*ScatterPart+uint64(o))
			}
		})
		for q := range want {
			if !slices.Equal(got[q], want[q]) {
				t.Fatalf("%+v: part %d: %d probes, want %d in key order", c, q, len(got[q]), len(want[q]))
			}
		}
		// The owners: contiguous ranges of parts, in order of w.
		last := 0
		for q, w := range owner {
			if w >= 0 && w < last {
				t.Fatalf("%+v: part %d owned by %d after %d", c, q, w, last)
			}
			last = max(last, w)
		}
	}
}
