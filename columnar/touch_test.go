package columnar

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestTouchRows: TouchRows reads any range of rows of columns of every
// storage (integers, floats, text, a dictionary's indices, NULLs, a nil
// column) without a panic, the same XOR twice, and a Rows reading ahead
// with it (AppendOthers, AppendCellsOf) writes each row as
// appendRowExcept and appendCell alone do, from any first row (Range).
func TestTouchRows(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	const n = 700
	var rows [][]*string
	for range n {
		row := make([]*string, 4)
		for j := range row {
			if rng.IntN(7) == 0 {
				continue
			}
			v := fmt.Sprint(rng.IntN(2000) - 1000)
			switch j {
			case 2:
				v += ".25"
			case 3:
				v = fmt.Sprintf("t%d", rng.IntN(20))
			}
			row[j] = &v
		}
		rows = append(rows, row)
	}
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String}
	rec := columnartest.Record(t, []string{"a", "b", "c", "s"}, types, rows)
	defer rec.Release()
	fs := columnartest.Write(t, t.TempDir(), "r", rec, n, true)
	tab, err := Open(context.Background(), fs.Parquet, "", Parquet, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	cols, err := tab.Read(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := tab.ReadDict(0, 3)
	if err != nil || d == nil {
		t.Fatalf("no dictionary of column s: %v", err)
	}
	cols = append(cols, d.Column(nil), nil) // a dictionary's indices, and a column left out
	for range 300 {
		lo, hi := rng.IntN(n+200)-100, rng.IntN(n+200)-100
		if TouchRows(cols, lo, hi) != TouchRows(cols, lo, hi) {
			t.Fatalf("rows %d to %d: two XORs", lo, hi)
		}
	}
	want := make([]Type, len(cols))
	for j, c := range cols {
		if c != nil {
			want[j] = c.Type
		}
	}
	for range 20 {
		lo := rng.IntN(n)
		r := NewRowsOf("r", cols, 0, n).Range(lo, n)
		for i := lo; r.NextField(0); i++ {
			got, ok := r.AppendOthers(nil)
			if exp := appendRowExcept(nil, cols, i, 0); !ok || string(got) != string(exp) {
				t.Fatalf("row %d from %d: %q, want %q", i, lo, got, exp)
			}
			others := []int{3, 1, 2} // any columns, in any order
			got = r.AppendCellsOf(nil, others, want)
			var exp []byte
			for _, j := range others {
				c := cols[j]
				exp = appendCell(exp, c, i, c != nil && c.Type == want[j])
			}
			if string(got) != string(exp) {
				t.Fatalf("row %d from %d: cells %q, want %q", i, lo, got, exp)
			}
		}
	}
}
