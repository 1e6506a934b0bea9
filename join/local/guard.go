package local

import (
	"slices"
	"time"

	"github.com/acbfjoin/acbfjoin/filters"
)

// filterGuard is a mapper's watch over its filter: the rows it probed, the
// ones that passed and the time the probes took. Where the filter passes so
// much that probing a row costs more than the shuffle it saves (a row
// dropped saves the cost model's ShuffleNsPerRecord of wall time (its
// constant on this machine: execution.constants),
// the cost model of --filter auto, which is that many ns times the mappers
// of one mapper's time: they probe at once), the mapper stops probing: every later row with a key
// is shuffled unprobed and joined exactly in the reducer, so no row changes
// (a filter has no false negatives; an unprobed row that meets no key is
// written by anti, left and full, dropped by the others, as a false
// positive is). Doris and ClickHouse turn a runtime filter off the same
// way. Not safe for concurrent use: one a mapper.
//
// The rule, checked every guardEvery rows after the first guardWarmup:
// off when at least half the rows pass and the median batch's probe ns a
// row > (1 - pass rate) * ShuffleNsPerRecord * mappers: the model's rule
// (probes / mappers against the passed rows' shuffle). Without the
// mappers it turned off filters the model had chosen for paying (2
// mappers: a probe of 15 ns against 10% of rows dropped, 10.25 ns saved a
// row of one mapper's time by the rule, 20.5 by the model).
type filterGuard struct {
	on             bool // guarding at all (Options.KeepFilter off, a filter that drops rows)
	off            bool // the filter is off
	skipped        bool // the batch being emitted was not probed
	probed, passed int64
	perRow         []float64 // each full batch's ns a probe since the last check
	checkAt        int64
	// When it turned off: the rows probed and the pass rate and probe cost
	// then; unprobed counts the rows shuffled since.
	offAfter      int64
	offRate       float64
	offProbeNs    float64
	unprobed      int64
	shuffleNsEach float64 // what a dropped row saves, in one mapper's ns
	// The batches timed: one in guardTimeEvery, and none while the pass
	// rate at the last check (rateThen) was below guardMinRate, where the
	// rule uses no time. Two clock reads a batch of 256 keys were 1.4% of
	// the NBER join's samples (perf, AMD EPYC family 26), a filter that
	// passes 2% of them, whose times no rule reads.
	batches  uint32
	rateThen float64
}

const (
	guardWarmup  = 1 << 16
	guardEvery   = 1 << 16
	guardMinRate = 0.5 // the least pass rate at which the guard may turn a filter off
	// guardTimeEvery: one batch in so many is timed (64 of a window's 256
	// full batches, whose median the rule takes).
	guardTimeEvery = 4
)

func newFilterGuard(x *execution) filterGuard {
	cons, _ := x.constants()
	g := filterGuard{
		on:            !x.opt.KeepFilter && x.opt.Filter != filters.None,
		checkAt:       guardWarmup,
		rateThen:      1, // the first window is timed
		shuffleNsEach: cons.ShuffleNsPerRecord * float64(max(1, x.opt.Mappers)),
	}
	if testShuffleNs >= 0 {
		g.shuffleNsEach = testShuffleNs
	}
	return g
}

// testShuffleNs, when not negative, replaces the constant in tests, whose
// verdicts must not rest on this machine's speed.
var testShuffleNs float64 = -1

// start returns the time a batch of n probes starts, zero when not
// guarding or when the batch is not one the guard times (guardTimeEvery
// of the batches of at least mapBatch/2, the only ones observe keeps;
// rateThen): a pass rate that rises to guardMinRate from below is timed
// from the next check on, a window (guardEvery rows) later. Counting the
// short batches too timed none where every fourth was short (row groups
// of 300 rows: batches of 256 and 44; a review), and the filter then
// never turned off.
func (g *filterGuard) start(n int) time.Time {
	if !g.on || n < mapBatch/2 {
		return time.Time{}
	}
	g.batches++
	if g.batches%guardTimeEvery != 0 || g.rateThen < guardMinRate {
		return time.Time{}
	}
	return time.Now()
}

// observe counts a batch of n probes, passed of them passing, begun at
// t0, and turns the filter off when the rule says so.
func (g *filterGuard) observe(t0 time.Time, n, passed int) {
	if !g.on || g.off {
		return
	}
	g.probed += int64(n)
	g.passed += int64(passed)
	if n >= mapBatch/2 && !t0.IsZero() { // a timed batch's ns a probe; the window's median counts
		g.perRow = append(g.perRow, float64(time.Since(t0))/float64(n))
	}
	if g.probed < g.checkAt {
		return
	}
	g.checkAt = g.probed + guardEvery
	rate := float64(g.passed) / float64(g.probed)
	g.rateThen = rate
	// The median batch of the window, not the mean: on a loaded machine a
	// batch the scheduler interrupts takes many times its probes' cost (a
	// mean of 200 ns a probe where the filter takes 20 turned a filter
	// passing 2% off), and few are. Nor the fastest, which it was until
	// issue 43: the best of 256 batches, whose keys happened to hit the
	// cache, was 1.1-2.2 times below the median (a window of 65,536 rows at
	// selectivity 0.9, sparse keys: acbf at 10 bits 10.3 ns against 22.9,
	// blocked at 4 14.9 against 16.6, the exact set 16.9 against 28.1), and
	// kept filters that cost more than they saved.
	// The median only where the rule can use it: sorting a window's
	// batches for a filter that passes few rows was 7 ms of the Parquet
	// twins' 470 of CPU.
	perRow := 0.0
	if len(g.perRow) > 0 && rate >= guardMinRate {
		slices.Sort(g.perRow)
		perRow = g.perRow[len(g.perRow)/2]
	}
	g.perRow = g.perRow[:0]
	// Only where at least half the rows pass: the constant is a shuffled
	// record's cost at NBER's row size without spilling, and where the
	// shuffle spills or the rows are wider a record costs more (a 4 MB
	// Bloom filter passing 2% turned off at 144 ns a probe against 100 ns
	// saved, and the run took 1.3x as long); a filter that passes less
	// than half saves at least half the shuffle, which pays for any probe
	// measured here.
	if perRow > 0 && rate >= guardMinRate && perRow > (1-rate)*g.shuffleNsEach {
		g.off, g.offAfter, g.offRate, g.offProbeNs = true, g.probed, rate, perRow
	}
}

// guardStats sums the mappers' guards.
type guardStats struct {
	mappersOff    int
	unprobed      int64
	firstOffAfter int64   // the fewest rows a mapper probed before turning off
	rate, probeNs float64 // that mapper's pass rate and probe ns a row
	shuffleNsEach float64
}

func (s *guardStats) add(g *filterGuard) {
	if !g.off {
		return
	}
	s.mappersOff++
	s.unprobed += g.unprobed
	if s.firstOffAfter == 0 || g.offAfter < s.firstOffAfter {
		s.firstOffAfter, s.rate, s.probeNs, s.shuffleNsEach = g.offAfter, g.offRate, g.offProbeNs, g.shuffleNsEach
	}
}
