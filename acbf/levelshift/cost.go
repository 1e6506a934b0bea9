package levelshift

import "math"

// ExpectedOps is the paper's Equation (2) rebuilt [derived]: the expected work
// of one update of a whole-level ACBF with a first level of m1 bits holding
// n keys with k hash functions, as Ops counts it, averaged over one Add of a
// new key and one Remove of a member (Figure 7's "update").
//
// Our copy lost the equation's symbols and kept its words: the cost of an
// insertion or deletion is the average counter value c̄ times the average
// popcount cost p̄ (a popcount and a read per level walked), plus a write and
// a shift per counter, against the CBF's k reads and writes; "p̄ is dominated
// by the word lengths of the levels". Rebuilt per hash position:
//
//	rank bits  = sum over the levels walked of the index ranked, which is
//	             uniform in its level: m1/2 for B1, L_j/2 below it
//	shift bits = the tail of the level a bit is inserted into or removed
//	             from: L_j/2
//
// where L_1 = m1 and L_(j+1) = m1 P(C >= j), the number of first-level
// positions whose counter C reaches j; C is Poisson with mean nk/m1 at a
// position a new key hashes to, and one plus that (size-biased) at a
// member's. An Add walks levels 1..c+1 and shifts level c+2; a Remove walks
// 1..c and shifts level c+1. Both are dominated by k ranks of B1, k*m1/2 bits
// each: the update cost grows with the first level, which is exactly what
// the optimal ACBF maximises, and this is why the paper's updates took
// milliseconds. O(levels), about 20 terms.
func ExpectedOps(m1, n uint64, k int) (rankBits, shiftBits float64) {
	if m1 == 0 || k < 1 {
		return 0, 0
	}
	M := float64(m1)
	lambda := float64(n) * float64(k) / M
	// Counters beyond lambda + 10 sqrt(lambda) + 20 have no mass worth
	// a term.
	depth := int(lambda+10*math.Sqrt(lambda)) + 20
	pmf := make([]float64, depth+2) // P(C = c), Poisson(lambda)
	pmf[0] = math.Exp(-lambda)
	for c := 1; c < len(pmf); c++ {
		pmf[c] = pmf[c-1] * lambda / float64(c)
	}
	level := make([]float64, depth+3) // level[j] = L_j, j >= 1
	tail := 1.0                       // P(C >= j-1)
	level[1] = M
	for j := 2; j < len(level); j++ {
		tail -= pmf[j-2]
		level[j] = M * max(tail, 0)
	}
	// An Add at a counter of c ranks levels 1..c+1 and shifts level c+2. A
	// Remove at a member's counter, c+1 with probability P(C = c) (the
	// other keys' share), ranks the same levels and shifts the same one:
	// insertion and deletion cost the same, as the paper says.
	for c := 0; c < depth; c++ {
		r := M / 2
		for j := 2; j <= c+1; j++ {
			r += level[j] / 2
		}
		rankBits += pmf[c] * r
		shiftBits += pmf[c] * level[c+2] / 2
	}
	return float64(k) * rankBits, float64(k) * shiftBits
}
