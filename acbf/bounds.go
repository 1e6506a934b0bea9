package acbf

import "math"

// The paper's Equations (8) and (9), rebuilt. Our copy of the paper (Section
// 3.2) kept their words and lost their symbols: "When [k is the optimal
// number], the upper and lower bounds of the first level size are derived as
// follows: (8). Hence, we can derive the upper and lower bounds of the optimal
// false positive probability as (9). Equation (9) shows that the second method
// has a lower false positive probability than the first method with [j <=
// 3]." The reconstruction below [derived] is the only one consistent with
// those words and with the figures the text quotes (Fig. 4(b) at m/n = 20:
// 99.8% and 69.6% below ACBF_2 and ACBF_3; see docs/reproduction.md).

// FirstLevelBounds returns the bounds of Equation (8) [derived] on the
// optimal ACBF's first level, m1 = 4m - nk, for m counters' budget, n keys
// and 1 <= k <= (m/n) ln 2 (at most the Bloom optimum of the CBF's m, the k
// the paper calls optimal):
//
//	(4 - ln 2) m  <=  m1  <=  4m - n
//
// The upper bound is k = 1; the lower bound is k = (m/n) ln 2, where nk = m
// ln 2. The paper's integer optimal k, round((m/n) ln 2), can exceed (m/n) ln
// 2 by up to one half, and m1 then lies up to n/2 below the lower bound (m/n
// = 8: k = 6 > 5.55, m1 = 3.25m < 3.31m). O(1).
func FirstLevelBounds(m, n uint64) (lo, hi float64) {
	return (4 - math.Ln2) * float64(m), 4*float64(m) - float64(n)
}

// OptimalFPPBounds returns the bounds of Equation (9) [derived] on the false
// positive rate of the optimal ACBF at the optimal k = (m/n) ln 2, for a
// budget of m/n CBF counters a key (mn > 0):
//
//	(1 - 2^(-1/4))^((m/n) ln 2)  <  FPP_opt  <=  (1 - 2^(-1/(4 - ln 2)))^((m/n) ln 2)
//
// Substituting k = (m/n) ln 2 into (1 - e^(-kn/m1))^k gives (1 -
// 2^(-m/m1))^((m/n) ln 2), which grows with m/m1; Equation (8) bounds m1
// between (4 - ln 2)m (the upper bound, reached with k exactly (m/n) ln 2) and
// 4m (the lower one, a first level with no counters). ACBF_j at the same k is
// (1 - 2^(-1/j))^((m/n) ln 2): with j = 3 the base is 0.206 against the
// upper bound's 0.189, so the second method beats the first for every j <= 3,
// as the paper's text says (ACBF_4 would be the lower bound, with no room to
// delete). O(1).
func OptimalFPPBounds(mn float64) (lo, hi float64) {
	k := mn * math.Ln2
	return math.Pow(1-math.Exp2(-1.0/4), k), math.Pow(1-math.Exp2(-1/(4-math.Ln2)), k)
}

// FPPJOptimalK is the false positive rate of ACBF_j (m1 = j*m) at k = (m/n)
// ln 2, (1 - 2^(-1/j))^((m/n) ln 2) [derived], the first method's side of
// Equation (9)'s comparison. O(1).
func FPPJOptimalK(j int, mn float64) float64 {
	return math.Pow(1-math.Exp2(-1/float64(j)), mn*math.Ln2)
}
