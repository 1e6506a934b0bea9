package testutil

import (
	"fmt"
	"math"
	"testing"
)

func TestZLimit(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want float64
	}{{0, 4}, {1, 4}, {30, 4.74}, {1000, 5.41}} {
		if got := ZLimit(tc.n); math.Abs(got-tc.want) > 0.005 {
			t.Errorf("ZLimit(%d) = %.4f, want %.2f", tc.n, got, tc.want)
		}
	}
	for _, n := range []int{2, 7, 50, 1e6} {
		z := ZLimit(n)
		if got := float64(n) * math.Erfc(z/math.Sqrt2); math.Abs(got/tail4-1) > 1e-6 {
			t.Errorf("n=%d: n * P(|Z| > %.4f) = %.4g, want %.4g", n, z, got, tail4)
		}
	}
}

func TestZ(t *testing.T) {
	for _, tc := range []struct{ got, want, sd, slack, z float64 }{
		{1.5, 1, 0.25, 0, 2}, {0.5, 1, 0.25, 0, -2}, {1.5, 1, 0.25, 0.25, 1}, {0.5, 1, 0.25, 0.25, -1},
		{1.1, 1, 0.25, 0.25, 0}, {1, 1, 0, 0, 0}, {2, 1, 0, 0, math.Inf(1)}, {0, 1, 0, 0, math.Inf(-1)},
	} {
		if got := Z(tc.got, tc.want, tc.sd, tc.slack); math.Abs(got-tc.z) > 1e-12 && got != tc.z {
			t.Errorf("Z(%v, %v, %v, %v) = %v, want %v", tc.got, tc.want, tc.sd, tc.slack, got, tc.z)
		}
	}
}

// recorder is a testing.TB that keeps its errors instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()             {}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}

func TestDeviations(t *testing.T) {
	run := func(zs ...float64) []string {
		r := &recorder{TB: t}
		d := NewDeviations(r, "x")
		for i, z := range zs {
			d.Add(z, "check %d", i)
		}
		d.Check()
		return r.errs
	}
	thirty := func(z float64) []float64 {
		zs := make([]float64, 30)
		for i := range zs {
			zs[i] = z * float64(1-2*(i%2))
		}
		return zs
	}
	if errs := run(); len(errs) != 0 {
		t.Errorf("no checks: %q", errs)
	}
	if errs := run(thirty(3.9)...); len(errs) != 0 {
		t.Errorf("30 checks at ±3.9 sd: %q", errs)
	}
	if errs := run(append(thirty(0), 4.5)...); len(errs) != 0 {
		t.Errorf("one of 31 at 4.5 sd: %q", errs)
	}
	if errs := run(append(thirty(0), -4.9)...); len(errs) != 1 {
		t.Errorf("one of 31 at -4.9 sd: %q, want one error", errs)
	}
	if errs := run(4.1); len(errs) != 2 {
		t.Errorf("one check at 4.1 sd: %q, want it and its mean", errs)
	}
	if errs := run(math.NaN()); len(errs) != 2 {
		t.Errorf("a NaN deviation: %q, want it and its mean", errs)
	}
	shifted := make([]float64, 30)
	for i := range shifted {
		shifted[i] = 0.8 // each well inside, the mean 0.8 > 4/sqrt(30) = 0.73
	}
	if errs := run(shifted...); len(errs) != 1 {
		t.Errorf("30 checks all at 0.8 sd: %q, want the mean's error", errs)
	}
}

func TestDeviationsAtLeast(t *testing.T) {
	r := &recorder{TB: t}
	d := NewDeviations(r, "x").AtLeast(5)
	for i := range 7 {
		d.Add(4.8*float64(1-2*(i%2)), "check %d", i) // beyond ZLimit(7) = 4.44, within 5
	}
	d.Check()
	if len(r.errs) != 0 {
		t.Errorf("7 checks at ±4.8 sd with AtLeast(5): %q", r.errs)
	}
	r = &recorder{TB: t}
	d = NewDeviations(r, "x").AtLeast(5)
	d.Add(5.1, "over")
	for range 6 {
		d.Add(-0.85, "under")
	}
	d.Check()
	if len(r.errs) != 1 {
		t.Errorf("one of 7 at 5.1 sd with AtLeast(5): %q, want one error", r.errs)
	}
}
