package multikey

import "math"

// The formulas of a Bloom filter of m bits holding n elements with k hash
// functions. A given bit stays 0 after the kn probes of the insertions with
// probability (1 - 1/m)^(kn) (Bloom 1970; the standard approximation treats
// the bits as independent, which Bose et al., "On the false-positive rate
// of Bloom filters", IPL 2008, show slightly underestimates the rate of
// small filters), so a probe of an absent element hits a one with
// probability
//
//	p1(m, k, n) = 1 - (1 - 1/m)^(kn),
//
// computed here as -expm1(kn log1p(-1/m)), exact to a few ulps for any m
// (1 - 1/m rounds for m near 2^53; the logarithm does not).

// setBit is p1(m, k, n): the probability that a given bit of a filter of m
// bits is one after n insertions of k probes.
func setBit(m uint64, k int, n float64) float64 {
	if m == 0 {
		return 1
	}
	return -math.Expm1(float64(k) * n * math.Log1p(-1/float64(m)))
}

// SeedFPP is seed 001's formula for its d-dimensional filter, d columns of
// m bits each holding n values with k hashes: a tuple of d absent values
// passes when all dk probes hit ones,
//
//	(1 - (1 - 1/m)^(kn))^(dk).
//
// At the seed's m = 10^7, k = 3, n = 10^6, d = 3 it is 5.27e-6 (the number
// the seed prints, which it attributes to m = 10^8: there it is 1.7e-14).
// It is the rate of tuples whose values are all absent; a tuple of present
// values in a new combination passes with probability 1 (package
// documentation).
func SeedFPP(m uint64, k, n int, dims int) float64 {
	return math.Pow(setBit(m, k, float64(n)), float64(dims*k))
}

// CompositeFPP is the false positive rate of one Bloom filter of mBits bits
// over the n tuples with k hashes: (1 - (1 - 1/m)^(kn))^k. It holds for
// every absent tuple, new combinations of present values included.
func CompositeFPP(mBits uint64, k, n int) float64 {
	return math.Pow(setBit(mBits, k, float64(n)), float64(k))
}

// OptimalK is the k that minimises a Bloom filter's rate with m bits for n
// elements, round((m/n) ln 2), at least 1 and at most 64 (filters.MaxK).
func OptimalK(m uint64, n int) int {
	if n <= 0 {
		return 1
	}
	return min(64, max(1, int(math.Round(float64(m)/float64(n)*math.Ln2))))
}

// ExpectedSequential is the expected count of seed 001's experiment, d
// columns of m bits with k hashes, n triples of absent (all-distinct)
// values inserted one by one, each counted when its d values all pass
// before its insertion: element i (from 0) meets columns holding i values,
// so the count is a sum of Bernoulli variables of means
//
//	sum_{i=0}^{n-1} (1 - (1 - 1/m)^(ki))^(dk).
//
// At the seed's size (m = 10^7, k = 3, n = 10^6, d = 3) it is about 0.60
// (the seed measured 3 and the formula 5.27 its n times SeedFPP, the
// rate of a full filter, gives for every element). The count is close to
// Poisson: the means are small and nearly independent. O(n): each term
// is an expm1 and an integer power, summed with Neumaier's compensation
// (relative error about 1e-15 n, far below the 1e-6 asked).
func ExpectedSequential(m uint64, k, n, dims int) float64 {
	return expectedSum(m, k, n, dims*k)
}

// ExpectedSequentialFirstHash is ExpectedSequential of the seed's code as
// printed, whose contain returns after testing its first hash (the return
// True is inside the loop): insertions set k bits, a test reads one, so
//
//	sum_{i=0}^{n-1} (1 - (1 - 1/m)^(ki))^d.
//
// About 4,700 at the seed's size: the printed code cannot have given 3.
func ExpectedSequentialFirstHash(m uint64, k, n, dims int) float64 {
	return expectedSum(m, k, n, dims)
}

// expectedSum is sum_{i=0}^{n-1} p1(m, k, i)^pow.
func expectedSum(m uint64, k, n, pow int) float64 {
	if n <= 0 || pow <= 0 {
		return 0
	}
	if m == 0 {
		return float64(n)
	}
	step := float64(k) * math.Log1p(-1/float64(m))
	var sum, c float64
	for i := 1; i < n; i++ { // term 0 is 0: an empty filter passes nothing
		t := powInt(-math.Expm1(float64(i)*step), pow)
		s := sum + t
		if math.Abs(sum) >= math.Abs(t) {
			c += (sum - s) + t
		} else {
			c += (t - s) + sum
		}
		sum = s
	}
	return sum + c
}

// powInt is x^n for n >= 0 by squaring: exact to about log2(n) ulps.
func powInt(x float64, n int) float64 {
	r := 1.0
	for n > 0 {
		if n&1 == 1 {
			r *= x
		}
		x *= x
		n >>= 1
	}
	return r
}

// PoissonAtLeast is P(X >= x) for X Poisson of the given mean: the chance
// of a count of x or more in the seed's experiment, whose count is close to
// Poisson(ExpectedSequential). 1 for x <= 0. The upper tail is summed
// directly when x is above the mean (no cancellation), else 1 minus the
// lower sum.
func PoissonAtLeast(mean float64, x int) float64 {
	switch {
	case x <= 0:
		return 1
	case mean <= 0:
		return 0
	case float64(x) > mean:
		lg, _ := math.Lgamma(float64(x) + 1)
		term := math.Exp(-mean + float64(x)*math.Log(mean) - lg)
		p := 0.0
		for j := x; term > 1e-18*p || p == 0; j++ {
			p += term
			term *= mean / float64(j+1)
			if term == 0 {
				break
			}
		}
		return min(1, p)
	}
	p, term := 0.0, math.Exp(-mean)
	for j := 0; j < x; j++ {
		p += term
		term *= mean / float64(j+1)
	}
	return max(0, 1-p)
}
