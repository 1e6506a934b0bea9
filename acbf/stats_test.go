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
