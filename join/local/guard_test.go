package local

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/filters/choose"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestFilterGuard: where nine rows in ten have a key, probing costs more
// than the shuffle it saves and each mapper turns its filter off after its
// warm-up: the output is byte for byte the kept filter's (sorted), for the
// inner and the anti join; no unprobed row is counted a false positive;
// the report says when. At a selectivity of 2% the filter stays on. The
// verdict rests on the rule's inputs, not on this machine's speed: the
// probe cost is injected (shuffleNsEach, checked against the rule).
func TestFilterGuard(t *testing.T) {
	dir := t.TempDir()
	keys, input := filepath.Join(dir, "k.csv"), filepath.Join(dir, "i.csv")
	kb := []byte("K,V\n")
	for k := range 50000 {
		kb = fmt.Appendf(kb, "%d,v\n", k*2)
	}
	testutil.WriteFile(t, keys, kb, 0o644)
	ib := []byte("ID,K\n")
	// Under -race, 80,000 rows: still past the warm-up (guardWarmup) by
	// more than a fifth of it, so the filter turns off before the end.
	for i := range testutil.RaceSize(200000, 80000) {
		k := (i * 7919) % 100000 // 90% of rows: a key (an even number below 100,000)...
		if i%10 == 0 {
			k = 100001 + 2*(i%5000) // ...10%: odd, above every key
		}
		ib = fmt.Appendf(ib, "%d,%d\n", i, k&^1|boolInt(i%10 == 0))
	}
	testutil.WriteFile(t, input, ib, 0o644)
	// Under -race, one of the two join types.
	for _, jt := range testutil.RacePick([]join.JoinType{join.JoinInner, join.JoinAnti}, 1, testutil.RaceSeed(t)) {
		base := join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, FilterChoice: join.FilterChoice{Filter: filters.Bloom}, Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 1}, JoinType: jt}
		kept := base
		kept.KeepFilter = true
		repKept, outKept := runJoin(t, kept)
		rep, out := runJoinGuarded(t, base, 1e6) // a dropped row saves 1 ms: nothing pays less
		if !bytes.Equal(out, outKept) {
			t.Fatalf("%s: the output with the guard differs from the kept filter's", jt)
		}
		if rep.FilterOff != nil {
			t.Fatalf("%s: the filter turned off where a dropped row saves 1 ms: %+v", jt, rep.FilterOff)
		}
		rep, out = runJoinGuarded(t, base, 0) // a dropped row saves nothing: off after the warm-up
		if !bytes.Equal(out, outKept) {
			t.Fatalf("%s: the output with the filter off differs from the kept filter's", jt)
		}
		f := rep.FilterOff
		if f == nil || f.Mappers != 1 || f.AfterRows < guardWarmup || f.AfterRows > guardWarmup+mapBatch || f.Unprobed != rep.InputRecords-f.AfterRows {
			t.Fatalf("%s: filter off %+v (input %d, map output %d)", jt, f, rep.InputRecords, rep.MapOutputRecords)
		}
		if rep.FalsePositiveRecords > repKept.FalsePositiveRecords {
			t.Errorf("%s: %d false positives with the filter off, %d kept: unprobed rows counted", jt, rep.FalsePositiveRecords, repKept.FalsePositiveRecords)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// In this package's tests a dropped row saves a second: no guard turns its
// filter off, whatever the machine's speed (under -race a probe takes ten
// times as long, and TestFilterAuto's shuffle then missed its prediction),
// but where a test says otherwise (runJoinGuarded).
func init() { testShuffleNs = 1e9 }

// runJoinGuarded runs opt with each mapper's guard taking shuffleNs as
// what a dropped row saves.
func runJoinGuarded(t *testing.T, opt join.Options, shuffleNs float64) (*join.Report, []byte) {
	t.Helper()
	old := testShuffleNs
	testShuffleNs = shuffleNs
	defer func() { testShuffleNs = old }()
	return runJoin(t, opt)
}

// TestGuardMappers: a dropped row saves ShuffleNsPerRecord of wall time
// while the mappers probe at once, so the guard weighs a probe (one
// mapper's ns) against the saving times the mappers: with 2 mappers, 90%
// of rows passing and a probe of 0.15 times the constant (7.8 ns of 52),
// the filter stays on (0.15 < 0.1 x 2), and with 1 mapper it turns off
// (0.15 > 0.1). The batches' times are made up (their start set back),
// not measured.
func TestGuardMappers(t *testing.T) {
	old, oldNs := testShuffleNs, hashNs
	// The model's constant, on a machine as fast as its reference (the
	// scaling by this machine's speed: TestConstantsScaled).
	testShuffleNs, hashNs = -1, func() float64 { return choose.ReferenceHashNs }
	defer func() { testShuffleNs, hashNs = old, oldNs }()
	for _, c := range []struct {
		mappers int
		off     bool
	}{{1, true}, {2, false}, {4, false}} {
		x := &execution{opt: join.Options{Resources: join.Resources{Mappers: c.mappers}, FilterChoice: join.FilterChoice{Filter: filters.Bloom}}}
		g := newFilterGuard(x)
		if want := choose.DefaultConstants.ShuffleNsPerRecord * float64(c.mappers); g.shuffleNsEach != want {
			t.Fatalf("%d mappers: a dropped row saves %v ns of a mapper's time, want %v", c.mappers, g.shuffleNsEach, want)
		}
		probe := 0.15 * choose.DefaultConstants.ShuffleNsPerRecord
		for g.probed < guardWarmup+mapBatch && !g.off {
			g.observe(time.Now().Add(-time.Duration(mapBatch*probe)), mapBatch, mapBatch*9/10)
		}
		if g.off != c.off {
			t.Errorf("%d mappers, %.1f ns a probe, 90%% passing: off %v, want %v", c.mappers, probe, g.off, c.off)
		}
	}
}

// TestGuardTimesFew: the guard reads the clock for one batch in
// guardTimeEvery while the pass rate at the last check is at least
// guardMinRate (the first window always), and for none while it is below:
// a filter passing 2% is timed in its first window only, one passing 90%
// in every window, and one whose rate rises past guardMinRate again from
// the check after.
func TestGuardTimesFew(t *testing.T) {
	for _, c := range []struct {
		name    string
		passed  func(window int) int // of a batch's mapBatch keys, in window w
		windows []bool               // whether window w has timed batches
	}{
		{"2%", func(int) int { return mapBatch / 50 }, []bool{true, false, false, false}},
		{"90%", func(int) int { return mapBatch * 9 / 10 }, []bool{true, true, true, true}},
		// Cumulative rates at the checks: 0.02, 0.02, 0.35, 0.51 (window 4 timed).
		{"rising", func(w int) int { return []int{mapBatch / 50, mapBatch / 50, mapBatch, mapBatch, mapBatch}[w] }, []bool{true, false, false, false, true}},
	} {
		g := filterGuard{on: true, checkAt: guardWarmup, rateThen: 1, shuffleNsEach: 1e9}
		per := guardEvery / mapBatch
		for w, want := range c.windows {
			timed := 0
			for range per {
				t0 := g.start(mapBatch)
				if !t0.IsZero() {
					timed++
				}
				g.observe(t0, mapBatch, c.passed(w))
			}
			if got := timed > 0; got != want {
				t.Errorf("%s: window %d: %d batches timed, want timed %v", c.name, w, timed, want)
			}
			if want && timed != per/guardTimeEvery {
				t.Errorf("%s: window %d: %d of %d batches timed, want %d", c.name, w, timed, per, per/guardTimeEvery)
			}
		}
	}
}

// TestGuardShortBatches: batch sizes that repeat with a period of 1, 2 or
// 4, every fourth batch short (Parquet row groups of 800 or 300 rows: 256,
// 256, 256, 32 or 256, 44; a CSV with a quoted record every 256th: 255,
// 1), 90% passing where a dropped row saves nothing: the guard still
// times full batches, and turns the filter off at its first check. Before
// the short batches were left out of the count, every timed batch was a
// short one, whose time observe drops, and the filter stayed on (a
// review's TestGuardReviewPeriodicShortBatch).
func TestGuardShortBatches(t *testing.T) {
	for _, sizes := range [][]int{{256, 256, 256, 32}, {256, 44}, {255, 1}, {256, 256, 256, 232}} {
		g := filterGuard{on: true, checkAt: guardWarmup, rateThen: 1}
		rows := 0
		for i := 0; rows < 1<<22 && !g.off; i++ {
			n := sizes[i%len(sizes)]
			t0 := g.start(n)
			if !t0.IsZero() {
				t0 = t0.Add(-time.Microsecond) // a probe takes time, whatever the clock's resolution
			}
			g.observe(t0, n, n*9/10)
			rows += n
		}
		if !g.off || g.offAfter > guardWarmup+2*mapBatch {
			t.Errorf("batches of %v: off %v after %d rows (of %d), want off right after the warm-up (%d)", sizes, g.off, g.offAfter, rows, guardWarmup)
		}
	}
}
