// Package parbuild splits a filter's build over goroutines that each own
// a contiguous range of its words (or blocks, or counters): each goroutine
// reads every key and sets only what falls in its range, so no word is
// written by two, no lock is taken a probe, and the filter is the same
// whatever the count. acbf, blocked, cbf and filters' Bloom filter build
// this way.
package parbuild

import (
	"runtime"
	"sync"
)

// MinProbes is the probes below which a build takes one goroutine: the
// goroutines' start and each one's pass over every key cost more than
// they save there.
const MinProbes = 1 << 18

// MaxWorkers bounds the goroutines of a build: each hashes every key, so
// beyond a few the hashing repeated outweighs the probes split.
const MaxWorkers = 4

// Workers is how many goroutines a build of probes probes takes: one below
// MinProbes; else one a CPU (GOMAXPROCS), at most MaxWorkers. O(1).
func Workers(probes int) int {
	if probes < MinProbes {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), MaxWorkers)
}

// Ranges splits [0, n) into workers contiguous ranges, range w being
// [n*w/workers, n*(w+1)/workers), and calls fn(w, lo, hi) for each on a
// goroutine of its own; it returns when every call has. fn must write
// only within its range (and to its own w's results).
func Ranges(n uint64, workers int, fn func(w int, lo, hi uint64)) {
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*uint64(w)/uint64(workers), n*uint64(w+1)/uint64(workers)
		wg.Go(func() { fn(w, lo, hi) })
	}
	wg.Wait()
}
