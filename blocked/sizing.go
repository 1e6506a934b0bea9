package blocked

import "math"

// maxBlocks is the number of blocks of MaxBits.
const maxBlocks = MaxBits / BlockBits

// BitsFor returns the least number of bits, a whole number of blocks (a
// multiple of BlockBits), at which a filter of n keys and k probes per key
// has FPP(bits, n, k) <= p, and the k to build it with: New(bits, kk).
//
// With k = 0 the number of probes follows the size: kk = OptimalK(bits/n)
// of the bits returned, and bits is the least size that reaches p with its
// own OptimalK. (OptimalK never falls as the density grows, and where it
// steps up FPP(bits, n, OptimalK(bits/n)) does not rise, or by less than
// 1e-8 relative: this too is a least size but for a p inside such a step.)
// With k in 1..MaxK, kk = k.
//
// It returns 0, 0 when no size up to MaxBits reaches p (p <= 0 with n > 0, or
// more keys than MaxBits holds at that rate), for k outside 0..MaxK, and for
// a NaN p. A p of 1 or more gives one block, and so does n = 0 (no key, no
// false positive), where k = 0 gives kk = MaxK (OptimalK of +Inf bits per
// key). FPP is exact to 1e-12 relative but, for tiny rates, only to 1e-18
// absolute, so a p much below 1e-15 is met only to that precision.
//
// The search is on the number of blocks, on which FPP falls monotonically.
// It starts from the classic Bloom filter's size for p, steps in ln(blocks)
// along a secant (the classic filter's slope at first) until it has a size
// that reaches p and one that does not, then narrows that bracket by
// interpolation (regula falsi with the Illinois rule, on ln(-ln(1-FPP)),
// which is ln FPP for small rates and linear in ln m for one probe), with a
// bisection whenever two steps did not halve it, and ends on two adjacent
// block counts. Over n from 1 to 10^10, p from 1e-12 to 1 and every k it
// takes 1 to 12 FPP evaluations, 5 on average (0.3 ms each at 10 bits per
// key, up to a few ms at extreme loads); with k = 0 also 1 to 5 OptimalK
// calls, 2.4 on average (1.5 ms each), made only while the bracket
// straddles one of OptimalK's steps.
func BitsFor(n uint64, p float64, k int) (bits uint64, kk int) {
	s := sizer{n: n, p: p, k: k, fpp: FPP, optK: OptimalK}
	return s.search()
}

// The search's tuning, set by counting the FPP evaluations over 3000 random
// n, p and k (TestBitsForRandom counts them too).
const (
	firstStretch = 1.5               // the blocked filter's FPP falls slower with m than the classic filter's
	overshoot    = 1.1               // an extrapolation aims past the root, so as to cross it
	maxStep      = 2.772588722239781 // ln 16: the largest extrapolation step in ln(blocks)
)

// sizer is the search of BitsFor, with FPP and OptimalK as fields so that a
// test can count the calls.
type sizer struct {
	n    uint64
	p    float64
	k    int
	fpp  func(bits, n uint64, k int) float64
	optK func(bitsPerKey float64) int
}

// point is one evaluated number of blocks: its k, whether FPP <= p there,
// and f = cloglog(FPP) - cloglog(p), which is <= 0 where it reaches p (but
// for rounding: ok is the test).
type point struct {
	blocks uint64
	k      int
	f      float64
	ok     bool
}

// kAt returns the probes at a number of blocks: s.k, or OptimalK of its
// density.
func (s *sizer) kAt(blocks uint64) int {
	if s.k > 0 {
		return s.k
	}
	return s.optK(float64(blocks*BlockBits) / float64(s.n)) // n = 0: +Inf, MaxK
}

func (s *sizer) eval(blocks uint64, k int) point {
	v := s.fpp(blocks*BlockBits, s.n, k)
	return point{blocks: blocks, k: k, f: cloglog(v) - cloglog(s.p), ok: v <= s.p}
}

// cloglog is ln(-ln(1-F)), the scale on which the search interpolates: ln F
// for a small F; and for one probe in a classic filter, F = 1 - e^(-n/m),
// it is ln n - ln m, linear in ln m however close F is to 1. +Inf at F = 1.
func cloglog(F float64) float64 { return math.Log(-math.Log1p(-F)) }

func (s *sizer) search() (uint64, int) {
	if s.k < 0 || s.k > MaxK || math.IsNaN(s.p) {
		return 0, 0
	}
	if s.p >= 1 || s.n == 0 { // FPP <= 1 always, and FPP = 0 without keys
		return BlockBits, s.kAt(1)
	}
	if !(s.p > 0) {
		return 0, 0 // FPP > 0 at every size once a key is in
	}
	// lo fails, hi reaches p. lo.blocks = 0 and hi.blocks = maxBlocks+1 are
	// sentinels: no such size found yet.
	lo, hi := point{blocks: 0}, point{blocks: maxBlocks + 1, ok: true}
	var (
		fl, fh float64                                   // lo.f and hi.f for the interpolation, halved by the Illinois rule
		side   int                                       // the end that moved last: -1 lo, +1 hi
		step   float64                                   // the last extrapolation step, in ln(blocks)
		width  = [2]uint64{maxBlocks + 1, maxBlocks + 1} // the bracket's width two evaluations ago and one
	)
	for x := s.guess(); ; {
		var k int
		if s.k == 0 && lo.blocks > 0 && hi.blocks <= maxBlocks && lo.k == hi.k {
			k = lo.k // OptimalK does not fall as the density grows: lo.k all the way to hi
		} else {
			k = s.kAt(x)
		}
		pt := s.eval(x, k)
		prev := lo // the previous point on pt's side, for a secant
		if pt.ok {
			prev, hi, fh = hi, pt, pt.f
			if side == +1 {
				fl /= 2
			}
			side = +1
		} else {
			lo, fl = pt, pt.f
			if side == -1 {
				fh /= 2
			}
			side = -1
		}
		w := hi.blocks - lo.blocks
		if w <= 1 {
			break
		}
		switch {
		case lo.blocks > 0 && hi.blocks <= maxBlocks:
			// Bracketed: the least block count at or above the root,
			// interpolated linearly in ln(blocks); the midpoint when the
			// bracket did not halve in two steps, or when t is not a
			// fraction (an FPP of 1, or f rounding to 0).
			x = lo.blocks + w/2
			if t := fl / (fl - fh); width[0] > 2*w && t >= 0 && t <= 1 {
				lnLo, lnHi := math.Log(float64(lo.blocks)), math.Log(float64(hi.blocks))
				x = uint64(min(math.Ceil(math.Exp(lnLo+t*(lnHi-lnLo))), maxBlocks))
			}
			x = max(lo.blocks+1, min(x, hi.blocks-1))
		case lo.blocks > 0: // every size so far fails: go up
			step = s.extrapolate(prev, lo, step)
			x = uint64(min(math.Ceil(float64(lo.blocks)*math.Exp(step)), maxBlocks))
			x = max(x, lo.blocks+1)
		default: // every size so far reaches p: go down
			step = s.extrapolate(prev, hi, step)
			x = uint64(max(math.Floor(float64(hi.blocks)*math.Exp(-step)), 1))
			x = min(x, hi.blocks-1)
		}
		width[0], width[1] = width[1], w
	}
	if hi.blocks > maxBlocks {
		return 0, 0 // MaxBits does not reach p
	}
	return hi.blocks * BlockBits, hi.k
}

// guess returns the first number of blocks to try: the classic Bloom filter's
// size for n keys at rate p, -kn/ln(1 - p^(1/k)) bits, or n ln(1/p)/ln²2 at
// the classic optimal k when k = 0, clamped to 1..maxBlocks. The blocked
// filter needs more.
func (s *sizer) guess() uint64 {
	nf := float64(s.n)
	var m float64
	if s.k > 0 {
		m = -float64(s.k) * nf / math.Log1p(-math.Pow(s.p, 1/float64(s.k)))
	} else {
		m = -nf * math.Log(s.p) / (math.Ln2 * math.Ln2)
	}
	if !(m < maxBlocks*BlockBits) { // also NaN
		return maxBlocks
	}
	return max(1, uint64(math.Ceil(m/BlockBits)))
}

// extrapolate returns the next step in ln(blocks) away from cur, the last
// point, on the side not yet crossed, towards the root of f: along the
// secant through prev and cur when prev is a point on the same side, else
// along the classic filter's slope at cur, divided by firstStretch. The step
// overshoots the root by a tenth, is at least twice the last one (so that a
// far root takes few steps) and at most maxStep (a flat or saturated FPP).
func (s *sizer) extrapolate(prev, cur point, last float64) float64 {
	var slope float64 // df / d ln(blocks), negative
	if prev.blocks > 0 && prev.blocks <= maxBlocks && prev.ok == cur.ok && prev.blocks != cur.blocks {
		slope = (cur.f - prev.f) / (math.Log(float64(cur.blocks)) - math.Log(float64(prev.blocks)))
	} else {
		kf, nf := float64(cur.k), float64(s.n)
		classic := func(m float64) float64 { return cloglog(math.Pow(-math.Expm1(-kf*nf/m), kf)) }
		m := float64(cur.blocks) * BlockBits
		slope = (classic(m*math.Exp(0.01)) - classic(m)) / 0.01 / firstStretch
	}
	step := overshoot*math.Abs(cur.f/slope) + 1e-3
	if !(step < maxStep) { // also NaN: a zero slope, or f infinite
		step = maxStep
	}
	return min(max(step, 2*last), maxStep)
}
