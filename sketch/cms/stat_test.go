package cms

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// zipfCounts returns the exact counts of a stream over keys 0..distinct-1 in
// which every key occurs once and extra more rows are drawn from a Zipf law
// of exponent s (P(k) proportional to (1+k)^-s), so that the stream has
// exactly distinct distinct keys and a heavy head.
func zipfCounts(rng *rand.Rand, distinct int, extra int, s float64) []uint64 {
	counts := make([]uint64, distinct)
	for i := range counts {
		counts[i] = 1
	}
	z := rand.NewZipf(rng, s, 1, uint64(distinct-1))
	for range extra {
		counts[z.Uint64()]++
	}
	return counts
}

// sketchOf returns the sketch of the stream with the given counts (keys are
// the 8-byte little-endian ids). A sketch is a function of the frequency
// vector only for plain update; a conservative sketch depends on the order,
// and adding each key's whole count at once is one order.
func sketchOf(t testing.TB, c Config, counts []uint64) *Sketch {
	s := mustNew(t, c)
	key := make([]byte, 8)
	for id, n := range counts {
		s.Add(testutil.Key(key, uint64(id)), n)
	}
	return s
}

// shuffledSketchOf is sketchOf with the stream's rows added one at a time in
// random order, the realistic order for a conservative sketch.
func shuffledSketchOf(t testing.TB, rng *rand.Rand, c Config, counts []uint64) *Sketch {
	var rows []uint32
	for id, n := range counts {
		for range n {
			rows = append(rows, uint32(id))
		}
	}
	rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	s := mustNew(t, c)
	key := make([]byte, 8)
	for _, id := range rows {
		s.Add(testutil.Key(key, uint64(id)), 1)
	}
	return s
}

// tolerance is the largest fraction of queries that may exceed their bound
// when each does with probability at most delta, out of n queries.
//
// Derivation: the indicator B_x = [the bound fails for query x] has
// P(B_x = 1) <= delta (CM05 Theorem 1 or 3), so the failing fraction F =
// (1/n) sum B_x has E[F] <= delta. Were the B_x independent, Var F =
// delta(1-delta)/n at most (a Bernoulli(p) variance p(1-p) grows with p up to
// 1/2, and delta < 1/2 here), and by the central limit theorem F exceeds
// delta + 4 sd with probability about 3e-5, so a correct sketch fails the test
// about once in 30000 runs. The B_x of one sketch are not independent (keys
// share counters), so this is a calibrated threshold, not a proof; but Markov's
// inequality in Theorem 1 is loose (E[F] is far below delta in practice), and
// a broken hash or a sketch narrower than claimed misses it by far
// (TestErrorBoundCanFail).
func tolerance(delta float64, n int) float64 {
	return delta + 4*math.Sqrt(delta*(1-delta)/float64(n))
}

// pointErrors returns, over all keys of counts, the number whose estimate
// exceeds the true count by more than eps*N, and the number below it.
func pointErrors(s *Sketch, eps float64, counts []uint64) (over, under int) {
	limit := eps * float64(s.Total())
	key := make([]byte, 8)
	for id, n := range counts {
		est := s.Count(testutil.Key(key, uint64(id)))
		if est < n {
			under++
		} else if float64(est-n) > limit {
			over++
		}
	}
	return over, under
}

// TestErrorBound is the statistical test of CM05 Theorem 1 on a Zipf stream
// with >= 10^5 distinct keys (2*10^4 in short mode): no estimate below the
// true count, and the fraction of keys whose estimate exceeds it by more
// than Eps()*N at most tolerance(Delta(), keys). The conservative sketch of
// the same stream, fed row by row in random order, must estimate every key
// between the true count and the plain estimate, and pass the same test.
func TestErrorBound(t *testing.T) {
	testutil.SkipUnderRace(t)
	seed := testutil.Seed(t)
	distinct, extra := 200000, 2000000
	if testing.Short() {
		distinct, extra = 20000, 200000
	}
	for _, tc := range []struct {
		eps, delta, zipf float64
	}{{0.001, 0.01, 1.1}, {0.0005, 0.1, 1.3}, {0.0002, 0.05, 1.01}} {
		t.Run(fmt.Sprintf("eps=%v/delta=%v/zipf=%v", tc.eps, tc.delta, tc.zipf), func(t *testing.T) {
			rng := testutil.Rand(seed)
			c, err := ForError(tc.eps, tc.delta)
			if err != nil {
				t.Fatal(err)
			}
			c.Seed = rng.Uint64()
			counts := zipfCounts(rng, distinct, extra, tc.zipf)
			plain := sketchOf(t, c, counts)
			over, under := pointErrors(plain, c.Eps(), counts)
			tol := tolerance(c.Delta(), distinct)
			t.Logf("%+v, N = %d: %d of %d keys over eps*N (%.5f, tolerance %.5f)", c, plain.Total(), over, distinct, float64(over)/float64(distinct), tol)
			if under != 0 {
				t.Errorf("%d estimates below the true count", under)
			}
			if f := float64(over) / float64(distinct); f > tol {
				t.Errorf("%d of %d keys (%.5f) exceed the bound eps*N, want at most %.5f (delta %.5f + 4 sd)", over, distinct, f, tol, c.Delta())
			}

			cc := c
			cc.Conservative = true
			cons := shuffledSketchOf(t, rng, cc, counts)
			key := make([]byte, 8)
			for id, n := range counts {
				k := testutil.Key(key, uint64(id))
				if e, p := cons.Count(k), plain.Count(k); e < n || e > p {
					t.Fatalf("key %d: conservative estimate %d, plain %d, true %d; want true <= conservative <= plain", id, e, p, n)
				}
			}
			cover, _ := pointErrors(cons, c.Eps(), counts)
			t.Logf("conservative: %d of %d keys over eps*N", cover, distinct)
			if f := float64(cover) / float64(distinct); f > tol {
				t.Errorf("conservative: %d of %d keys (%.5f) exceed the bound, want at most %.5f", cover, distinct, f, tol)
			}
		})
	}
}

// TestErrorBoundCanFail: the check of TestErrorBound rejects a sketch 30
// times narrower than the eps it is judged by, so it is not vacuous.
func TestErrorBoundCanFail(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	c, _ := ForError(0.001, 0.01)
	claimed := c.Eps()
	c.Width /= 30
	c.Seed = rng.Uint64()
	counts := zipfCounts(rng, 20000, 200000, 1.1)
	over, _ := pointErrors(sketchOf(t, c, counts), claimed, counts)
	t.Logf("%d of %d keys over the bound of a sketch 30 times wider", over, len(counts))
	if f := float64(over) / float64(len(counts)); f <= tolerance(c.Delta(), len(counts)) {
		t.Errorf("a sketch of width %d judged as width %d: %.5f of keys over the bound, within tolerance %.5f", c.Width, 30*c.Width, f, tolerance(c.Delta(), len(counts)))
	}
}

// TestInnerProduct checks CM05 Theorem 3 on pairs of independent Zipf
// streams over the same keys: the estimate is never below the join size
// f·g, and over trials (each with a fresh seed) the number above f·g +
// eps*|f|_1*|g|_1 is within the tolerance of delta.
func TestInnerProduct(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	trials, distinct, extra := 40, 20000, 200000
	if testing.Short() {
		trials, distinct, extra = 8, 5000, 50000
	}
	c, err := ForError(0.001, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	c.Depth = 3 // delta = e^-3 = 0.05, so that failures would show in few trials
	var over int
	worst := 0.0
	for trial := range trials {
		c.Seed = rng.Uint64()
		f := zipfCounts(rng, distinct, extra, 1.1)
		g := zipfCounts(rng, distinct, extra, 1.3)
		var join uint64
		for i := range f {
			join += f[i] * g[i]
		}
		sf, sg := sketchOf(t, c, f), sketchOf(t, c, g)
		est, err := sf.InnerProduct(sg)
		if err != nil {
			t.Fatal(err)
		}
		if back, _ := sg.InnerProduct(sf); back != est {
			t.Fatalf("trial %d: InnerProduct not symmetric: %d and %d", trial, est, back)
		}
		if est < join {
			t.Fatalf("trial %d: InnerProduct = %d, below the join size %d", trial, est, join)
		}
		bound := c.Eps() * float64(sf.Total()) * float64(sg.Total())
		if float64(est-join) > bound {
			over++
		}
		worst = max(worst, float64(est-join)/bound)
	}
	tol := tolerance(c.Delta(), trials)
	t.Logf("%d of %d trials over the bound (tolerance %.3f); worst error %.3f of the bound", over, trials, tol, worst)
	if f := float64(over) / float64(trials); f > tol {
		t.Errorf("%d of %d trials (%.3f) exceed eps*|f|*|g|, want at most %.3f", over, trials, f, tol)
	}
}

// TestInnerProductExact: with no collisions in some row (each key alone in
// its column), the estimate is the exact join size.
func TestInnerProductExact(t *testing.T) {
	s := mustNew(t, Config{Width: 1 << 16, Depth: 3})
	o := mustNew(t, Config{Width: 1 << 16, Depth: 3})
	s.Add([]byte("a"), 3)
	s.Add([]byte("b"), 5)
	o.Add([]byte("a"), 7)
	o.Add([]byte("c"), 11)
	if ip, err := s.InnerProduct(o); err != nil || ip != 21 {
		t.Errorf("InnerProduct = %d, %v; want 3*7 = 21", ip, err)
	}
}
