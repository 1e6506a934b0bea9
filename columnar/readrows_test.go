package columnar

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestReadRowsSkips: ReadRows (values between the rows asked skipped, whole
// pages of them) gives the rows of Read's at those rows, for text, fixed
// width and integer columns with NULLs (every 11th row, at random, in long
// runs: bit-packed and repeated runs of definition levels), dictionary-
// encoded and plain, in pages of a few hundred bytes, for random sorted
// selections: sparse, dense, the first and last rows, runs crossing
// pages; with the chosen rows' levels found by levelCursor and, the same,
// with every level unpacked (ACBFJOIN_LEVELS=unpack).
func TestReadRowsSkips(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	before := sparseLevelPages.Load()
	for _, nulls := range []string{"every 11th", "random", "runs"} {
		readRowsSkips(t, rng, nulls)
	}
	if sparseLevelPages.Load() == before && !noSparseLevels {
		t.Error("no page's levels were found by levelCursor")
	}
}

// readRowsSkips is TestReadRowsSkips of one pattern of NULLs.
func readRowsSkips(t *testing.T, rng interface {
	IntN(int) int
	Float64() float64
}, nulls string) {
	const n = 5000
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: &arrow.FixedSizeBinaryType{ByteWidth: 3}, Nullable: true},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 30, Scale: 2}, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	null, left := false, 0 // "runs": the current run's kind and its rows left
	for r := range n {
		var isNull bool
		switch nulls {
		case "every 11th":
			isNull = r%11 == 3
		case "random":
			isNull = rng.Float64() < 0.3
		default:
			if left == 0 {
				null, left = !null, 1+rng.IntN(200)
			}
			isNull, left = null, left-1
		}
		if isNull {
			for j := range 4 {
				b.Field(j).AppendNull()
			}
			continue
		}
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("v%d-%s", rng.IntN(40), string(make([]byte, rng.IntN(9)))))
		b.Field(1).(*array.Int64Builder).Append(int64(r) * 7)
		b.Field(2).(*array.FixedSizeBinaryBuilder).Append([]byte{byte(r), byte(r >> 8), 'x'})
		b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(r)*1000003 - 99))
	}
	rec := b.NewRecord()
	defer rec.Release()
	defer func(was bool) { noSparseLevels = was }(noSparseLevels)
	for _, dict := range []bool{true, false} {
		path := filepath.Join(t.TempDir(), "t.parquet")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		props := parquet.NewWriterProperties(parquet.WithDataPageSize(300), parquet.WithDictionaryDefault(dict), parquet.WithMaxRowGroupLength(n))
		tbl := array.NewTableFromRecords(schema, []arrow.Record{rec})
		if err := pqarrow.WriteTable(tbl, f, n, props, pqarrow.DefaultWriterProps()); err != nil {
			t.Fatal(err)
		}
		tbl.Release()
		tb, err := Open(context.Background(), path, "t.parquet", Parquet, "")
		if err != nil {
			t.Fatal(err)
		}
		all, err := tb.Read(0, nil)
		if err != nil {
			t.Fatal(err)
		}
		for trial := range 40 {
			var sel []int
			p := []float64{0.001, 0.01, 0.2, 0.9}[trial%4]
			for r := range n {
				if rng.Float64() < p || trial%5 == 0 && (r == 0 || r == n-1) {
					sel = append(sel, r)
				}
			}
			if len(sel) == 0 {
				sel = []int{rng.IntN(n)}
			}
			for _, unpack := range []bool{false, true} {
				noSparseLevels = unpack
				got, err := tb.ReadRows(0, nil, sel)
				if err != nil {
					t.Fatalf("NULLs %s, dict %v, unpacked levels %v, trial %d: %v", nulls, dict, unpack, trial, err)
				}
				for c := range all {
					for j, r := range sel {
						want, have := string(all[c].AppendText(nil, r)), string(got[c].AppendText(nil, j))
						if all[c].Null(r) != got[c].Null(j) || want != have {
							t.Fatalf("NULLs %s, dict %v, unpacked levels %v, trial %d, column %s, row %d: %q (null %v), want %q (null %v)", nulls, dict, unpack, trial, tb.Names[c], r, have, got[c].Null(j), want, all[c].Null(r))
						}
					}
				}
				ReleaseAll(got)
			}
		}
		tb.Close()
	}
}
