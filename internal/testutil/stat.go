package testutil

import (
	"fmt"
	"math"
	"testing"
)

// tail4 is P(|Z| > 4) for a standard normal Z: how often one check at 4
// standard deviations fails by chance (6.3e-5).
var tail4 = math.Erfc(4 / math.Sqrt2)

// ZLimit returns the bound at which each of n independent checks of
// standard normal deviations must be held for the n together to fail by
// chance no more often than one check at 4 standard deviations
// (Bonferroni: n * P(|Z| > z) = P(|Z| > 4), so z = sqrt(2) *
// erfcinv(erfc(4/sqrt(2))/n)). ZLimit(1) = 4, ZLimit(30) = 4.74,
// ZLimit(1000) = 5.41. n < 1 counts as 1.
func ZLimit(n int) float64 {
	if n <= 1 {
		return 4
	}
	return math.Sqrt2 * math.Erfcinv(tail4/float64(n))
}

// Z returns got's deviation from want in standard deviations sd, after
// forgiving slack of it (a continuity correction, such as one trial's
// 1/trials): sign(got-want) * max(0, |got-want|-slack) / sd. With sd 0 it
// is 0 inside the slack and ±Inf outside.
func Z(got, want, sd, slack float64) float64 {
	d := math.Abs(got-want) - slack
	if d <= 0 {
		return 0
	}
	if got < want {
		d = -d
	}
	if sd == 0 {
		return math.Inf(int(math.Copysign(1, d)))
	}
	return d / sd
}

// Deviations judges the z-scores of one randomised test together, so that
// the test as a whole fails by chance about as often as one check at 4
// standard deviations (6.3e-5, 1 run in 16,000; two such bounds, so at
// most 1 in 8,000) however many checks it makes, while a formula that is off
// shows where no single check could: each deviation is held at ZLimit of
// their number, and their mean at 4 standard deviations of such a mean,
// 4/sqrt(n). The deviations must be of independent trials, each standard
// normal where the formula is right. Not safe for concurrent use.
type Deviations struct {
	t     testing.TB
	what  string
	zs    []float64
	msgs  []string
	floor float64 // AtLeast's
}

// AtLeast holds each deviation at no less than z (and ZLimit), for
// statistics whose z-scores have heavier tails than a normal's (a
// variance in standard errors from the same sample), where the Bonferroni
// bound alone fails more often than it says. It returns d.
func (d *Deviations) AtLeast(z float64) *Deviations {
	d.floor = z
	return d
}

// NewDeviations returns an empty set of deviations of t, named what in
// its messages.
func NewDeviations(t testing.TB, what string) *Deviations {
	return &Deviations{t: t, what: what}
}

// Add records the deviation z and what to report, formatted from format
// and args, if it is beyond the bound.
func (d *Deviations) Add(z float64, format string, args ...any) {
	d.zs = append(d.zs, z)
	d.msgs = append(d.msgs, fmt.Sprintf(format, args...))
}

// Check fails the test for each deviation beyond ZLimit(n), and for a
// mean deviation beyond 4/sqrt(n); it logs the largest and the mean. It
// costs O(n).
func (d *Deviations) Check() {
	d.t.Helper()
	n := len(d.zs)
	if n == 0 {
		return
	}
	lim := max(ZLimit(n), d.floor)
	mean, worst := 0.0, 0.0
	for i, z := range d.zs {
		mean += z / float64(n)
		worst = math.Max(worst, math.Abs(z))
		if !(math.Abs(z) <= lim) {
			d.t.Errorf("%s: %s: %+.2f sd, beyond %.2f (one of %d checks, each held at the bound that gives the %d together one check's 4 sd)", d.what, d.msgs[i], z, lim, n, n)
		}
	}
	if mlim := 4 / math.Sqrt(float64(n)); !(math.Abs(mean) <= mlim) {
		d.t.Errorf("%s: a mean deviation of %+.2f sd over %d checks, beyond %.2f (4 sd of such a mean)", d.what, mean, n, mlim)
	} else {
		d.t.Logf("%s: %d checks, largest deviation %.2f sd (bound %.2f), mean %+.2f sd (bound %.2f)", d.what, n, worst, lim, mean, mlim)
	}
}
