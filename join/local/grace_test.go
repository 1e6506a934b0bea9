package local

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestPartitionsFor: partsPerReducer partitions a reducer while the key
// side fits in half the budget (a stream's size is unknown: the same),
// more when it does not (grace), never more than the shuffle's minimum
// budget allows nor fewer than the reducers.
func TestPartitionsFor(t *testing.T) {
	opt := join.Options{Resources: join.Resources{Mappers: 2, Reducers: 2, MemBudget: 256 << 20}}
	for _, c := range []struct {
		keyBytes, mem int64
		want          int
		grace         bool
	}{
		{1 << 20, 256 << 20, 8, false},          // fits: four a reducer
		{-1, 256 << 20, 8, false},               // a stream
		{400 << 20, 256 << 20, 10, true},        // 640 MiB of tables, 128 MiB at once: ceil(2*640/128) = 10
		{300 << 20, 256 << 20, 8, true},         // 480 MiB: 7.5, rounded up to 8 (each reducer four)
		{100 << 20, 256 << 20, 8, true},         // 160 MiB: 3 asked, four a reducer at the least
		{1 << 30, 2 << 20, 16, true},            // the shuffle's minimum budget bounds it: 2 MiB / (64 KiB x 2)
		{1 << 10, 640 << 10, 4, false},          // 5 allowed by the minimum budget: 4, two a reducer
		{1 << 10, 128 << 10, 2, false},          // 1 allowed: never fewer than the reducers
		{1 << 40, 1 << 30, maxPartitions, true}, // 6,554 asked
	} {
		opt.MemBudget = c.mem
		if got, grace := partitionsFor(opt, c.keyBytes); got != c.want || grace != c.grace {
			t.Errorf("key side %d bytes, budget %d: %d partitions (grace %v), want %d (%v)", c.keyBytes, c.mem, got, grace, c.want, c.grace)
		}
	}
	// Three reducers: 400 MiB of tables at 128 MiB a time asks
	// ceil(3*640/128) = 15, a multiple of 3.
	opt.Reducers, opt.MemBudget = 3, 256<<20
	if got, _ := partitionsFor(opt, 400<<20); got != 15 {
		t.Errorf("3 reducers: %d partitions, want 15", got)
	}
	// 160 MiB asks ceil(3*160/128) = 4, rounded up to 6 and then to four a
	// reducer: 12.
	if got, _ := partitionsFor(opt, 100<<20); got != 12 {
		t.Errorf("3 reducers, 160 MiB: %d partitions, want 12", got)
	}
	// The bounds come after the rounding: 3 reducers asking for more
	// than maxPartitions get maxPartitions (4,096, no multiple of 3), not
	// the next multiple of 3 past it.
	opt.MemBudget = 1 << 30
	if got, _ := partitionsFor(opt, 1<<40); got != maxPartitions {
		t.Errorf("3 reducers at the bound: %d partitions, want %d", got, maxPartitions)
	}
}

// TestGracePartitions joins the NBER sample's whole patent file (1.5 MB)
// as the key side under a 2 MiB budget: more partitions than reducers,
// each reducer holding one partition's key rows at a time, and every
// join type's rows as the join with room for them all (sorted, byte for
// byte). Under the race detector, one join type (raceJoinTypes).
func TestGracePartitions(t *testing.T) {
	pat, cite := miniFiles(t)
	for _, jt := range raceJoinTypes(testutil.RaceSeed(t), 1) {
		base := join.Options{Sides: join.Sides{Keys: pat, Input: cite}, FilterChoice: join.FilterChoice{Filter: filters.Bloom},
			Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 2, Reducers: 2}, JoinType: jt}
		wantRep, want := runJoin(t, base)
		small := base
		small.MemBudget = 2 << 20
		rep, got := runJoin(t, small)
		if !rep.Grace || rep.Partitions <= 2 || wantRep.Grace {
			t.Fatalf("%s: %d partitions under 2 MiB (grace %v; want grace, more than the 2 reducers), %d with the default budget (grace %v)", jt, rep.Partitions, rep.Grace, wantRep.Partitions, wantRep.Grace)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %d partitions give other rows: %s", jt, rep.Partitions, testutil.FirstDiff(parseOutput(t, got), parseOutput(t, want)))
		}
		if rep.JoinRows != wantRep.JoinRows || rep.FalsePositiveRecords != wantRep.FalsePositiveRecords {
			t.Fatalf("%s: %d rows, %d false positives; with room %d, %d", jt, rep.JoinRows, rep.FalsePositiveRecords, wantRep.JoinRows, wantRep.FalsePositiveRecords)
		}
		t.Logf("%s: %d partitions, %d rows, %d bytes spilled", jt, rep.Partitions, rep.JoinRows, rep.SpilledBytes)
	}
}

// TestReduceProgress: the reduce's progress counts the shuffle's records,
// and its last call says all of them were read (it counted two partitions
// before, and sat at 0 of 2 for most of a large reduce).
func TestReduceProgress(t *testing.T) {
	pat, cite := miniFiles(t)
	var mu sync.Mutex
	var last, total int64 = -1, -1
	opt := join.Options{Sides: join.Sides{Keys: pat, Input: cite}, FilterChoice: join.FilterChoice{Filter: filters.Bloom},
		Resources: join.Resources{Mappers: 2, Reducers: 2, Progress: func(phase string, done, tot int64) {
			if phase == "reduce" {
				mu.Lock()
				last, total = max(last, done), tot
				mu.Unlock()
			}
		}}}
	rep, _ := runJoin(t, opt)
	mu.Lock()
	defer mu.Unlock()
	if total != rep.ShuffleRecords || total <= 2 {
		t.Fatalf("reduce progress total %d, want the shuffle's %d records", total, rep.ShuffleRecords)
	}
	if last > total {
		t.Fatalf("reduce progress %d of %d", last, total)
	}
}

// graceSides writes a key side of about 2 MB and a large side, both
// with duplicate keys and NULL (empty) ones, for the grace join's tests.
func graceSides(t *testing.T, seed uint64) (keys, input string) {
	t.Helper()
	rng := testutil.Rand(seed)
	dir := t.TempDir()
	var kb, ib strings.Builder
	kb.WriteString("K,PAD\n")
	for i := range testutil.RaceSize(60000, 60000) {
		k := fmt.Sprint(rng.IntN(37000)) // about 1.6 rows a key
		if rng.IntN(30) == 0 {
			k = "" // NULL
		}
		fmt.Fprintf(&kb, "%s,p%d-%x\n", k, i, rng.Uint64()|1<<63)
	}
	ib.WriteString("ID,K\n")
	for i := range testutil.RaceSize(80000, 30000) {
		k := fmt.Sprint(rng.IntN(60000))
		if rng.IntN(30) == 0 {
			k = ""
		}
		fmt.Fprintf(&ib, "%d,%s\n", i, k)
	}
	keys, input = filepath.Join(dir, "keys.csv"), filepath.Join(dir, "input.csv")
	testutil.WriteFile(t, keys, []byte(kb.String()), 0o644)
	testutil.WriteFile(t, input, []byte(ib.String()), 0o644)
	return keys, input
}

// TestGraceModel (issue 45): a key side with duplicate and NULL keys on
// both sides, under a budget small enough that the reducers take its
// partitions in several passes each, gives every join type's rows byte for
// byte as the join with room for the whole key side, and the same counts.
func TestGraceModel(t *testing.T) {
	seed := testutil.Seed(t)
	keys, input := graceSides(t, seed)
	for _, jt := range raceJoinTypes(seed, 2) {
		base := join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"},
			Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 2, Reducers: 2}, JoinType: jt}
		wantRep, want := runJoin(t, base)
		small := base
		small.MemBudget = 2 << 20 // at most 16 partitions: 2 MiB / (64 KiB x 2)
		rep, got := runJoin(t, small)
		if !rep.Grace || rep.Partitions < 3*2 || wantRep.Grace {
			t.Fatalf("%s: %d partitions under 2 MiB (want three passes of the 2 reducers at least), %d with the default budget", jt, rep.Partitions, wantRep.Partitions)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %d partitions give other rows: %s", jt, rep.Partitions, testutil.FirstDiff(parseOutput(t, got), parseOutput(t, want)))
		}
		if joinCounts(rep) != joinCounts(wantRep) {
			t.Fatalf("%s: counts %s; with room %s", jt, joinCounts(rep), joinCounts(wantRep))
		}
		if wantRep.Keys.KeysNull == 0 || wantRep.Keys.InputNull == 0 || wantRep.JoinRows < 1000 {
			t.Fatalf("%s: the sides hold %d and %d NULL keys, %d join rows: not the case meant", jt, wantRep.Keys.KeysNull, wantRep.Keys.InputNull, wantRep.JoinRows)
		}
		t.Logf("%s: %d partitions, %d rows, %d bytes spilled", jt, rep.Partitions, rep.JoinRows, rep.SpilledBytes)
	}
}

// TestLargestFirst: the reducers' queue holds the partitions by their
// records, key side's and map phase's together, the largest first, ties
// in partition order; a map phase that counted only plain partitions (no
// hot key) is taken by those.
func TestLargestFirst(t *testing.T) {
	keys, mapped := newPartCounts(4), newPartCounts(4)
	copy(keys.actual, []int64{1, 5, 0, 2})
	copy(mapped.plain, []int64{3, 0, 9, 2}) // actual all zero: plain stands
	// sizes 4, 5, 9, 4
	if got, want := largestFirst(4, keys, mapped), []int{2, 1, 0, 3}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
	mapped.actual[0] = 10 // with hot keys, the actual counts: sizes 11, 5, 0, 2
	if got, want := largestFirst(4, keys, mapped), []int{0, 1, 3, 2}; !slices.Equal(got, want) {
		t.Errorf("with actual counts: order %v, want %v", got, want)
	}
	if got, want := largestFirst(3, partCounts{}, partCounts{}), []int{0, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("no counts: order %v, want %v", got, want)
	}
}
