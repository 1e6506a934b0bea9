package join

import (
	"math"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestBuildFilter: every kind keeps every key (no false negatives), has the
// memory of the comparison, and its measured false positive rate on 200,000
// non-keys is within 4 binomial sd of its formula.
func TestBuildFilter(t *testing.T) {
	const n = 20000
	keys := testutil.Keys(0, n)
	var probe [8]byte
	for _, kind := range Kinds {
		b, err := BuildFilter(kind, keys, Sizing{})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		for _, key := range keys {
			if !b.Filter.Contains(key) {
				t.Fatalf("%s: false negative", kind)
			}
		}
		if kind != None && kind != Exact && (b.MemoryBits != 32*n || b.K != 6) {
			t.Errorf("%s: %d bits, k = %d; want 32 bits per key, k = round(8 ln 2) = 6", kind, b.MemoryBits, b.K)
		}
		const probes = 200000
		fp := 0
		for i := 0; i < probes; i++ {
			if b.Filter.Contains(testutil.Key(probe[:], 1<<40+uint64(i))) {
				fp++
			}
		}
		got := float64(fp) / probes
		sd := math.Sqrt(b.TheoreticalFPP * (1 - b.TheoreticalFPP) / probes)
		t.Logf("%-6s m=%d k=%d m1=%d bytes=%d FP %.5f formula %.5f", kind, b.M, b.K, b.FirstLevelBits, b.SerializedBytes, got, b.TheoreticalFPP)
		if math.Abs(got-b.TheoreticalFPP) > 4*sd+1.0/probes {
			t.Errorf("%s: measured FP %.5f, formula %.5f", kind, got, b.TheoreticalFPP)
		}
	}
}

func TestSizingFPP(t *testing.T) {
	keys := testutil.Keys(0, 10000)
	for _, kind := range []Kind{Bloom, CBF, ACBF, ACBF1, ACBF2, ACBF3} {
		b, err := BuildFilter(kind, keys, Sizing{FPP: 0.001})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if b.TheoreticalFPP > 0.0011 {
			t.Errorf("%s sized for 0.001 has formula FP %.5f", kind, b.TheoreticalFPP)
		}
	}
	for _, s := range []Sizing{{FPP: 1}, {FPP: -1}, {BitsPerKey: 2}} {
		if _, err := BuildFilter(CBF, keys, s); err == nil {
			t.Errorf("sizing %+v accepted", s)
		}
	}
	if _, err := ParseKind("cuckoo"); err == nil {
		t.Error("ParseKind accepted cuckoo")
	}
}
