package repro

import (
	"math"
	"sort"
)

// The paper's Table 1 pair: ACBF_opt against the CBF, false positive rate
// -72.3% and map output records -33.9% (Section 4.3). Its m and k are lost.
const (
	paperFPChange  = -0.723
	paperMapChange = -0.339
)

// Table1Sizing is one sizing of Table 1's filters and the changes the
// formula predicts for it: m/n CBF counters per key held (the filters get
// 4m bits), k hash functions for both, and an ACBF whose counters keep room
// for Capacity times the keys held (its first level is 4m - Capacity*n*k).
type Table1Sizing struct {
	MN       float64 // CBF counters per key held
	K        int
	Capacity float64 // the ACBF's capacity over the keys held, >= 1
	// FPCBF and FPACBF are the formula false positive rates; FPChange and
	// MapChange ACBF's predicted relative changes against the CBF.
	FPCBF, FPACBF       float64
	FPChange, MapChange float64
	// Misfit is the larger relative miss of the two changes against the
	// paper's: max(|FPChange/-0.723 - 1|, |MapChange/-0.339 - 1|).
	Misfit float64
}

// SearchTable1Sizing returns the sizings of a grid that give both of the
// paper's Table 1 changes under the formula, best first: m/n from 2 to 32 in
// steps of 0.5, k either 3 or round((m/n) ln 2) (the two values the paper
// uses in every figure), capacity from 1 to the most the budget holds in
// steps of 0.05. matched and unmatched are the large side's rows whose key
// is and is not in the key set: a filter passes all matched rows and the
// false positive rate of the unmatched ones, so map outputs are matched +
// FP * unmatched (the paper counts the large side's map outputs the same
// way, we infer). Sizings whose misfit exceeds maxMisfit are left out. The
// grid has about 10^5 points; O(grid).
func SearchTable1Sizing(matched, unmatched int64, maxMisfit float64) []Table1Sizing {
	var out []Table1Sizing
	t, u := float64(matched), float64(unmatched)
	for mn := 2.0; mn <= 32; mn += 0.5 {
		ks := []int{3}
		if ko := int(math.Round(mn * math.Ln2)); ko != 3 {
			ks = append(ks, ko)
		}
		for _, k := range ks {
			kf := float64(k)
			fc := math.Pow(-math.Expm1(-kf/mn), kf) // CBF: (1 - e^(-kn/m))^k
			for i := 0; ; i++ {
				c := 1 + 0.05*float64(i)
				m1 := 4*mn - c*kf // first level bits per key held
				if m1 <= 0 {
					break
				}
				fa := math.Pow(-math.Expm1(-kf/m1), kf) // ACBF: (1 - e^(-kn/m1))^k
				s := Table1Sizing{MN: mn, K: k, Capacity: math.Round(c*100) / 100, FPCBF: fc, FPACBF: fa,
					FPChange: fa/fc - 1, MapChange: (fa - fc) * u / (t + fc*u)}
				s.Misfit = max(math.Abs(s.FPChange/paperFPChange-1), math.Abs(s.MapChange/paperMapChange-1))
				if s.Misfit <= maxMisfit {
					out = append(out, s)
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Misfit < out[j].Misfit })
	return out
}
