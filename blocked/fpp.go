package blocked

import (
	"math"
	"math/bits"
)

// The false positive model. See the package documentation for the formulas;
// this file computes
//
//	FPP = sum_x P(X = x) * q(k*x),   X ~ Binomial(n, 1/B),
//	q(t) = E[(S_t/512)^k],           S_t = set bits after t uniform probes,
//
// with the distribution of S_t from the occupancy chain
//
//	P(S_{t+1} = s) = P(S_t = s) * s/512 + P(S_t = s-1) * (512-s+1)/512.
//
// Every term is a sum of non-negative products: nothing cancels, so the
// result has a relative error of a few ulps times the number of steps, plus
// the truncation below.

// saturation is the number of probes into one block from which q(t) counts as
// 1: after t probes the expected number of clear bits is 512(1-1/512)^t,
// 7e-19 at t = 24576, and a query meets a clear bit with at most k/512 times
// that, so 1 - q(t) < k * 1.4e-21. Capping t here bounds the work of FPP.
const saturation = 48 * BlockBits

// tailEps bounds, relative to the mass summed, each binomial tail that FPP
// leaves out.
const tailEps = 1e-18

// FPP returns the false positive probability of a blocked filter with bits bits
// (rounded up to whole blocks, as New does), n keys and k probes per key: the
// probability that Contains reports true for a key that was not added, with
// the hash taken as random. It is higher than the classic Bloom filter's
// (1-e^(-kn/m))^k at the same m, n and k whenever k = OptimalK, and for every
// k from 6 bits per key up; only in an overfilled filter (a large k at a few
// bits per key, most bits set) can it be a little lower. See the package
// documentation.
//
// The sum over block loads is taken from the most likely load outward and
// stops when the geometric bound on each remaining tail is below 1e-18 of the
// probability summed; a block that receives 24576 probes or more counts as
// full (1 - q < k * 1.4e-21). The result is exact to about 1e-12 relative
// (rounding in the chain; TestOccupancyAgainstReference), or 1e-18 absolute
// for tiny values. Cost: O(512 * min(24576, k*(n/B + 10 sqrt(n/B)))) where B
// = bits/512, 0.3 ms at 10 bits per key; it allocates about 10 KiB.
func FPP(bits, n uint64, k int) float64 {
	if n == 0 {
		return 0 // no bit is set
	}
	if k < 1 {
		return 1 // no probe to fail
	}
	blocks := bits / BlockBits
	if bits%BlockBits != 0 || blocks == 0 {
		blocks++
	}
	nf, bf, kf := float64(n), float64(blocks), float64(k)
	// When even a load 12 sqrt(mean) below the mean saturates its block, every
	// load that matters does: by Chernoff the lighter loads have probability
	// below exp(-72) = 5e-32.
	if mu := nf / bf; kf*(mu-12*math.Sqrt(mu)) >= saturation {
		return 1
	}
	lo, w := loadWeights(nf, bf)
	o := newOccupancy(k)
	var sum, total float64
	for i, wi := range w {
		sum += wi * o.q(kf*(lo+float64(i)))
		total += wi
	}
	// q <= 1 and the weights sum to total, but the occupancy chain does not
	// conserve its mass exactly: in a nearly full block q can round to a few
	// ulps above 1, which would make a probability above 1 (and, through
	// OptimalK, prefer k = 2 to k = 1 in an overfilled filter).
	return min(sum/total, 1)
}

// FillFPP returns the false positive rate of this filter as it is: the
// probability that Contains reports true for a key that was not added, given
// the bits the filter holds, with the query's hash taken as random. A query
// picks a block b uniformly (hashing.Reduce of a random h1; the bias is below
// 2^-64 relative) and makes k probes into it that are uniform over its 512
// bits, independent and drawn with replacement: probes 0..6 are disjoint
// 9-bit slices of h2, probes from 7 on slices of splitmix64 remixes of h2 (see
// the layout comment in blocked.go). Those are functions of h2 (given probes
// 0..6 only bit 63 of h2 is left), but what the rate needs is that the share
// of h2 values whose k probes all fall in a given set of s bits be (s/512)^k,
// and that holds, as for a good hash, for any set not built from the remix
// itself (TestProbeUniformity; TestFalsePositiveRate measures k = 12 and 16).
// The rate is therefore exactly
//
//	FillFPP = (1/B) sum_b (ones_b/512)^k,
//
// with ones_b the set bits of block b, and the share of N non-members that
// Contains reports lies within the binomial spread sqrt(FillFPP(1-FillFPP)/N)
// of it.
//
// FPP() is another quantity: the mean of FillFPP over random sets of Len()
// keys, what a filter of this size is expected to give before its keys are
// known. The two differ for one filter because its block loads and fills are
// one draw: FillFPP varies from filter to filter around FPP with variance
//
//	Var(g_1)/B + (B-1)/B * Cov(g_1, g_2),   g_b = (ones_b/512)^k,
//
// the covariance negative (the loads sum to Len) and taking a large part of
// the first term away. At 10 bits per key and k = 6 its standard deviation is
// 0.54% of FPP at 10^5 keys and 0.17% at 10^6: 1.7 times the binomial spread
// of a measurement of 10^7 queries at 10^5 keys, and half of it at 10^6. So a
// measured rate is to be compared with FillFPP, and with FPP only within both
// spreads together (TestFalsePositiveRate; TestFillFPPMean checks the mean and
// the variance over many small filters). FillFPP is also the rate of a filter
// that was given repeated or adversarial keys, where FPP assumes Len distinct
// random ones.
//
// O(m/64): a population count of every word; no allocation. It only reads,
// and is as safe for concurrent callers as Contains. The zero Filter gives 0.
func (f *Filter) FillFPP() float64 {
	if f.blocks == 0 || len(f.words) == 0 {
		return 0 // the zero Filter: no bits, no keys
	}
	// A histogram of the blocks by their number of set bits, then one power
	// a distinct count: exact integer counts and at most 513 float terms.
	var hist [BlockBits + 1]uint64
	w := f.words
	for i := 0; i+wordsPerBlock <= len(w); i += wordsPerBlock {
		b := (*[wordsPerBlock]uint64)(w[i:])
		ones := bits.OnesCount64(b[0]) + bits.OnesCount64(b[1]) + bits.OnesCount64(b[2]) + bits.OnesCount64(b[3]) +
			bits.OnesCount64(b[4]) + bits.OnesCount64(b[5]) + bits.OnesCount64(b[6]) + bits.OnesCount64(b[7])
		hist[ones]++
	}
	var sum float64
	for s := 1; s <= BlockBits; s++ {
		if c := hist[s]; c != 0 {
			sum += float64(c) * math.Pow(float64(s)/BlockBits, float64(f.k))
		}
	}
	return sum / float64(len(w)/wordsPerBlock)
}

// loadWeights returns the probabilities of the loads lo, lo+1, ... of one
// block, X ~ Binomial(n, 1/blocks), up to a common factor (the most likely
// load has weight 1), leaving out each tail once its geometric bound falls
// below tailEps of the weight summed. The binomial is exact for keys that
// pick their block uniformly and independently (Reduce of a random h1); its
// Poisson limit with mean n/blocks is what Putze et al. use, and the two
// differ only when blocks is small. Successive weights come from the ratio
// P(x+1)/P(x) = (n-x)/(x+1) * p/(1-p), which falls as x grows (the binomial
// is log-concave): past the mode, a tail that starts with weight w and ratio
// r sums to at most w*r/(1-r).
func loadWeights(n, blocks float64) (lo float64, w []float64) {
	if blocks == 1 {
		return n, []float64{1} // every key is in the one block
	}
	p := 1 / blocks
	odds := p / (1 - p)
	mode := min(math.Floor((n+1)*p), n)
	total := 1.0
	var down, up []float64
	for x, wx := mode, 1.0; x > 0; x-- {
		r := x / (n - x + 1) / odds // P(x-1)/P(x)
		if r < 1 && wx*r/(1-r) < tailEps*total {
			break
		}
		wx *= r
		down = append(down, wx)
		total += wx
	}
	for x, wx := mode, 1.0; x < n; x++ {
		r := (n - x) / (x + 1) * odds // P(x+1)/P(x)
		if r < 1 && wx*r/(1-r) < tailEps*total {
			break
		}
		wx *= r
		up = append(up, wx)
		total += wx
	}
	w = make([]float64, 0, len(down)+1+len(up))
	for i := len(down) - 1; i >= 0; i-- {
		w = append(w, down[i])
	}
	w = append(w, 1)
	w = append(w, up...)
	return mode - float64(len(down)), w
}

// occupancy is the distribution of the number of set bits of one block as
// probes fall into it one at a time, and the query probability q at each
// point.
type occupancy struct {
	t      int                    // probes so far
	lo, hi int                    // p[s] is zero outside lo..hi
	p      [BlockBits + 1]float64 // p[s] = P(s bits set after t probes)
	pow    [BlockBits + 1]float64 // (s/512)^k: a query's k probes all hit the s set bits
}

func newOccupancy(k int) *occupancy {
	o := &occupancy{}
	o.p[0] = 1
	for s := range o.pow {
		o.pow[s] = math.Pow(float64(s)/BlockBits, float64(k))
	}
	return o
}

// q returns E[(S_t/512)^k], the probability that the k probes of a query all
// land on set bits of a block that received t probes. Calls must come with
// t non-decreasing (the chain only moves forward). q is 1 (to 1e-20) from
// saturation probes on.
func (o *occupancy) q(t float64) float64 {
	if t >= saturation {
		return 1
	}
	for ; o.t < int(t); o.t++ {
		// One more probe: from s set bits it hits a set bit with probability
		// s/512 (stays at s) or a clear one (moves to s+1). Descending s
		// reads p[s-1] before it is updated.
		o.hi = min(o.hi+1, BlockBits)
		for s := o.hi; s > o.lo; s-- {
			o.p[s] = o.p[s]*float64(s)/BlockBits + o.p[s-1]*float64(BlockBits-s+1)/BlockBits
		}
		o.p[o.lo] *= float64(o.lo) / BlockBits
		// Drop the vanishing low states before they become subnormal (slow
		// arithmetic, and far below any probability this returns).
		for o.lo < o.hi && o.p[o.lo] < 1e-290 {
			o.p[o.lo] = 0
			o.lo++
		}
	}
	var e float64
	for s := o.lo; s <= o.hi; s++ {
		e += o.p[s] * o.pow[s]
	}
	return min(e, 1) // the chain's rounding can leave its mass a few ulps above 1
}

// OptimalK returns the k in 1..MaxK that minimises FPP for a large filter
// with bitsPerKey bits per key (2^20 blocks; the best k depends on the
// density only). It searches from the classic optimum round(bitsPerKey*ln 2)
// (clamped to 1..MaxK) downhill in k: FPP is unimodal in k. The blocked
// filter's best k is the classic one up to 6 bits per key and then falls
// behind it: 5 against 6 at 8 bits per key, 6 against 7 at 10, 9 against 11
// at 16. A density that is not positive gives 1, +Inf gives MaxK. A few
// FPP evaluations, about a millisecond; a table lookup within 0.05 of a
// whole number of bits per key from 1 to 64 (a filter rounded up to whole
// blocks lands just above the density asked: by at most 512/n, within the
// slack from 10,240 keys).
func OptimalK(bitsPerKey float64) int {
	if b := math.Round(bitsPerKey); math.Abs(bitsPerKey-b) <= optimalKSlack && b >= 1 && b <= float64(len(optimalKWhole)) {
		return int(optimalKWhole[int(b)-1])
	}
	return optimalKSearch(bitsPerKey)
}

// optimalKSlack is how far from a whole density the table answers; the
// search gives the table's k at both ends of every such interval
// (TestOptimalKTable), and the best k does not fall as the density grows.
// At 0.1 it would not: the search's k at 10.1 bits is 7, at 10 it is 6.
const optimalKSlack = 0.05

// FPPWhole is FPP for a filter whose density is a whole number of bits per
// key b from 1 to 64 but for the rounding up to whole blocks (bits/n within
// 512/n of b), with k = OptimalK(b), and n of at least 65,536 keys: a table
// lookup within 1% of FPP (TestFPPWhole compares them from 65,536 to 16
// million keys), where FPP costs about a millisecond. Other arguments give
// FPP itself. For rankings that weigh many sizes (`join run --filter auto`);
// a built filter's rate is FPP's.
func FPPWhole(bits, n uint64, k int) float64 {
	if n >= 1<<16 {
		d := float64(bits) / float64(n)
		b := math.Floor(d)
		if d-b <= BlockBits/float64(n) && b >= 1 && b <= float64(len(fppWhole)) && k == OptimalK(b) {
			return fppWhole[int(b)-1]
		}
	}
	return FPP(bits, n, k)
}

// fppWhole is FPP at 1..64 bits per key and OptimalK, over 2^20 blocks
// (TestFPPWhole recomputes it).
var fppWhole = [64]float64{
	0.632121, 0.393469, 0.237269, 0.148116, 0.0930625, 0.0577424, 0.036613, 0.0232634,
	0.0148574, 0.00966475, 0.0062506, 0.00413492, 0.00272553, 0.00183501, 0.00123224, 0.000843913,
	0.000577797, 0.000401396, 0.000280982, 0.000197832, 0.000141269, 0.000101007, 7.29385e-05, 5.32983e-05,
	3.89707e-05, 2.87521e-05, 2.14286e-05, 1.6032e-05, 1.20499e-05, 9.13635e-06, 6.98489e-06, 5.34362e-06,
	4.11355e-06, 3.1897e-06, 2.4905e-06, 1.94844e-06, 1.53016e-06, 1.20905e-06, 9.60952e-07, 7.68057e-07,
	6.1719e-07, 4.98517e-07, 4.04656e-07, 3.30027e-07, 2.7039e-07, 2.22501e-07, 1.83865e-07, 1.52555e-07,
	1.2707e-07, 1.06241e-07, 8.91484e-08, 7.50672e-08, 6.34234e-08, 5.37602e-08, 4.57128e-08, 3.89881e-08,
	3.33504e-08, 2.86091e-08, 2.46094e-08, 2.12253e-08, 1.83538e-08, 1.59105e-08, 1.38258e-08, 1.20426e-08,
}

// optimalKWhole is OptimalK at 1..64 bits per key, as optimalKSearch gives
// it (TestOptimalKTable recomputes every entry): `join run --filter auto`
// sizes the blocked filter at nine whole densities, which cost 14 ms of FPP
// evaluations before.
var optimalKWhole = [64]uint8{1, 1, 2, 3, 3, 4, 5, 5, 6, 6, 7, 8, 8, 9, 9, 9, 10, 10, 11, 11, 11, 12, 12, 12, 13, 13, 13, 14, 14, 14, 14, 15,
	15, 15, 15, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16}

// optimalKSearch is OptimalK's search.
func optimalKSearch(bitsPerKey float64) int {
	if !(bitsPerKey > 0) {
		return 1
	}
	const bits = 1 << 20 * BlockBits
	n := uint64(max(1, min(math.Round(bits/bitsPerKey), 1<<62)))
	k := int(max(1, min(math.Round(bitsPerKey*math.Ln2), MaxK)))
	best := FPP(bits, n, k)
	for _, step := range []int{-1, 1} {
		moved := false
		for k+step >= 1 && k+step <= MaxK {
			v := FPP(bits, n, k+step)
			if !(v < best) {
				break
			}
			k, best, moved = k+step, v, true
		}
		if moved {
			break
		}
	}
	return k
}
