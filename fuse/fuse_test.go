package fuse

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func mustBuild(t testing.TB, keys [][]byte, f int) *Filter {
	t.Helper()
	flt, err := Build(keys, f)
	if err != nil {
		t.Fatal(err)
	}
	return flt
}

// TestMembersAndFPP: every key is found, at every width and several sizes
// (a single key, a few, thousands, keys of other lengths than 8); 10^6
// non-members pass at 2^-f: the three widths' deviations, in binomial sd
// after one false positive of slack, are judged together
// (testutil.Deviations: each at 4.25 sd, the Bonferroni bound of three, and
// their mean at 4/sqrt(3)). The widths share keys and queries but hardly
// correlate (+0.04 between 8 and 16 bits over 300 seeds), and 32 bits'
// deviation is 0 unless it fails (2.3e-4 false positives expected, one
// forgiven), so the mean's variance is below that of three independent
// ones.
func TestMembersAndFPP(t *testing.T) {
	testutil.SkipUnderRace(t)
	seed := testutil.Seed(t)
	devs := testutil.NewDeviations(t, "false positives against 2^-f, in binomial sd")
	var strs [][]byte
	for i := range 3000 {
		strs = append(strs, []byte("key-"+string(rune('a'+i%26))+string(testutil.Key(make([]byte, 8), seed+uint64(i)))))
	}
	for _, f := range []int{8, 16, 32} {
		for _, keys := range [][][]byte{testutil.Keys(seed, 1), testutil.Keys(seed, 7), testutil.Keys(seed, 100), testutil.Keys(seed, 50_000), strs} {
			flt := mustBuild(t, keys, f)
			for _, k := range keys {
				if !flt.Contains(k) {
					t.Fatalf("f=%d n=%d: false negative %x", f, len(keys), k)
				}
			}
			if flt.Len() != uint64(len(keys)) || flt.FingerprintBits() != f || flt.MemoryBits() != Slots(uint64(len(keys)))*uint64(f) {
				t.Fatalf("f=%d n=%d: Len %d, bits %d, memory %d", f, len(keys), flt.Len(), flt.FingerprintBits(), flt.MemoryBits())
			}
		}
		flt := mustBuild(t, testutil.Keys(seed, 50_000), f)
		const queries = 1_000_000
		fp := 0
		var q [8]byte
		for i := range uint64(queries) {
			if flt.Contains(testutil.Key(q[:], seed+1<<40+i)) {
				fp++
			}
		}
		p := FPP(f)
		sd := math.Sqrt(queries * p * (1 - p))
		devs.Add(testutil.Z(float64(fp), queries*p, sd, 1), "f=%d: %d false positives in %d, expected %.1f (sd %.1f)", f, fp, queries, queries*p, sd)
	}
	devs.Check()
	empty := mustBuild(t, nil, 8)
	if empty.Contains([]byte("x")) || empty.Contains(testutil.Keys(0, 1)[0]) || empty.MemoryBits() != 0 {
		t.Fatal("the filter of no keys passes a key, or has an array")
	}
	if _, err := Build(testutil.Keys(0, 3), 12); err == nil {
		t.Fatal("12-bit fingerprints accepted")
	}
}

// TestSlots: Slots predicts the array the library builds, at every n to
// 3000 and at larger sizes.
func TestSlots(t *testing.T) {
	testutil.SkipUnderRace(t)
	ns := []int{10_000, 65_536, 100_003, 1_000_000}
	for n := 1; n <= 3000; n++ {
		ns = append(ns, n)
	}
	for _, n := range ns {
		if got, want := mustBuild(t, testutil.Keys(uint64(n)<<32, uint64(n)), 8).Slots(), Slots(uint64(n)); got != want {
			t.Fatalf("n=%d: %d entries built, Slots says %d", n, got, want)
		}
	}
}

// TestOrderFree: the same keys in another order give the same bytes.
func TestOrderFree(t *testing.T) {
	keys := testutil.Keys(3, 5000)
	shuffled := slices.Clone(keys)
	testutil.Rand(testutil.Seed(t)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	a, _ := mustBuild(t, keys, 16).MarshalBinary()
	b, _ := mustBuild(t, shuffled, 16).MarshalBinary()
	if !bytes.Equal(a, b) {
		t.Fatal("another order of the same keys built other bytes")
	}
}
