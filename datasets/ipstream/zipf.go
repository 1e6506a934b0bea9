package ipstream

import (
	"math"
	"math/rand/v2"
)

// Zipf draws k in 1..n with P(k) = k^-s / H(n, s) for any s > 0, by
// rejection-inversion (W. Hörmann and G. Derflinger, "Rejection-inversion to
// generate variates from monotone discrete distributions", ACM TOMACS 6(3),
// 1996), in the form of Apache Commons Math's ZipfDistribution sampler
// (which, unlike math/rand/v2's Zipf, allows s <= 1 on a finite domain).
//
// With h(x) = x^-s and its integral H(x) = (x^(1-s) - 1)/(1-s) (log x for s
// = 1), a uniform u on (H(1.5) - 1, H(n + 0.5)] is inverted, x = H^-1(u),
// and k = round(x) is accepted when k - x <= c (a constant that makes the
// accept region cover all of [k - 1/2, k + 1/2] but for k = 1) or when u >=
// H(k + 1/2) - h(k); the rejected mass is small (the hat exceeds h only near
// k = 1), so the expected number of tries is close to 1, and the cost O(1)
// in n: a few log and exp calls a draw. Memory O(1). Not
// safe for concurrent use (it holds its generator).
type Zipf struct {
	rng      *rand.Rand
	s        float64 // the exponent
	n        float64 // the domain size, as a float
	hx1      float64 // H(1.5) - 1
	hn       float64 // H(n + 0.5)
	c        float64 // 2 - H^-1(H(2.5) - h(2))
	nMinus1  uint64
	oneMinus float64 // 1 - s
}

// NewZipf returns a sampler of Zipf(s) on 1..n drawing from rng (s > 0, n
// >= 1; Options.check validates them for Write).
func NewZipf(rng *rand.Rand, s float64, n uint64) *Zipf {
	z := &Zipf{rng: rng, s: s, n: float64(n), nMinus1: n - 1, oneMinus: 1 - s}
	z.hx1 = z.hIntegral(1.5) - 1
	z.hn = z.hIntegral(z.n + 0.5)
	z.c = 2 - z.hIntegralInverse(z.hIntegral(2.5)-z.h(2))
	return z
}

// Next returns the next draw, in 1..n.
func (z *Zipf) Next() uint64 {
	for {
		// u is uniform on (hx1, hn]: Float64 is in [0, 1).
		u := z.hn + z.rng.Float64()*(z.hx1-z.hn)
		x := z.hIntegralInverse(u)
		kf := math.Floor(x + 0.5)
		var k uint64
		switch {
		case !(kf >= 1): // also NaN, never expected
			k = 1
		case kf > z.n:
			k = z.nMinus1 + 1
		default:
			k = uint64(kf)
		}
		if float64(k)-x <= z.c || u >= z.hIntegral(float64(k)+0.5)-z.h(float64(k)) {
			return k
		}
	}
}

// h is x^-s.
func (z *Zipf) h(x float64) float64 { return math.Exp(-z.s * math.Log(x)) }

// hIntegral is H(x) = (x^(1-s) - 1)/(1-s), written as log(x) *
// expm1((1-s) log x)/((1-s) log x) so that it is exact near s = 1.
func (z *Zipf) hIntegral(x float64) float64 {
	lx := math.Log(x)
	return helper2(z.oneMinus*lx) * lx
}

// hIntegralInverse is H^-1(y) = (1 + (1-s) y)^(1/(1-s)) = exp(y *
// log1p(t)/t) with t = (1-s) y, again exact near s = 1.
func (z *Zipf) hIntegralInverse(y float64) float64 {
	t := y * z.oneMinus
	if t < -1 { // only by rounding: H^-1 is defined for t >= -1
		t = -1
	}
	return math.Exp(helper1(t) * y)
}

// helper1 is log1p(x)/x, by its Taylor series near 0.
func helper1(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(1.0/2-x*(1.0/3-x*(1.0/4)))
}

// helper2 is expm1(x)/x, by its Taylor series near 0.
func helper2(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*(1.0/2)*(1+x*(1.0/3)*(1+x*(1.0/4)))
}
