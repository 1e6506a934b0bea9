package multikey

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/mdbf"
	"github.com/acbfjoin/acbfjoin/tuple"
)

// binomialZ is the z-score of fp successes in trials against rate p.
func binomialZ(fp, trials int64, p float64) float64 {
	return (float64(fp) - float64(trials)*p) / math.Sqrt(float64(trials)*p*(1-p))
}

// TestBloomColumn: the experiments' filter is the bloom kind's, bit for
// bit, where the kind's sizing reaches its m (multiples of 4 bits).
func TestBloomColumn(t *testing.T) {
	keys := testutil.Keys(0, 1000)
	for _, mk := range []struct {
		m uint64
		k int
	}{{10000, 7}, {64, 1}, {32000, 22}} {
		f, err := bloomColumn(mk.m, mk.k, keys)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if _, err := f.(bloomColumnFilter).f.WriteTo(&got); err != nil {
			t.Fatal(err)
		}
		b, err := filters.Build(filters.Bloom, keys, filters.Sizing{BitsPerKey: float64(mk.m) / float64(len(keys))}.With(filters.OptionK, float64(mk.k)))
		if err != nil {
			t.Fatal(err)
		}
		want, err := b.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("m %d k %d: the experiments' filter differs from the bloom kind's %s", mk.m, mk.k, b.Spell())
		}
	}
}

// TestFreshFP: at a small size (n = 20,000, m = 96,000 bits a column, k = 3:
// rates near 1e-3) the per-column layout's false positives over 10^6 fresh
// triples are within 4 binomial sd of SeedFPP, the composite's of
// CompositeFPP, and each within 4 sd of its filters' own fill rate; the
// result does not depend on the goroutines. The six checks are not
// independent, so they are not judged together (testutil.Deviations): the
// layouts answer the same queries, the two per-column layouts are the same
// filters where the optimal k is 3 (as here), and a layout's two z-scores
// share its count.
func TestFreshFP(t *testing.T) {
	seed := testutil.Seed(t)
	// Under the race detector, a tenth of the queries (still on several
	// goroutines, about 100 false positives a layout).
	opt := FreshOptions{Rows: 20000, Bits: 96000, K: 3, Dims: 3, Queries: testutil.RaceSize[int64](1000000, 100000), Seed: seed}
	r, err := FreshFP(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d queries in %v; per-column %d (formula %.4g, z %+.2f), optimal k %v %d (%.4g, %+.2f), composite k %v %d (%.4g, %+.2f)", r.Queries, r.Elapsed,
		r.PerColumn.FP, r.PerColumn.Formula, r.PerColumn.Z, r.PerColumnOptK.K, r.PerColumnOptK.FP, r.PerColumnOptK.Formula, r.PerColumnOptK.Z,
		r.Composite.K, r.Composite.FP, r.Composite.Formula, r.Composite.Z)
	if r.Queries+r.Present != opt.Queries || r.Tuples != opt.Rows || !reflect.DeepEqual(r.Distinct, []int{20000, 20000, 20000}) {
		t.Fatalf("queries %d + present %d, tuples %d, distinct %v", r.Queries, r.Present, r.Tuples, r.Distinct)
	}
	if relErr(r.PerColumn.Formula, SeedFPP(opt.Bits, 3, opt.Rows, 3)) > 1e-12 {
		t.Errorf("per-column formula %g, SeedFPP %g", r.PerColumn.Formula, SeedFPP(opt.Bits, 3, opt.Rows, 3))
	}
	kc := OptimalK(3*opt.Bits, opt.Rows)
	if r.Composite.K[0] != kc || r.Composite.Bits != 3*opt.Bits || relErr(r.Composite.Formula, CompositeFPP(3*opt.Bits, kc, opt.Rows)) > 1e-12 {
		t.Errorf("composite: k %v bits %d formula %g", r.Composite.K, r.Composite.Bits, r.Composite.Formula)
	}
	for _, l := range []Layout{r.PerColumn, r.PerColumnOptK, r.Composite} {
		if math.Abs(l.Z) > 4 {
			t.Errorf("%s: %d false positives in %d, formula %.4g: z %+.2f", l.Name, l.FP, r.Queries, l.Formula, l.Z)
		}
		if z := binomialZ(l.FP, r.Queries, l.Fill); math.Abs(z) > 4 {
			t.Errorf("%s: %d false positives in %d, fill rate %.4g: z %+.2f", l.Name, l.FP, r.Queries, l.Fill, z)
		}
		if l.Combos != 0 {
			t.Errorf("%s: %d new combinations of decimals", l.Name, l.Combos)
		}
	}
	// The same on one goroutine, at fewer queries.
	opt.Queries = testutil.RaceSize[int64](200000, 50000)
	a, err := FreshFP(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	prev := runtime.GOMAXPROCS(1)
	b, err := FreshFP(context.Background(), opt)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	a.Elapsed, b.Elapsed = 0, 0
	if !reflect.DeepEqual(a, b) {
		t.Errorf("GOMAXPROCS %d and 1 differ:\n%+v\n%+v", prev, a, b)
	}
}

// TestFreshFPDomain: with values from 40 integers every value of a column
// is present, so the per-column layouts pass every fresh triple that is not
// an inserted one, each a new combination; inserted ones are excluded.
func TestFreshFPDomain(t *testing.T) {
	seed := testutil.Seed(t)
	r, err := FreshFP(context.Background(), FreshOptions{Rows: 3000, Bits: 30000, K: 3, Dims: 3, Queries: 100000, Seed: seed, Domain: 40})
	if err != nil {
		t.Fatal(err)
	}
	if r.Present == 0 || r.Queries+r.Present != 100000 || r.Tuples >= 3000 || !reflect.DeepEqual(r.Distinct, []int{40, 40, 40}) {
		t.Fatalf("present %d, queries %d, tuples %d, distinct %v", r.Present, r.Queries, r.Tuples, r.Distinct)
	}
	for _, l := range []Layout{r.PerColumn, r.PerColumnOptK} {
		if l.FP != r.Queries || l.Combos != r.Queries {
			t.Errorf("%s: %d false positives, %d new combinations, of %d", l.Name, l.FP, l.Combos, r.Queries)
		}
	}
	if r.Composite.Rate > 0.01 {
		t.Errorf("composite rate %g", r.Composite.Rate)
	}
}

// TestSequential: at a small size (n = 20,000, m = 60,000, k = 3, d = 3:
// about 48.5 expected) the mean count over 8 replicates is within 4 Poisson
// sd of ExpectedSequential, and of ExpectedSequentialFirstHash for the
// printed variant (two checks of the same replicates, so not independent
// ones to judge together); the counts do not depend on the goroutines.
func TestSequential(t *testing.T) {
	seed := testutil.Seed(t)
	opt := SequentialOptions{Rows: 20000, Bits: 60000, K: 3, Dims: 3, Seed: seed, Replicates: 8}
	r, err := Sequential(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("counts %v (mean %.4g, expected %.4g), first probe %v (mean %.5g, expected %.5g), in %v",
		r.Counts, Mean(r.Counts), r.Expected, r.FirstHash, Mean(r.FirstHash), r.ExpectedFirstHash, r.Elapsed)
	for _, v := range []struct {
		name     string
		counts   []int
		expected float64
	}{{"all probes", r.Counts, r.Expected}, {"first probe", r.FirstHash, r.ExpectedFirstHash}} {
		if z := (Mean(v.counts) - v.expected) / math.Sqrt(v.expected/float64(len(v.counts))); math.Abs(z) > 4 {
			t.Errorf("%s: mean %g, expected %g: z %+.2f", v.name, Mean(v.counts), v.expected, z)
		}
	}
	for i := range r.Counts {
		if r.FirstHash[i] < r.Counts[i] {
			t.Errorf("replicate %d: first probe %d below all probes %d", i, r.FirstHash[i], r.Counts[i])
		}
	}
	opt.Replicates = 3
	prev := runtime.GOMAXPROCS(1)
	b, err := Sequential(context.Background(), opt)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.Counts, r.Counts[:3]) || !reflect.DeepEqual(b.FirstHash, r.FirstHash[:3]) {
		t.Errorf("one goroutine: %v %v, want %v %v", b.Counts, b.FirstHash, r.Counts[:3], r.FirstHash[:3])
	}
}

// TestAbsent: on random keys over (int, string, int), Absent's counts are
// those of asking every combination that is not a key of the two filters
// directly; the per-column layout passes all of them, the composite about
// its formula rate.
func TestAbsent(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	types := []tuple.Type{tuple.Int, tuple.String, tuple.Int}
	doms := []int{12, 30, 25}
	seen := map[string]bool{}
	var keys [][]byte
	for range 1500 {
		k := tuple.AppendInt(nil, int64(rng.IntN(doms[0]))-5)
		k = tuple.AppendString(k, fmt.Appendf(nil, "s\x00%d", rng.IntN(doms[1])))
		k = tuple.AppendInt(k, int64(rng.IntN(doms[2])*1000))
		if !seen[string(k)] {
			seen[string(k)] = true
			keys = append(keys, k)
		}
	}
	r, err := Absent(context.Background(), AbsentOptions{Types: types, Keys: keys, Kind: filters.Bloom, Sizing: filters.Sizing{FPP: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	comps, _ := mdbf.DistinctColumns(types, keys)
	var absent, perCol, comp int64
	for _, a := range comps[0] {
		for _, b := range comps[1] {
			for _, c := range comps[2] {
				k := tuple.AppendIntKey(tuple.AppendString(tuple.AppendIntKey(nil, a), b), c)
				if seen[string(k)] {
					continue
				}
				absent++
				if r.PerColumn.Built.Filter.Contains(k) {
					perCol++
				}
				if r.Composite.Built.Filter.Contains(k) {
					comp++
				}
			}
		}
	}
	if r.Absent != absent || r.PerColumn.FP != perCol || r.Composite.FP != comp || r.Keys != len(keys) ||
		r.Combinations != int64(len(comps[0])*len(comps[1])*len(comps[2])) {
		t.Fatalf("Absent: %d absent, %d and %d passed, %d combinations; direct: %d, %d and %d", r.Absent, r.PerColumn.FP, r.Composite.FP, r.Combinations, absent, perCol, comp)
	}
	if perCol != absent {
		t.Errorf("per-column passed %d of %d absent combinations, want all", perCol, absent)
	}
	if z := binomialZ(comp, absent, r.Composite.Built.FPP); math.Abs(z) > 4 {
		t.Errorf("composite: %d of %d, formula %.4g: z %+.2f", comp, absent, r.Composite.Built.FPP, z)
	}
	if _, err := Absent(context.Background(), AbsentOptions{Types: types, Keys: keys, Kind: filters.Bloom, MaxCombinations: 100}); !errors.Is(err, ErrTooMany) {
		t.Errorf("above the bound: %v", err)
	}
	if _, err := Absent(context.Background(), AbsentOptions{Types: types, Keys: append(keys, keys[0]), Kind: filters.Bloom}); !errors.Is(err, mdbf.ErrKeys) {
		t.Errorf("a repeated key: %v", err)
	}
}

// TestCancelled: a cancelled context stops every experiment with its error.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Sequential(ctx, SequentialOptions{Rows: 1000, Bits: 1000, K: 3, Dims: 3}); !errors.Is(err, context.Canceled) {
		t.Errorf("Sequential: %v", err)
	}
	if _, err := FreshFP(ctx, FreshOptions{Rows: 1000, Bits: 1000, K: 3, Dims: 3, Queries: 1000}); !errors.Is(err, context.Canceled) {
		t.Errorf("FreshFP: %v", err)
	}
	keys := [][]byte{tuple.AppendInt(tuple.AppendInt(nil, 1), 2), tuple.AppendInt(tuple.AppendInt(nil, 2), 1)}
	if _, err := Absent(ctx, AbsentOptions{Types: []tuple.Type{tuple.Int, tuple.Int}, Keys: keys, Kind: filters.Bloom}); !errors.Is(err, context.Canceled) {
		t.Errorf("Absent: %v", err)
	}
	for _, opt := range []SequentialOptions{{Rows: 0, Bits: 10, K: 1, Dims: 1}, {Rows: 1, Bits: 0, K: 1, Dims: 1}, {Rows: 1, Bits: 10, K: 0, Dims: 1}, {Rows: 1, Bits: 10, K: 1, Dims: 17}} {
		if _, err := Sequential(context.Background(), opt); err == nil {
			t.Errorf("Sequential(%+v) accepted", opt)
		}
	}
}

// TestAbsentSizing: the default FPP stands only where nothing sizes the
// filters; a kind's options are kept.
func TestAbsentSizing(t *testing.T) {
	k := filters.Sizing{}.With(filters.OptionK, 4)
	if got := AbsentSizing(k); got.FPP != DefaultAbsentFPP || !got.Equal(filters.Sizing{FPP: DefaultAbsentFPP}.With(filters.OptionK, 4)) {
		t.Errorf("AbsentSizing(k=4) = %+v, want FPP %v and k kept", got, DefaultAbsentFPP)
	}
	for _, sz := range []filters.Sizing{{BitsPerKey: 16}, {FPP: 0.001}, {Budget: 1 << 20}} {
		if got := AbsentSizing(sz); !got.Equal(sz) {
			t.Errorf("AbsentSizing(%+v) = %+v, want it unchanged", sz, got)
		}
	}
}
