package choose

import (
	"math"
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
)

var cands = []Candidate{
	{Kind: filters.None, FPP: 1, Deletes: true},
	{Kind: filters.Exact, Bytes: 600_000, ProbeNs: 8, DecodeNs: 2e6},
	{Kind: filters.Bloom, BitsPerKey: 8, Bytes: 65_000, FPP: 0.02, ProbeNs: 6, DecodeNs: 1e5, BuildNs: 2e6},
	{Kind: filters.Bloom, BitsPerKey: 32, Bytes: 263_000, FPP: 2e-7, ProbeNs: 9, DecodeNs: 4e5, BuildNs: 5e6},
	{Kind: filters.ACBF, BitsPerKey: 32, Bytes: 263_000, FPP: 8e-5, ProbeNs: 7, DecodeNs: 3e5, BuildNs: 4e6, Deletes: true},
}

func work(s float64) Workload {
	return Workload{Rows: 16.5e6, Selectivity: s, RowBytes: 40, KeyBytes: 3e6, Mappers: 2, Copies: 2, ParseNs: 90}
}

// TestRankFormula checks one candidate's predicted costs against the model
// written out by hand.
func TestRankFormula(t *testing.T) {
	w := work(0.02)
	ch := Rank(w, DefaultConstants, cands[2:3])[0]
	passed := 16.5e6 * (0.02 + 0.98*0.02)
	if math.Abs(ch.PassedRows-passed) > 1e-6*passed || math.Abs(ch.ShuffleBytes-(3e6+passed*40)) > 1 {
		t.Errorf("passed %v shuffle %v, want %v and %v", ch.PassedRows, ch.ShuffleBytes, passed, 3e6+passed*40)
	}
	want := 2e6 + 1e5*2/2 + 16.5e6*6/2 + passed*DefaultConstants.ShuffleNsPerRecord
	if math.Abs(ch.CostNs-want) > 1e-9*want {
		t.Errorf("cost %v, want %v", ch.CostNs, want)
	}
	wantMap := 16.5e6*(w.ParseNs+6)/2 + passed*DefaultConstants.MapNsPerRecord
	if math.Abs(ch.MapNs-wantMap) > 1e-9*wantMap {
		t.Errorf("map %v, want %v", ch.MapNs, wantMap)
	}
}

// TestRankChoices: low selectivity picks a filter with few false positives,
// almost every row matching picks none, a budget and deletes exclude, and
// excluded candidates come last.
func TestRankChoices(t *testing.T) {
	if got := Rank(work(0.02), DefaultConstants, cands)[0]; got.Kind == filters.None || got.FPP > 0.001 {
		t.Errorf("selectivity 0.02: chose %s at FP %v", got.Kind, got.FPP)
	}
	if got := Rank(work(0.999), DefaultConstants, cands)[0]; got.Kind != filters.None {
		t.Errorf("selectivity 0.999: chose %s, want none (a filter only adds work)", got.Kind)
	}
	w := work(0.02)
	w.Budget = 100_000
	r := Rank(w, DefaultConstants, cands)
	if r[0].Bytes > w.Budget {
		t.Errorf("budget %d: chose %s of %d bytes", w.Budget, r[0].Kind, r[0].Bytes)
	}
	seenExcluded := false
	for _, c := range r {
		if c.Excluded != "" {
			seenExcluded = true
		} else if seenExcluded {
			t.Errorf("an allowed candidate (%s) after an excluded one", c.Kind)
		}
		if (c.Bytes > w.Budget) != (c.Excluded != "") {
			t.Errorf("%s %v bits: %d bytes, excluded %q", c.Kind, c.BitsPerKey, c.Bytes, c.Excluded)
		}
	}
	w = work(0.02)
	w.NeedDeletes = true
	if got := Rank(w, DefaultConstants, cands)[0]; got.Kind != filters.ACBF {
		t.Errorf("deletes needed: chose %s, want acbf (the only deleting filter here)", got.Kind)
	}
}

// TestRankBuild: a filter's build counts. Of two filters that drop the
// same rows, the one whose probes are faster wins while its build costs
// less than its probes save, and loses once it costs more; a build the
// measuring did already (BuildNs 0) costs nothing.
func TestRankBuild(t *testing.T) {
	w := work(0.02)
	w.Rows = 2e6 // 1e6 rows a mapper: a ns a probe is a ms
	slow := Candidate{Kind: filters.Blocked, BitsPerKey: 16, Bytes: 200_000, FPP: 1e-3, ProbeNs: 20, BuildNs: 2e6}
	fast := Candidate{Kind: filters.Fuse, BitsPerKey: 16, Bytes: 200_000, FPP: 1e-3, ProbeNs: 12}
	for _, c := range []struct {
		buildNs float64
		want    filters.Kind
	}{{0, filters.Fuse}, {9e6, filters.Fuse}, {11e6, filters.Blocked}, {40e6, filters.Blocked}} {
		fast.BuildNs = c.buildNs
		if got := Rank(w, DefaultConstants, []Candidate{slow, fast})[0]; got.Kind != c.want {
			t.Errorf("fuse built in %v ms (probes 8 ms faster, blocked built in 2): chose %s, want %s", c.buildNs/1e6, got.Kind, c.want)
		}
	}
}

// TestSized: every kind auto weighs sizes at the bits it accepts, and the
// formula rate falls as the bits grow.
func TestSized(t *testing.T) {
	for _, k := range Kinds {
		sp, err := filters.Lookup(string(k))
		if err != nil {
			t.Fatal(err)
		}
		if !sp.Sized {
			continue
		}
		ps, bpks, fpps, err := Sized(k, 65_771)
		if err != nil || len(ps) == 0 || len(ps) != len(bpks) || len(ps) != len(fpps) {
			t.Fatalf("%s: %d sizes, %v", k, len(ps), err)
		}
		prev := 2.0
		for i, p := range ps {
			f := sp.FPP(p, 65_771)
			if f != fpps[i] && (k != filters.Blocked || math.Abs(fpps[i]/f-1) > 0.01) { // the blocked table: within 1%
				t.Errorf("%s at %v bits: Sized's rate %v, the formula's %v", k, bpks[i], fpps[i], f)
			}
			if f > prev {
				t.Errorf("%s at %v bits: FP %v above the smaller size's %v", k, bpks[i], f, prev)
			}
			prev = f
		}
	}
}

// TestSpeedFactor: the factor is the hash time over the reference's,
// within 0.5 and 4, and 1 for a time that is no time (zero, negative,
// NaN); Scaled multiplies both constants by it.
func TestSpeedFactor(t *testing.T) {
	for _, c := range []struct{ ns, want float64 }{
		{ReferenceHashNs, 1}, {2 * ReferenceHashNs, 2}, {ReferenceHashNs / 1.6, 0.625},
		{100 * ReferenceHashNs, 4}, {ReferenceHashNs / 100, 0.5},
		{0, 1}, {-1, 1}, {math.NaN(), 1}, {math.Inf(1), 4},
	} {
		if got := SpeedFactor(c.ns); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("SpeedFactor(%v) = %v, want %v", c.ns, got, c.want)
		}
	}
	s := DefaultConstants.Scaled(2.5)
	if s.ShuffleNsPerRecord != 2.5*DefaultConstants.ShuffleNsPerRecord || s.MapNsPerRecord != 2.5*DefaultConstants.MapNsPerRecord {
		t.Errorf("Scaled(2.5) = %+v, from %+v", s, DefaultConstants)
	}
}
