package blocked

import (
	"fmt"
	"math"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// countingSizer is BitsFor's search with its FPP and OptimalK calls counted.
func countingSizer(n uint64, p float64, k int, fpps, optKs *int) *sizer {
	return &sizer{n: n, p: p, k: k,
		fpp:  func(bits, n uint64, k int) float64 { *fpps++; return FPP(bits, n, k) },
		optK: func(d float64) int { *optKs++; return OptimalK(d) },
	}
}

// bruteBitsFor scans the block counts 1, 2, ... up to limit for the first
// whose FPP, at k or at its own OptimalK when k = 0, is at most p.
func bruteBitsFor(n uint64, p float64, k int, limit uint64) (bits uint64, kk int) {
	for b := uint64(1); b <= limit; b++ {
		kk := k
		if k == 0 {
			kk = OptimalK(float64(b*BlockBits) / float64(n))
		}
		if FPP(b*BlockBits, n, kk) <= p {
			return b * BlockBits, kk
		}
	}
	return 0, 0
}

// TestBitsForBruteForce: BitsFor equals the scan of every block count, on
// small cases: n from 1 to 3000, rates from 0.5 to 1e-6, k = 0 (OptimalK
// at each size) and fixed k from 1 to MaxK. The scan stops at 120 blocks;
// past it BitsFor must answer more than that, or 0.
func TestBitsForBruteForce(t *testing.T) {
	testutil.SkipUnderRace(t)
	ns := []uint64{1, 7, 60, 300, 1000, 3000}
	ps := []float64{0.5, 0.1, 1e-2, 1e-3, 1e-4, 1e-6}
	if testing.Short() {
		ns, ps = []uint64{1, 60, 1000}, []float64{0.1, 1e-2, 1e-4}
	}
	const limit = 120
	compared, beyond := 0, 0
	for _, n := range ns {
		for _, p := range ps {
			for _, k := range []int{0, 1, 2, 6, 9, MaxK} {
				want, wantK := bruteBitsFor(n, p, k, limit)
				got, gotK := BitsFor(n, p, k)
				if want == 0 {
					beyond++
					if got != 0 && got <= limit*BlockBits {
						t.Errorf("BitsFor(%d, %g, %d) = %d, %d; no size up to %d blocks reaches p", n, p, k, got, gotK, limit)
					}
					continue
				}
				compared++
				if got != want || gotK != wantK {
					t.Errorf("BitsFor(%d, %g, %d) = %d, %d; brute force %d, %d", n, p, k, got, gotK, want, wantK)
				}
			}
		}
	}
	t.Logf("%d cases equal to the scan, %d beyond %d blocks", compared, beyond, limit)
}

// TestBitsForRandom: on random n (1 to 10^10), p (1e-12 to 1) and k (0 half
// the time) from a logged seed, BitsFor's size reaches p, the block below it
// does not (at its own OptimalK when k = 0), kk is OptimalK of the size when
// k = 0, and "impossible" means that MaxBits fails. It counts the calls:
// at most 20 FPP evaluations and 10 OptimalK calls (seen: 12 and 5 over
// 3000 cases).
func TestBitsForRandom(t *testing.T) {
	testutil.SkipUnderRace(t)
	cases := 300
	if testing.Short() {
		cases = 40
	}
	rng := testutil.Rand(testutil.Seed(t))
	maxF, maxK, total := 0, 0, 0
	for range cases {
		n := uint64(math.Exp(rng.Float64() * math.Log(1e10)))
		p := math.Exp(-rng.Float64() * math.Log(1e12))
		k := 0
		if rng.IntN(2) == 0 {
			k = 1 + rng.IntN(MaxK)
		}
		var fpps, optKs int
		bits, kk := countingSizer(n, p, k, &fpps, &optKs).search()
		maxF, maxK, total = max(maxF, fpps), max(maxK, optKs), total+fpps
		what := fmt.Sprintf("BitsFor(%d, %.6g, %d) = %d, %d", n, p, k, bits, kk)
		if fpps > 20 || optKs > 10 {
			t.Errorf("%s: %d FPP evaluations and %d OptimalK calls, want at most 20 and 10", what, fpps, optKs)
		}
		kAt := func(bits uint64) int {
			if k == 0 {
				return OptimalK(float64(bits) / float64(n))
			}
			return k
		}
		if bits == 0 {
			if v := FPP(MaxBits, n, kAt(MaxBits)); v <= p || kk != 0 {
				t.Errorf("%s (impossible), but FPP at MaxBits = %.6g", what, v)
			}
			continue
		}
		if bits%BlockBits != 0 || bits > MaxBits || kk != kAt(bits) {
			t.Errorf("%s: want a whole number of blocks up to MaxBits and k = %d", what, kAt(bits))
			continue
		}
		if v := FPP(bits, n, kk); v > p {
			t.Errorf("%s: FPP there %.6g > p", what, v)
		}
		if below := bits - BlockBits; below > 0 {
			if v := FPP(below, n, kAt(below)); v <= p {
				t.Errorf("%s: one block less, FPP %.6g at k = %d, reaches p too", what, v, kAt(below))
			}
		}
	}
	t.Logf("%d cases: at most %d FPP evaluations (%.1f on average) and %d OptimalK calls", cases, maxF, float64(total)/float64(cases), maxK)
}

func TestBitsForEdges(t *testing.T) {
	testutil.SkipUnderRace(t)
	for _, tc := range []struct {
		n     uint64
		p     float64
		k     int
		bits  uint64
		wantK int
	}{
		{0, 0.01, 0, BlockBits, MaxK}, // no key: one block, and OptimalK(+Inf)
		{0, 0, 5, BlockBits, 5},       // FPP = 0 <= 0
		{1000, 1, 0, BlockBits, OptimalK(0.512)},
		{1000, math.Inf(1), 3, BlockBits, 3},
		{1000, 0, 0, 0, 0},
		{1000, -0.5, 3, 0, 0},
		{1000, math.NaN(), 3, 0, 0},
		{1000, math.Inf(-1), 3, 0, 0},
		{1000, 0.01, -1, 0, 0},
		{1000, 0.01, MaxK + 1, 0, 0},
		{1 << 40, 0.01, 0, 0, 0},       // 2^40 keys do not fit in 2^38 bits at 1%
		{math.MaxUint64, 0.5, 1, 0, 0}, // nor 2^64-1 keys at any rate
		{1, 1e-300, 0, 0, 0},           // below what MaxBits gives for one key
		{1, 0.5, 0, BlockBits, MaxK},   // one key, one block, 512 bits a key
	} {
		bits, kk := BitsFor(tc.n, tc.p, tc.k)
		if bits != tc.bits || kk != tc.wantK {
			t.Errorf("BitsFor(%d, %g, %d) = %d, %d; want %d, %d", tc.n, tc.p, tc.k, bits, kk, tc.bits, tc.wantK)
		}
	}
	// The sizes BitsFor gives build with New, to the same number of bits.
	for _, k := range []int{0, 1, 6, MaxK} {
		bits, kk := BitsFor(100_000, 0.01, k)
		f, err := New(bits, kk)
		if err != nil || f.Bits() != bits || f.K() != kk {
			t.Errorf("New(BitsFor(100000, 0.01, %d) = %d, %d): %v", k, bits, kk, err)
		}
	}
}
