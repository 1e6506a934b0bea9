package local

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
)

// typedRowsTable writes a random large side of every Arrow type the
// readers accept (NULLs, edges, NaN, -0, far years, text with quotes,
// commas and line breaks) as Parquet and Arrow files in dir, joined on
// its int64 column id (some NULL, some without a key).
func typedRowsTable(t *testing.T, rng *rand.Rand, dir string, rows int) columnartest.Files {
	fields := []arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
		{Name: "d64", Type: arrow.FixedWidthTypes.Date64},
		{Name: "tss", Type: &arrow.TimestampType{Unit: arrow.Second}},
		{Name: "tsz", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "tsn", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}},
		{Name: "t32", Type: arrow.FixedWidthTypes.Time32ms},
		{Name: "t64", Type: arrow.FixedWidthTypes.Time64us},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}},
		{Name: "big", Type: &arrow.Decimal128Type{Precision: 30, Scale: 4}},
	}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), arrow.NewSchema(fields, nil))
	defer b.Release()
	// No "": typed rows keep it as "", CSV text cannot tell it from NULL
	// and writes NULL (ACBFJOIN_TYPED_ROWS=off's one difference;
	// TestTypedOutputsKeepEmptyString).
	texts := []string{" ", "a", `q"uote`, "co,mma", "line\nbreak", "ünï", strings.Repeat("long", 40)}
	floats := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 0.1, 1e300, -2.5e-10}
	for i := range rows {
		null := func() bool { return rng.IntN(8) == 0 }
		if null() {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(int64(rng.IntN(40)))
		}
		if null() {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Int8Builder).Append(int8(rng.IntN(256) - 128))
		}
		b.Field(2).(*array.Int32Builder).Append(rng.Int32() - math.MaxInt32/2)
		b.Field(3).(*array.Uint64Builder).Append(rng.Uint64())
		b.Field(4).(*array.Float32Builder).Append(float32(floats[rng.IntN(len(floats))] * rng.Float64()))
		if null() {
			b.Field(5).AppendNull()
		} else {
			b.Field(5).(*array.Float64Builder).Append(floats[rng.IntN(len(floats))] + float64(i%3))
		}
		if null() {
			b.Field(6).AppendNull()
		} else {
			b.Field(6).(*array.BooleanBuilder).Append(rng.IntN(2) == 0)
		}
		if null() {
			b.Field(7).AppendNull()
		} else {
			b.Field(7).(*array.StringBuilder).Append(texts[rng.IntN(len(texts))])
		}
		b.Field(8).(*array.BinaryBuilder).Append([]byte(texts[rng.IntN(len(texts))] + "\xff"))
		b.Field(9).(*array.Date32Builder).Append(arrow.Date32(rng.IntN(4_000_000) - 2_000_000))
		b.Field(10).(*array.Date64Builder).Append(arrow.Date64(int64(rng.IntN(100_000)-50_000) * 86_400_000))
		b.Field(11).(*array.TimestampBuilder).Append(arrow.Timestamp(rng.Int64N(1e11) - 5e10))
		if null() {
			b.Field(12).AppendNull()
		} else {
			b.Field(12).(*array.TimestampBuilder).Append(arrow.Timestamp(rng.Int64()))
		}
		b.Field(13).(*array.TimestampBuilder).Append(arrow.Timestamp(rng.Int64()))
		b.Field(14).(*array.Time32Builder).Append(arrow.Time32(rng.IntN(86_400_000)))
		b.Field(15).(*array.Time64Builder).Append(arrow.Time64(rng.Int64N(86_400_000_000)))
		b.Field(16).(*array.Decimal128Builder).Append(decimal128.FromI64(rng.Int64N(1e10) - 5e9))
		b.Field(17).(*array.Decimal128Builder).Append(decimal128.New(rng.Int64N(1e6), rng.Uint64()))
	}
	rec := b.NewRecord()
	defer rec.Release()
	return columnartest.Write(t, dir, "large", rec, int64(rows/3+1), rng.IntN(2) == 0)
}

// TestTypedRowsSame (issue 44): a Parquet or Arrow large side's rows
// carried to a typed output as typed cells give the output that CSV text
// gives (ACBFJOIN_TYPED_ROWS=off): byte for byte with Sort, the same rows
// without it; for every join type, a Parquet, Arrow and JSON lines output,
// every type of typedRowsTable, a right and full join's join column
// widened to text (a CSV key side's keys go there); key sides of CSV,
// of Parquet, of the key alone, and of every type (Parquet and Arrow). The Parquet sink took
// typed rows (its cells), and a Columns projection or a CSV large side
// keeps to text.
func TestTypedRowsSame(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 44))
	dir := t.TempDir()
	files := typedRowsTable(t, rng, dir, 600)
	keys := filepath.Join(dir, "keys.csv")
	var kb strings.Builder
	kb.WriteString("id,name,score\n")
	for k := range 30 {
		fmt.Fprintf(&kb, "%d,\"k,%d\",%d.5\n", k, k, k)
	}
	kb.WriteString("7,second seven,-1\n,null key,0\n99,unmatched,3\n")
	if err := os.WriteFile(keys, []byte(kb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same keys as a Parquet side (its rows made by the table's
	// AppendOthers), and a key side of the key alone (no key-side part).
	kbld := array.NewRecordBuilder(memory.NewGoAllocator(), arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64},
	}, nil))
	defer kbld.Release()
	for k := range 30 {
		kbld.Field(0).(*array.Int64Builder).Append(int64(k))
		if k%5 == 0 {
			kbld.Field(1).AppendNull()
		} else {
			kbld.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("k,\"%d\"\n", k))
		}
		kbld.Field(2).(*array.Float64Builder).Append(float64(k) + 0.5)
	}
	kbld.Field(0).AppendNull()
	kbld.Field(1).(*array.StringBuilder).Append("null key")
	kbld.Field(2).(*array.Float64Builder).Append(math.NaN())
	krec := kbld.NewRecord()
	defer krec.Release()
	keysPq := columnartest.Write(t, dir, "keys", krec, 10, false).Parquet
	keysOnly := filepath.Join(dir, "keysonly.csv")
	if err := os.WriteFile(keysOnly, []byte("id\n3\n5\n\n8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	formats := map[string]func(w io.Writer) (Sink, error){
		"parquet": func(w io.Writer) (Sink, error) { return NewParquet(w, dir), nil },
		"arrow":   func(w io.Writer) (Sink, error) { return NewArrow(w, dir, false) },
		"jsonl":   func(w io.Writer) (Sink, error) { return NewJSONL(w, dir) },
	}
	run := func(opt join.Options, format string, typed bool) ([]byte, Sink) {
		t.Helper()
		noTypedRows = !typed
		defer func() { noTypedRows = false }()
		var out bytes.Buffer
		sink, err := formats[format](&out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(t.Context(), opt, sink); err != nil {
			t.Fatalf("%s %s typed %v: %v", opt.JoinType, format, typed, err)
		}
		return out.Bytes(), sink
	}
	// A key side of every type too (its rows made by AppendCellsOf).
	kdir := filepath.Join(dir, "richkeys")
	if err := os.Mkdir(kdir, 0o755); err != nil {
		t.Fatal(err)
	}
	rich := typedRowsTable(t, rng, kdir, 200)
	sidesList := [][2]string{{keys, files.Parquet}, {keys, files.ArrowFile}, {keysPq, files.Parquet}, {keysOnly, files.ArrowFile}, {rich.Parquet, files.Parquet}, {rich.ArrowFile, files.ArrowFile}}
	formatList := []string{"parquet", "arrow", "jsonl"}
	if testing.Short() { // -race -short (CI): a CSV and a typed key side, to Parquet (40 s under -race in full)
		sidesList, formatList = [][2]string{sidesList[0], sidesList[4]}, formatList[:1]
	}
	for _, sides := range sidesList {
		keys, input := sides[0], sides[1]
		for _, jt := range join.JoinTypes {
			for _, format := range formatList {
				opt := join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "id", JoinCol: "id"}, JoinType: jt,
					Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 2, Reducers: 2}}
				want, _ := run(opt, format, false)
				got, sink := run(opt, format, true)
				if ps, ok := sink.(*parquetSink); ok && !ps.cells {
					t.Fatalf("%s %s: the Parquet sink took no typed rows", jt, format)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s %s from %s and %s: typed rows wrote %d bytes, text %d, not the same", jt, format, filepath.Base(keys), filepath.Base(input), len(got), len(want))
				}
				if format != "parquet" {
					continue
				}
				// Unsorted: the same rows (the reducers' order varies).
				opt.Sort = false
				path := filepath.Join(dir, "out.parquet")
				got, _ = run(opt, format, true)
				os.WriteFile(path, got, 0o644)
				gotRows := readTable(t, path)
				want, _ = run(opt, format, false)
				os.WriteFile(path, want, 0o644)
				if wantRows := readTable(t, path); !sameSorted(gotRows, wantRows) {
					t.Fatalf("%s unsorted: %s", jt, testutil.FirstDiff(gotRows, wantRows))
				}
			}
		}
	}
	// A projection takes typed rows too, picking cells as it picks fields:
	// the same output as text's, both sides' columns in the order asked.
	for _, jt := range join.JoinTypes {
		cols := []string{"name", "f64", "tsz", "id"}
		if jt.LargeOnly() {
			cols = []string{"f64", "tsz", "id"}
		}
		opt := join.Options{Sides: join.Sides{Keys: keys, Input: files.Parquet}, Keying: join.Keying{KeyCol: "id", JoinCol: "id"}, JoinType: jt,
			Output: join.Output{Sort: true, Columns: cols}, Resources: join.Resources{Mappers: 2, Reducers: 2}}
		want, _ := run(opt, "parquet", false)
		got, sink := run(opt, "parquet", true)
		if !sink.(*parquetSink).cells {
			t.Fatalf("%s: a projected output took no typed rows", jt)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s projected: typed rows wrote %d bytes, text %d, not the same", jt, len(got), len(want))
		}
	}
	var sink Sink
	// A CSV large side keeps to text.
	opt := join.Options{Sides: join.Sides{Keys: keys, Input: keys}, Keying: join.Keying{KeyCol: "id", JoinCol: "id"}}
	if _, sink = run(opt, "parquet", true); sink.(*parquetSink).cells {
		t.Fatal("a CSV large side's rows went as typed rows")
	}
}

// sameSorted reports whether a and b hold the same strings in any order.
func sameSorted(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		if count[s]--; count[s] < 0 {
			return false
		}
	}
	return true
}

// leftJoinOfTypes is a sorted left join of a Parquet side of rows rows of
// typedRowsTable (in dir, a new temporary folder) to 40 keys of a CSV key
// side.
func leftJoinOfTypes(t *testing.T, rng *rand.Rand, rows int) (dir string, opt join.Options) {
	t.Helper()
	dir = t.TempDir()
	files := typedRowsTable(t, rng, dir, rows)
	keys := filepath.Join(dir, "keys.csv")
	var kb strings.Builder
	kb.WriteString("id,name\n")
	for k := range 40 {
		fmt.Fprintf(&kb, "%d,n%d\n", k, k)
	}
	if err := os.WriteFile(keys, []byte(kb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, join.Options{Sides: join.Sides{Keys: keys, Input: files.Parquet}, Keying: join.Keying{KeyCol: "id", JoinCol: "id"},
		JoinType: join.JoinLeft, Output: join.Output{Sort: true}}
}

// TestParquetParallelColumns: a row group's columns encoded on two
// goroutines (writeWorkers) make the file that one goroutine makes, and
// that a serial row group writer makes (flushSerial, a large group's),
// byte for byte: several row groups, every type of typedRowsTable, Bloom
// filters on the join column.
func TestParquetParallelColumns(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	dir, opt := leftJoinOfTypes(t, rand.New(rand.NewPCG(seed, 45)), 3000)
	write := func(workers int) []byte {
		t.Helper()
		old := writeWorkers
		writeWorkers = workers
		defer func() { writeWorkers = old }()
		var out bytes.Buffer
		if _, err := Run(t.Context(), opt, NewParquetRowGroups(&out, dir, 500)); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	one, two := write(1), write(2)
	if !bytes.Equal(one, two) {
		t.Fatalf("two goroutines wrote %d bytes, one %d: not the same", len(two), len(one))
	}
	old := bigGroupBytes
	bigGroupBytes = 1 // every group written serially (flushSerial), as a large RowGroup's
	serial := write(2)
	bigGroupBytes = old
	if !bytes.Equal(serial, two) {
		t.Fatalf("serially %d bytes, buffered %d: not the same", len(serial), len(two))
	}
	path := filepath.Join(dir, "out.parquet")
	os.WriteFile(path, two, 0o644)
	if rows := readTable(t, path); len(rows) != 3000 {
		t.Fatalf("%d rows read back, want 3000", len(rows))
	}
}

// TestTypedRowsSortBigRows: rows of texts of 4 MB and more, sorted (the
// external sort's runs) to a Parquet output as typed rows, give the bytes
// the text path gives; a frame a few bytes longer than its text once
// made a run the merge refused ("corrupt row").
func TestTypedRowsSortBigRows(t *testing.T) {
	dir := t.TempDir()
	b := array.NewRecordBuilder(memory.NewGoAllocator(), arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String},
	}, nil))
	defer b.Release()
	for _, n := range []int{4194287, 4194300, 5 << 20} {
		b.Field(0).(*array.Int64Builder).Append(5)
		b.Field(1).(*array.StringBuilder).Append(strings.Repeat("x", n))
	}
	rec := b.NewRecord()
	defer rec.Release()
	in := columnartest.Write(t, dir, "big", rec, 3, false).Parquet
	keys := filepath.Join(dir, "keys.csv")
	if err := os.WriteFile(keys, []byte("id,name\n5,five\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := join.Options{Sides: join.Sides{Keys: keys, Input: in}, Keying: join.Keying{KeyCol: "id", JoinCol: "id"},
		Output: join.Output{Sort: true}, Resources: join.Resources{MemBudget: 64 << 20}}
	var outs [2][]byte
	for i, typed := range []bool{false, true} {
		noTypedRows = !typed
		var out bytes.Buffer
		_, err := Run(t.Context(), opt, NewParquet(&out, dir))
		noTypedRows = false
		if err != nil {
			t.Fatalf("typed %v: %v", typed, err)
		}
		outs[i] = out.Bytes()
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatalf("typed rows wrote %d bytes, text %d: not the same", len(outs[1]), len(outs[0]))
	}
}

// panicAfter is failAfter that panics (as arrow-go's writer may on a
// failed write) instead of returning an error.
type panicAfter struct{ failAfter }

func (w *panicAfter) Write(p []byte) (int, error) {
	n, err := w.failAfter.Write(p)
	if err != nil {
		panic(err)
	}
	return n, nil
}

// TestParquetWriteErrors: an output that fails (an error, or a panic) at
// any of 24 points of a file of several row groups ends the join with an
// error, on the parallel columns' path and the serial one (a large
// group's), with no goroutine left waiting in flushGroup's chain of
// closes (a review's test, kept).
func TestParquetWriteErrors(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 46))
	dir, opt := leftJoinOfTypes(t, rng, 2000)
	var whole bytes.Buffer
	if _, err := Run(t.Context(), opt, NewParquetRowGroups(&whole, dir, 400)); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	old := bigGroupBytes
	defer func() { bigGroupBytes = old }()
	for _, serial := range []bool{false, true} {
		bigGroupBytes = old
		if serial {
			bigGroupBytes = 1
		}
		for k := range 12 {
			n := rng.IntN(whole.Len())
			var w io.Writer = &failAfter{n: n, err: errors.New("test: the disk is full")}
			if k%2 == 1 {
				w = &panicAfter{failAfter{n: n, err: errors.New("test: a write panicked")}}
			}
			if _, err := Run(t.Context(), opt, NewParquetRowGroups(w, dir, 400)); err == nil {
				t.Fatalf("serial %v: an output failing after %d of %d bytes (%T): no error", serial, n, whole.Len(), w)
			}
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before+2 {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines, %d before\n%s", g, before, buf[:runtime.Stack(buf, true)])
	}
}
