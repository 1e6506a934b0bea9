package columnar

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestDeltaDuckDB reads testdata/parquet-delta/delta.parquet, written by
// DuckDB with DELTA_BINARY_PACKED and DELTA_LENGTH_BYTE_ARRAY pages
// (bench/parquet-delta-fixture.sh), by the pages decoders (every chunk:
// none left to arrow-go), whole and at every third row, and finds the
// rows DuckDB read (delta.csv: its text, NULLs as s_null says). Its INT32
// and UINTEGER columns have deltas over 32 bits, as DuckDB writes them.
func TestDeltaDuckDB(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(t), "testdata", "parquet-delta")
	f, err := os.Open(filepath.Join(dir, "delta.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]int{} // DuckDB's columns by name
	for j, name := range want[0] {
		at[name] = j
	}
	want = want[1:]
	tb, err := Open(context.Background(), filepath.Join(dir, "delta.parquet"), "delta.parquet", Parquet, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	pq := tb.b.(*parquetBackend).pq
	row := 0
	for g := range tb.Chunks() {
		rows := int(pq.chunkRows(g))
		var third []int
		for r := 0; r < rows; r += 3 {
			third = append(third, r)
		}
		for col, typ := range tb.Types {
			for _, sel := range [][]int{nil, third} {
				c, err := pq.readFixed(g, col, typ, sel)
				if err == errNotFixed {
					c, err = pq.readBytes(g, col, typ, sel)
				}
				if err != nil {
					t.Fatalf("row group %d, %s: %v", g, tb.Names[col], err)
				}
				for k := range c.Len() {
					r := k
					if sel != nil {
						r = sel[k]
					}
					w := want[row+r]
					v := w[at[tb.Names[col]]]
					null := v == "" && (tb.Names[col] != "s" || w[at["s_null"]] == "true")
					got := string(c.AppendText(nil, k))
					if c.Null(k) != null || !null && got != v {
						t.Fatalf("row group %d, row %d, %s: %q (NULL %v), DuckDB read %q (NULL %v)", g, r, tb.Names[col], got, c.Null(k), v, null)
					}
				}
			}
		}
		row += rows
	}
	if row != len(want) {
		t.Fatalf("%d rows, DuckDB read %d", row, len(want))
	}
}
