package acbf

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/acbfjoin/acbfjoin/cbf"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func mustNew(t testing.TB, cfg Config) *Filter {
	t.Helper()
	f, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	return f
}

// checkInvariants verifies the memory identity, the level sizes against the
// first level and the buckets, and the arena's bookkeeping.
func checkInvariants(t *testing.T, f *Filter) {
	t.Helper()
	s := f.Stats()
	if s.CounterBits != f.Len()*uint64(f.K()) {
		t.Fatalf("counter bits %d, want Len*k = %d*%d", s.CounterBits, f.Len(), f.K())
	}
	if s.UsedBits > s.BudgetBits || s.UsedBits+s.IdleBits != s.BudgetBits {
		t.Fatalf("used %d + idle %d bits vs budget %d", s.UsedBits, s.IdleBits, s.BudgetBits)
	}
	var sum uint64
	ranks := make([]uint64, f.nb)
	for b := range ranks {
		ranks[b] = f.meta[b].rank
	}
	f.rebuildRanks()
	for b := uint64(0); b < f.nb; b++ {
		m := f.meta[b]
		if m.rank != ranks[b] {
			t.Fatalf("bucket %d: rank directory %x, recomputed %x", b, ranks[b], m.rank)
		}
		sum += m.nbits
		if words(m.nbits) > f.meta[b+1].start-m.start {
			t.Fatalf("bucket %d holds %d bits in %d words", b, m.nbits, f.meta[b+1].start-m.start)
		}
		w := f.bucket(b)
		if popRange(w, m.nbits, uint64(len(w))*64) != 0 {
			t.Fatalf("bucket %d has ones beyond its %d bits", b, m.nbits)
		}
	}
	if sum != s.CounterBits {
		t.Fatalf("buckets hold %d bits, levels say %d", sum, s.CounterBits)
	}
	lv := levelsOf(f)
	for j := 1; j < len(lv); j++ {
		if ones := uint64(rank(lv[j-1], len(lv[j-1]))); ones != uint64(len(lv[j])) {
			t.Fatalf("level %d has %d bits, level %d has %d ones", j+1, len(lv[j]), j, ones)
		}
	}
	if last := lv[len(lv)-1]; rank(last, len(last)) != 0 {
		t.Fatalf("deepest level %d has ones", len(lv))
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg  Config
		want error
	}{
		{ConfigOptimal(800, 100, 3), nil},
		{ConfigJ(1, 800, 100, 3), nil},
		{ConfigJ(3, 800, 100, 8), nil},                           // 2400 + 800 = 3200 = 4m
		{ConfigJ(3, 800, 100, 9), ErrConfig},                     // 2400 + 900 > 3200
		{ConfigJ(0, 800, 100, 3), nil},                           // FirstLevel 0 is the optimum
		{Config{Counters: 800, Capacity: 100, K: 32}, ErrConfig}, // n*k = 4m leaves m1 = 0
		{Config{Counters: 0, Capacity: 1, K: 1}, ErrConfig},
		{Config{Counters: 800, Capacity: 0, K: 3}, ErrConfig},
		{Config{Counters: 800, Capacity: 100, K: 0}, ErrConfig},
		{Config{Counters: 800, Capacity: 100, K: MaxK + 1}, ErrConfig},
		{Config{Counters: 800, Capacity: 1 << 62, K: 3}, ErrConfig},
		{Config{Counters: 800, Capacity: 100, K: 3, FirstLevel: 1 << 63}, ErrConfig},
		{Config{Counters: MaxCounters + 1, Capacity: 100, K: 3}, ErrConfig},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("%+v.Validate() = %v, want %v", tt.cfg, err, tt.want)
		}
		if _, nerr := New(tt.cfg); (nerr == nil) != (err == nil) {
			t.Errorf("New(%+v) = %v, Validate = %v", tt.cfg, nerr, err)
		}
	}
	if got := ConfigOptimal(800, 100, 3).FirstLevelBits(); got != 2900 {
		t.Errorf("optimal m1 = %d, want 4*800-300 = 2900", got)
	}
	err := ConfigJ(3, 800, 100, 9).Validate()
	if want := "acbf: invalid configuration: first level m1 = 2400 bits plus n*k = 900 counter bits exceeds the 4m = 3200 bit budget"; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

// TestAgainstNaive runs random adds and removes on the Filter and on the literal
// transcription of the paper's algorithms and compares every level bit for bit,
// every Count, and the multiset model.
func TestAgainstNaive(t *testing.T) {
	testutil.SkipUnderRace(t)
	seed := testutil.Seed(t)
	for _, tc := range []struct {
		name string
		cfg  Config
		univ uint64
		ops  int
	}{
		{"opt/one-bucket", ConfigOptimal(100, 40, 3), 30, 3000},
		{"opt/buckets", ConfigOptimal(2000, 400, 3), 200, 4000},
		{"acbf1/deep", ConfigJ(1, 2500, 600, 4), 40, 4000},
		{"acbf2/k7", ConfigJ(2, 3000, 300, 7), 500, 3000},
		{"acbf3/odd-m1", Config{Counters: 1111, Capacity: 90, K: 5, FirstLevel: 3333}, 120, 3000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := testutil.Rand(seed)
			f := mustNew(t, tc.cfg)
			ref := newNaive(f.m1, f.k)
			model := map[uint64]int{}
			keys := testutil.Keys(0, tc.univ)
			for op := 0; op < tc.ops; op++ {
				i := rng.Uint64N(tc.univ)
				key := keys[i]
				switch r := rng.IntN(10); {
				case r < 5: // add
					full := f.Len() == f.Cap()
					err := f.Add(key)
					if full != errors.Is(err, ErrFull) || (err != nil && !full) {
						t.Fatalf("op %d: Add = %v with Len %d, Cap %d", op, err, f.Len(), f.Cap())
					}
					if err == nil {
						ref.add(key)
						model[i]++
					}
				case r < 9 && model[i] > 0: // remove a member
					if err := f.Remove(key); err != nil {
						t.Fatalf("op %d: Remove(member %d) = %v", op, i, err)
					}
					ref.remove(key)
					model[i]--
				default: // remove a key that may not be a member
					before := levelsOf(f)
					err := f.Remove(key)
					refOK := ref.remove(key)
					if (err == nil) != refOK {
						t.Fatalf("op %d: Remove(%d) = %v, reference says %v", op, i, err, refOK)
					}
					if err != nil {
						if !errors.Is(err, ErrNotMember) {
							t.Fatalf("op %d: Remove(%d) = %v, want ErrNotMember", op, i, err)
						}
						if !levelsEqual(before, levelsOf(f)) {
							t.Fatalf("op %d: failed Remove changed the filter", op)
						}
					} else if model[i] > 0 {
						model[i]--
					} else {
						// A false positive was removed: put it back. The
						// structure is canonical, so it must be exactly restored.
						if err := f.Add(key); err != nil {
							t.Fatalf("op %d: re-Add: %v", op, err)
						}
						ref.add(key)
						if !levelsEqual(before, levelsOf(f)) {
							t.Fatalf("op %d: Remove+Add of a false positive did not restore the filter", op)
						}
					}
				}
				if !levelsEqual(levelsOf(f), ref.levels) {
					t.Fatalf("op %d: levels differ from the reference\n got %v\nwant %v", op, levelsOf(f), ref.levels)
				}
				if op%50 == 0 || op == tc.ops-1 {
					checkInvariants(t, f)
					for j, key := range keys {
						c := f.Count(key)
						if want := ref.count(key); c != want {
							t.Fatalf("op %d: Count(%d) = %d, reference %d", op, j, c, want)
						}
						if c < model[uint64(j)] {
							t.Fatalf("op %d: Count(%d) = %d < true count %d", op, j, c, model[uint64(j)])
						}
						if model[uint64(j)] > 0 && !f.Contains(key) {
							t.Fatalf("op %d: false negative for key %d", op, j)
						}
					}
				}
			}
			t.Logf("%s: %d elements, stats %+v", tc.name, f.Len(), f.Stats())
		})
	}
}

func levelsEqual(a, b [][]bool) bool {
	// Trailing empty levels do not count.
	trim := func(x [][]bool) [][]bool {
		for len(x) > 1 && len(x[len(x)-1]) == 0 {
			x = x[:len(x)-1]
		}
		return x
	}
	a, b = trim(a), trim(b)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestDifferentialCBF: a CBF with m counters and an ACBF whose first level has
// m bits probe the same positions, so after the same operations every Count
// agrees (while no CBF counter saturates).
func TestDifferentialCBF(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	const m, k, univ = 4000, 4, 2000
	c, err := cbf.New(m, k)
	if err != nil {
		t.Fatal(err)
	}
	a := mustNew(t, ConfigJ(1, m, 700, k))
	keys := testutil.Keys(1<<32, univ)
	model := make([]int, univ)
	for op := 0; op < 20000; op++ {
		i := rng.IntN(univ)
		if rng.IntN(3) > 0 || model[i] == 0 {
			if a.Len() == a.Cap() {
				continue
			}
			c.Add(keys[i])
			if err := a.Add(keys[i]); err != nil {
				t.Fatalf("op %d: Add: %v", op, err)
			}
			model[i]++
		} else {
			if err := c.Remove(keys[i]); err != nil {
				t.Fatalf("op %d: cbf Remove: %v", op, err)
			}
			if err := a.Remove(keys[i]); err != nil {
				t.Fatalf("op %d: acbf Remove: %v", op, err)
			}
			model[i]--
		}
		if c.Saturations() > 0 {
			t.Logf("stopping at op %d: a CBF counter saturated", op)
			break
		}
	}
	for i, key := range keys {
		if cc, ac := c.Count(key), a.Count(key); cc != ac {
			t.Fatalf("Count(%d): cbf %d, acbf_1 %d", i, cc, ac)
		}
		if cc, ac := c.Contains(key), a.Contains(key); cc != ac {
			t.Fatalf("Contains(%d): cbf %v, acbf_1 %v", i, cc, ac)
		}
	}
	t.Logf("%d elements; acbf_1 stats %+v", a.Len(), a.Stats())
}

// TestCapacity: the optimal ACBF accepts exactly n elements; the next Add fails
// with ErrFull and changes nothing.
func TestCapacity(t *testing.T) {
	for _, k := range []int{1, 3, 6} {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			const m, n = 3000, 1000
			cfg := ConfigOptimal(m, n, k)
			f := mustNew(t, cfg)
			keys := testutil.Keys(7, n+1)
			for i, key := range keys[:n] {
				if err := f.Add(key); err != nil {
					t.Fatalf("Add #%d of %d: %v", i+1, n, err)
				}
			}
			s := f.Stats()
			if s.IdleBits != 0 || s.UsedBits != 4*m {
				t.Fatalf("at capacity: used %d idle %d bits, want 4m = %d and 0", s.UsedBits, s.IdleBits, 4*m)
			}
			counts := make([]int, len(keys))
			for i, key := range keys {
				counts[i] = f.Count(key)
			}
			before := levelsOf(f)
			err := f.Add(keys[n])
			if !errors.Is(err, ErrFull) {
				t.Fatalf("Add beyond capacity = %v, want ErrFull", err)
			}
			if got := f.Stats(); !slices.Equal(got.LevelBits, s.LevelBits) || got.UsedBits != s.UsedBits || got.Elements != n {
				t.Fatalf("failed Add changed Stats: %+v, was %+v", got, s)
			}
			for i, key := range keys {
				if c := f.Count(key); c != counts[i] {
					t.Fatalf("failed Add changed Count(%d): %d, was %d", i, c, counts[i])
				}
			}
			if !levelsEqual(before, levelsOf(f)) {
				t.Fatal("failed Add changed the levels")
			}
			if _, err := Build(cfg, keys); !errors.Is(err, ErrFull) {
				t.Fatalf("Build of n+1 keys = %v, want ErrFull", err)
			}
			// One Remove makes room for exactly one Add.
			if err := f.Remove(keys[0]); err != nil {
				t.Fatal(err)
			}
			if err := f.Add(keys[n]); err != nil {
				t.Fatalf("Add after Remove at capacity: %v", err)
			}
			checkInvariants(t, f)
		})
	}
}

// TestBuildEqualsAdds: the bulk constructor gives the same structure as adding
// the keys one by one, duplicates included.
func TestBuildEqualsAdds(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	for _, cfg := range []Config{
		ConfigOptimal(8*5000, 5000, 3),
		ConfigOptimal(8*5000, 5000, 6),
		ConfigJ(1, 8*5000, 5000, 3),
		ConfigJ(2, 20*3000, 3000, 14),
		ConfigJ(3, 1000, 300, 2),
		ConfigOptimal(10, 3, 2),
	} {
		t.Run(fmt.Sprintf("m=%d/n=%d/k=%d/m1=%d", cfg.Counters, cfg.Capacity, cfg.K, cfg.FirstLevelBits()), func(t *testing.T) {
			n := int(cfg.Capacity)
			keys := make([][]byte, n)
			base := testutil.Keys(rng.Uint64(), uint64(n))
			for i := range keys {
				keys[i] = base[rng.IntN(1+n*2/3)] // about a third duplicates
			}
			b, err := Build(cfg, keys)
			if err != nil {
				t.Fatal(err)
			}
			a := mustNew(t, cfg)
			for _, key := range keys {
				if err := a.Add(key); err != nil {
					t.Fatal(err)
				}
			}
			if !a.Equal(b) || !b.Equal(a) {
				t.Fatalf("Build differs from Adds: stats %+v vs %+v", b.Stats(), a.Stats())
			}
			checkInvariants(t, b)
			// The built filter keeps working: remove everything again.
			for _, key := range keys {
				if err := b.Remove(key); err != nil {
					t.Fatalf("Remove after Build: %v", err)
				}
			}
			if s := b.Stats(); s.CounterBits != 0 || s.Depth != 1 || b.onesB1() != 0 {
				t.Fatalf("after removing everything: %+v, %d ones in B1", s, b.onesB1())
			}
		})
	}
	if _, err := Build(Config{}, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("Build(Config{}) = %v, want ErrConfig", err)
	}
}

// TestBuildWorkers: Build sets the first level through parbuild.Scatter
// on 1 to 7 goroutines, each owning a range of its parts, and the counters
// on as many, each owning a range of buckets, and makes the filter a
// single pass over the keys on one goroutine makes, byte for byte: every ACBF
// shape of TestBuildEqualsAdds, duplicates included, 50,000 keys, and
// 400,000 keys at 32 bits a key (a first level of several
// parbuild.ScatterPart parts, several rounds).
func TestBuildWorkers(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	defer func(f func(int) int, sc func(int, uint64) bool) { buildWorkers, scatters = f, sc }(buildWorkers, scatters)
	cfgs := []Config{
		ConfigOptimal(8*5000, 5000, 3),
		ConfigOptimal(8*5000, 5000, 6),
		ConfigJ(1, 8*5000, 5000, 3),
		ConfigJ(2, 20*3000, 3000, 14),
		ConfigJ(3, 1000, 300, 2),
		ConfigOptimal(10, 3, 2),
		ConfigOptimal(8*50000, 50000, 6),
	}
	if !testutil.Race {
		cfgs = append(cfgs, ConfigOptimal(32*400000, 400000, 6))
	}
	for _, cfg := range cfgs {
		n := int(cfg.Capacity)
		keys := make([][]byte, n)
		base := testutil.Keys(rng.Uint64(), uint64(n))
		for i := range keys {
			keys[i] = base[rng.IntN(1+n*2/3)]
		}
		scatters = func(int, uint64) bool { return false } // the single pass
		buildWorkers = func(int) int { return 1 }          // and one goroutine for the counters
		one, err := Build(cfg, keys)
		if err != nil {
			t.Fatal(err)
		}
		want, err := one.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		scatters = func(int, uint64) bool { return true }
		for _, w := range []int{1, 2, 3, 4, 7} {
			buildWorkers = func(int) int { return w }
			f, err := Build(cfg, keys)
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !f.Equal(one) || !bytes.Equal(got, want) {
				t.Fatalf("m=%d n=%d k=%d, %d goroutines: a filter other than the single pass's", cfg.Counters, n, cfg.K, w)
			}
		}
	}
}

func TestMerge(t *testing.T) {
	cfg := ConfigOptimal(8*4000, 4000, 3)
	k1, k2 := testutil.Keys(0, 1500), testutil.Keys(1000, 2500)
	a, err := Build(cfg, k1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(cfg, k2)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Build(cfg, append(slices.Clone(k1), k2...))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	if !a.Equal(want) {
		t.Fatalf("Merge differs from Build of the union: %+v vs %+v", a.Stats(), want.Stats())
	}
	checkInvariants(t, a)
	// Full: no room for b again.
	c, _ := Build(cfg, k2)
	before := levelsOf(a)
	if err := a.Merge(c); !errors.Is(err, ErrFull) {
		t.Fatalf("Merge beyond capacity = %v, want ErrFull", err)
	}
	if !levelsEqual(before, levelsOf(a)) || a.Len() != 4000 {
		t.Fatal("failed Merge changed the filter")
	}
	other := mustNew(t, ConfigJ(2, 8*4000, 4000, 3))
	if err := a.Merge(other); !errors.Is(err, ErrShape) {
		t.Fatalf("Merge of another shape = %v, want ErrShape", err)
	}
	if err := a.Merge(nil); !errors.Is(err, ErrShape) {
		t.Fatalf("Merge(nil) = %v, want ErrShape", err)
	}
}

// TestGrowBeyondReserve stores far more elements than Capacity in an ACBF_1
// (whose idle space allows it), with skewed keys, to drive the arena's word
// borrowing in both directions and its expansion.
func TestGrowBeyondReserve(t *testing.T) {
	testutil.SkipUnderRace(t)
	cfg := ConfigJ(1, 20000, 100, 3) // reserve for 300 counter bits, idle space 60000
	f := mustNew(t, cfg)
	ref := newNaive(f.m1, f.k)
	keys := testutil.Keys(99, 4000)
	for i, key := range keys {
		if err := f.Add(key); err != nil {
			t.Fatalf("Add #%d: %v", i, err)
		}
		ref.add(key)
	}
	checkInvariants(t, f)
	if !levelsEqual(levelsOf(f), ref.levels) {
		t.Fatal("levels differ from the reference after growth")
	}
	for i, key := range keys {
		if i%2 == 0 {
			if err := f.Remove(key); err != nil {
				t.Fatal(err)
			}
			ref.remove(key)
		}
	}
	checkInvariants(t, f)
	if !levelsEqual(levelsOf(f), ref.levels) {
		t.Fatal("levels differ from the reference after removals")
	}
}

// TestGrowOneBucket: a first level of one bucket (m1 <= 2048 bits) whose
// arena was laid out for one key takes keys up to its capacity. grow had
// no other bucket to take a word from and panicked after expanding (found
// by join stream, which builds its filter empty and adds keys).
func TestGrowOneBucket(t *testing.T) {
	for _, m := range []uint64{64, 500, 2000} {
		cfg := Config{Counters: m, Capacity: 1, K: 3, FirstLevel: m} // ACBF_1: idle space 3m bits
		f := mustNew(t, cfg)
		ref := newNaive(f.m1, f.k)
		keys := testutil.Keys(7, f.Cap())
		for i, key := range keys {
			if err := f.Add(key); err != nil {
				t.Fatalf("m=%d: Add #%d of %d: %v", m, i, f.Cap(), err)
			}
			ref.add(key)
		}
		checkInvariants(t, f)
		if !levelsEqual(levelsOf(f), ref.levels) {
			t.Fatalf("m=%d: levels differ from the reference", m)
		}
		if err := f.Add([]byte("one more")); !errors.Is(err, ErrFull) {
			t.Fatalf("m=%d: Add beyond capacity: %v, want ErrFull", m, err)
		}
	}
}
