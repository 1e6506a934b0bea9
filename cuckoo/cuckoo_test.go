package cuckoo

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"strconv"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func mustNew(t testing.TB, capacity uint64, b, f int) *Filter {
	t.Helper()
	g, err := New(capacity, b, f)
	if err != nil {
		t.Fatalf("New(%d, %d, %d): %v", capacity, b, f, err)
	}
	return g
}

// clone returns a deep copy of f, kick generator included.
func clone(f *Filter) *Filter {
	g := *f
	g.words = append([]uint64(nil), f.words...)
	return &g
}

func TestNewValidates(t *testing.T) {
	maxCap := uint64(MaxBuckets) * 4 * 95 / 100
	for _, tc := range []struct {
		capacity uint64
		b, f     int
		ok       bool
	}{
		{1, 1, 1, true}, {1000, 4, 16, true}, {1000, 8, 32, true}, {maxCap, 4, 8, true},
		{0, 4, 16, false}, {1000, 0, 16, false}, {1000, 9, 16, false}, {1000, 4, 0, false},
		{1000, 4, 33, false}, {maxCap + 1, 4, 8, false}, {math.MaxUint64, 4, 8, false},
	} {
		var err error
		if tc.ok && tc.capacity > 1<<20 {
			// Do not allocate 4 GiB: check the arithmetic through validate.
			err = validate(MaxBuckets, tc.b, tc.f)
		} else {
			_, err = New(tc.capacity, tc.b, tc.f)
		}
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrConfig)) {
			t.Errorf("New(%d, %d, %d) = %v, want ok=%v", tc.capacity, tc.b, tc.f, err, tc.ok)
		}
	}
	for _, buckets := range []uint64{0, MaxBuckets + 1, MaxBuckets * 2, math.MaxUint64} {
		if err := validate(buckets, 4, 8); !errors.Is(err, ErrConfig) {
			t.Errorf("validate(%d buckets) = %v, want ErrConfig", buckets, err)
		}
	}
	for _, buckets := range []uint64{1, 2, 3, 6, 263158, MaxBuckets - 1, MaxBuckets} {
		if err := validate(buckets, 4, 8); err != nil {
			t.Errorf("validate(%d buckets) = %v, want nil", buckets, err)
		}
	}
}

// TestNewSizes: buckets = ceil(capacity / (b * MaxLoad(b, f))), not
// rounded, Cap >= capacity, and the accessors.
func TestNewSizes(t *testing.T) {
	for _, tc := range []struct {
		capacity       uint64
		b, f           int
		buckets, cap   uint64
		memBits, words uint64
	}{
		{100_000, 4, 16, 26316, 100000, 1684224, 26316},       // 0.95: ceil(26315.8) = 26316
		{1, 1, 1, 100, 1, 100, 2},                             // 0.01: ceil(1/0.01) = 100
		{76, 4, 12, 20, 76, 960, 15},                          // 0.95: 76/3.8 = 20 exactly
		{1_000_000, 4, 8, 263158, 1000000, 8421056, 131579},   // 0.95: ceil(263157.9) = 263158
		{19, 1, 7, 159, 19, 1113, 18},                         // 0.12: ceil(158.3) = 159
		{12_345, 4, 12, 3249, 12346, 155952, 2437},            // 0.95: ceil(3248.7) = 3249
		{99_999, 3, 9, 36232, 100000, 978264, 15286},          // 0.92: ceil(36231.5) = 36232
		{1, 8, 32, 1, 7, 256, 4},                              // one bucket
		{20, 4, 16, 6, 22, 384, 6},                            // 0.95: ceil(5.26) = 6
		{1_000_000, 8, 16, 127552, 1000007, 16326656, 255104}, // 0.98: ceil(127551.02) = 127552
		{1000, 4, 4, 358, 1002, 5728, 90},                     // 0.70: ceil(1428.6/4) = 358
		{1000, 2, 16, 596, 1001, 19072, 298},                  // 0.84: ceil(595.2) = 596
	} {
		f := mustNew(t, tc.capacity, tc.b, tc.f)
		if f.Buckets() != tc.buckets || f.Cap() != tc.cap || f.MemoryBits() != tc.memBits || uint64(len(f.words)) != tc.words {
			t.Errorf("New(%d, %d, %d): buckets %d, Cap %d, MemoryBits %d, words %d; want %d, %d, %d, %d",
				tc.capacity, tc.b, tc.f, f.Buckets(), f.Cap(), f.MemoryBits(), len(f.words), tc.buckets, tc.cap, tc.memBits, tc.words)
		}
		if f.BucketSize() != tc.b || f.FingerprintBits() != tc.f || f.Len() != 0 || f.LoadFactor() != 0 || f.FPP() != 0 {
			t.Errorf("New(%d, %d, %d): accessors %d %d %d %v %v", tc.capacity, tc.b, tc.f, f.BucketSize(), f.FingerprintBits(), f.Len(), f.LoadFactor(), f.FPP())
		}
	}
	// Cap >= capacity, and one bucket less would not do.
	for b := 1; b <= MaxBucketSize; b++ {
		for _, fb := range []int{3, 8} {
			pct := uint64(math.Round(MaxLoad(b, fb) * 100))
			for c := uint64(1); c < 3000; c += 7 {
				f := mustNew(t, c, b, fb)
				if f.Buckets() != BucketsFor(c, b, fb) || f.Cap() < c ||
					(f.Buckets() > 1 && (f.Buckets()-1)*uint64(b)*pct/100 >= c) {
					t.Fatalf("New(%d, %d, %d): %d buckets, Cap %d", c, b, fb, f.Buckets(), f.Cap())
				}
			}
		}
	}
}

// TestBucketsFor: the least number of buckets B >= 1 with
// floor(B * b * MaxLoad) >= capacity, over the whole range of capacities New
// accepts (checked without building the filters), and at most MaxBuckets.
func TestBucketsFor(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	for b := 1; b <= MaxBucketSize; b++ {
		for _, fb := range []int{1, 2, 5, 8, 9, 32} {
			pct := uint64(math.Round(MaxLoad(b, fb) * 100))
			capOf := func(buckets uint64) uint64 { return buckets * uint64(b) * pct / 100 }
			maxCap := capOf(MaxBuckets)
			cs := []uint64{0, 1, 2, 3, 4, 5, 19, 20, 21, 76, 77, 12_345, 99_999, 1_000_000, maxCap - 1, maxCap}
			for range 500 {
				cs = append(cs, 1+rng.Uint64N(maxCap))
			}
			for _, c := range cs {
				got := BucketsFor(c, b, fb)
				if got < 1 || got > MaxBuckets || capOf(got) < c || (got > 1 && capOf(got-1) >= c) {
					t.Fatalf("BucketsFor(%d, %d, %d) = %d: Cap %d, Cap of one less %d", c, b, fb, got, capOf(got), capOf(got-1))
				}
				// The float form ceil(c / (b*MaxLoad)) agrees where it is exact enough.
				if c > 0 && c < 1<<40 {
					want := uint64(math.Ceil(float64(c) / (float64(b) * MaxLoad(b, fb))))
					if d := int64(got) - int64(want); d < -1 || d > 1 {
						t.Fatalf("BucketsFor(%d, %d, %d) = %d, float %d", c, b, fb, got, want)
					}
				}
			}
		}
	}
	if BucketsFor(10, 0, 8) != 0 || BucketsFor(10, 4, 0) != 0 || BucketsFor(10, 9, 8) != 0 || BucketsFor(10, 4, 33) != 0 {
		t.Error("BucketsFor of invalid parameters is not 0")
	}
}

// TestMaxLoad: MaxLoad rises with the bucket size and the fingerprint length,
// and is what a table reaches. For every bucket size and fingerprint lengths
// 1-10 and 16, key sets are added to a 3000-bucket table until the first
// ErrFull, which must come at Cap or later, except in at most 2 of all the key
// sets (the limits sit at or just below the least first-failure load
// measured, and a small table's first failure has a spread), and never below
// 90% of Cap with b > 1 and f > 4. The loads are logged. ACBFJOIN_LOAD_SETS sets the number of key
// sets a (b, f) (default 3, 1 under -short); the table in cuckoo.go was
// measured with 40 to 200.
func TestMaxLoad(t *testing.T) {
	testutil.SkipUnderRace(t)
	for b := 1; b <= MaxBucketSize; b++ {
		for fb := 1; fb <= MaxFingerprintBits; fb++ {
			l := MaxLoad(b, fb)
			if l <= 0 || l >= 1 || (fb > 1 && l < MaxLoad(b, fb-1)) || (b > 1 && l < MaxLoad(b-1, fb) && fb > 2) {
				t.Errorf("MaxLoad(%d, %d) = %v: not in (0, 1) or below a smaller parameter's", b, fb, l)
			}
		}
	}
	if MaxLoad(4, 16) != MaxFullLoad || MaxLoad(0, 8) != 0 || MaxLoad(4, 0) != 0 || MaxLoad(9, 8) != 0 {
		t.Error("MaxLoad of the paper's configuration or of invalid parameters")
	}
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	sets := 3
	if testing.Short() {
		sets = 1
	}
	if s := os.Getenv("ACBFJOIN_LOAD_SETS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("ACBFJOIN_LOAD_SETS=%q: want a positive integer", s)
		}
		sets = n
	}
	const buckets = 3000
	short := 0
	var key [8]byte
	for b := 1; b <= MaxBucketSize; b++ {
		for _, fb := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16} {
			lo := 1.0
			for range sets {
				f := &Filter{}
				f.setShape(buckets, b, uint(fb))
				f.words = make([]uint64, wordCount(buckets, b, uint(fb)))
				base := rng.Uint64() >> 1
				added := uint64(0)
				for f.Add(testutil.Key(key[:], base+added)) == nil {
					added++
				}
				if added < f.Cap() {
					short++
					t.Logf("b=%d f=%d: first ErrFull at load %.3f, below Cap (MaxLoad %.2f)", b, fb, f.LoadFactor(), MaxLoad(b, fb))
					// b = 1 is plain cuckoo hashing, whose first failure
					// has a heavy tail (a CI run met one at 0.036 with f = 6
					// against a least of 0.246 over 100 other key sets), and
					// so do fingerprints of at most 4 bits, whose tables
					// fill with equal fingerprints (seed
					// 1795764475935057166: b = 4, f = 3 at 0.359 against
					// MaxLoad 0.40, with this code and the code before),
					// and so do 5 bits in buckets of 2 (seed
					// 1796009569285415857: b = 2, f = 5 at 0.428 against
					// MaxLoad 0.48, where 1,000 other key sets' least was
					// 0.472): they count against the "at most 2" below,
					// not alone.
					if b > 1 && fb > 4 && !(b == 2 && fb == 5) && float64(added) < 0.9*float64(f.Cap()) {
						t.Errorf("b=%d f=%d: first ErrFull at load %.3f, MaxLoad %.2f", b, fb, f.LoadFactor(), MaxLoad(b, fb))
					}
				}
				lo = min(lo, f.LoadFactor())
			}
			t.Logf("b=%d f=%2d: MaxLoad %.2f, least first-failure load %.3f over %d key sets", b, fb, MaxLoad(b, fb), lo, sets)
		}
	}
	if short > 2 {
		t.Errorf("%d key sets failed below Cap, want at most 2", short)
	}
}

// TestAlt: the alternate bucket is an involution, stays in range, and is what
// locate returns.
func TestAlt(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	for _, buckets := range []uint64{1, 2, 3, 5, 7, 1 << 10, 1000, 3249, 26316, 1 << 17, 263158, MaxBuckets - 1, MaxBuckets} {
		f := &Filter{}
		f.setShape(buckets, 4, 16)
		edges := []uint64{0, buckets - 1, buckets / 2}
		for k := range 10000 {
			i, fp := rng.Uint64N(buckets), 1+rng.Uint64N(1<<16-1)
			if k < len(edges) {
				i = edges[k]
			}
			j := f.alt(i, fp)
			// alt is (H - i) mod buckets, computed here with a division,
			// H = floor(x * buckets / 2^32) for x the top 32 bits of fp*altMul.
			h, _ := bits.Mul64((fp*altMul)>>32<<32, buckets)
			if j >= buckets || f.alt(j, fp) != i || j != (h+buckets-i)%buckets {
				t.Fatalf("buckets %d: alt(%d, %d) = %d, alt of that %d", buckets, i, fp, j, f.alt(j, fp))
			}
		}
	}
	f := mustNew(t, 1000, 4, 12)
	for _, key := range testutil.Keys(0, 1000) {
		i1, i2, fp := f.locate(key)
		if fp == 0 || fp >= 1<<12 || i1 >= f.buckets || i2 != f.alt(i1, fp) || f.alt(i2, fp) != i1 {
			t.Fatalf("locate(%x) = %d, %d, %d", key, i1, i2, fp)
		}
	}
}

// TestAltUniform is a chi-square test of the uniformity of the second bucket
// of keys over a table of 61 buckets (odd, so that no power of two is
// involved), for the first 61,000 keys and for the 61,000-odd keys of the
// first 61^2*1000 whose first bucket is 0 (so the second bucket is H(fp)
// alone); the 99.9% quantile of chi-square with 60 degrees of freedom is about
// 99.6. Fixed inputs: the test is deterministic.
func TestAltUniform(t *testing.T) {
	testutil.SkipUnderRace(t)
	const buckets, perCell = 61, 1000
	f := mustNew(t, buckets*4*95/100, 4, 16)
	if f.Buckets() != buckets {
		t.Fatalf("%d buckets, want %d", f.Buckets(), buckets)
	}
	var all, from0 [buckets]float64
	n0 := 0
	var key [8]byte
	for k := uint64(0); k < buckets*buckets*perCell; k++ {
		i1, i2, _ := f.locate(testutil.Key(key[:], k))
		if k < buckets*perCell {
			all[i2]++
		}
		if i1 == 0 {
			from0[i2]++
			n0++
		}
	}
	chi := func(counts []float64, total int) float64 {
		exp := float64(total) / float64(len(counts))
		c := 0.0
		for _, x := range counts {
			c += (x - exp) * (x - exp) / exp
		}
		return c
	}
	if c := chi(all[:], buckets*perCell); c > 99.6 {
		t.Errorf("second buckets of all keys: chi-square %.1f, want <= 99.6", c)
	}
	if c := chi(from0[:], n0); c > 99.6 {
		t.Errorf("second buckets of the %d keys of bucket 0: chi-square %.1f, want <= 99.6", n0, c)
	}
}

// TestPacking checks the packed slots and the SWAR bucket scans against a plain
// []uint64 of slots, for every bucket size and fingerprint length: no write
// leaks into a neighbour, find and has agree with a linear scan, occupied
// counts the non-zero slots, and the padding bits stay zero.
func TestPacking(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(testutil.Seed(t))
	for b := 1; b <= MaxBucketSize; b++ {
		for fb := 1; fb <= MaxFingerprintBits; fb++ {
			f := &Filter{}
			f.setShape(8, b, uint(fb))
			f.words = make([]uint64, wordCount(8, b, uint(fb)))
			slots := make([]uint64, 8*b)
			for op := 0; op < 2000; op++ {
				s := rng.IntN(len(slots))
				v := rng.Uint64N(1 << fb)
				if rng.IntN(3) == 0 {
					v = 0 // keep some slots empty
				}
				f.setSlot(uint64(s), v)
				slots[s] = v
				i := uint64(s / b)
				probe := slots[int(i)*b+rng.IntN(b)] // a present value (maybe 0)
				if rng.IntN(2) == 0 {
					probe = rng.Uint64N(1 << fb)
				}
				want := -1
				for j := 0; j < b; j++ {
					if slots[int(i)*b+j] == probe {
						want = j
						break
					}
				}
				if got := f.find(i, probe); got != want {
					t.Fatalf("b=%d f=%d: find(%d, %d) = %d, want %d (bucket %v)", b, fb, i, probe, got, want, slots[int(i)*b:int(i+1)*b])
				}
				if got := f.has(i, probe); got != (want >= 0) {
					t.Fatalf("b=%d f=%d: has(%d, %d) = %v", b, fb, i, probe, got)
				}
			}
			var n uint64
			for s, v := range slots {
				if got := f.slot(uint64(s)); got != v {
					t.Fatalf("b=%d f=%d: slot %d = %d, want %d", b, fb, s, got, v)
				}
				if v != 0 {
					n++
				}
			}
			if got := f.occupied(); got != n {
				t.Fatalf("b=%d f=%d: occupied = %d, want %d", b, fb, got, n)
			}
			if used := 8 * uint64(b*fb) % 64; used != 0 && f.words[len(f.words)-1]>>used != 0 {
				t.Fatalf("b=%d f=%d: padding bits set: %x", b, fb, f.words[len(f.words)-1])
			}
		}
	}
}

// TestAgainstModel runs random Add/Remove/Contains sequences on small filters
// (many kicks, many ErrFull, many false positives) against the naive
// transcription (slot for slot) and an exact multiset model: never a false
// negative for a key with count > 0, Len equals the model's total, Remove of a
// key in the model never fails, a failed Add or Remove changes nothing.
func TestAgainstModel(t *testing.T) {
	testutil.SkipUnderRace(t)
	seed := testutil.Seed(t)
	for _, tc := range []struct {
		capacity uint64
		b, f     int
	}{
		{1, 1, 1}, {20, 1, 4}, {50, 2, 6}, {100, 4, 8}, {60, 8, 12}, {40, 3, 5},
		{200, 4, 16}, {30, 4, 32}, {100, 8, 32}, {70, 5, 13}, {90, 7, 9}, {120, 6, 11},
	} {
		t.Run(fmt.Sprintf("b=%d/f=%d", tc.b, tc.f), func(t *testing.T) {
			rng := testutil.Rand(seed)
			f := mustNew(t, tc.capacity, tc.b, tc.f)
			ref := newNaive(f.Buckets(), tc.b, tc.f)
			univ := 2*f.Cap() + 10
			keys := testutil.Keys(0, univ)
			model := map[string]int{}
			total := 0
			fulls := 0
			for op := 0; op < 6000; op++ {
				key := keys[rng.Uint64N(univ)]
				switch r := rng.IntN(10); {
				case r < 5:
					before := clone(f)
					err := f.Add(key)
					if ok := ref.insert(key); ok != (err == nil) {
						t.Fatalf("op %d: Add = %v, naive insert %v", op, err, ok)
					}
					if err != nil {
						if !errors.Is(err, ErrFull) || !f.Equal(before) || f.rng != before.rng {
							t.Fatalf("op %d: failed Add = %v, filter changed %v", op, err, !f.Equal(before))
						}
						fulls++
						break
					}
					model[string(key)]++
					total++
				case r < 8:
					if model[string(key)] > 0 {
						if err := f.Remove(key); err != nil {
							t.Fatalf("op %d: Remove(member) = %v", op, err)
						}
						ref.remove(key)
						model[string(key)]--
						total--
						break
					}
					before := clone(f)
					err := f.Remove(key)
					if ok := ref.remove(key); ok != (err == nil) {
						t.Fatalf("op %d: Remove = %v, naive remove %v", op, err, ok)
					}
					if err != nil {
						if !errors.Is(err, ErrNotMember) || !f.Equal(before) {
							t.Fatalf("op %d: failed Remove = %v, changed %v", op, err, !f.Equal(before))
						}
						break
					}
					// A false positive: its fingerprint and buckets are another
					// key's, and adding it back restores that key.
					if err := f.Add(key); err != nil {
						t.Fatalf("op %d: re-Add after a false-positive Remove = %v", op, err)
					}
					ref.insert(key)
				default:
					if got, want := f.Contains(key), ref.lookup(key); got != want {
						t.Fatalf("op %d: Contains(%x) = %v, naive %v", op, key, got, want)
					}
				}
				if s := ref.diff(f); s >= 0 {
					t.Fatalf("op %d: slot %d = %d, naive %d", op, s, f.slot(uint64(s)), ref.buckets[s/tc.b][s%tc.b])
				}
				if f.Len() != uint64(total) || ref.n != uint64(total) {
					t.Fatalf("op %d: Len = %d, naive %d, model %d", op, f.Len(), ref.n, total)
				}
				if op%50 == 0 {
					for k, c := range model {
						if c > 0 && !f.Contains([]byte(k)) {
							t.Fatalf("op %d: false negative for %x (count %d)", op, k, c)
						}
					}
				}
			}
			if f.occupied() != f.Len() {
				t.Fatalf("occupied %d, Len %d", f.occupied(), f.Len())
			}
			t.Logf("%d of %d slots in use at the end, %d ErrFull", f.Len(), f.Buckets()*uint64(tc.b), fulls)
		})
	}
}

// TestDeleteReinsert is the scenario of seiflotfy/cuckoofilter issue #50
// (false negatives after deleting and re-inserting keys) at the highest load:
// 10 rounds of filling the filter with new keys up to the first ErrFull, then
// removing a random 20% of the keys and adding them back. Nothing may be lost
// against the model: a failed Add (every round has at least one) must lose
// nothing else.
func TestDeleteReinsert(t *testing.T) {
	testutil.SkipUnderRace(t)
	seed := testutil.Seed(t)
	for _, fb := range []int{8, 16} {
		t.Run(fmt.Sprintf("b=4/f=%d", fb), func(t *testing.T) {
			rng := testutil.Rand(seed)
			f := mustNew(t, 20_000, 4, fb)
			base := rng.Uint64() >> 8
			var keys [][]byte
			var in []bool
			fulls := 0
			for round := 0; round < 10; round++ {
				for { // fill up to the first ErrFull
					key := testutil.Key(make([]byte, 8), base+uint64(len(keys)))
					if err := f.Add(key); err != nil {
						if !errors.Is(err, ErrFull) || f.Len() < f.Cap() {
							t.Fatalf("round %d: Add at Len %d (Cap %d): %v", round, f.Len(), f.Cap(), err)
						}
						fulls++
						break
					}
					keys, in = append(keys, key), append(in, true)
				}
				full := f.LoadFactor()
				var out []int
				for i := range keys {
					if in[i] && rng.IntN(5) == 0 {
						if err := f.Remove(keys[i]); err != nil {
							t.Fatalf("round %d: Remove(member %d) = %v", round, i, err)
						}
						in[i] = false
						out = append(out, i)
					}
				}
				for _, i := range out {
					if err := f.Add(keys[i]); err != nil {
						if !errors.Is(err, ErrFull) {
							t.Fatalf("round %d: Add = %v", round, err)
						}
						fulls++
						continue
					}
					in[i] = true
				}
				var n uint64
				for i, key := range keys {
					if in[i] {
						n++
						if !f.Contains(key) {
							t.Fatalf("round %d: key %d lost", round, i)
						}
					}
				}
				if f.Len() != n || f.occupied() != n {
					t.Fatalf("round %d: Len %d, occupied %d, model %d", round, f.Len(), f.occupied(), n)
				}
				if round == 0 || round == 9 {
					t.Logf("round %d: full at load %.4f, %.4f after re-inserting %d keys", round, full, f.LoadFactor(), len(out))
				}
			}
			t.Logf("%d Adds refused with ErrFull", fulls)
		})
	}
}

// TestCapacity: with b = 4, f = 16 and capacity 100,000, Cap() distinct keys
// (95% load) go in without ErrFull. Then keys are added until the first
// ErrFull, which must leave the filter Equal to its state before that Add
// (kick generator included): a twin that received exactly the successful Adds
// is that state, which also checks that the same Adds give the same table.
func TestCapacity(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(testutil.Seed(t))
	base := rng.Uint64() >> 1
	f, twin := mustNew(t, 100_000, 4, 16), mustNew(t, 100_000, 4, 16)
	var key [8]byte
	for i := uint64(0); i < f.Cap(); i++ {
		testutil.Key(key[:], base+i)
		if err := f.Add(key[:]); err != nil {
			t.Fatalf("Add #%d of Cap() = %d (load %.4f): %v", i, f.Cap(), f.LoadFactor(), err)
		}
		twin.Add(key[:])
	}
	if !f.Equal(twin) || f.rng != twin.rng {
		t.Fatal("the same Adds gave different filters")
	}
	added := f.Cap()
	for ; ; added++ {
		testutil.Key(key[:], base+added)
		err := f.Add(key[:])
		if err == nil {
			if err := twin.Add(key[:]); err != nil {
				t.Fatalf("twin: %v", err)
			}
			continue
		}
		if !errors.Is(err, ErrFull) {
			t.Fatalf("Add = %v, want ErrFull", err)
		}
		if !f.Equal(twin) || f.rng != twin.rng || f.Len() != added {
			t.Fatalf("failed Add changed the filter (Len %d, want %d)", f.Len(), added)
		}
		break
	}
	t.Logf("first ErrFull at load %.4f (%d keys, Cap %d): %v", f.LoadFactor(), added, f.Cap(), f.Add(key[:]))
	for i := uint64(0); i < added; i++ {
		if !f.Contains(testutil.Key(key[:], base+i)) {
			t.Fatalf("key %d lost", i)
		}
	}
}

// TestCapacitySizes runs TestCapacity's fill on tables whose number of buckets
// is not a power of two (capacities 1,000, 12,345, 99,999 and 1,000,000 give
// 264, 3249, 26316 and 263158 buckets of 4 slots), over several key sets
// each: Cap() keys go in without ErrFull, and the first ErrFull (after which
// every key is still found and Len is the number of successful Adds) comes at
// the load logged. A table of 264 buckets fails below Cap for about 3 key
// sets in 10^4 (at load 0.940 at worst; a power-of-two table of 256 buckets
// does the same), so for it the test requires load 0.93 and logs how many
// sets stopped short of Cap. Under -short: the two smaller sizes, fewer key
// sets.
func TestCapacitySizes(t *testing.T) {
	seed := testutil.Seed(t)
	for _, tc := range []struct {
		capacity uint64
		sets     int
	}{{1000, 40}, {12_345, 10}, {99_999, 4}, {1_000_000, 2}} {
		sets := tc.sets
		if testing.Short() {
			if tc.capacity > 20_000 {
				continue
			}
			sets = max(1, sets/4)
		}
		t.Run(fmt.Sprintf("capacity=%d", tc.capacity), func(t *testing.T) {
			rng := testutil.Rand(seed)
			lo, hi, sum := 1.0, 0.0, 0.0
			short := 0 // key sets that failed below Cap
			var key [8]byte
			for set := range sets {
				f := mustNew(t, tc.capacity, 4, 16)
				base := rng.Uint64() >> 1
				added := uint64(0)
				for ; ; added++ {
					err := f.Add(testutil.Key(key[:], base+added))
					if err == nil {
						continue
					}
					small := f.Buckets() < 1000
					if !errors.Is(err, ErrFull) || (!small && added < f.Cap()) || (small && f.LoadFactor() < 0.93) {
						t.Fatalf("key set %d: Add #%d (Cap %d, %d buckets, load %.4f): %v", set, added, f.Cap(), f.Buckets(), f.LoadFactor(), err)
					}
					if added < f.Cap() {
						short++
					}
					break
				}
				if f.Len() != added || f.occupied() != added {
					t.Fatalf("key set %d: after ErrFull Len %d, occupied %d, want %d", set, f.Len(), f.occupied(), added)
				}
				for i := uint64(0); i < added; i++ {
					if !f.Contains(testutil.Key(key[:], base+i)) {
						t.Fatalf("key set %d: key %d lost", set, i)
					}
				}
				load := f.LoadFactor()
				lo, hi, sum = min(lo, load), max(hi, load), sum+load
			}
			t.Logf("%d buckets: first ErrFull at load %.4f-%.4f (mean %.4f) over %d key sets, %d below Cap", BucketsFor(tc.capacity, 4, 16), lo, hi, sum/float64(sets), sets, short)
		})
	}
}

// TestAddSameKeyTooOften: a key fits 2b times (its two buckets); the next Add
// is refused and changes nothing, and the 2b copies need 2b Removes.
func TestAddSameKeyTooOften(t *testing.T) {
	for _, b := range []int{1, 2, 4, 8} {
		f := mustNew(t, 1000, b, 16)
		key := []byte("again")
		i1, i2, _ := f.locate(key)
		copies := 2 * b
		if i1 == i2 {
			copies = b
		}
		for i := 0; i < copies; i++ {
			if err := f.Add(key); err != nil {
				t.Fatalf("b=%d: Add #%d: %v", b, i, err)
			}
		}
		before := clone(f)
		if err := f.Add(key); !errors.Is(err, ErrFull) || !f.Equal(before) || f.rng != before.rng {
			t.Fatalf("b=%d: Add #%d = %v, changed %v; want ErrFull, unchanged", b, copies, err, !f.Equal(before))
		}
		for i := 0; i < copies; i++ {
			if !f.Contains(key) {
				t.Fatalf("b=%d: Contains after %d Removes = false", b, i)
			}
			if err := f.Remove(key); err != nil {
				t.Fatalf("b=%d: Remove #%d: %v", b, i, err)
			}
		}
		if f.Contains(key) || f.Len() != 0 || !errors.Is(f.Remove(key), ErrNotMember) {
			t.Fatalf("b=%d: after %d Removes: Contains %v, Len %d", b, copies, f.Contains(key), f.Len())
		}
	}
}

// TestFalsePositiveRate measures the false positive rate on non-member probes
// and checks it lies within 4 binomial standard deviations, sqrt(p(1-p)/N) for
// N probes, of FPP() (plus 1/N for the p = 0 edge). The filters hold n keys in
// a filter of capacity n (load about 0.95: 26316 and 263158 buckets for
// n = 10^5 and 10^6, Cap() = n) and n/2 keys (load about 0.475). The key sets
// are fixed, so the test is deterministic. Under -short: capacity 10^5 and
// 10^6 probes; else also capacity 10^6 and 10^7 probes.
func TestFalsePositiveRate(t *testing.T) {
	testutil.SkipUnderRace(t)
	probes := uint64(10_000_000)
	type size struct {
		name     string
		capacity uint64
		n        uint64
	}
	sizes := []size{{"n=100000", 100_000, 100_000}, {"n=50000/capacity=100000", 100_000, 50_000}}
	if testing.Short() {
		probes = 1_000_000
	} else {
		sizes = append(sizes, size{"n=1000000", 1_000_000, 1_000_000})
	}
	for _, sz := range sizes {
		for _, fb := range []int{8, 12, 16} {
			t.Run(fmt.Sprintf("%s/b=4/f=%d", sz.name, fb), func(t *testing.T) {
				f := mustNew(t, sz.capacity, 4, fb)
				n := sz.n
				var key [8]byte
				for i := uint64(0); i < n; i++ {
					if err := f.Add(testutil.Key(key[:], i)); err != nil {
						t.Fatalf("Add #%d: %v", i, err)
					}
				}
				fp := 0
				for i := uint64(0); i < probes; i++ {
					if f.Contains(testutil.Key(key[:], 1<<40+i)) {
						fp++
					}
				}
				want := f.FPP()
				got := float64(fp) / float64(probes)
				sd := math.Sqrt(want * (1 - want) / float64(probes))
				t.Logf("load %.4f: measured %.4g (%d of %d), formula %.4g, %+.2f sd", f.LoadFactor(), got, fp, probes, want, (got-want)/sd)
				if math.Abs(got-want) > 4*sd+1/float64(probes) {
					t.Errorf("measured FP %.4g, formula %.4g: more than 4 sd (%.3g) apart", got, want, sd)
				}
			})
		}
	}
}

func TestFPPFormula(t *testing.T) {
	for _, tc := range []struct {
		b, f int
		load float64
		want float64
	}{
		{4, 8, 0.95, 1 - math.Pow(254.0/255, 7.6)},      // 2.937e-2
		{4, 16, 0.95, 1 - math.Pow(65534.0/65535, 7.6)}, // 1.160e-4
		{2, 12, 0.5, 1 - math.Pow(4094.0/4095, 2)},      // 4.883e-4
		{4, 1, 0.5, 1}, {4, 8, 0, 0}, {0, 8, 0.5, 0}, {4, 0, 0.5, 1},
	} {
		got := FPP(tc.b, tc.f, tc.load)
		if math.Abs(got-tc.want) > 1e-12*max(1, tc.want) {
			t.Errorf("FPP(%d, %d, %v) = %.6g, want %.6g", tc.b, tc.f, tc.load, got, tc.want)
		}
	}
	// The paper's approximation 2b*load/2^f is within 1% for f >= 10.
	for fb := 10; fb <= 32; fb++ {
		if got, approx := FPP(4, fb, 0.95), 8*0.95/math.Exp2(float64(fb)); math.Abs(got-approx)/approx > 0.01 {
			t.Errorf("FPP(4, %d, 0.95) = %.4g, 2b*load/2^f = %.4g", fb, got, approx)
		}
	}
}

func TestFingerprintBitsFor(t *testing.T) {
	for _, tc := range []struct {
		p    float64
		b    int
		want int
	}{
		{0.01, 4, 10}, {0.001, 4, 13}, {0.03, 4, 8}, {1e-4, 4, 17}, {0.5, 4, 5}, {0.9, 1, 9}, {0.2, 2, 7}, {0.01, 0, 32},
		{1, 4, 5}, {1e-12, 4, 32}, {0, 4, 32}, {-1, 4, 32}, {math.NaN(), 4, 32},
	} {
		if got := FingerprintBitsFor(tc.p, tc.b); got != tc.want {
			t.Errorf("FingerprintBitsFor(%v, %d) = %d, want %d", tc.p, tc.b, got, tc.want)
		}
	}
	// The cheapest f in bits a key among those meeting p, checked against
	// every length; where the load is saturated (p <= 0.01 and b >= 2), the
	// paper's ceil(log2(2b/p)) or one bit less.
	for b := 1; b <= MaxBucketSize; b++ {
		for _, p := range []float64{0.5, 0.2, 0.05, 0.01, 3e-3, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7} {
			fb := FingerprintBitsFor(p, b)
			cost := float64(fb) / MaxLoad(b, fb)
			if FPP(b, fb, MaxLoad(b, fb)) > p {
				t.Errorf("FingerprintBitsFor(%v, %d) = %d: FPP %.3g", p, b, fb, FPP(b, fb, MaxLoad(b, fb)))
			}
			for other := 2; other <= MaxFingerprintBits; other++ {
				c := float64(other) / MaxLoad(b, other)
				if FPP(b, other, MaxLoad(b, other)) <= p && (c < cost || (c == cost && other < fb)) {
					t.Errorf("FingerprintBitsFor(%v, %d) = %d (%.2f bits a key), but f = %d meets p at %.2f", p, b, fb, cost, other, c)
				}
			}
			paper := int(math.Ceil(math.Log2(2 * float64(b) / p)))
			if b >= 2 && p <= 0.01 && (fb > paper || fb < paper-1) {
				t.Errorf("FingerprintBitsFor(%v, %d) = %d, paper's %d", p, b, fb, paper)
			}
		}
	}
}

// TestContainsBatch: ContainsBatch answers as Contains, members and non-members
// mixed, in batches that end inside, at and past a 64-key block; out past
// len(keys) is not written.
func TestContainsBatch(t *testing.T) {
	for _, shape := range [][2]int{{4, 8}, {4, 16}, {3, 12}, {8, 32}} {
		f := mustNew(t, 2000, shape[0], shape[1])
		for _, key := range testutil.Keys(0, 2000) {
			if err := f.Add(key); err != nil {
				t.Fatal(err)
			}
		}
		keys := testutil.Keys(1000, 2000) // half members
		for _, n := range []int{0, 1, 7, 64, 65, 1000} {
			for _, start := range []int{0, 500, 1000 - n/2} {
				batch := keys[start : start+n]
				out := make([]bool, n+3)
				out[n], out[n+1], out[n+2] = true, false, true
				f.ContainsBatch(batch, out)
				for i, key := range batch {
					if want := f.Contains(key); out[i] != want {
						t.Fatalf("b=%d f=%d n=%d: ContainsBatch[%d] = %v, Contains(%x) = %v", shape[0], shape[1], n, i, out[i], key, want)
					}
				}
				if !out[n] || out[n+1] || !out[n+2] {
					t.Fatalf("b=%d f=%d n=%d: wrote past len(keys)", shape[0], shape[1], n)
				}
			}
		}
	}
}

// TestNoAllocs: Add (with kicks: the filter is at 94% load), Remove (found and
// not found), Contains and ContainsBatch do not allocate.
func TestNoAllocs(t *testing.T) {
	f := mustNew(t, 10_000, 4, 12)
	slots := f.Buckets() * 4
	for _, key := range testutil.Keys(0, slots*94/100) {
		if err := f.Add(key); err != nil {
			t.Fatal(err)
		}
	}
	probe := testutil.Keys(1<<40, 64)
	out := make([]bool, len(probe))
	absent := []byte("never added")
	for f.Contains(absent) {
		absent = append(absent, '!')
	}
	i := 0
	for name, fn := range map[string]func(){
		"Add+Remove": func() {
			key := probe[i%len(probe)]
			i++
			if f.Add(key) == nil {
				f.Remove(key)
			}
		},
		"Remove(non-member)": func() { f.Remove(absent) },
		"Contains":           func() { f.Contains(probe[i%len(probe)]); i++ },
		"ContainsBatch":      func() { f.ContainsBatch(probe, out) },
	} {
		if a := testing.AllocsPerRun(200, fn); a != 0 {
			t.Errorf("%s: %v allocations per run, want 0", name, a)
		}
	}
}

// TestKickGenerator: the xorshift64 state never becomes 0 (it would stick
// there) and picks every victim slot of a 4-slot bucket equally often.
func TestKickGenerator(t *testing.T) {
	f := mustNew(t, 100, 4, 8)
	var hist [4]int
	for range 1_000_000 {
		x := f.random()
		if x == 0 {
			t.Fatal("xorshift64 reached 0")
		}
		j, _ := bits.Mul64(x, 4)
		hist[j]++
	}
	for j, c := range hist {
		if math.Abs(float64(c)-250_000) > 4*math.Sqrt(1e6*0.25*0.75) {
			t.Errorf("victim slot %d chosen %d times of 10^6, want 250000 ± 4 sd", j, c)
		}
	}
}

// TestLaneMul checks the multiply that stands for t/fbits in find, for every
// fingerprint width and every bit position of a window.
func TestLaneMul(t *testing.T) {
	for fbits := uint(1); fbits <= MaxFingerprintBits; fbits++ {
		var f Filter
		f.setShape(1, 1, fbits)
		for tz := uint64(0); tz < 64; tz++ {
			if got, want := tz*f.laneMul>>16, tz/uint64(fbits); got != want {
				t.Fatalf("fbits %d, bit %d: lane %d, want %d", fbits, tz, got, want)
			}
		}
	}
}
