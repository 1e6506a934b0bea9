package scalable

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

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

func mustAdd(t testing.TB, f *Filter, keys [][]byte) {
	t.Helper()
	for _, key := range keys {
		if err := f.Add(key); err != nil {
			t.Fatalf("Add(%x) at Len %d: %v", key, f.Len(), err)
		}
	}
}

// clone returns a deep copy of f through its serialization.
func clone(t testing.TB, f *Filter) *Filter {
	t.Helper()
	data, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var g Filter
	if err := g.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	return &g
}

func TestConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		field string // "" for a valid Config
	}{
		{"defaults", Config{}, ""},
		{"all set", Config{InitialCapacity: 5, FPP: 0.5, Growth: 1, Tightening: 0.9}, ""},
		{"largest n0", Config{InitialCapacity: MaxCapacity, FPP: 0.9999999}, ""},
		{"n0 too large", Config{InitialCapacity: MaxCapacity + 1}, "InitialCapacity"},
		{"n0 past MaxBits", Config{InitialCapacity: 1 << 40}, "InitialCapacity"},
		{"FPP negative", Config{FPP: -0.1}, "FPP"},
		{"FPP one", Config{FPP: 1}, "FPP"},
		{"FPP above one", Config{FPP: 2}, "FPP"},
		{"FPP NaN", Config{FPP: math.NaN()}, "FPP"},
		{"Growth below one", Config{Growth: 0.5}, "Growth"},
		{"Growth negative", Config{Growth: -2}, "Growth"},
		{"Growth infinite", Config{Growth: math.Inf(1)}, "Growth"},
		{"Growth NaN", Config{Growth: math.NaN()}, "Growth"},
		{"Tightening negative", Config{Tightening: -0.5}, "Tightening"},
		{"Tightening one", Config{Tightening: 1}, "Tightening"},
		{"Tightening above one", Config{Tightening: 1.5}, "Tightening"},
		{"Tightening NaN", Config{Tightening: math.NaN()}, "Tightening"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := New(tc.cfg)
			// Plan refuses a Config as New does, with the same error.
			if _, perr := tc.cfg.Plan(0); (perr == nil) != (err == nil) || (err != nil && perr.Error() != err.Error()) {
				t.Fatalf("Config.Plan(0) = %v, New = %v", perr, err)
			}
			if tc.field == "" {
				if err != nil {
					t.Fatalf("New(%+v) = %v, want ok", tc.cfg, err)
				}
				if f.Filters() != 1 || f.Len() != 0 {
					t.Fatalf("New(%+v): %d sub-filters, Len %d; want 1, 0", tc.cfg, f.Filters(), f.Len())
				}
				return
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.field+" = ") {
				t.Fatalf("New(%+v) = %v, want ErrConfig naming %s", tc.cfg, err, tc.field)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	f := mustNew(t, Config{})
	want := Config{InitialCapacity: 1000, FPP: 0.001, Growth: 2, Tightening: 0.5}
	if got := f.Config(); got != want {
		t.Fatalf("Config() = %+v, want %+v", got, want)
	}
	if got := f.Bound(); got != 0.002 {
		t.Errorf("Bound() = %v, want 0.002", got)
	}
	// k_0 = ceil(log2 1000) = 10, m_0 = ceil(1000 * 6.9078 / 0.48045) =
	// ceil(14377.6) = 14378, s_0 = ceil(1437.8) = 1438.
	sf := f.subs[0]
	if sf.capacity != 1000 || sf.k != 10 || sf.slice != 1438 || f.MemoryBits() != 14380 {
		t.Errorf("first sub-filter: n %d, k %d, s %d, %d bits; want 1000, 10, 1438, 14380", sf.capacity, sf.k, sf.slice, f.MemoryBits())
	}
	if f.FPP() != 0 {
		t.Errorf("empty FPP() = %v, want 0", f.FPP())
	}
}

// TestShapes: Config.shape, with its repeated products and exponent trick,
// gives what the formulas written with math.Pow and math.Log2 give.
func TestShapes(t *testing.T) {
	for _, cfg := range []Config{
		{},
		{InitialCapacity: 1, FPP: 0.5, Growth: 1, Tightening: 0.5},
		{InitialCapacity: 100, FPP: 0.01, Growth: 4, Tightening: 0.9},
		{InitialCapacity: 1000, FPP: 0.001, Growth: 1.5, Tightening: 0.8},
		{InitialCapacity: 7, FPP: 0.25, Growth: 2, Tightening: 0.25},
		{InitialCapacity: 12345, FPP: 1e-6, Growth: 3, Tightening: 0.75},
	} {
		cfg = cfg.withDefaults()
		nv := newNaive(cfg)
		first := uint64(0) // the slices of sub-filters 0..i-1, from the formulas
		for i := range MaxFilters {
			got, err := cfg.shape(i)
			if err != nil || got.bits() > MaxBits/2 {
				if i < 5 {
					t.Fatalf("%+v: sub-filter %d: %v", cfg, i, err)
				}
				break
			}
			n, k, s := nv.shapeOf(i)
			if got.capacity != n || got.k != k || got.slice != s || got.first != first {
				t.Errorf("%+v: sub-filter %d = n %d, k %d, s %d, first slice %d; the formulas give %d, %d, %d, %d",
					cfg, i, got.capacity, got.k, got.slice, got.first, n, k, s, first)
			}
			first += uint64(k)
		}
	}
}

// TestAgainstNaive adds random keys of random lengths to small filters and to
// the literal transcription, and compares them bit for bit after every Add,
// and their answers on members and non-members.
func TestAgainstNaive(t *testing.T) {
	testutil.SkipUnderRace(t)
	seed := testutil.Seed(t)
	for _, cfg := range []Config{
		{InitialCapacity: 3, FPP: 0.1, Growth: 1.5, Tightening: 0.8},
		{InitialCapacity: 1, FPP: 0.5, Growth: 1.2, Tightening: 0.5},
		{InitialCapacity: 10, FPP: 0.01, Growth: 2, Tightening: 0.5},
		{InitialCapacity: 50, FPP: 0.001, Growth: 4, Tightening: 0.9},
	} {
		t.Run(fmt.Sprintf("n0=%d/P0=%v/s=%v/r=%v", cfg.InitialCapacity, cfg.FPP, cfg.Growth, cfg.Tightening), func(t *testing.T) {
			rng := testutil.Rand(seed)
			f, nv := mustNew(t, cfg), newNaive(cfg)
			var added [][]byte
			for op := range 600 {
				key := make([]byte, rng.IntN(20))
				for i := range key {
					key[i] = byte(rng.Uint32())
				}
				mustAdd(t, f, [][]byte{key})
				nv.add(key)
				added = append(added, key)
				if !nv.equalTo(f) {
					t.Fatalf("op %d: filter differs from the reference (%d sub-filters, reference %d)", op, f.Filters(), len(nv.filters))
				}
				if got, want := f.FillFPP(), nv.fillFPP(); math.Abs(got-want) > 1e-12*want {
					t.Fatalf("op %d: FillFPP() = %v, the reference's bits give %v", op, got, want)
				}
			}
			for _, key := range added {
				if !f.Contains(key) {
					t.Fatalf("Contains(%x) = false for a member", key)
				}
			}
			for i := range uint64(2000) {
				key := testutil.Key(make([]byte, 8), 1<<40+i)
				if got, want := f.Contains(key), nv.contains(key); got != want {
					t.Fatalf("Contains(%x) = %v, reference %v", key, got, want)
				}
			}
		})
	}
}

// TestNoFalseNegatives grows a default filter from n0 = 1000 to 100,000 keys,
// checking each key right after its Add and every key added so far each time
// a sub-filter is added and at the end (bits are only ever set, so a key
// present once stays present): 1000 +
// 2000 + ... + 32000 = 63,000 < 100,000 <= 127,000 keys need 7 sub-filters.
func TestNoFalseNegatives(t *testing.T) {
	testutil.SkipUnderRace(t)
	f := mustNew(t, Config{})
	keys := testutil.Keys(0, 100_000)
	filters := f.Filters()
	check := func() {
		t.Helper()
		for i, key := range keys[:f.Len()] {
			if !f.Contains(key) {
				t.Fatalf("Contains(key %d) = false at Len %d, %d sub-filters", i, f.Len(), f.Filters())
			}
		}
	}
	for i, key := range keys {
		mustAdd(t, f, [][]byte{key})
		if !f.Contains(key) {
			t.Fatalf("Contains(key %d) = false right after its Add", i)
		}
		if f.Filters() != filters {
			check()
			filters = f.Filters()
		}
	}
	check()
	if f.Filters() != 7 || f.Len() != 100_000 {
		t.Fatalf("after 100,000 keys: %d sub-filters, Len %d; want 7, 100000", f.Filters(), f.Len())
	}
	for i, sf := range f.subs {
		want := uint64(1000) << i
		if i == 6 {
			want = 100_000 - 63_000
		}
		if sf.keys != want {
			t.Errorf("sub-filter %d holds %d keys, want %d", i, sf.keys, want)
		}
	}
	t.Logf("100,000 keys: %d sub-filters, %d bits (%.2f bits a key), FPP %.3g, bound %.3g",
		f.Filters(), f.MemoryBits(), float64(f.MemoryBits())/1e5, f.FPP(), f.Bound())
}

// fillSD returns the standard deviation of a filter's false positive rate
// given its bits (prod_j ones_j/s over slices, compounded over sub-filters)
// around the formula FPP, from the occupancy variance of each slice: with c
// balls in s bins the number of empty bins E has mean s q1 and variance
// s q1 + s(s-1) q2 - (s q1)^2, q1 = (1-1/s)^c, q2 = (1-2/s)^c. A sub-filter's
// rate is a product of k such independent fractions, relative variance about
// k Var[E]/(s f)^2 with f its fill; the compound rate is about their sum.
func fillSD(f *Filter) float64 {
	var v float64
	for i := range f.subs {
		sf := &f.subs[i]
		if sf.keys == 0 {
			continue
		}
		s, c := float64(sf.slice), float64(sf.keys)
		q1 := math.Exp(c * math.Log1p(-1/s))
		q2 := math.Exp(c * math.Log1p(-2/s))
		varE := s*q1 + s*(s-1)*q2 - s*s*q1*q1
		fill := 1 - q1
		p := fpp(sf.slice, sf.keys, sf.k)
		v += p * p * float64(sf.k) * varE / (s * s * fill * fill)
	}
	return math.Sqrt(v)
}

// TestFalsePositiveRate measures the false positive rate of non-members at
// 1,000, 10,000 and 100,000 keys (default Config: 1, 4 and 7 sub-filters)
// and checks it against FPP() within 4 standard deviations, either side.
//
// Besides the binomial noise of the queries, one filter's rate, given its
// bits, differs from the formula by the variance of its slices' fill: at
// 1,000 keys about 4.6% relative, more than the binomial 1% of 10^7 queries;
// so the queries are spread over R filters of independent key sets, which
// divides that variance by R, and the sd is sqrt(Q p(1-p) + (Q fillSD)^2/R).
// FPP() <= Bound() is checked after every Add of the first filter.
//
// The three sizes are not judged together (testutil.Deviations): they grow
// the same filters, whose first sub-filters' fill carries into the larger
// sizes, so their z-scores correlate (about +0.13 over 400 runs of the
// -short sizes, whose two spreads stand in the same ratio), and their mean
// would fail by chance 3.7e-4 of runs at the bound of 4/sqrt(3) for
// independent ones; three checks at 4 sd fail at most 1.9e-4.
func TestFalsePositiveRate(t *testing.T) {
	testutil.SkipUnderRace(t)
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	filters, perFilter := 100, uint64(100_000) // 10^7 queries a size
	if testing.Short() {
		filters, perFilter = 10, 100_000 // 10^6
	}
	sizes := []uint64{1_000, 10_000, 100_000}
	fps := make([]uint64, len(sizes))
	var fpp, sd []float64
	dst := make([]byte, 8)
	for r := range filters {
		f := mustNew(t, Config{})
		base := rng.Uint64() >> 2 // members base.., non-members base+2^62..
		next := uint64(0)
		for si, size := range sizes {
			for ; next < size; next++ {
				if err := f.Add(testutil.Key(dst, base+next)); err != nil {
					t.Fatal(err)
				}
				if r == 0 && f.FPP() > f.Bound() {
					t.Fatalf("FPP() = %.4g > Bound() = %.4g at %d keys", f.FPP(), f.Bound(), f.Len())
				}
			}
			qbase := base + 1<<62 + uint64(si)*perFilter
			for q := range perFilter {
				if f.Contains(testutil.Key(dst, qbase+q)) {
					fps[si]++
				}
			}
			if r == 0 {
				fpp = append(fpp, f.FPP())
				sd = append(sd, fillSD(f))
			}
		}
	}
	for si, size := range sizes {
		q := float64(filters) * float64(perFilter)
		p := fpp[si]
		binom := math.Sqrt(q * p * (1 - p))
		fill := q * sd[si] / math.Sqrt(float64(filters))
		tol := 4 * math.Hypot(binom, fill)
		got := float64(fps[si])
		t.Logf("%d keys: %d FPs of %.0f queries over %d filters = %.4g, %+.2f%% from FPP() %.4g (bound %.4g), %+.2f sd; sd binomial %.1f, fill %.1f",
			size, fps[si], q, filters, got/q, 100*(got/(q*p)-1), p, 0.002, 4*(got-q*p)/tol, binom, fill)
		if math.Abs(got-q*p) > tol {
			t.Errorf("%d keys: %d false positives, want %.0f ± %.0f", size, fps[si], q*p, tol)
		}
	}
}

// kmSub returns a copy of sf's shape, empty, for the Kirsch-Mitzenmacher
// probes of internal/hashing (slice j at Reduce(h1 + j*h2, s)), which the
// package used before: the control that shows what correlated probes do.
func kmSub(sf *sub) *sub { return &sub{shape: sf.shape, words: make([]uint64, len(sf.words))} }

func (sf *sub) kmAdd(h1, h2 uint64) {
	for j := range sf.k {
		b := uint64(j)*sf.slice + hashing.Probe(h1, h2, j, sf.slice)
		sf.words[b>>6] |= 1 << (b & 63)
	}
}

func (sf *sub) kmHas(h1, h2 uint64) bool {
	for j := range sf.k {
		b := uint64(j)*sf.slice + hashing.Probe(h1, h2, j, sf.slice)
		if sf.words[b>>6]>>(b&63)&1 == 0 {
			return false
		}
	}
	return true
}

// TestDoubleHashingExcess is the test that would see correlated probes come
// back. With small slices, Kirsch-Mitzenmacher double hashing (slice j at
// Reduce(h1 + j*h2, s), what the package used before) raises the false
// positive rate above that of the bits: a member whose (h1, h2) is near the
// query's matches it in many slices at once. Sub-filters of k = 7 slices of
// 137 bits (100 keys at p = 0.01; 2^k/s = 0.93) and of 28 bits (20 keys,
// 2^k/s = 4.6) are built R times and queried by Contains, and the false
// positives compared with what FillFPP() gives for the same bits, so that
// the fill variance drops out and the sd is binomial: the two shapes'
// deviations, in those sd, are judged together (testutil.Deviations: each
// at 4.16 sd, the Bonferroni bound of two, and their mean at 4/sqrt(2)).
// The same keys in a sub-filter of the same shape with the
// Kirsch-Mitzenmacher probes, queried the same way against its own bits'
// rate, must not agree: that control (+6% at 137 bits, about 19 sd) shows
// that the test has the power to see the excess.
func TestDoubleHashingExcess(t *testing.T) {
	if testing.Short() {
		t.Skip("10^7 queries a shape")
	}
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	const filters, queries = 20, 500_000
	devs := testutil.NewDeviations(t, "false positives against the bits' rate, in binomial sd")
	for _, n0 := range []uint64{100, 20} {
		cfg := Config{InitialCapacity: n0, FPP: 0.01}
		var fp, want, kmFP, kmWant float64
		dst := make([]byte, 8)
		var sh shape
		for range filters {
			f := mustNew(t, cfg)
			base := rng.Uint64() >> 2
			mustAdd(t, f, testutil.Keys(base, n0))
			sh = f.subs[0].shape
			km := kmSub(&f.subs[0])
			for i := range n0 {
				km.kmAdd(hashing.Sum(testutil.Key(dst, base+i)))
			}
			kmF := &Filter{cfg: f.cfg, subs: []sub{*km}}
			want += queries * f.FillFPP()
			kmWant += queries * kmF.FillFPP()
			for q := range uint64(queries) {
				key := testutil.Key(dst, base+1<<62+q)
				if f.Contains(key) {
					fp++
				}
				if km.kmHas(hashing.Sum(key)) {
					kmFP++
				}
			}
		}
		z, kmZ := (fp-want)/math.Sqrt(want), (kmFP-kmWant)/math.Sqrt(kmWant)
		t.Logf("k %d, s %d: %.0f FPs, %+.2f%% from the bits' rate, %+.2f sd; Kirsch-Mitzenmacher %.0f FPs, %+.2f%%, %+.2f sd",
			sh.k, sh.slice, fp, 100*(fp/want-1), z, kmFP, 100*(kmFP/kmWant-1), kmZ)
		devs.Add(z, "k %d, s %d: %.0f false positives over %d filters, the bits' rate gives %.0f, sd %.1f", sh.k, sh.slice, fp, filters, want, math.Sqrt(want))
		if kmZ < 8 {
			t.Errorf("k %d, s %d: the Kirsch-Mitzenmacher control is only %+.2f sd above its bits' rate: the test has lost its power", sh.k, sh.slice, kmZ)
		}
	}
	devs.Check()
}

// TestFillFPP: the false positives of one filter, default Config grown from
// 1,000 to 100,000 keys (7 sub-filters), match its FillFPP(), for each of a
// few seeds and over all of them: given the bits there is no other
// variance. The seeds' deviations, in binomial sd, are judged together
// (testutil.Deviations: each at the Bonferroni bound of their number, 4.32
// sd for 4 seeds, and their mean at 4/sqrt(seeds)); the pooled count, one
// check, within 4 binomial sd. At 10^7 queries in all the pooled check
// would see the +3% the Kirsch-Mitzenmacher probes gave at this size.
func TestFillFPP(t *testing.T) {
	testutil.SkipUnderRace(t)
	seed := testutil.Seed(t)
	seeds, queries := 4, uint64(2_500_000)
	if testing.Short() {
		seeds, queries = 1, 1_000_000
	}
	var fps, want, variance float64
	dst := make([]byte, 8)
	devs := testutil.NewDeviations(t, "false positives against FillFPP(), in binomial sd")
	for si := range seeds {
		s := seed + uint64(si)
		rng := testutil.Rand(s)
		f := mustNew(t, Config{})
		base := rng.Uint64() >> 2
		for i := range uint64(100_000) {
			if err := f.Add(testutil.Key(dst, base+i)); err != nil {
				t.Fatal(err)
			}
		}
		if f.Filters() != 7 {
			t.Fatalf("%d sub-filters, want 7", f.Filters())
		}
		p := f.FillFPP()
		var fp float64
		for q := range queries {
			if f.Contains(testutil.Key(dst, base+1<<62+q)) {
				fp++
			}
		}
		mean, sd := float64(queries)*p, math.Sqrt(float64(queries)*p*(1-p))
		t.Logf("seed %d: %.0f FPs of %d queries = %.5g; FillFPP() %.5g (%+.2f sd), FPP() %.5g", s, fp, queries, fp/float64(queries), p, (fp-mean)/sd, f.FPP())
		devs.Add((fp-mean)/sd, "seed %d: %.0f false positives of %d queries, FillFPP() %.5g gives %.0f, sd %.1f", s, fp, queries, p, mean, sd)
		fps, want, variance = fps+fp, want+mean, variance+sd*sd
	}
	devs.Check()
	t.Logf("all %d seeds: %.0f FPs, FillFPP gives %.0f, %+.2f%%, %+.2f sd", seeds, fps, want, 100*(fps/want-1), (fps-want)/math.Sqrt(variance))
	if math.Abs(fps-want) > 4*math.Sqrt(variance) {
		t.Errorf("all seeds: %.0f false positives, want %.0f ± %.0f (4 sd)", fps, want, 4*math.Sqrt(variance))
	}
}

// TestFPPIsMeanFillFPP: FPP() is the expectation of FillFPP() over random
// fills, so the mean of FillFPP() over R filters of independent keys is
// within 4 sd (the sample's, over sqrt(R)) of FPP() at 1,000, 10,000 and
// 100,000 keys. The sample sd is compared with fillSD's model in the log.
// The three sizes are the same filters grown (FillFPP() at 1,000 keys and at
// 10,000 correlates 0.93 over filters, at 10,000 and 100,000 0.999): about
// one check, not three to judge together with testutil.Deviations.
func TestFPPIsMeanFillFPP(t *testing.T) {
	testutil.SkipUnderRace(t)
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	filters := 200
	if testing.Short() {
		filters = 20
	}
	sizes := []uint64{1_000, 10_000, 100_000}
	sum, sum2 := make([]float64, len(sizes)), make([]float64, len(sizes))
	fppAt, modelSD := make([]float64, len(sizes)), make([]float64, len(sizes))
	dst := make([]byte, 8)
	for range filters {
		f := mustNew(t, Config{})
		base := rng.Uint64()
		next := uint64(0)
		for si, size := range sizes {
			for ; next < size; next++ {
				if err := f.Add(testutil.Key(dst, base+next)); err != nil {
					t.Fatal(err)
				}
			}
			p := f.FillFPP()
			sum[si] += p
			sum2[si] += p * p
			fppAt[si], modelSD[si] = f.FPP(), fillSD(f)
		}
	}
	r := float64(filters)
	for si, size := range sizes {
		mean := sum[si] / r
		sd := math.Sqrt((sum2[si] - r*mean*mean) / (r - 1))
		se := sd / math.Sqrt(r)
		t.Logf("%d keys: mean FillFPP() over %d filters %.5g, FPP() %.5g, %+.3f%% (%+.2f se); sd of FillFPP() %.3g (%.2f%%), fillSD model %.3g",
			size, filters, mean, fppAt[si], 100*(mean/fppAt[si]-1), (mean-fppAt[si])/se, sd, 100*sd/fppAt[si], modelSD[si])
		if math.Abs(mean-fppAt[si]) > 4*se {
			t.Errorf("%d keys: mean FillFPP() %.5g, want FPP() %.5g ± %.3g (4 se)", size, mean, fppAt[si], 4*se)
		}
	}
}

// TestPlan: Config.Plan(n) equals Filters(), MemoryBits() and FPP() of a
// filter after n Adds, exactly, for several Configs at every n up to a
// limit (a few hundred per sub-filter boundary for the large ones).
func TestPlan(t *testing.T) {
	testutil.SkipUnderRace(t)
	for _, tc := range []struct {
		cfg   Config
		limit uint64
		every bool // check every n, else n near each boundary and 97 more
	}{
		{Config{}, 100_000, false},
		{Config{InitialCapacity: 1, FPP: 0.5, Growth: 1, Tightening: 0.5}, 64, true},
		{Config{InitialCapacity: 1, FPP: 0.3, Growth: 1.2, Tightening: 0.9}, 2_000, true},
		{Config{InitialCapacity: 7, FPP: 0.3, Growth: 1.5, Tightening: 0.9}, 5_000, true},
		{Config{InitialCapacity: 100, FPP: 0.01, Growth: 4, Tightening: 0.8}, 50_000, false},
		{Config{InitialCapacity: 1000, FPP: 1e-6, Growth: 1.5, Tightening: 0.75}, 30_000, false},
	} {
		t.Run(fmt.Sprintf("%+v", tc.cfg), func(t *testing.T) {
			f := mustNew(t, tc.cfg)
			check := func() {
				t.Helper()
				p, err := tc.cfg.Plan(f.Len())
				want := Plan{Filters: f.Filters(), Bits: f.MemoryBits(), FPP: f.FPP()}
				if err != nil || p != want {
					t.Fatalf("Plan(%d) = %+v, %v; the filter has %+v", f.Len(), p, err, want)
				}
			}
			check()
			dst := make([]byte, 8)
			checked := 0
			for n := uint64(1); n <= tc.limit; n++ {
				if err := f.Add(testutil.Key(dst, n)); err != nil {
					t.Fatal(err)
				}
				last := &f.subs[len(f.subs)-1]
				if tc.every || last.keys <= 2 || last.capacity-last.keys <= 1 || n%97 == 0 || n == tc.limit {
					check()
					checked++
				}
			}
			t.Logf("%d checks up to %d keys, %d sub-filters", checked+1, tc.limit, f.Filters())
		})
	}
	// The defaults hold 1000 (2^20 - 1) keys in 20 sub-filters, the 21st
	// would pass MaxBits (the package doc's numbers).
	p, err := Config{}.Plan(1_048_575_000)
	if err != nil || p.Filters != 20 || math.Abs(float64(p.Bits)/4.23e10-1) > 0.005 || !(p.FPP < 0.002) {
		t.Errorf("Plan(1,048,575,000) = %+v, %v; want 20 sub-filters, 4.23e10 bits, FPP < 0.002", p, err)
	}
	if _, err := (Config{}).Plan(1_048_575_001); !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), fmt.Sprint("past ", uint64(MaxBits))) {
		t.Errorf("Plan(1,048,575,001) = %v, want ErrFull (past MaxBits)", err)
	}
	t.Logf("defaults full: %+v (%.2f bits a key)", p, float64(p.Bits)/1_048_575_000)
}

// TestBoundOverLifetime fills the default Config's sub-filters one by one,
// in the formula, until the filter is full (MaxBits), and checks FPP() <=
// Bound() with every sub-filter full: the worst point of each stage, as FPP
// grows with the keys.
func TestBoundOverLifetime(t *testing.T) {
	for _, cfg := range []Config{{}, {Tightening: 0.9}, {Growth: 4}, {FPP: 0.01, Tightening: 0.8}} {
		f := &Filter{cfg: cfg.withDefaults()}
		for {
			sh, err := f.next()
			if err != nil {
				break
			}
			f.subs = append(f.subs, sub{shape: sh, keys: sh.capacity}) // the formula needs no words
			f.bits += sh.bits()
			f.n += sh.capacity
			if f.FPP() > f.Bound() {
				t.Errorf("%+v: FPP() = %.6g > Bound() = %.6g with %d full sub-filters", f.cfg, f.FPP(), f.Bound(), len(f.subs))
			}
		}
		t.Logf("%+v: full at %d sub-filters, %d keys, %d bits (%.2f a key); FPP %.6g, bound %.6g",
			f.cfg, len(f.subs), f.n, f.bits, float64(f.bits)/float64(f.n), f.FPP(), f.Bound())
	}
}

// TestRoundingExcess: the integer k_i moves a full sub-filter's formula error
// off its design p_i by at most the factor (2 - 2^(-1/(k-1)))^k / 2 of the
// package doc (9/8 at k = 2), for large n_i; and for P0 = 2^-k exactly by
// nothing but the finite slice.
func TestRoundingExcess(t *testing.T) {
	worst := 0.0
	for l2 := 1.0001; l2 < 30; l2 += 0.01 { // l2 = log2(1/P0)
		p := math.Exp2(-l2)
		sh, err := Config{InitialCapacity: 1 << 24, FPP: p}.withDefaults().shape(0)
		if err != nil {
			t.Fatal(err)
		}
		ratio := fpp(sh.slice, sh.capacity, sh.k) / p
		k := float64(sh.k)
		bound := math.Pow(2-math.Exp2(-1/(k-1)), k) / 2
		if k == 1 {
			bound = 1
		}
		if ratio > bound*1.0001 {
			t.Errorf("P0 = 2^-%.4f: k %d, FPP at capacity / P0 = %.5f > %.5f", l2, sh.k, ratio, bound)
		}
		worst = max(worst, ratio)
	}
	t.Logf("worst FPP at capacity / P0 over log2(1/P0) in (1, 30): %.4f", worst)
	if worst > 9.0/8*1.0001 {
		t.Errorf("worst excess %.4f > 9/8", worst)
	}
}

// TestFPPFormula: the first default sub-filter full, by hand: 1000 probes in
// a slice of 1438 bits leave a fraction (1 - 1/1438)^1000 = 0.498749 at zero,
// and 0.501251^10 = 1.00127e-3.
func TestFPPFormula(t *testing.T) {
	f := mustNew(t, Config{})
	mustAdd(t, f, testutil.Keys(0, 1000))
	if got, want := f.FPP(), 1.00127e-3; math.Abs(got-want)/want > 1e-5 || f.Filters() != 1 {
		t.Fatalf("FPP() with the first sub-filter full = %.6g, want %.6g", got, want)
	}
	// One more key opens sub-filter 1: p = 1 - (1 - 1.00127e-3)(1 - fpp_1(1 key)).
	mustAdd(t, f, testutil.Keys(1000, 1))
	s1 := f.subs[1]
	want := 1 - (1-1.00127e-3)*(1-math.Pow(1/float64(s1.slice), float64(s1.k)))
	if got := f.FPP(); f.Filters() != 2 || math.Abs(got-want)/want > 1e-5 {
		t.Fatalf("FPP() with 1 key in sub-filter 1 = %.6g, want %.6g", got, want)
	}
}

func TestAddFull(t *testing.T) {
	t.Run("MaxFilters", func(t *testing.T) {
		// Capacity 1 a sub-filter: the 65th key needs a 65th sub-filter.
		f := mustNew(t, Config{InitialCapacity: 1, FPP: 0.5, Growth: 1, Tightening: 0.5})
		mustAdd(t, f, testutil.Keys(0, MaxFilters))
		checkFull(t, f, "sub-filters")
	})
	t.Run("MaxBits", func(t *testing.T) {
		f := mustNew(t, Config{InitialCapacity: 1000, Growth: 1e9})
		mustAdd(t, f, testutil.Keys(0, 1000))
		checkFull(t, f, "bits")
	})
	t.Run("underflow", func(t *testing.T) {
		// p_1 = 1e-310 (subnormal, k = 1030), p_2 underflows to zero.
		f := mustNew(t, Config{InitialCapacity: 1, FPP: 1e-10, Growth: 1, Tightening: 1e-300})
		mustAdd(t, f, testutil.Keys(0, 2))
		if f.subs[1].k != 1030 {
			t.Errorf("k_1 = %d, want 1030", f.subs[1].k)
		}
		checkFull(t, f, "underflows")
	})
	t.Run("zero Filter", func(t *testing.T) {
		var f Filter
		if err := f.Add([]byte("x")); !errors.Is(err, ErrConfig) {
			t.Fatalf("Add on a zero Filter = %v, want ErrConfig", err)
		}
		if f.Contains([]byte("x")) {
			t.Fatal("zero Filter contains a key")
		}
	})
}

// checkFull checks that the next Add fails with ErrFull, its message saying
// why, and changes nothing; and that Config.Plan says the same: the filter as
// it is at Len(), ErrFull for why at Len()+1.
func checkFull(t *testing.T, f *Filter, why string) {
	t.Helper()
	before := clone(t, f)
	if p, err := f.Config().Plan(f.Len()); err != nil || p != (Plan{f.Filters(), f.MemoryBits(), f.FPP()}) {
		t.Fatalf("Plan(%d) = %+v, %v; the filter has %d sub-filters, %d bits, FPP %v", f.Len(), p, err, f.Filters(), f.MemoryBits(), f.FPP())
	}
	if _, err := f.Config().Plan(f.Len() + 1); !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), why) {
		t.Fatalf("Plan(%d) = %v, want ErrFull (%s)", f.Len()+1, err, why)
	}
	err := f.Add([]byte("one too many"))
	if !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), why) {
		t.Fatalf("Add at Len %d = %v, want ErrFull (%s)", f.Len(), err, why)
	}
	if !f.Equal(before) {
		t.Fatal("a failed Add changed the filter")
	}
	t.Logf("%d sub-filters, %d keys: %v", f.Filters(), f.Len(), err)
}

// TestContainsBatch: ContainsBatch answers as Contains, in batches of every
// tested size, on members and non-members, 8-byte keys and others.
func TestContainsBatch(t *testing.T) {
	f := mustNew(t, Config{InitialCapacity: 100, FPP: 0.1})
	members := testutil.Keys(0, 5000)
	mustAdd(t, f, members)
	mustAdd(t, f, [][]byte{[]byte("a string key"), {}})
	var queries [][]byte
	for i := range uint64(5000) {
		queries = append(queries, members[i], testutil.Key(make([]byte, 8), 1<<40+i), fmt.Appendf(nil, "key-%d", i))
	}
	queries = append(queries, []byte("a string key"), []byte{})
	want := make([]bool, len(queries))
	fps := 0
	for i, q := range queries {
		want[i] = f.Contains(q)
		if want[i] && i%3 != 0 {
			fps++
		}
	}
	if fps == 0 {
		t.Fatal("no false positives among the queries: the test would not see a batch that drops one")
	}
	for _, size := range []int{1, 7, 64, 65, 1000} {
		t.Run(fmt.Sprintf("batch=%d", size), func(t *testing.T) {
			out := make([]bool, size)
			for lo := 0; lo < len(queries); lo += size {
				batch := queries[lo:min(lo+size, len(queries))]
				f.ContainsBatch(batch, out)
				for i := range batch {
					if out[i] != want[lo+i] {
						t.Fatalf("ContainsBatch: key %q = %v, Contains %v", batch[i], out[i], want[lo+i])
					}
				}
			}
		})
	}
}

// TestNoAllocs: Contains and ContainsBatch never allocate, Add only when it
// adds a sub-filter.
func TestNoAllocs(t *testing.T) {
	f := mustNew(t, Config{})
	mustAdd(t, f, testutil.Keys(0, 5000))
	keys := testutil.Keys(1<<40, 1000)
	out := make([]bool, len(keys))
	key := make([]byte, 8)
	i := uint64(0)
	for name, fn := range map[string]func(){
		"Contains":      func() { f.Contains(keys[i%1000]); i++ },
		"ContainsBatch": func() { f.ContainsBatch(keys, out) },
		"Add":           func() { f.Add(testutil.Key(key, 1<<50+i)); i++ }, // 5000 + 101 keys: within sub-filter 2
	} {
		if a := testing.AllocsPerRun(100, fn); a != 0 {
			t.Errorf("%s: %v allocations a call, want 0", name, a)
		}
	}
	if f.Filters() != 3 {
		t.Fatalf("%d sub-filters, want 3 (the Add loop must not grow the filter)", f.Filters())
	}
}

// TestConcurrentReaders: Contains and ContainsBatch from many goroutines at
// once on a filter nobody writes (run under -race by CI).
func TestConcurrentReaders(t *testing.T) {
	f := mustNew(t, Config{InitialCapacity: 100})
	keys := testutil.Keys(0, 2000)
	mustAdd(t, f, keys)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := make([]bool, len(keys))
			f.ContainsBatch(keys, out)
			for i, key := range keys {
				if !f.Contains(key) || !out[i] {
					t.Errorf("member %x lost under concurrent reads", key)
					return
				}
			}
		}()
	}
	wg.Wait()
}
