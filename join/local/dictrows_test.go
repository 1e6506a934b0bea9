package local

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/tuple"
)

// TestFilterDictRows: filterDictRows, the branch-free pass over a
// dictionary-probed chunk's rows, leaves what filterDictEach, the
// row-by-row pass, leaves where no entry is excluded or screened and no
// rejected row is kept: the same survivors and their keys, and the same
// rows, NULLs, drops and dropped bytes counted; on string and integer
// dictionaries with NULLs, every row or a chosen few (Where's), verdicts
// drawn at random (all, none, some), blocks' edges crossed.
func TestFilterDictRows(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	const n = 2500 // more than filterDictRows' block of rows
	var rows [][]*string
	for i := range n {
		var s, k *string
		if rng.IntN(9) > 0 {
			s = sp(fmt.Sprintf("v%0*d", rng.IntN(12), rng.IntN(300))) // lengths of 1 to 12 bytes
		}
		if rng.IntN(9) > 0 {
			k = sp(fmt.Sprint(rng.IntN(200) - 100))
		}
		rows = append(rows, []*string{sp(fmt.Sprint(i)), s, k})
	}
	rec := columnartest.Record(t, []string{"ID", "S", "K"}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64}, rows)
	defer rec.Release()
	files := columnartest.Write(t, t.TempDir(), "dict", rec, 1200, true)
	tab, err := columnar.Open(context.Background(), files.Parquet, files.Parquet, columnar.Parquet, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	tried := map[bool]int{}
	for i := range tab.Chunks() {
		for col, ints := range map[int]bool{1: false, 2: true} {
			var d *columnar.Dict
			if ints {
				d, _, err = tab.ReadIntKey(i, col)
			} else {
				d, err = tab.ReadDict(i, col)
			}
			if err != nil {
				t.Fatal(err)
			}
			if d == nil { // an integer chunk of more entries than half its rows: read as values
				if !ints {
					t.Fatalf("row group %d: no dictionary", i)
				}
				continue
			}
			ne := d.Values.Len()
			var ikeys []byte
			if ints {
				for e := range ne {
					ikeys = tuple.AppendInt(ikeys, d.Values.Int64(e))
				}
			}
			for trial := range 40 {
				pass := make([]bool, ne)
				p := []float64{0, 1, 0.1, 0.5}[trial%4]
				for e := range pass {
					pass[e] = rng.Float64() < p
				}
				var keep []int
				if trial%3 == 1 {
					for r := range d.Len() {
						if rng.IntN(3) == 0 {
							keep = append(keep, r)
						}
					}
				}
				rowBytes := rng.IntN(100)
				run := func(each bool) *mapWorker {
					m := &mapWorker{tm: &tableMapper{ikeys: ikeys}}
					if each {
						m.filterDictEach(d, pass, nil, nil, ints, rowBytes, keep)
					} else {
						m.filterDictRows(d, pass, ints, rowBytes, keep)
					}
					return m
				}
				got, want := run(false), run(true)
				what := fmt.Sprintf("row group %d, column %d, trial %d (%d entries, keep %d)", i, col, trial, ne, len(keep))
				if !slices.Equal(got.tm.surv, want.tm.surv) || string(got.tm.skeys) != string(want.tm.skeys) || !slices.Equal(got.tm.sends, want.tm.sends) {
					t.Fatalf("%s: survivors %v, want %v", what, got.tm.surv, want.tm.surv)
				}
				// Each survivor's hash, taken once for its entry, is its key's.
				if len(got.tm.shash) != 2*len(got.tm.surv) {
					t.Fatalf("%s: %d hashes for %d survivors", what, len(got.tm.shash), len(got.tm.surv))
				}
				for j := range got.tm.surv {
					start := 0
					if j > 0 {
						start = got.tm.sends[j-1]
					}
					h1, h2 := hashing.Sum(got.tm.skeys[start:got.tm.sends[j]])
					if got.tm.shash[2*j] != h1 || got.tm.shash[2*j+1] != h2 {
						t.Fatalf("%s: survivor %d's hash (%x, %x), its key's (%x, %x)", what, j, got.tm.shash[2*j], got.tm.shash[2*j+1], h1, h2)
					}
				}
				if got.rows != want.rows || got.cannot != want.cannot || got.dropRows != want.dropRows || got.dropBytes != want.dropBytes {
					t.Fatalf("%s: rows %d, %+v, drops %d of %d bytes; want %d, %+v, %d of %d", what,
						got.rows, got.cannot, got.dropRows, got.dropBytes, want.rows, want.cannot, want.dropRows, want.dropBytes)
				}
				if p == 0.5 && len(got.tm.surv) == 0 || got.cannot.null == 0 && keep == nil {
					t.Fatalf("%s: %d survivors, %d NULLs: the case tests nothing", what, len(got.tm.surv), got.cannot.null)
				}
				tried[ints]++
			}
		}
	}
	if tried[false] < 80 || tried[true] < 40 {
		t.Fatalf("%d trials of string dictionaries, %d of integer ones", tried[false], tried[true])
	}
}
