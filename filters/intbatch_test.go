package filters

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/key"
)

// TestIntBatchesMatch: every kind with ContainsInts answers as Contains on
// the integers' key.Of bytes: members and non-members, negative values and
// int64's ends, batches of every length around the block size.
func TestIntBatchesMatch(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	enc := func(v int64) []byte {
		b := make([]byte, 8)
		key.PutInt(b, v)
		return b
	}
	found := map[string]bool{}
	for _, spec := range Kinds() {
		if !spec.Sized && spec.Kind != Exact {
			continue
		}
		for _, dense := range []bool{false, true} { // the exact set: a table, a bitmap
			var members []int64
			var keys [][]byte
			seen := map[int64]bool{}
			base := rng.Int64N(1<<20) - 1<<19 // a dense range across 0 at times
			for len(members) < 2000 {
				v := rng.Int64() >> uint(rng.IntN(60))
				if rng.IntN(2) == 0 {
					v = -v
				}
				if dense {
					v = base + rng.Int64N(2500)
				}
				if seen[v] {
					// Distinct, as a join's key side is built: a cuckoo filter
					// holds at most twice a bucket's copies of one key, and the
					// small values repeated (seed 1795997858268554123).
					continue
				}
				seen[v] = true
				members = append(members, v)
				keys = append(keys, enc(v))
			}
			b, err := Build(spec.Kind, keys, Sizing{BitsPerKey: 12})
			if err != nil {
				t.Fatalf("%s: %v", spec.Kind, err)
			}
			ib, ok := b.Filter.(IntBatchFilter)
			if !ok {
				continue
			}
			found[b.Params.String()] = true
			for _, n := range []int{0, 1, 63, 64, 65, 1000} {
				probe := make([]int64, n)
				for i := range probe {
					switch i % 4 {
					case 0:
						probe[i] = members[rng.IntN(len(members))]
					case 1:
						probe[i] = []int64{math.MinInt64, math.MaxInt64, 0, -1, base - 1, base + 2500}[rng.IntN(6)]
					case 2:
						probe[i] = base + rng.Int64N(2600) - 50 // about the dense range
					default:
						probe[i] = rng.Int64() - rng.Int64()
					}
				}
				out := make([]bool, n)
				ib.ContainsInts(probe, out)
				for i, v := range probe {
					if want := b.Filter.Contains(enc(v)); out[i] != want || i%4 == 0 && !out[i] {
						t.Fatalf("%s, %d keys: ContainsInts(%d) = %v, Contains %v", b.Params, n, v, out[i], want)
					}
				}
			}
		}
	}
	for _, want := range []string{"exact(bitmap)", "exact(table)"} {
		if !found[want] {
			t.Errorf("no %s with ContainsInts (found %v)", want, found)
		}
	}
	for _, kind := range []Kind{ACBF, Blocked} {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(found)), func(p string) bool { return strings.HasPrefix(p, string(kind)+"(") }) {
			t.Errorf("no %s with ContainsInts (found %v)", kind, found)
		}
	}
}
