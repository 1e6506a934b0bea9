package local

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestArrowOutput (issue 46): the Arrow sink's IPC file and stream read
// back, by arrow-go's IPC readers and by the join's own table reader, as
// the CSV sink's rows: the same names, every value's text, NULLs; integer,
// float and text columns typed so; from CSV and Parquet sides, every join
// type. Nothing is left in the temporary folder.
func TestArrowOutput(t *testing.T) {
	keys, input := genTables(testutil.Seed(t))
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	tmp := t.TempDir()
	for _, format := range []string{"csv", "parquet-plain"} {
		for _, jt := range raceJoinTypes(testutil.RaceSeed(t), 2) {
			for _, stream := range []bool{false, true} {
				opt := join.Options{Sides: join.Sides{Keys: kf[format], Input: inf[format]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt, Output: join.Output{Sort: true}}
				var c, a bytes.Buffer
				if _, err := Run(context.Background(), opt, NewCSV(&c)); err != nil {
					t.Fatal(err)
				}
				sink, err := NewArrow(&a, tmp, stream)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := Run(context.Background(), opt, sink); err != nil {
					t.Fatal(err)
				}
				// arrow-go's own reader takes it.
				if stream {
					r, err := ipc.NewReader(bytes.NewReader(a.Bytes()))
					if err != nil {
						t.Fatal(err)
					}
					for r.Next() {
					}
					if r.Err() != nil {
						t.Fatal(r.Err())
					}
					r.Release()
				} else if _, err := ipc.NewFileReader(bytes.NewReader(a.Bytes())); err != nil {
					t.Fatal(err)
				}
				// The join's table reader: the CSV's rows, typed.
				path := filepath.Join(dir, "out.arrow")
				if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				tab, err := columnar.Open(context.Background(), path, "out", columnar.Arrow, tmp)
				if err != nil {
					t.Fatal(err)
				}
				header := strings.Split(strings.SplitN(c.String(), "\n", 2)[0], ",")
				if !slices.Equal(tab.Names, header) {
					t.Fatalf("%s, %s: names %q, want %q", format, jt, tab.Names, header)
				}
				for j, n := range tab.Names {
					k := tab.Types[j].Kind
					if (n == "ID" || n == "W") && k != columnar.Int && k != columnar.Float || (n == "S" || n == "P") && k != columnar.String {
						t.Fatalf("%s: column %s typed %s", jt, n, tab.Types[j])
					}
				}
				got := tableRows(t, tab)
				tab.Close()
				if want := parseOutput(t, c.Bytes()); len(want) < 10 || !slices.Equal(got, want) {
					t.Fatalf("%s, %s, stream %v: %s", format, jt, stream, testutil.FirstDiff(got, want))
				}
			}
		}
	}
	if l := testutil.DirNames(t, tmp); len(l) > 0 {
		t.Errorf("left behind: %q", l)
	}
}

// TestArrowOutputTypes: a large side of every type a join reads (Arrow:
// small integers, unsigned, floats, booleans, text, bytes, dates,
// timestamps with and without a zone, decimals) joined left to a CSV key
// side, written as Arrow: read back by the table reader, each column
// keeps its type (a second's timestamp becomes milliseconds, as Parquet
// writes it) and every value's text and NULL are the CSV output's.
func TestArrowOutputTypes(t *testing.T) {
	mem := memory.NewGoAllocator()
	fields := []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "u32", Type: arrow.PrimitiveTypes.Uint32},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "bin", Type: arrow.BinaryTypes.Binary},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
		{Name: "tsz", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond}},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}},
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, []bool{true, true, false})
	b.Field(1).(*array.Int8Builder).AppendValues([]int8{-128, 0, 7}, []bool{true, false, true})
	b.Field(2).(*array.Uint32Builder).AppendValues([]uint32{0, 4294967295, 5}, nil)
	b.Field(3).(*array.Float32Builder).AppendValues([]float32{0.1, 1e-40, -2}, nil)
	b.Field(4).(*array.BooleanBuilder).AppendValues([]bool{true, false, true}, nil)
	b.Field(5).(*array.BinaryBuilder).AppendValues([][]byte{{0xff, 0}, {}, []byte("x")}, nil)
	b.Field(6).(*array.Date32Builder).AppendValues([]arrow.Date32{0, -1, 19000}, nil)
	b.Field(7).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{0, 1_500_000, -1}, nil)
	b.Field(8).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{86_400_123, 0, 1}, nil)
	b.Field(9).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(12345), decimal128.FromI64(-5), decimal128.FromI64(0)}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	dir := t.TempDir()
	in := columnartest.Write(t, dir, "in", rec, 2, false)
	keys := filepath.Join(dir, "keys.csv")
	if err := os.WriteFile(keys, []byte("id,name\n1,one\n3,three\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := join.Options{Sides: join.Sides{Keys: keys, Input: in.ArrowFile}, Keying: join.Keying{KeyCol: "id", JoinCol: "id"}, JoinType: join.JoinLeft, Output: join.Output{Sort: true}}
	var c, a bytes.Buffer
	if _, err := Run(context.Background(), opt, NewCSV(&c)); err != nil {
		t.Fatal(err)
	}
	sink, err := NewArrow(&a, dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), opt, sink); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "out.arrow")
	if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := columnar.Open(context.Background(), path, "out", columnar.Arrow, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	var types []string
	for _, ty := range tab.Types {
		types = append(types, ty.String())
	}
	if got, want := strings.Join(types, " "), "int64 int8 uint32 float32 bool binary date timestamp[us, UTC] timestamp[ms] decimal(10,2) string"; got != want {
		t.Errorf("types %s, want %s", got, want)
	}
	got := tableRows(t, tab)
	if want := parseOutput(t, c.Bytes()); len(want) != 3 || !slices.Equal(got, want) {
		t.Fatalf("%s", testutil.FirstDiff(got, want))
	}
}

// tableRows is tab's rows as parseOutput gives a CSV output's: each row's
// fields joined by \x1f (a NULL empty), sorted.
func tableRows(t *testing.T, tab *columnar.Table) []string {
	t.Helper()
	var rows []string
	r := columnar.NewReader(tab)
	for r.Next() {
		var row []string
		for j, f := range r.Fields() {
			if r.Null(j) {
				f = nil
			}
			row = append(row, string(f))
		}
		rows = append(rows, strings.Join(row, "\x1f"))
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	slices.Sort(rows)
	return rows
}

// TestArrowOutputBatchBytes: the Arrow sink cuts its record batches by
// their values' bytes too (arrowBatchBytes, set small here), not only by
// rows: a file of many batches, each within the bound but for a lone row
// over it, read back whole by arrow-go's reader and the table reader.
func TestArrowOutputBatchBytes(t *testing.T) {
	defer func(b int) { arrowBatchBytes = b }(arrowBatchBytes)
	arrowBatchBytes = 2000
	keys, input := genTables(testutil.Seed(t))
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	opt := join.Options{Sides: join.Sides{Keys: kf["csv"], Input: inf["csv"]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Output: join.Output{Sort: true}}
	var c, a bytes.Buffer
	if _, err := Run(t.Context(), opt, NewCSV(&c)); err != nil {
		t.Fatal(err)
	}
	sink, err := NewArrow(&a, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(t.Context(), opt, sink); err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewFileReader(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for i := range r.NumRecords() {
		rec, err := r.Record(i)
		if err != nil {
			t.Fatal(err)
		}
		rows += int(rec.NumRows())
		if rec.NumRows() > 100 { // a row of this join is 20-60 bytes
			t.Errorf("batch %d: %d rows for a bound of %d bytes", i, rec.NumRows(), arrowBatchBytes)
		}
	}
	want := parseOutput(t, c.Bytes())
	if r.NumRecords() < 3 || rows != len(want) {
		t.Fatalf("%d batches, %d rows; want several, %d rows", r.NumRecords(), rows, len(want))
	}
	path := filepath.Join(dir, "out.arrow")
	if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := columnar.Open(t.Context(), path, "out", columnar.Arrow, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	if got := tableRows(t, tab); !slices.Equal(got, want) {
		t.Fatalf("read back: %s", testutil.FirstDiff(got, want))
	}
}
