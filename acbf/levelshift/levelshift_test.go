package levelshift

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/acbfjoin/acbfjoin/acbf"
	"github.com/acbfjoin/acbfjoin/internal/hashing"
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

// snapshot is a deep copy of the levels (only the words that hold bits) and Len.
type snapshot struct {
	words [][]uint64
	lens  []uint64
	n     uint64
}

func snap(f *Filter) snapshot {
	s := snapshot{n: f.n}
	for _, l := range f.lv {
		s.words = append(s.words, slices.Clone(l.w[:words(l.n)]))
		s.lens = append(s.lens, l.n)
	}
	return s
}

func (s snapshot) diff(o snapshot) string {
	if s.n != o.n || !slices.Equal(s.lens, o.lens) {
		return fmt.Sprintf("Len %d vs %d, levels %v vs %v", s.n, o.n, s.lens, o.lens)
	}
	for j := range s.words {
		if i := slices.Compare(s.words[j], o.words[j]); i != 0 {
			return fmt.Sprintf("level %d differs", j+1)
		}
	}
	return ""
}

// decode reads every counter from the levels in one pass, checking that each
// level below B1 has as many bits as the level above has ones, the deepest has
// no ones, no level is empty and no bit beyond a level's length is set.
func decode(t *testing.T, f *Filter) []int {
	t.Helper()
	m1 := f.cfg.FirstLevel
	cnt := make([]int, m1)
	var list []uint64
	for p := range m1 {
		if getBit(f.lv[0].w, p) {
			cnt[p] = 1
			list = append(list, p)
		}
	}
	var below uint64
	for j, l := range f.lv {
		for i := l.n; i < uint64(len(l.w))*64; i++ {
			if getBit(l.w, i) {
				t.Fatalf("level %d: bit %d set beyond length %d", j+1, i, l.n)
			}
		}
		if j == 0 {
			continue
		}
		below += l.n
		if l.n != uint64(len(list)) || l.n == 0 {
			t.Fatalf("level %d has %d bits, level %d has %d ones", j+1, l.n, j, len(list))
		}
		keep := list[:0]
		for i, p := range list {
			if getBit(l.w, uint64(i)) {
				cnt[p]++
				keep = append(keep, p)
			}
		}
		list = keep
	}
	if len(list) != 0 {
		t.Fatalf("deepest level %d has %d ones", len(f.lv), len(list))
	}
	if want := f.Len() * uint64(f.cfg.K); below != want {
		t.Fatalf("levels below B1 hold %d bits, want Len*k = %d", below, want)
	}
	return cnt
}

func positions(key []byte, k int, m1 uint64) []uint64 {
	return hashing.Positions(nil, key, k, m1)
}

// TestModel runs random Add/Remove/Contains sequences on a Word and a Bit
// filter against a counter array, checking every counter (by a walk down the
// levels and by a one-pass decode), Contains, Count, Len and the level sizes,
// and that both filters hold identical bitmaps after every step.
func TestModel(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(testutil.Seed(t))
	for c := range 12 {
		m1 := 64 + rng.Uint64N(1937)
		k := 1 + rng.IntN(8)
		if c < 2 {
			m1 = 64 + uint64(c) // the smallest, with many repeated positions
		}
		capKeys := 20 + rng.Uint64N(200)
		cfg := Config{FirstLevel: m1, K: k, BudgetBits: m1 + capKeys*uint64(k)}
		t.Run(fmt.Sprintf("m1=%d/k=%d/cap=%d", m1, k, capKeys), func(t *testing.T) {
			fw := mustNew(t, cfg)
			cfg.Granularity = Bit
			fb := mustNew(t, cfg)
			model := make([]int, m1)
			var n uint64
			pool := testutil.Keys(uint64(c)<<32, 300)
			for step := range 600 {
				key := pool[rng.IntN(len(pool))]
				ps := positions(key, k, m1)
				switch op := rng.IntN(10); {
				case op < 5:
					want := error(nil)
					if m1+(n+1)*uint64(k) > cfg.BudgetBits {
						want = ErrFull
					}
					for _, f := range []*Filter{fw, fb} {
						if err := f.Add(key); !errors.Is(err, want) {
							t.Fatalf("step %d: %v Add: %v, want %v", step, f.cfg.Granularity, err, want)
						}
					}
					if want == nil {
						for _, p := range ps {
							model[p]++
						}
						n++
					}
				case op < 8:
					next := slices.Clone(model)
					ok := true
					for _, p := range ps {
						if next[p]--; next[p] < 0 {
							ok = false
						}
					}
					for _, f := range []*Filter{fw, fb} {
						err := f.Remove(key)
						if ok && err != nil || !ok && !errors.Is(err, ErrNotMember) {
							t.Fatalf("step %d: %v Remove: %v, want ok=%v", step, f.cfg.Granularity, err, ok)
						}
					}
					if ok {
						model = next
						n--
					}
				default:
					want := true
					for _, p := range ps {
						want = want && model[p] > 0
					}
					if fw.Contains(key) != want || fb.Contains(key) != want {
						t.Fatalf("step %d: Contains %v/%v, want %v", step, fw.Contains(key), fb.Contains(key), want)
					}
				}
				if d := snap(fw).diff(snap(fb)); d != "" {
					t.Fatalf("step %d: Word and Bit filters differ: %s", step, d)
				}
				if fw.Len() != n || fw.UsedBits() != m1+n*uint64(k) {
					t.Fatalf("step %d: Len %d UsedBits %d, want %d, %d", step, fw.Len(), fw.UsedBits(), n, m1+n*uint64(k))
				}
				if got := decode(t, fw); !slices.Equal(got, model) {
					t.Fatalf("step %d: decoded counters differ from the model", step)
				}
				for _, f := range []*Filter{fw, fb} {
					if f.cfg.Granularity == Bit && step%10 != 0 {
						continue // the Bit walk is slow; its levels equal Word's anyway
					}
					for p := range m1 {
						if got := f.counter(p); got != model[p] {
							t.Fatalf("step %d: %v counter %d = %d, model %d", step, f.cfg.Granularity, p, got, model[p])
						}
					}
				}
				want := -1
				for _, p := range ps {
					if want < 0 || model[p] < want {
						want = model[p]
					}
				}
				if fw.Count(key) != want || fb.Count(key) != want {
					t.Fatalf("step %d: Count %d/%d, want %d", step, fw.Count(key), fb.Count(key), want)
				}
			}
		})
	}
}

// TestBuildEqualsAdds: Build gives the levels of one-by-one Adds, duplicates
// included, in both granularities.
func TestBuildEqualsAdds(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(testutil.Seed(t))
	for range 20 {
		m1 := 1 + rng.Uint64N(3000)
		k := 1 + rng.IntN(10)
		n := rng.Uint64N(400)
		keys := testutil.Keys(rng.Uint64(), n)
		for i := range keys {
			if rng.IntN(8) == 0 {
				keys[i] = keys[rng.IntN(len(keys))] // a duplicate
			}
		}
		for _, g := range []Granularity{Word, Bit} {
			cfg := Config{FirstLevel: m1, K: k, BudgetBits: m1 + n*uint64(k), Granularity: g}
			b, err := Build(cfg, keys)
			if err != nil {
				t.Fatalf("Build(%+v, %d keys): %v", cfg, n, err)
			}
			a := mustNew(t, cfg)
			for _, key := range keys {
				if err := a.Add(key); err != nil {
					t.Fatalf("%+v: Add: %v", cfg, err)
				}
			}
			if d := snap(b).diff(snap(a)); d != "" {
				t.Fatalf("%+v, %d keys: Build and Adds differ: %s", cfg, n, d)
			}
			if b.Ops() != (Ops{}) {
				t.Fatalf("Build counted ops %+v", b.Ops())
			}
			decode(t, b)
			if n == 0 { // no key to add one more of (a seed drew n = 0)
				continue
			}
			if _, err := Build(cfg, append(keys, keys[:1]...)); !errors.Is(err, ErrFull) {
				t.Fatalf("%+v: Build of Cap+1 keys: %v, want ErrFull", cfg, err)
			}
		}
	}
}

// acbfLevels parses acbf's serialized logical layout (acbf/io.go, version 1)
// into level bitmaps.
func acbfLevels(t *testing.T, f *acbf.Filter) []level {
	t.Helper()
	data, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	m1, d := le.Uint64(data[24:]), le.Uint64(data[40:])
	sizes := []uint64{m1}
	var s uint64
	for i := range d - 1 {
		sizes = append(sizes, le.Uint64(data[48+8*i:]))
		s += sizes[i+1]
	}
	off := 48 + 8*(d-1)
	read := func(n uint64) []uint64 {
		w := make([]uint64, words(n))
		for i := range w {
			w[i] = le.Uint64(data[off+8*uint64(i):])
		}
		off += 8 * words(n)
		return w
	}
	b1, stream := read(m1), read(s)
	out := []level{{w: b1, n: m1}}
	var at uint64
	for _, n := range sizes[1:] {
		l := level{w: make([]uint64, words(n)), n: n}
		for i := range n {
			putBit(l.w, i, getBit(stream, at+i))
		}
		at += n
		out = append(out, l)
	}
	return out
}

// TestAgreesWithACBF: for the same m1, k and keys, levelshift and acbf.Filter
// hold the same logical levels, answer Contains alike on members and
// non-members, and give the same Count.
func TestAgreesWithACBF(t *testing.T) {
	testutil.SkipUnderRace(t)
	for _, c := range []struct {
		m, n uint64
		k    int
		m1   uint64
	}{
		{1000, 100, 3, 0},
		{8000, 1000, 3, 0},
		{4000, 500, 4, 4000},
		{3000, 200, 7, 6000},
		{2000, 1000, 1, 0},
		{500, 40, 8, 1},
	} {
		if c.m1 == 0 {
			c.m1 = 4*c.m - c.n*uint64(c.k)
		}
		t.Run(fmt.Sprintf("m=%d/n=%d/k=%d/m1=%d", c.m, c.n, c.k, c.m1), func(t *testing.T) {
			keys := testutil.Keys(1<<40, c.n)
			ref, err := acbf.Build(acbf.Config{Counters: c.m, Capacity: c.n, K: c.k, FirstLevel: c.m1}, keys)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Build(Config{FirstLevel: c.m1, K: c.k, BudgetBits: 4 * c.m}, keys)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := f.Levels(), ref.Stats().LevelBits; !slices.Equal(got, want) {
				t.Fatalf("Levels %v, acbf %v", got, want)
			}
			if d := snap(f).diff(snapshot{n: f.n, lens: f.Levels(), words: func() (w [][]uint64) {
				for _, l := range acbfLevels(t, ref) {
					w = append(w, l.w)
				}
				return w
			}()}); d != "" {
				t.Fatalf("levels differ from acbf's serialized layout: %s", d)
			}
			all := append(keys, testutil.Keys(1<<50, 3000)...)
			for i, key := range all {
				if f.Contains(key) != ref.Contains(key) {
					t.Fatalf("key %d: Contains %v, acbf %v", i, f.Contains(key), ref.Contains(key))
				}
				if f.Count(key) != ref.Count(key) {
					t.Fatalf("key %d: Count %d, acbf %d", i, f.Count(key), ref.Count(key))
				}
				if i < len(keys) && !f.Contains(key) {
					t.Fatalf("member %d: Contains false", i)
				}
			}
		})
	}
}

// keyAt returns the first key from base on whose k positions pred holds.
func keyAt(t *testing.T, base uint64, k int, m1 uint64, pred func(ps []uint64) bool) []byte {
	t.Helper()
	for i := base; i < base+1_000_000; i++ {
		key := testutil.Keys(i, 1)[0]
		if pred(positions(key, k, m1)) {
			return key
		}
	}
	t.Fatal("no key found")
	return nil
}

// TestErrorsLeaveFilterUnchanged: ErrFull from Add and ErrNotMember from
// Remove (a zero B1 bit, and two hashes on a counter of 1, which needs an
// undo) change neither the levels nor Len.
func TestErrorsLeaveFilterUnchanged(t *testing.T) {
	for _, g := range []Granularity{Word, Bit} {
		const m1, k = 16, 2
		f := mustNew(t, Config{FirstLevel: m1, K: k, BudgetBits: m1 + 3*k, Granularity: g})
		// x probes one position twice; y probes it once, giving it a counter of 1.
		x := keyAt(t, 0, k, m1, func(ps []uint64) bool { return ps[0] == ps[1] })
		p := positions(x, k, m1)[0]
		y := keyAt(t, 0, k, m1, func(ps []uint64) bool { return ps[0] != ps[1] && (ps[0] == p || ps[1] == p) })
		py := positions(y, k, m1)
		z := keyAt(t, 0, k, m1, func(ps []uint64) bool {
			return !slices.Contains(ps, py[0]) && !slices.Contains(ps, py[1])
		})
		for _, key := range [][]byte{y, z, z} {
			if err := f.Add(key); err != nil {
				t.Fatal(err)
			}
		}
		before, ops := snap(f), f.Ops()
		if err := f.Add(x); !errors.Is(err, ErrFull) {
			t.Fatalf("%v: Add beyond capacity: %v, want ErrFull", g, err)
		}
		if err := f.Remove(x); !errors.Is(err, ErrNotMember) {
			t.Fatalf("%v: Remove of two hashes on a counter of 1: %v, want ErrNotMember", g, err)
		}
		if o := f.Ops(); o.RankBits+o.ShiftBits == ops.RankBits+ops.ShiftBits || o.Updates != ops.Updates {
			t.Fatalf("%v: the undo did no counted work: %+v then %+v", g, ops, f.Ops())
		}
		nm := keyAt(t, 0, k, m1, func(ps []uint64) bool { return f.counter(ps[0]) == 0 })
		if err := f.Remove(nm); !errors.Is(err, ErrNotMember) {
			t.Fatalf("%v: Remove of a key with a zero bit: %v, want ErrNotMember", g, err)
		}
		if d := snap(f).diff(before); d != "" {
			t.Fatalf("%v: failed calls changed the filter: %s", g, d)
		}
		if f.Count(y) != 1 || f.Count(z) != 2 || f.Count(x) != 1 {
			t.Fatalf("%v: counts %d %d %d, want 1 2 1", g, f.Count(y), f.Count(z), f.Count(x))
		}
		if err := f.Remove(y); err != nil {
			t.Fatal(err)
		}
		if err := f.Add(x); err != nil {
			t.Fatalf("%v: Add after a Remove: %v", g, err)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{
		{},
		{FirstLevel: 0, K: 3, BudgetBits: 100},
		{FirstLevel: 10, K: 0, BudgetBits: 100},
		{FirstLevel: 10, K: 65, BudgetBits: 100},
		{FirstLevel: 101, K: 3, BudgetBits: 100},
		{FirstLevel: 10, K: 3, BudgetBits: MaxBudgetBits + 1},
		{FirstLevel: 10, K: 3, BudgetBits: 100, Granularity: 2},
		{FirstLevel: 10, K: 3, BudgetBits: 100, Granularity: -1},
	} {
		if _, err := New(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v): %v, want ErrConfig", cfg, err)
		}
		if _, err := Build(cfg, nil); !errors.Is(err, ErrConfig) {
			t.Errorf("Build(%+v): %v, want ErrConfig", cfg, err)
		}
	}
	if _, err := New(Config{FirstLevel: 100, K: 64, BudgetBits: 100, Granularity: Bit}); err != nil {
		t.Errorf("m1 = budget, k = 64: %v", err)
	}
}

// TestOps checks the counters against values computed by hand. With k = 1
// and m1 = 64, keys a, b, c, d land on B1 positions 10, 40, 5, 40: B1 has ones
// at 5, 10, 40, level 2 is [0 0 1] (positions 5, 10, 40) and level 3 is [0].
// Adding e at 10 ranks B1 at 10 (10 bits; rank 1), finds level-2 bit 1 zero,
// sets it and ranks it (1 bit; rank 0), then inserts at index 0 of level 3,
// moving its 1 bit: RankBits 11, ShiftBits 1. Removing d (position 40) ranks
// B1 at 40 (40 bits; rank 2) and level 2 at 2 (2 bits; rank 1, since level 2
// is [0 1 1]), then removes bit 1 of level 3 ([0 0]), the last: RankBits 42,
// ShiftBits 0.
func TestOps(t *testing.T) {
	const m1 = 64
	at := func(p uint64) []byte {
		return keyAt(t, p<<20, 1, m1, func(ps []uint64) bool { return ps[0] == p })
	}
	a, b, c, d, e := at(10), at(40), at(5), at(40), at(10)
	for _, g := range []Granularity{Word, Bit} {
		f := mustNew(t, Config{FirstLevel: m1, K: 1, BudgetBits: 100, Granularity: g})
		for _, key := range [][]byte{a, b, c, d} {
			if err := f.Add(key); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := f.Levels(), []uint64{64, 3, 1}; !slices.Equal(got, want) {
			t.Fatalf("%v: Levels %v, want %v", g, got, want)
		}
		if f.lv[1].w[0] != 0b100 || f.lv[2].w[0] != 0 {
			t.Fatalf("%v: levels 2, 3 = %b, %b, want 100, 0", g, f.lv[1].w[0], f.lv[2].w[0])
		}
		f.ResetOps()
		if err := f.Add(e); err != nil {
			t.Fatal(err)
		}
		if got, want := f.Ops(), (Ops{RankBits: 11, ShiftBits: 1, Updates: 1}); got != want {
			t.Fatalf("%v: Add: ops %+v, want %+v", g, got, want)
		}
		f.ResetOps()
		if err := f.Remove(d); err != nil {
			t.Fatal(err)
		}
		if got, want := f.Ops(), (Ops{RankBits: 42, ShiftBits: 0, Updates: 1}); got != want {
			t.Fatalf("%v: Remove: ops %+v, want %+v", g, got, want)
		}
		if f.lv[1].w[0] != 0b010 || f.lv[2].w[0] != 0 || f.lv[2].n != 1 {
			t.Fatalf("%v: after Remove, levels 2, 3 = %b, %b", g, f.lv[1].w[0], f.lv[2].w[0])
		}
	}
}

// BenchmarkUpdate times one Remove of the oldest key and one Add of a fresh
// key on a full filter: n = 100,000, m = 8n, k = 3, m1 = 4m - nk (the optimal
// ACBF), in the paper's layout at both granularities and in acbf.Filter.
func BenchmarkUpdate(b *testing.B) {
	const n, k = 100_000, 3
	const m = 8 * n
	const m1 = 4*m - n*k
	keys := testutil.Keys(0, n)
	var buf [8]byte
	for _, g := range []Granularity{Word, Bit} {
		b.Run("levelshift="+g.String(), func(b *testing.B) {
			f, err := Build(Config{FirstLevel: m1, K: k, BudgetBits: 4 * m, Granularity: g}, keys)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range uint64(b.N) {
				if f.Remove(testutil.Key(buf[:], i)) != nil || f.Add(testutil.Key(buf[:], n+i)) != nil {
					b.Fatal("update failed")
				}
			}
			ops := f.Ops()
			b.ReportMetric(float64(ops.RankBits)/float64(b.N), "rankbits/op")
			b.ReportMetric(float64(ops.ShiftBits)/float64(b.N), "shiftbits/op")
		})
	}
	b.Run("acbf", func(b *testing.B) {
		f, err := acbf.Build(acbf.Config{Counters: m, Capacity: n, K: k, FirstLevel: m1}, keys)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := range uint64(b.N) {
			if f.Remove(testutil.Key(buf[:], i)) != nil || f.Add(testutil.Key(buf[:], n+i)) != nil {
				b.Fatal("update failed")
			}
		}
	})
}

// TestExpectedOps checks the Equation (2) model [derived] against the work
// counted while updating filters of several shapes: the mean rank and shift
// bits of an update (a Remove of the oldest member and an Add of a new key)
// within 3% of ExpectedOps.
func TestExpectedOps(t *testing.T) {
	testutil.SkipUnderRace(t)
	for _, tc := range []struct {
		m1, n uint64
		k     int
	}{
		{29_000, 1_000, 3}, // m/n = 8, k = 3, m1 = 4m - nk
		{74_000, 1_000, 6}, // m/n = 20, the optimum's m1 with k = 6
		{4_000, 1_000, 4},  // a crowded first level: deep counters
		{77_000, 1_000, 3},
		{200, 1_000, 3}, // 15 keys a position: counters past the old fixed depth of 40 levels' terms
	} {
		cfg := Config{FirstLevel: tc.m1, K: tc.k, BudgetBits: tc.m1 + tc.n*uint64(tc.k) + 64}
		var keys [][]byte
		for i := range tc.n {
			keys = append(keys, fmt.Appendf(nil, "member-%d", i))
		}
		f, err := Build(cfg, keys)
		if err != nil {
			t.Fatal(err)
		}
		const pairs = 3000
		for i := range pairs {
			if err := f.Remove(keys[i%len(keys)]); err != nil {
				t.Fatal(err)
			}
			keys[i%len(keys)] = fmt.Appendf(nil, "fresh-%d", i)
			if err := f.Add(keys[i%len(keys)]); err != nil {
				t.Fatal(err)
			}
		}
		ops := f.Ops()
		rank, shift := ExpectedOps(tc.m1, tc.n, tc.k)
		gotRank, gotShift := float64(ops.RankBits)/(2*pairs), float64(ops.ShiftBits)/(2*pairs)
		if math.Abs(gotRank/rank-1) > 0.03 || math.Abs(gotShift/shift-1) > 0.03 {
			t.Errorf("m1=%d n=%d k=%d: measured %.0f rank bits and %.0f shift bits an update, model %.0f and %.0f",
				tc.m1, tc.n, tc.k, gotRank, gotShift, rank, shift)
		}
		t.Logf("m1=%d n=%d k=%d: rank bits %.0f (model %.0f), shift bits %.0f (model %.0f)", tc.m1, tc.n, tc.k, gotRank, rank, gotShift, shift)
	}
}
