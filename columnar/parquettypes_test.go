package columnar

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// TestParquetInterval: a Parquet INTERVAL column (FIXED_LEN_BYTE_ARRAY(12)
// of months, days and milliseconds, DuckDB's INTERVAL) opens as a column
// the join neither reads nor writes (Kind Nested, "interval"), refused by
// name where it would be read and NULL where skipped, as the Arrow
// reader's intervals; it was read as 12 raw bytes and written so to CSV.
func TestParquetInterval(t *testing.T) {
	path := filepath.Join(t.TempDir(), "iv.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	iv, err := schema.NewPrimitiveNodeConverted("iv", parquet.Repetitions.Optional, parquet.Types.FixedLenByteArray, schema.ConvertedTypes.Interval, 12, 0, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	k := schema.NewInt64Node("K", parquet.Repetitions.Required, -1)
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, schema.FieldList{k, iv}, -1)
	if err != nil {
		t.Fatal(err)
	}
	w := file.NewParquetWriter(f, root)
	rg := w.AppendRowGroup()
	cw, _ := rg.NextColumn()
	if _, err := cw.(*file.Int64ColumnChunkWriter).WriteBatch([]int64{1, 2}, nil, nil); err != nil {
		t.Fatal(err)
	}
	cw.Close()
	cw, _ = rg.NextColumn()
	v := parquet.FixedLenByteArray([]byte{14, 0, 0, 0, 3, 0, 0, 0, 0x65, 0x68, 0xe0, 0})
	if _, err := cw.(*file.FixedLenByteArrayColumnChunkWriter).WriteBatch([]parquet.FixedLenByteArray{v}, []int16{1, 0}, nil); err != nil {
		t.Fatal(err)
	}
	cw.Close()
	rg.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tb, err := Open(t.Context(), path, "", Parquet, "", AllowNested)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	if tb.Types[1].Kind != Nested || tb.Types[1].String() != "interval" || tb.Types[0].Kind != Int {
		t.Fatalf("types %v", tb.Types)
	}
	var ne *NestedError
	if err := tb.Refuse(nil, false); !errors.As(err, &ne) || !strings.Contains(err.Error(), `column "iv" is an interval`) || !strings.Contains(err.Error(), "--columns") {
		t.Errorf("Refuse: %v", err)
	}
	if _, err := tb.Read(0, nil); !errors.As(err, &ne) {
		t.Errorf("Read(all): %v", err)
	}
	tb.SkipNested()
	cols, err := tb.Read(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cols[0].Len() != 2 || !cols[1].Null(0) || !cols[1].Null(1) {
		t.Errorf("skipped: %d rows, NULLs %v %v", cols[0].Len(), cols[1].Null(0), cols[1].Null(1))
	}
}

// TestParquetTimeRoundTrip: every time of day and timestamp type written
// as a Parquet node (ParquetNode) reads back (parquetType) as itself, a
// TIME adjusted to UTC (DuckDB's TIMETZ) too: its flag was dropped, and
// a join's Parquet output of a TIMETZ column read back as TIME.
func TestParquetTimeRoundTrip(t *testing.T) {
	for _, u := range []TimeUnit{Milli, Micro, Nano} {
		for _, utc := range []bool{false, true} {
			for _, k := range []Kind{Time, Timestamp} {
				ty := Type{Kind: k, Unit: u, UTC: utc}
				n, err := ParquetNode("c", ty)
				if err != nil {
					t.Fatal(err)
				}
				root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, schema.FieldList{n}, -1)
				if err != nil {
					t.Fatal(err)
				}
				got, err := parquetType(schema.NewSchema(root).Column(0))
				if err != nil || got != ty {
					t.Errorf("%v: read back as %v (%v)", ty, got, err)
				}
			}
		}
	}
}

// TestArrowDate64Floor: an Arrow date64 is the day its milliseconds fall
// in, counted toward minus infinity: -1 ms is 1969-12-31 (a review found
// it written 1970-01-01, the division truncating toward zero).
func TestArrowDate64Floor(t *testing.T) {
	b := array.NewDate64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues([]arrow.Date64{-1, 0, 86_399_999, -86_400_000, -86_400_001}, nil)
	a := b.NewArray()
	defer a.Release()
	c, err := fromArrow(a, Type{Kind: Date})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range c.Len() {
		got = append(got, string(c.AppendText(nil, i)))
	}
	if want := []string{"1969-12-31", "1970-01-01", "1970-01-01", "1969-12-31", "1969-12-30"}; !slices.Equal(got, want) {
		t.Errorf("date64 days %q, want %q", got, want)
	}
}
