package cms

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func mustNew(t testing.TB, c Config) *Sketch {
	t.Helper()
	s, err := New(c)
	if err != nil {
		t.Fatalf("New(%+v): %v", c, err)
	}
	return s
}

func TestConfig(t *testing.T) {
	for _, tc := range []struct {
		c  Config
		ok bool
	}{
		{Config{Width: 1, Depth: 1}, true},
		{Config{Width: 2719, Depth: 5, Conservative: true, Seed: 7}, true},
		{Config{Width: MaxCounters / MaxDepth, Depth: MaxDepth}, true},
		{Config{Width: 0, Depth: 3}, false},
		{Config{Width: -1, Depth: 3}, false},
		{Config{Width: 10, Depth: 0}, false},
		{Config{Width: 10, Depth: MaxDepth + 1}, false},
		{Config{Width: MaxCounters/4 + 1, Depth: 4}, false},
	} {
		err := tc.c.Validate()
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrConfig)) {
			t.Errorf("%+v.Validate() = %v, want ok=%v", tc.c, err, tc.ok)
		}
		if tc.ok && tc.c.Width*tc.c.Depth > 1<<20 {
			continue // valid, but do not allocate 32 GiB
		}
		if _, err := New(tc.c); (err == nil) != tc.ok {
			t.Errorf("New(%+v) = %v, want ok=%v", tc.c, err, tc.ok)
		}
	}
}

func TestForError(t *testing.T) {
	for _, tc := range []struct {
		eps, delta   float64
		width, depth int
	}{
		// Width = ceil(e/eps), Depth = ceil(ln(1/delta)).
		{0.001, 0.01, 2719, 5},   // e/0.001 = 2718.28, ln 100 = 4.61
		{0.0001, 0.01, 27183, 5}, // e/1e-4 = 27182.8
		{0.5, 0.5, 6, 1},         // e/0.5 = 5.44, ln 2 = 0.69
		{0.01, 0.99, 272, 1},     // ln(1/0.99) = 0.01, at least one row
		{0.1, math.Exp(-3) * 0.999, 28, 4},
	} {
		c, err := ForError(tc.eps, tc.delta)
		if err != nil || c.Width != tc.width || c.Depth != tc.depth || c.Conservative || c.Seed != 0 {
			t.Errorf("ForError(%v, %v) = %+v, %v; want Width %d, Depth %d", tc.eps, tc.delta, c, err, tc.width, tc.depth)
			continue
		}
		if c.Eps() > tc.eps || c.Delta() > tc.delta {
			t.Errorf("ForError(%v, %v): Eps %v, Delta %v, want at most the request", tc.eps, tc.delta, c.Eps(), c.Delta())
		}
	}
	for _, tc := range []struct{ eps, delta float64 }{
		{0, 0.1}, {1, 0.1}, {-0.1, 0.1}, {math.NaN(), 0.1}, {0.1, 0}, {0.1, 1}, {0.1, math.NaN()},
		{1e-12, 0.1}, // 2.7e12 counters
		{0.1, 1e-30}, // 70 rows
		{math.E / float64(MaxCounters/4), math.Exp(-4.5)}, // one row too many for the width
	} {
		if c, err := ForError(tc.eps, tc.delta); !errors.Is(err, ErrConfig) {
			t.Errorf("ForError(%v, %v) = %+v, %v; want ErrConfig", tc.eps, tc.delta, c, err)
		}
	}
	if e := (Config{}).Eps(); !math.IsInf(e, 1) {
		t.Errorf("Config{}.Eps() = %v, want +Inf", e)
	}
}

// naiveColumns is a literal transcription of the column rule of the package
// doc, the reference Add and Count are checked against.
func naiveColumns(c Config, key []byte) []uint64 {
	h1, h2 := hashing.Sum(key)
	s1, s2 := seedMasks(c.Seed)
	g1, g2 := mix64(h1^s1), mix64(h2^s2)
	out := make([]uint64, c.Depth)
	for j := range out {
		out[j] = hashing.Probe(g1, g2, j, uint64(c.Width))
	}
	return out
}

// fromModel is the plain sketch of the frequency vector model, built from
// scratch with one Add per key: a plain sketch is a linear function of the
// frequencies, so every sequence of operations that leads to model must give
// exactly this sketch.
func fromModel(t testing.TB, c Config, model map[string]uint64) *Sketch {
	s := mustNew(t, c)
	for k, v := range model {
		s.Add([]byte(k), v)
	}
	return s
}

// batch is a sketch with the exact counts of what it summarizes.
type batch struct {
	s     *Sketch
	model map[string]uint64
}

// TestAgainstModel runs random adds, merges of random batches and
// subtractions of batches merged earlier, on a plain and a conservative
// sketch side by side, against a map model of the frequencies. After every
// operation: Count >= the true count for every key of the universe (and keys
// never added), Total is the model's sum, the plain sketch equals the sketch
// built from scratch from the model (linearity), and every counter of the
// conservative sketch is at most the plain one's.
func TestAgainstModel(t *testing.T) {
	seed := testutil.Seed(t)
	for _, tc := range []struct {
		width, depth int
		univ         int
	}{{1, 1, 5}, {7, 3, 60}, {64, 4, 400}, {500, 6, 300}} {
		t.Run(fmt.Sprintf("width=%d/depth=%d", tc.width, tc.depth), func(t *testing.T) {
			rng := testutil.Rand(seed)
			plainCfg := Config{Width: tc.width, Depth: tc.depth, Seed: rng.Uint64()}
			consCfg := plainCfg
			consCfg.Conservative = true
			plain, cons := mustNew(t, plainCfg), mustNew(t, consCfg)
			model := map[string]uint64{}
			var merged []batch // batches merged into plain and not yet subtracted
			key := func() string { return fmt.Sprint("k", rng.IntN(tc.univ)) }
			steps := 300
			if testing.Short() {
				steps = 80
			}
			for step := range steps {
				switch op := rng.IntN(10); {
				case op < 6: // Add
					k, n := key(), rng.Uint64N(5)
					plain.Add([]byte(k), n)
					cons.Add([]byte(k), n)
					model[k] += n
				case op < 8: // Merge a fresh batch
					b := batch{mustNew(t, plainCfg), map[string]uint64{}}
					cb := mustNew(t, consCfg)
					for range rng.IntN(20) {
						k, n := key(), 1+rng.Uint64N(3)
						b.s.Add([]byte(k), n)
						cb.Add([]byte(k), n)
						b.model[k] += n
					}
					if err := plain.Merge(b.s); err != nil {
						t.Fatalf("step %d: Merge: %v", step, err)
					}
					if err := cons.Merge(cb); err != nil {
						t.Fatalf("step %d: Merge conservative: %v", step, err)
					}
					for k, n := range b.model {
						model[k] += n
					}
					merged = append(merged, b)
				default: // Subtract a batch merged earlier
					if len(merged) == 0 {
						continue
					}
					i := rng.IntN(len(merged))
					b := merged[i]
					merged = append(merged[:i], merged[i+1:]...)
					if err := plain.Subtract(b.s); err != nil {
						t.Fatalf("step %d: Subtract of a merged batch: %v", step, err)
					}
					for k, n := range b.model {
						model[k] -= n
						if model[k] == 0 {
							delete(model, k)
						}
					}
					// The conservative sketch refuses, unchanged; take the
					// batch away from its model by rebuilding it.
					before := cons.Clone()
					if err := cons.Subtract(before); !errors.Is(err, ErrConservative) || !cons.Equal(before) {
						t.Fatalf("step %d: conservative Subtract = %v (changed %v), want ErrConservative, unchanged", step, err, !cons.Equal(before))
					}
					cons = mustNew(t, consCfg)
					for k, n := range model {
						cons.Add([]byte(k), n)
					}
				}
				var sum uint64
				for _, n := range model {
					sum += n
				}
				if plain.Total() != sum || cons.Total() != sum {
					t.Fatalf("step %d: Total() = %d plain, %d conservative; want %d", step, plain.Total(), cons.Total(), sum)
				}
				for u := range tc.univ + 5 { // five keys never added
					k := fmt.Sprint("k", u)
					p, c := plain.Count([]byte(k)), cons.Count([]byte(k))
					if p < model[k] || c < model[k] || c > p {
						t.Fatalf("step %d: Count(%q) = %d plain, %d conservative; true %d (want true <= conservative <= plain)", step, k, p, c, model[k])
					}
				}
				if want := fromModel(t, plainCfg, model); !plain.Equal(want) {
					t.Fatalf("step %d: plain sketch differs from the sketch of its model", step)
				}
				for i, c := range cons.counters {
					if c > plain.counters[i] {
						t.Fatalf("step %d: conservative counter %d = %d > plain %d", step, i, c, plain.counters[i])
					}
				}
			}
		})
	}
}

// TestAgainstNaive checks Add and Count against the transcription of the
// column rule: counter (j, naiveColumns[j]) of a plain sketch holds the sum of
// the counts of the keys mapped to it, Count is their minimum.
func TestAgainstNaive(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	for _, c := range []Config{{Width: 13, Depth: 4, Seed: rng.Uint64()}, {Width: 1000, Depth: 7}} {
		s := mustNew(t, c)
		ref := make([]uint64, c.Width*c.Depth)
		keys := testutil.Keys(rng.Uint64N(1<<40), 200)
		keys = append(keys, []byte("a longer key, hashed by murmur3 itself"), nil)
		for _, k := range keys {
			n := rng.Uint64N(100)
			s.Add(k, n)
			for j, col := range naiveColumns(c, k) {
				ref[j*c.Width+int(col)] += n
			}
		}
		for i := range ref {
			if s.counters[i] != ref[i] {
				t.Fatalf("%+v: counter %d = %d, reference %d", c, i, s.counters[i], ref[i])
			}
		}
		for _, k := range keys {
			want := uint64(math.MaxUint64)
			for j, col := range naiveColumns(c, k) {
				want = min(want, ref[j*c.Width+int(col)])
			}
			h1, h2 := hashing.Sum(k)
			if got, gotH := s.Count(k), s.CountHash(h1, h2); got != want || gotH != want {
				t.Fatalf("%+v: Count(%x) = %d, CountHash %d, want %d", c, k, got, gotH, want)
			}
		}
	}
}

// TestSeed: different seeds place the keys differently, equal seeds equally.
func TestSeed(t *testing.T) {
	a := naiveColumns(Config{Width: 1 << 20, Depth: 4, Seed: 1}, []byte("x"))
	b := naiveColumns(Config{Width: 1 << 20, Depth: 4, Seed: 2}, []byte("x"))
	c := naiveColumns(Config{Width: 1 << 20, Depth: 4, Seed: 1}, []byte("x"))
	if fmt.Sprint(a) == fmt.Sprint(b) || fmt.Sprint(a) != fmt.Sprint(c) {
		t.Errorf("columns of seed 1 %v, seed 2 %v, seed 1 again %v", a, b, c)
	}
	s1 := mustNew(t, Config{Width: 10, Depth: 2, Seed: 1})
	s2 := mustNew(t, Config{Width: 10, Depth: 2, Seed: 2})
	if err := s1.Merge(s2); !errors.Is(err, ErrShape) {
		t.Errorf("Merge across seeds = %v, want ErrShape", err)
	}
}

// TestAddHash: AddHash of hashing.Sum is Add.
func TestAddHash(t *testing.T) {
	for _, cons := range []bool{false, true} {
		c := Config{Width: 50, Depth: 3, Conservative: cons}
		a, b := mustNew(t, c), mustNew(t, c)
		for i, k := range testutil.Keys(0, 500) {
			a.Add(k, uint64(i%7))
			h1, h2 := hashing.Sum(k)
			b.AddHash(h1, h2, uint64(i%7))
		}
		if !a.Equal(b) {
			t.Errorf("conservative=%v: Add and AddHash differ", cons)
		}
	}
}

// TestSaturation: counters and Total stick at 2^64-1; Count stays an upper
// bound; Subtract leaves saturated counters saturated; InnerProduct
// saturates.
func TestSaturation(t *testing.T) {
	const top = math.MaxUint64
	for _, cons := range []bool{false, true} {
		s := mustNew(t, Config{Width: 1, Depth: 2, Conservative: cons})
		s.Add([]byte("a"), top-5)
		s.Add([]byte("b"), 10)
		if s.Total() != top || s.Count([]byte("a")) != top || s.Count([]byte("b")) != top {
			t.Errorf("conservative=%v: Total %d, Count(a) %d, Count(b) %d; want all %d", cons, s.Total(), s.Count([]byte("a")), s.Count([]byte("b")), uint64(top))
		}
		s.Add([]byte("a"), 1)
		if c := s.Count([]byte("a")); c != top {
			t.Errorf("conservative=%v: Count after another Add = %d, want it stuck at %d", cons, c, uint64(top))
		}
		if err := s.Merge(s.Clone()); err != nil || s.Total() != top || s.counters[0] != top {
			t.Errorf("conservative=%v: Merge of saturated sketches: %v, Total %d, counter %d", cons, err, s.Total(), s.counters[0])
		}
	}
	s := mustNew(t, Config{Width: 1, Depth: 1})
	s.Add([]byte("a"), top)
	o := mustNew(t, Config{Width: 1, Depth: 1})
	o.Add([]byte("a"), 7)
	if err := s.Subtract(o); err != nil || s.Total() != top || s.Count([]byte("a")) != top {
		t.Errorf("Subtract from saturated: %v, Total %d, Count %d; want both stuck at %d", err, s.Total(), s.Count([]byte("a")), uint64(top))
	}
	if ip, err := s.InnerProduct(o); err != nil || ip != top {
		t.Errorf("InnerProduct of 2^64-1 by 7 = %d, %v; want %d", ip, err, uint64(top))
	}
	p := mustNew(t, Config{Width: 3, Depth: 1})
	p.Add([]byte("a"), 1<<32)
	if ip, err := p.InnerProduct(p); err != nil || ip != top {
		t.Errorf("InnerProduct 2^32 * 2^32 = %d, %v; want %d", ip, err, uint64(top))
	}
}

// TestSubtractErrors: every refusal leaves the receiver unchanged.
func TestSubtractErrors(t *testing.T) {
	c := Config{Width: 20, Depth: 3}
	s := mustNew(t, c)
	keys := testutil.Keys(0, 30)
	for _, k := range keys[:20] {
		s.Add(k, 2)
	}
	keep := s.Clone()
	bigger := s.Clone()
	bigger.Add(keys[0], 1) // one counter per row above s's
	outside := mustNew(t, c)
	outside.Add(keys[25], 100) // Total 100 > 40, counters too
	other := mustNew(t, Config{Width: 21, Depth: 3})
	cons := mustNew(t, Config{Width: 20, Depth: 3, Conservative: true})
	for _, tc := range []struct {
		name string
		recv *Sketch
		o    *Sketch
		want error
	}{
		{"bigger", s, bigger, ErrUnderflow},
		{"outside", s, outside, ErrUnderflow},
		{"shape", s, other, ErrShape},
		{"nil", s, nil, ErrShape},
		{"plain from conservative", cons, s, ErrShape},
		{"conservative", cons, cons.Clone(), ErrConservative},
	} {
		before := tc.recv.Clone()
		if err := tc.recv.Subtract(tc.o); !errors.Is(err, tc.want) {
			t.Errorf("%s: Subtract = %v, want %v", tc.name, err, tc.want)
		}
		if !tc.recv.Equal(before) {
			t.Errorf("%s: failed Subtract changed the receiver", tc.name)
		}
	}
	if !s.Equal(keep) {
		t.Fatal("receiver changed")
	}
	if err := s.Subtract(s); err != nil || s.Total() != 0 || !s.Equal(mustNew(t, c)) {
		t.Errorf("s.Subtract(s) = %v, want an empty sketch", err)
	}
}

// TestSubtractCounterUnderflow: a sketch with a smaller Total but one larger
// counter is refused and changes nothing, even though counters before it
// would have been fine.
func TestSubtractCounterUnderflow(t *testing.T) {
	c := Config{Width: 1000, Depth: 4}
	s := mustNew(t, c)
	keys := testutil.Keys(0, 100)
	for _, k := range keys[:99] {
		s.Add(k, 1)
	}
	o := mustNew(t, c)
	o.Add(keys[0], 1)  // a sub-stream so far
	o.Add(keys[99], 1) // never added to s: its counters are 0 in s unless they collide
	if o.Count(keys[99]) == 0 || s.Count(keys[99]) != 0 {
		t.Fatal("setup: key 99 shares a counter with s's keys in every row; pick another key")
	}
	before := s.Clone()
	if err := s.Subtract(o); !errors.Is(err, ErrUnderflow) || !s.Equal(before) {
		t.Errorf("Subtract = %v (changed %v), want ErrUnderflow and no change", err, !s.Equal(before))
	}
}

// TestMergeErrors: refusals leave the receiver unchanged.
func TestMergeErrors(t *testing.T) {
	s := mustNew(t, Config{Width: 20, Depth: 3})
	s.Add([]byte("x"), 3)
	before := s.Clone()
	for _, o := range []*Sketch{nil, mustNew(t, Config{Width: 20, Depth: 4}), mustNew(t, Config{Width: 20, Depth: 3, Conservative: true})} {
		if err := s.Merge(o); !errors.Is(err, ErrShape) || !s.Equal(before) {
			t.Errorf("Merge(%v) = %v, want ErrShape and no change", o, err)
		}
		if _, err := s.InnerProduct(o); !errors.Is(err, ErrShape) {
			t.Errorf("InnerProduct(%v) = %v, want ErrShape", o, err)
		}
	}
	cons := mustNew(t, Config{Width: 20, Depth: 3, Conservative: true})
	if _, err := cons.InnerProduct(cons); !errors.Is(err, ErrConservative) {
		t.Errorf("conservative InnerProduct = %v, want ErrConservative", err)
	}
}

// TestWindow keeps a sliding window of w batches by adding each new batch
// key by key and subtracting the sketch of the batch that expires, and checks
// at every step that it is bit for bit the sketch built from scratch over the
// window; and that the Merge of the sketches of a stream's two halves is the
// sketch of the whole.
func TestWindow(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	c := Config{Width: 300, Depth: 4, Seed: rng.Uint64()}
	const nBatches, perBatch = 40, 500
	zipf := rand.NewZipf(rng, 1.2, 1, 5000)
	batches := make([][]uint64, nBatches)
	for i := range batches {
		for range perBatch {
			batches[i] = append(batches[i], zipf.Uint64())
		}
	}
	key := make([]byte, 8)
	for _, w := range []int{1, 3, 8} {
		t.Run(fmt.Sprintf("window=%d", w), func(t *testing.T) {
			sliding := mustNew(t, c)
			batchSketch := make([]*Sketch, nBatches)
			for i, b := range batches {
				batchSketch[i] = mustNew(t, c)
				for _, id := range b {
					sliding.Add(testutil.Key(key, id), 1)
					batchSketch[i].Add(testutil.Key(key, id), 1)
				}
				if i >= w {
					if err := sliding.Subtract(batchSketch[i-w]); err != nil {
						t.Fatalf("batch %d: Subtract: %v", i, err)
					}
				}
				scratch := mustNew(t, c)
				for _, old := range batches[max(0, i-w+1) : i+1] {
					for _, id := range old {
						scratch.Add(testutil.Key(key, id), 1)
					}
				}
				if !sliding.Equal(scratch) {
					t.Fatalf("batch %d: sliding window differs from the sketch built from scratch", i)
				}
			}
		})
	}
	t.Run("halves", func(t *testing.T) {
		whole, lo, hi := mustNew(t, c), mustNew(t, c), mustNew(t, c)
		for i, b := range batches {
			half := lo
			if i >= nBatches/2 {
				half = hi
			}
			for _, id := range b {
				whole.Add(testutil.Key(key, id), 1)
				half.Add(testutil.Key(key, id), 1)
			}
		}
		if lo.Equal(whole) || hi.Equal(whole) {
			t.Fatal("a half equals the whole")
		}
		if err := lo.Merge(hi); err != nil || !lo.Equal(whole) {
			t.Fatalf("Merge of the halves (%v) differs from the whole", err)
		}
	})
}

// TestConservativeMerge: the Merge of two conservative sketches keeps
// true <= Count <= plain Count of the concatenation, and is not the
// conservative sketch of the concatenation: some keys' estimates are above
// it and some below (the package doc says neither order holds).
func TestConservativeMerge(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	var above, below int
	for trial := 0; trial < 20 && (above == 0 || below == 0); trial++ {
		plainCfg := Config{Width: 64, Depth: 4, Seed: rng.Uint64()}
		consCfg := plainCfg
		consCfg.Conservative = true
		a, b, whole := mustNew(t, consCfg), mustNew(t, consCfg), mustNew(t, consCfg)
		plainWhole := mustNew(t, plainCfg)
		model := map[uint64]uint64{}
		key := make([]byte, 8)
		for range 4000 {
			id, n := rng.Uint64N(500), 1+rng.Uint64N(4)
			half := a
			if rng.IntN(2) == 1 {
				half = b
			}
			half.Add(testutil.Key(key, id), n)
			whole.Add(testutil.Key(key, id), n)
			plainWhole.Add(testutil.Key(key, id), n)
			model[id] += n
		}
		if err := a.Merge(b); err != nil {
			t.Fatal(err)
		}
		for id := range uint64(510) {
			k := testutil.Key(key, id)
			m, p, w := a.Count(k), plainWhole.Count(k), whole.Count(k)
			if m < model[id] || m > p {
				t.Fatalf("trial %d, key %d: merged conservative Count %d, true %d, plain %d; want true <= merged <= plain", trial, id, m, model[id], p)
			}
			if m > w {
				above++
			} else if m < w {
				below++
			}
		}
	}
	t.Logf("merged estimate above the conservative sketch of the concatenation for %d keys, below for %d", above, below)
	if above == 0 || below == 0 {
		t.Errorf("merged estimates above the concatenation's for %d keys, below for %d; the package doc says both happen", above, below)
	}
}

// TestResetClone: Reset empties in place, a Clone is independent.
func TestResetClone(t *testing.T) {
	c := Config{Width: 40, Depth: 3, Seed: 9}
	s := mustNew(t, c)
	s.Add([]byte("x"), 5)
	d := s.Clone()
	d.Add([]byte("y"), 1)
	if s.Total() != 5 || d.Total() != 6 || s.Equal(d) {
		t.Errorf("Totals %d and %d, want 5 and 6", s.Total(), d.Total())
	}
	s.Reset()
	if !s.Equal(mustNew(t, c)) || s.Config() != c || s.MemoryBytes() != 8*40*3 {
		t.Errorf("Reset sketch is not empty (Config %+v, %d bytes)", s.Config(), s.MemoryBytes())
	}
	var nilSketch *Sketch
	if !nilSketch.Equal(nil) || s.Equal(nil) || nilSketch.Equal(s) {
		t.Error("Equal with nil sketches")
	}
}

// TestNoAllocs: Add, AddHash, Count and Merge do not allocate.
func TestNoAllocs(t *testing.T) {
	for _, cons := range []bool{false, true} {
		s := mustNew(t, Config{Width: 1000, Depth: 5, Conservative: cons})
		o := s.Clone()
		key := []byte("some key of more than eight bytes")
		if n := testing.AllocsPerRun(100, func() {
			s.Add(key, 1)
			s.AddHash(1, 2, 3)
			s.Count(key)
			s.Merge(o)
		}); n != 0 {
			t.Errorf("conservative=%v: %v allocations per Add+AddHash+Count+Merge, want 0", cons, n)
		}
	}
}
