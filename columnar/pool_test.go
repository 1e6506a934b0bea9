package columnar

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestReleaseReuse: row groups read one after another, each column
// released (poisoned: pool_test's init) before the next is read, give the
// values and NULLs of a read of the same row group with nothing released,
// on INT64, INT32, FLOAT and DOUBLE columns with and without NULLs, whole
// and at some rows (ReadRows); a released column is empty, and a read of
// it fails rather than seeing another's values.
func TestReleaseReuse(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	const n = 3000
	var rows [][]*string
	for i := range n {
		row := make([]*string, 5)
		for j := range row {
			if j > 0 && rng.IntN(5) == 0 { // column 0 has no NULLs
				continue
			}
			v := fmt.Sprint(rng.IntN(2000) - 1000)
			if j >= 3 {
				v += ".5"
			}
			row[j] = &v
		}
		row[0] = func(s string) *string { return &s }(fmt.Sprint(i))
		rows = append(rows, row)
	}
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64}
	rec := columnartest.Record(t, []string{"a", "b", "c", "d", "e"}, types, rows)
	defer rec.Release()
	fs := columnartest.Write(t, t.TempDir(), "r", rec, 700, false)
	tab, err := Open(context.Background(), fs.Parquet, "", Parquet, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	text := func(cols []*Column) [][]string {
		var out [][]string
		for i := range cols[0].Len() {
			var r []string
			for _, c := range cols {
				if c.Null(i) {
					r = append(r, "NULL")
				} else {
					r = append(r, string(c.AppendText(nil, i)))
				}
			}
			out = append(out, r)
		}
		return out
	}
	var want [][][]string // each row group's, read with nothing released
	for i := range tab.Chunks() {
		cols, err := tab.Read(i, nil)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, text(cols))
	}
	for round := range 3 {
		for i := range tab.Chunks() {
			cols, err := tab.Read(i, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := text(cols)
			for r := range want[i] {
				if r >= len(got) || !slices.Equal(got[r], want[i][r]) {
					t.Fatalf("round %d, row group %d, row %d: %v, want %v", round, i, r, got[min(r, len(got)-1)], want[i][r])
				}
			}
			sel := []int{0, 3, 4, 100, int(tab.ChunkRows(i)) - 1}
			some, err := tab.ReadRows(i, nil, sel)
			if err != nil {
				t.Fatal(err)
			}
			for j, r := range sel {
				if got := text(some)[j]; !slices.Equal(got, want[i][r]) {
					t.Fatalf("round %d, row group %d, row %d: %v, want %v", round, i, r, got, want[i][r])
				}
			}
			ReleaseAll(cols)
			ReleaseAll(some)
			for j, c := range cols {
				if c.Len() != 0 {
					t.Fatalf("column %d holds %d rows after Release", j, c.Len())
				}
			}
			func() {
				defer func() {
					if recover() == nil {
						t.Fatal("a released column's value was read")
					}
				}()
				_ = cols[0].Int64(0)
			}()
		}
	}
}
