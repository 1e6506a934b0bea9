package multikey

import (
	"math"
	"testing"

	"github.com/acbfjoin/acbfjoin/cbf"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// TestSeedNumbers: the seed's formula at its code's m = 10^7 is its printed
// 5.27e-6 (5.28 "false positives" in 10^6), not at its text's 10^8; the
// expectation of its sequential experiment is about 0.6, of its printed
// code's first-probe variant about 4,757.
func TestSeedNumbers(t *testing.T) {
	testutil.SkipUnderRace(t)
	p := SeedFPP(1e7, 3, 1e6, 3)
	if math.Abs(p-5.2776e-6) > 1e-9 {
		t.Errorf("SeedFPP(10^7) = %g, want 5.2776e-6", p)
	}
	if p8 := SeedFPP(1e8, 3, 1e6, 3); math.Abs(p8-1.72e-14) > 0.01e-14 {
		t.Errorf("SeedFPP(10^8) = %g, want 1.72e-14", p8)
	}
	e := ExpectedSequential(1e7, 3, 1e6, 3)
	f := ExpectedSequentialFirstHash(1e7, 3, 1e6, 3)
	t.Logf("seed 001 at m = 10^7, k = 3, n = 10^6, d = 3: SeedFPP %.6g (x n = %.4g), ExpectedSequential %.6g, P(X >= 3) %.4g, first-probe variant %.6g",
		p, 1e6*p, e, PoissonAtLeast(e, 3), f)
	if e < 0.59 || e > 0.61 {
		t.Errorf("ExpectedSequential = %g, want about 0.597", e)
	}
	if f < 4750 || f > 4765 {
		t.Errorf("ExpectedSequentialFirstHash = %g, want about 4757", f)
	}
	// The straightforward sum, with math.Pow throughout.
	var naive float64
	q := 1 - 1/1e7
	for i := range 1000000 {
		naive += math.Pow(1-math.Pow(q, float64(3*i)), 9)
	}
	if r := relErr(e, naive); r > 1e-6 {
		t.Errorf("ExpectedSequential %.12g, naive sum %.12g: relative error %g", e, naive, r)
	}
	// The integral (m/k) * int_0^{kn/m} (1-e^-x)^(dk) dx (Simpson), which the
	// sum approximates to O(1/n).
	m, k, n := 1e7, 3.0, 1e6
	g := func(x float64) float64 { return math.Pow(-math.Expm1(-x), 9) }
	const steps = 10000
	h := k * n / m / steps
	s := g(0) + g(k*n/m)
	for i := 1; i < steps; i++ {
		s += float64(2+2*(i%2)) * g(float64(i)*h)
	}
	if r := relErr(e, m/k*s*h/3); r > 1e-4 {
		t.Errorf("ExpectedSequential %g, integral %g", e, m/k*s*h/3)
	}
}

// TestFormulaSmall: the sums and rates on sizes worked by hand.
func TestFormulaSmall(t *testing.T) {
	// m = 10, k = 1, n = 3, d = 1: 0 + 0.1 + 0.19.
	if got := ExpectedSequential(10, 1, 3, 1); math.Abs(got-0.29) > 1e-15 {
		t.Errorf("ExpectedSequential(10, 1, 3, 1) = %.17g, want 0.29", got)
	}
	// d = 2, k = 1: 0.1^2 + 0.19^2; first probe: the same (k = 1).
	if got := ExpectedSequential(10, 1, 3, 2); math.Abs(got-(0.01+0.0361)) > 1e-15 {
		t.Errorf("ExpectedSequential(10, 1, 3, 2) = %.17g", got)
	}
	// k = 2, d = 1, n = 2: term 1 is (1 - 0.81)^2; first probe (1 - 0.81).
	if got := ExpectedSequential(10, 2, 2, 1); math.Abs(got-0.19*0.19) > 1e-15 {
		t.Errorf("ExpectedSequential(10, 2, 2, 1) = %.17g", got)
	}
	if got := ExpectedSequentialFirstHash(10, 2, 2, 1); math.Abs(got-0.19) > 1e-15 {
		t.Errorf("ExpectedSequentialFirstHash(10, 2, 2, 1) = %.17g", got)
	}
	if ExpectedSequential(10, 1, 0, 1) != 0 || SeedFPP(10, 1, 0, 3) != 0 {
		t.Errorf("no elements: want 0")
	}
	// The composite rate is the Bloom formula (cbf.FPP is its exponential
	// form).
	if r := relErr(CompositeFPP(3e7, 21, 1e6), cbf.FPP(3e7, 1e6, 21)); r > 1e-5 {
		t.Errorf("CompositeFPP %g, cbf.FPP %g", CompositeFPP(3e7, 21, 1e6), cbf.FPP(3e7, 1e6, 21))
	}
	// d columns of m bits at k = (m/n) ln 2 tie one filter of dm bits at dk.
	if r := relErr(math.Pow(CompositeFPP(1e7, 7, 1e6), 3), CompositeFPP(3e7, 21, 1e6)); r > 1e-6 {
		t.Errorf("per-column at k = 7 and composite at k = 21 differ by %g", r)
	}
	if OptimalK(1e7, 1e6) != 7 || OptimalK(3e7, 1e6) != 21 || OptimalK(1, 1e6) != 1 || OptimalK(1e9, 1) != 64 {
		t.Errorf("OptimalK: %d %d %d %d", OptimalK(1e7, 1e6), OptimalK(3e7, 1e6), OptimalK(1, 1e6), OptimalK(1e9, 1))
	}
}

// TestPoissonAtLeast against the direct sum of the probabilities, on both
// sides of the mean.
func TestPoissonAtLeast(t *testing.T) {
	for _, tc := range []struct {
		mean float64
		x    int
	}{{0.6, 1}, {0.6, 3}, {0.6, 20}, {5, 2}, {5, 5}, {5, 30}, {50, 30}, {50, 80}, {300, 400}} {
		// P(X >= x) = sum_{j >= x} pmf(j), each pmf from logs.
		var want float64
		for j := tc.x; j < tc.x+2000; j++ {
			lg, _ := math.Lgamma(float64(j) + 1)
			want += math.Exp(-tc.mean + float64(j)*math.Log(tc.mean) - lg)
		}
		if got := PoissonAtLeast(tc.mean, tc.x); relErr(got, want) > 1e-9 {
			t.Errorf("PoissonAtLeast(%g, %d) = %.12g, want %.12g", tc.mean, tc.x, got, want)
		}
	}
	if PoissonAtLeast(3, 0) != 1 || PoissonAtLeast(0, 1) != 0 {
		t.Errorf("edges")
	}
}
