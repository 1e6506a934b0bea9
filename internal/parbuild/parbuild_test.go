package parbuild

import (
	"runtime"
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
