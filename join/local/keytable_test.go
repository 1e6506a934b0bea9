package local

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestKeyTable checks keyTable against a model: integer-like 8-byte keys
// alone (the spanIndex path) and mixed with other lengths (the map), keys
// sharing prefixes, duplicates; lookup returns each key's rows in seq
// order and nothing for other keys.
func TestKeyTable(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	for _, mixed := range []bool{false, true} {
		// n entries over about n/2 keys; the last case, 3 keys (spans of
		// thousands, sorted by seq in seal8).
		for _, n := range []int{0, 1, 7, 5000, -5000} {
			distinct := n/2 + 1
			if n < 0 {
				n, distinct = -n, 3
			}
			var tb keyTable
			model := map[string][]int64{}
			for i := range n {
				var key []byte
				switch {
				case mixed && i%3 == 0:
					key = []byte(fmt.Sprint("k", rng.IntN(n/4+1)))
				case mixed && i%3 == 1:
					key = []byte(fmt.Sprintf("abcdefgh%d", rng.IntN(n/4+1))) // one 8-byte prefix
				default:
					key = binary.BigEndian.AppendUint64(nil, uint64(rng.IntN(distinct))*0x100000001)
				}
				seq := int64(rng.IntN(1 << 40))
				tb.add(key, seq, []byte(fmt.Sprint("row", seq)))
				model[string(key)] = append(model[string(key)], seq)
			}
			tb.seal()
			for k, seqs := range model {
				got := tb.lookup([]byte(k))
				if len(got) != len(seqs) {
					t.Fatalf("mixed %v n %d: key %x: %d rows, want %d", mixed, n, k, len(got), len(seqs))
				}
				want := slices.Sorted(slices.Values(seqs))
				for i, r := range got {
					if r.Seq != want[i] {
						t.Fatalf("mixed %v n %d: key %x: row %d has seq %d, want %d (the key's rows in seq order)", mixed, n, k, i, r.Seq, want[i])
					}
					if !bytes.Equal(r.Key, []byte(k)) || string(r.Row) != fmt.Sprint("row", r.Seq) {
						t.Fatalf("mixed %v n %d: key %x: record %+v", mixed, n, k, r)
					}
				}
			}
			total := 0
			for k := range model {
				total += len(tb.lookup([]byte(k)))
			}
			if total != n || len(tb.ents) != n {
				t.Fatalf("mixed %v n %d: lookups give %d entries, the table holds %d", mixed, n, total, len(tb.ents))
			}
			for range 200 {
				k := binary.BigEndian.AppendUint64(nil, rng.Uint64())
				if _, ok := model[string(k)]; !ok && tb.lookup(k) != nil {
					t.Fatalf("mixed %v n %d: %x found", mixed, n, k)
				}
			}
		}
	}
}
