package acbf

import (
	"fmt"
	"math"
	"testing"

	"github.com/acbfjoin/acbfjoin/cbf"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestFalsePositiveRate measures the false positive rate of CBF, ACBF_1,
// ACBF_2, ACBF_3 and ACBF_opt on non-member probes and checks it lies within 4
// binomial standard deviations of the formula, sqrt(p(1-p)/N) with N probes.
// The filter holds n = 100,000 keys; the key sets are fixed (not random), so the
// test is deterministic. Under -short only m/n = 8, k = 3 runs, with fewer probes.
func TestFalsePositiveRate(t *testing.T) {
	const n = 100_000
	probes := 1_000_000
	ratios := []uint64{8, 12, 20}
	if testing.Short() {
		probes = 200_000
		ratios = ratios[:1]
	}
	members := testutil.Keys(0, n)
	var key [8]byte
	for _, mn := range ratios {
		kOpt := int(math.Round(float64(mn) * math.Ln2))
		ks := []int{3, kOpt}
		if testing.Short() {
			ks = ks[:1]
		}
		for _, k := range ks {
			m := mn * n
			type variant struct {
				name     string
				contains func([]byte) bool
				formula  float64
			}
			c, err := cbf.New(m, k)
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range members {
				c.Add(key)
			}
			vs := []variant{{"CBF", c.Contains, cbf.FPP(m, n, k)}}
			for _, cfg := range []struct {
				name string
				cfg  Config
			}{
				{"ACBF_1", ConfigJ(1, m, n, k)}, {"ACBF_2", ConfigJ(2, m, n, k)},
				{"ACBF_3", ConfigJ(3, m, n, k)}, {"ACBF_opt", ConfigOptimal(m, n, k)},
			} {
				f, err := Build(cfg.cfg, members)
				if err != nil {
					t.Fatalf("%s m/n=%d k=%d: %v", cfg.name, mn, k, err)
				}
				vs = append(vs, variant{cfg.name, f.Contains, cfg.cfg.FPP()})
			}
			for _, v := range vs {
				t.Run(fmt.Sprintf("%s/mn=%d/k=%d", v.name, mn, k), func(t *testing.T) {
					fp := 0
					for i := 0; i < probes; i++ {
						if v.contains(testutil.Key(key[:], 1<<40+uint64(i))) {
							fp++
						}
					}
					got := float64(fp) / float64(probes)
					sd := math.Sqrt(v.formula * (1 - v.formula) / float64(probes))
					t.Logf("measured %.4g (%d of %d), formula %.4g, %.2f sd", got, fp, probes, v.formula, (got-v.formula)/sd)
					if math.Abs(got-v.formula) > 4*sd+1/float64(probes) {
						t.Errorf("measured FP %.4g, formula %.4g: more than 4 sd (%.3g) apart", got, v.formula, sd)
					}
				})
			}
		}
	}
}

// TestFillFPP: FillFPP counts the ones of the first level as reading every
// bit does, and one filter's measured false positive rate on 400,000
// non-keys is within 4 binomial sd of it.
func TestFillFPP(t *testing.T) {
	testutil.SkipUnderRace(t)
	const n = 10000
	keys := testutil.Keys(0, n)
	for _, cfg := range []Config{ConfigOptimal(30000, n, 2), ConfigJ(1, 80000, n, 6), ConfigJ(3, 40000, n, 3)} {
		f, err := Build(cfg, keys)
		if err != nil {
			t.Fatal(err)
		}
		ones := 0
		for i := uint64(0); i < f.m1; i++ {
			if getBit(f.b1, i) {
				ones++
			}
		}
		want := math.Pow(float64(ones)/float64(f.m1), float64(f.k))
		if got := f.FillFPP(); got != want {
			t.Fatalf("%+v: FillFPP %v, direct count %v", cfg, got, want)
		}
		const q = 400000
		fp := 0
		for _, key := range testutil.Keys(1<<40, q) {
			if f.Contains(key) {
				fp++
			}
		}
		got, sd := float64(fp)/q, math.Sqrt(want*(1-want)/q)
		t.Logf("m=%d m1=%d k=%d: measured %.5f, FillFPP %.5f (%+.2f sd), FPP %.5f", cfg.Counters, f.m1, f.k, got, want, (got-want)/sd, f.FPP())
		if math.Abs(got-want) > 4*sd {
			t.Errorf("%+v: measured FP %.5f, FillFPP %.5f: %.1f sd", cfg, got, want, (got-want)/sd)
		}
	}
}
