// Package parbuild splits a filter's build over goroutines that each own
// a contiguous range of its words (or blocks, or counters): each goroutine
// reads every key and sets only what falls in its range, so no word is
// written by two, no lock is taken a probe, and the filter is the same
// whatever the count. blocked and cbf build this way where their arrays
// are large (RangeWorkers); acbf's first level and filters' Bloom filter
// go through Scatter beyond the cache and take one goroutine below it.
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

// RangesMinBytes is the size of a filter's array below which a build by
// Ranges takes one goroutine whatever its probes (RangeWorkers). Each
// goroutine of Ranges hashes every key and tests every probe against its
// range, a branch taken about half the time with two; the loads a CPU
// runs ahead on the mispredicted side reach the other goroutine's range
// and pull its cache lines over while it writes them. On the AMD EPYC
// family 26 (1 MiB of L2 a core), one goroutine against two, 65,771 keys:
// the counting Bloom filter 1.5 against 4.6 ms, the Bloom filter's bits
// 1.4 against 7.1, the ACBF 3.9 against 9.2 (100,000 keys); 10^6 keys:
// 49 against 63 ms, 30 against 67, 46 against 72; the blocked filter 0.9
// against 1.2 ms and 16 against 18. Two paid from arrays of about 8 MiB
// on: the counting filter of 2 million keys (16 MiB) 0.24 against 0.13 s,
// the blocked filter's 8 MiB 41 against 36 ms, and of 10^7 keys 1.82
// against 1.18 s and 0.59 against 0.20 s (the array beyond the L2 caches,
// each goroutine's half nearer).
const RangesMinBytes = 8 << 20

// RangeWorkers is how many goroutines a build by Ranges of probes probes
// into an array of bytes bytes takes: Workers', and one below
// RangesMinBytes. O(1).
func RangeWorkers(probes int, bytes uint64) int {
	if bytes < RangesMinBytes {
		return 1
	}
	return Workers(probes)
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

// ScatterPart is the positions of one part of Scatter's space: 2^21 (a
// first level of bits in 256 KiB, which an L2 cache holds while its
// probes are applied).
const ScatterPart = 1 << 21

// ScatterMinParts is the parts of a space from which Scatter pays: below
// it (a space of 4 MiB of bits, which a server's last-level cache holds)
// one goroutine, without Scatter's second hashing and its grouping, is as
// fast or faster (the ACBF of 10^6 keys, 12 parts: 0.11-0.15 s either way
// against Ranges' goroutines, which RangesMinBytes then found slower
// than one; of 10^7, 124 parts: 1.05-1.23 s against 2.57,
// BenchmarkBuildList on an AMD EPYC).
const ScatterMinParts = 16

// Scatters reports whether a build of probes probes over a space of space
// positions goes through Scatter rather than one goroutine: at least MinProbes
// probes, and ScatterMinParts parts. The one rule for every filter that
// scatters (acbf's first level, filters' Bloom filter). O(1).
func Scatters(probes int, space uint64) bool {
	return probes >= MinProbes && space >= ScatterMinParts*ScatterPart
}

// Scatter's round: its goroutines' probes together, 16 a cache line of
// the space (a 32nd of its positions: 4 bytes each, as many bytes as a
// bit array of the space), within [2^18, 2^22] (1 to 16 MiB of grouped
// positions). Fewer a line and a round's probes miss the cache nearly as
// often as without Scatter: setting 6*10^7 random bits of 32 MB took 18
// ns a bit in key order, and grouped by part 17, 7, 3 and 2 ns at 1, 4, 8
// and 16 probes a line (and all at once). The cap halves the probes a
// line of a space of more than 2^27 positions (the ACBF of 10^7 keys: 8
// a line, the first level's build 4% slower, go test ./acbf -bench
// BuildList) for 16 MiB less at the join's peak of memory.
const (
	scatterRoundMin = 1 << 18
	scatterRoundMax = 1 << 22
)

// Scatter is a parallel build that keeps a large space's writes in the
// cache: keys 0..n-1 are taken in rounds, each round's keys split among
// workers goroutines, which hash their keys (gen appends key i's probe
// positions to dst and returns it; every position < space; it is called
// twice a key a round, to count and to place, and must give the same
// positions both times) and group the positions by part of space
// (ScatterPart positions a part); then each goroutine applies the probes
// of the parts it owns (contiguous ranges of parts, worker w the w-th),
// calling apply(w, q, offs) with the offsets within part q (position
// q*ScatterPart + off) of one goroutine's keys at a time. Within a part,
// apply sees every probe in key order, as a single pass over the keys
// would, so a build that records which probes found their position set
// gets the same record whatever the count; and a round holds about 16
// probes a cache line of the space, so that a part's lines, once loaded,
// take several. apply must write only within the parts of its w
// (ScatterPart-aligned: whole 64-bit words of a bit array). perKey is
// about how many probes gen makes a key, for sizing the rounds.
//
// Cost: O(n*perKey) time, the keys hashed twice, split over the
// goroutines, plus O(parts) a round; memory 4 bytes a probe of a round
// (about a bit array of the space's size, at most 16 MiB) and 8 bytes a
// part a goroutine. Safe for concurrent use as long as gen and apply
// are.
func Scatter(n int, space uint64, workers, perKey int, gen func(i int, dst []uint64) []uint64, apply func(w int, q int, offs []uint32)) {
	parts := int((space + ScatterPart - 1) / ScatterPart)
	if parts == 0 || n <= 0 {
		return
	}
	workers = min(max(1, workers), parts)
	round := min(max(int(space/32), scatterRoundMin), scatterRoundMax)
	chunk := max(1, round/workers/max(1, perKey)) // keys a goroutine a round
	type box struct {
		out []uint32
		end []int    // end[q]: the end of part q's offsets in out
		tmp []uint64 // one key's positions
	}
	boxes := make([]box, workers)
	for w := range boxes {
		boxes[w].end = make([]int, parts)
	}
	var wg sync.WaitGroup
	for base := 0; base < n; base += chunk * workers {
		for w := range workers {
			lo := min(n, base+w*chunk)
			hi := min(n, lo+chunk)
			b := &boxes[w]
			wg.Go(func() {
				// A counting sort by part, hashing each key twice (to count,
				// then to place) rather than holding its positions: the
				// order within a part is the keys'.
				clear(b.end)
				tmp := b.tmp
				for i := lo; i < hi; i++ {
					tmp = gen(i, tmp[:0])
					for _, p := range tmp {
						b.end[p/ScatterPart]++
					}
				}
				sum := 0
				for q, c := range b.end {
					b.end[q] = sum // the start, until the placing moves it to the end
					sum += c
				}
				if cap(b.out) < sum {
					b.out = make([]uint32, sum)
				}
				out := b.out[:sum]
				for i := lo; i < hi; i++ {
					tmp = gen(i, tmp[:0])
					for _, p := range tmp {
						q := p / ScatterPart
						out[b.end[q]] = uint32(p % ScatterPart)
						b.end[q]++
					}
				}
				b.out, b.tmp = out, tmp
			})
		}
		wg.Wait()
		for w := range workers {
			qlo, qhi := parts*w/workers, parts*(w+1)/workers
			wg.Go(func() {
				for q := qlo; q < qhi; q++ {
					for s := range boxes {
						start := 0
						if q > 0 {
							start = boxes[s].end[q-1]
						}
						if offs := boxes[s].out[start:boxes[s].end[q]]; len(offs) > 0 {
							apply(w, q, offs)
						}
					}
				}
			})
		}
		wg.Wait()
	}
}
