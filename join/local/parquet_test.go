package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/key"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/acbfjoin/acbfjoin/internal/tmpspace"
	"github.com/acbfjoin/acbfjoin/join"
)

// writeParquet writes lines through a Parquet sink, from two writers, and
// checks that its spool is gone after Close.
func writeParquet(t *testing.T, h join.Header, lines []string) []byte {
	t.Helper()
	var out bytes.Buffer
	dir := t.TempDir()
	s := NewParquet(&out, dir)
	if err := s.Begin(h); err != nil {
		t.Fatal(err)
	}
	ws := []RowWriter{s.Writer(), s.Writer()}
	for i, l := range lines {
		if err := ws[i%2].(lineWriter).WriteLine([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range ws {
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("left in the temporary folder: %v", left)
	}
	return out.Bytes()
}

// column returns column i of tbl as text, "NULL" for a null, and its type.
func column(t *testing.T, tbl arrow.Table, i int) ([]string, arrow.DataType) {
	t.Helper()
	var out []string
	for _, chunk := range tbl.Column(i).Data().Chunks() {
		for j := range chunk.Len() {
			if chunk.IsNull(j) {
				out = append(out, "NULL")
				continue
			}
			switch c := chunk.(type) {
			case *array.Int64:
				out = append(out, strconv.FormatInt(c.Value(j), 10))
			case *array.Float64:
				out = append(out, strconv.FormatFloat(c.Value(j), 'f', -1, 64))
			case *array.String:
				out = append(out, c.Value(j))
			case *array.Binary:
				out = append(out, string(c.Value(j)))
			default:
				t.Fatalf("column %d: %T", i, chunk)
			}
		}
	}
	return out, tbl.Schema().Field(i).Type
}

// TestParquetTypesFromValues: a column is INT64 or DOUBLE only when every
// value written to it parses as one and prints back as the same text, else
// UTF-8, whatever its name; so every value reads back as it was written
// (007 and 7 stay apart), and an empty field is NULL.
func TestParquetTypesFromValues(t *testing.T) {
	str, i64, f64 := arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64
	// How a DOUBLE written from a decimal of another form prints back.
	printed := map[string]string{"7.0": "7", "1e3": "1000", ".5": "0.5", ".097": "0.097", "-.5": "-0.5", "1.": "1", "1.50": "1.5"}
	for _, c := range []struct {
		name   string
		values []string
		want   arrow.DataType
	}{
		{"ints", []string{"1", "-7", "0", "9223372036854775807", "-9223372036854775808"}, i64},
		{"leading zero", []string{"007", "7"}, str},
		{"plus sign", []string{"+7", "7"}, str},
		{"minus zero", []string{"-0", "1"}, f64},                    // -0 prints back as -0 as a double
		{"beyond int64", []string{"9223372036854775808", "1"}, str}, // as a double it prints 9223372036854776000
		{"an integer a double holds exactly", []string{"9007199254740992", "0.5"}, f64},
		{"an integer a double does not hold", []string{"100000000000000000000000000000", "0.5"}, str}, // it prints back, but the double is 99999999999999991433150857216
		{"not UTF-8", []string{"a\xff\xfe", "b"}, arrow.BinaryTypes.Binary},
		{"decimals", []string{"0.5", "2", "-3.25", "0.6667"}, f64},
		// Decimals in other forms, typed DOUBLE as DuckDB types them (issue
		// 46): written as the double, which prints back otherwise
		// (printed).
		{"seven point zero", []string{"7.0", "1"}, f64},
		{"exponent", []string{"1e3", "1"}, f64},
		{"no leading digit", []string{".5", "1"}, f64},
		{"DuckDB's decimals", []string{".097", "-.5", "1.", "1.50"}, f64},
		{"a decimal with a leading zero", []string{"007.5", "1"}, str},
		{"not a number", []string{"NaN", "1"}, str},
		{"infinity", []string{"Inf", "1"}, str},
		{"too precise for a double", []string{"12345678901234567", "0.5"}, str},
		{"text", []string{"abc", "7"}, str},
		{"with NULLs", []string{"", "5", ""}, i64},
		{"NULLs only", []string{"", ""}, str},
		{"spaces", []string{" 7", "7"}, str},
		{"quoted", []string{`"7"`, `"a,b"`}, str},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := join.OutputHeader([]string{"K", "V"}, oneKey(0, key.String), []string{"K"}, oneKey(0, key.String), "")
			var lines []string
			for i, v := range c.values {
				lines = append(lines, fmt.Sprintf("k%d,%s\n", i, v))
			}
			tbl := testutil.ReadParquet(t, writeParquet(t, h, lines))
			keys, _ := column(t, tbl, 0)
			vals, typ := column(t, tbl, 1)
			if !arrow.TypeEqual(typ, c.want) {
				t.Errorf("type %v, want %v", typ, c.want)
			}
			got := map[string]string{} // the writers' batches come in either order
			for i, k := range keys {
				got[k] = vals[i]
			}
			for i, v := range c.values {
				want := v
				switch {
				case v == "":
					want = "NULL"
				case v == `"7"`:
					want = "7"
				case v == `"a,b"`:
					want = "a,b"
				case printed[v] != "" && arrow.TypeEqual(c.want, f64):
					want = printed[v]
				}
				if g := got[fmt.Sprintf("k%d", i)]; g != want {
					t.Errorf("value %d: %q, want %q", i, g, want)
				}
			}
		})
	}
}

// TestParquetRows: more rows than a row group, quoted fields with quotes
// and commas, NULLs, and an output with no rows (every column UTF-8).
func TestParquetRows(t *testing.T) {
	testutil.SkipUnderRace(t)
	h := join.OutputHeader([]string{"CITING", "CITED"}, oneKey(1, key.Int),
		[]string{"PATENT", "GYEAR", "RATIOCIT", "COUNTRY"}, oneKey(0, key.Int), "")
	var lines []string
	for i := 0; i < 70000; i++ { // more than one row group
		country := ""
		if i%3 == 0 {
			country = `"J""P, x"`
		}
		lines = append(lines, fmt.Sprintf("%d,%d,%d,0.5,%s\n", 4000000+i%7, 3858241, 1975+i%5, country))
	}
	lines = append(lines, "4000001,42,,,\n")
	tbl := testutil.ReadParquet(t, writeParquet(t, h, lines))
	if tbl.NumRows() != 70001 || tbl.NumCols() != 5 {
		t.Fatalf("table %d rows x %d cols", tbl.NumRows(), tbl.NumCols())
	}
	wantTypes := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String}
	cols := make([][]string, 5)
	for i, want := range wantTypes {
		if f := tbl.Schema().Field(i); !arrow.TypeEqual(f.Type, want) || !f.Nullable {
			t.Errorf("column %d %s: %v (nullable %v), want nullable %v", i, f.Name, f.Type, f.Nullable, want)
		}
		cols[i], _ = column(t, tbl, i)
	}
	// Rows come back in the order written, the writers' batches in turn.
	got := map[string]int{}
	for r := range 70001 {
		got[strings.Join([]string{cols[0][r], cols[1][r], cols[2][r], cols[3][r], cols[4][r]}, "|")]++
	}
	want := map[string]int{}
	for i := 0; i < 70000; i++ {
		country := "NULL"
		if i%3 == 0 {
			country = `J"P, x`
		}
		want[fmt.Sprintf("%d|3858241|%d|0.5|%s", 4000000+i%7, 1975+i%5, country)]++
	}
	want["4000001|42|NULL|NULL|NULL"]++
	if !maps.Equal(got, want) {
		t.Fatalf("rows differ: %d distinct, want %d", len(got), len(want))
	}

	empty := testutil.ReadParquet(t, writeParquet(t, h, nil))
	if empty.NumRows() != 0 || empty.NumCols() != 5 {
		t.Fatalf("no rows: table %d rows x %d cols", empty.NumRows(), empty.NumCols())
	}
	for i := range 5 {
		if f := empty.Schema().Field(i); !arrow.TypeEqual(f.Type, arrow.BinaryTypes.String) {
			t.Errorf("no rows: column %s is %v, want UTF-8", f.Name, f.Type)
		}
	}
}

// TestParquetLimits: rows longer than the CSV reader's 1 MiB and wider than
// its 1024 columns, valid join output, are written (they failed when the
// Parquet writer re-read the CSV output); a failure removes the spool.
func TestParquetLimits(t *testing.T) {
	testutil.SkipUnderRace(t)
	long := strings.Repeat("p", 1<<20)
	h := join.OutputHeader([]string{"CITING", "CITED", "PAD"}, oneKey(1, key.Int), []string{"PATENT", "V"}, oneKey(0, key.Int), "")
	tbl := testutil.ReadParquet(t, writeParquet(t, h, []string{"10,1," + long + "," + long + "\n"}))
	if got := tbl.Column(2).Data().Chunk(0).(*array.String).Value(0); got != long {
		t.Fatalf("a 1 MiB field came back as %d bytes", len(got))
	}
	var names, keyNames []string
	var row []string
	for i := range 600 {
		names = append(names, fmt.Sprintf("L%d", i))
		keyNames = append(keyNames, fmt.Sprintf("K%d", i))
		row = append(row, fmt.Sprint(i))
	}
	wide := join.OutputHeader(names, oneKey(0, key.String), keyNames, oneKey(0, key.String), "")
	tbl = testutil.ReadParquet(t, writeParquet(t, wide, []string{strings.Join(row, ",") + "," + strings.Join(row[1:], ",") + "\n"}))
	if tbl.NumCols() != 1199 {
		t.Fatalf("%d columns, want 1199", tbl.NumCols())
	}

	dir := t.TempDir()
	s := NewParquet(&bytes.Buffer{}, dir)
	if err := s.Begin(h); err != nil {
		t.Fatal(err)
	}
	w := s.Writer()
	w.(lineWriter).WriteLine([]byte("10,1\n"))
	// The rows are split when Finish reads the spool back (observeSpool).
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(t.Context()); err == nil || !strings.Contains(err.Error(), "an output row has 2 fields, the header 4") {
		t.Fatalf("a short row: %v", err)
	}
	s.Close()
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("left after a failure: %v", left)
	}
}

// oneKey is the KeySpec of one key column at index i.
func oneKey(i int, kt key.Type) key.Spec {
	return key.Spec{Cols: []int{i}, Names: []string{"key"}, Types: []key.Type{kt}}
}

// FuzzCanonical checks canonicalInt and canonicalFloat against their
// definitions: the value parses and strconv prints it back as the same text.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{"0", "-0", "007", "+7", "7", "-7", "9223372036854775807", "9223372036854775808", "0.5", "7.0", "1e3", ".5", "NaN", "-Inf", "1_000", "0x10", "12345678901234567", ".097", "-.5", "1.", "1.50", "2.5E-3", "007.5", "1e999", "0.00000001", "1e-08", "1e+22", "100000000000000000000", "1e+21", "0.0000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := strconv.ParseInt(s, 10, 64)
		wantInt := err == nil && strconv.FormatInt(v, 10) == s
		if got := canonicalInt([]byte(s)); got != wantInt {
			t.Errorf("canonicalInt(%q) = %v, want %v", s, got, wantInt)
		}
		x, err := strconv.ParseFloat(s, 64)
		// The form canonicalFloat documents (columnar.AppendFloat's),
		// written here with strconv alone: plain for 0 and 1e-7 <= |x| <
		// 1e21, the shortest exponent form beyond ("0.00000001" is 1e-08
		// printed back: not canonical; the reference once said 'f' for
		// every x, and the fuzzer found the difference); an integer without
		// a point or an exponent only within 2^53.
		format := byte('g')
		if a := math.Abs(x); a == 0 || a >= 1e-7 && a < 1e21 {
			format = 'f'
		}
		wantFloat := err == nil && !math.IsInf(x, 0) && !math.IsNaN(x) && strconv.FormatFloat(x, format, -1, 64) == s &&
			(strings.ContainsAny(s, ".e") || math.Abs(x) <= 1<<53)
		if got := canonicalFloat([]byte(s)); got != wantFloat {
			t.Errorf("canonicalFloat(%q) = %v, want %v", s, got, wantFloat)
		}
		// decimalFloat: a finite float (ParseFloat) holding a point or an
		// exponent, made of digits, one leading '-', '.', e/E and an
		// exponent's sign, with a digit before the exponent, no leading zero
		// before another digit, and no integer.
		wantDec := err == nil && !math.IsInf(x, 0) && strings.ContainsAny(s, ".eE") && decimalShape.MatchString(s)
		if got := decimalFloat([]byte(s)); got != wantDec {
			t.Errorf("decimalFloat(%q) = %v, want %v", s, got, wantDec)
		}
	})
}

// decimalShape is decimalFloat's grammar, as a regular expression.
var decimalShape = regexp.MustCompile(`^-?(0|[1-9][0-9]*)?(\.[0-9]*)?([eE][+-]?[0-9]+)?$`)

// TestDecimalFloat: DuckDB's DOUBLE forms (issue 46) and what stays text.
func TestDecimalFloat(t *testing.T) {
	for s, want := range map[string]bool{".097": true, "-.5": true, "1.": true, "1.50": true, "7.0": true, "1e3": true, "2.5E-3": true, "0.5": true,
		"7": false, "007": false, "+.5": false, ".": false, "-.": false, ".e5": false, "1e": false, "007.5": false, "1e999": false, "NaN": false, "0x1p3": false, "1_0.5": false, "": false} {
		if got := decimalFloat([]byte(s)); got != want || want && !regexp.MustCompile(`^-?[0-9]*\.?[0-9]*([eE][+-]?[0-9]+)?$`).MatchString(s) {
			t.Errorf("decimalFloat(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestParquetSpoolReserve: rows without end (an input that never ends)
// stop at the temporary folder's reserve (a small disk faked) rather than
// fill it, and Close removes the spool.
func TestParquetSpoolReserve(t *testing.T) {
	testutil.SkipUnderRace(t)
	defer tmpspace.Fake(8<<20, 40<<20)() // 8 MiB free, 2 MiB of it the reserve
	h := join.OutputHeader([]string{"CITING", "CITED"}, oneKey(1, key.Int), []string{"PATENT"}, oneKey(0, key.Int), "")
	dir := t.TempDir()
	s := NewParquet(&bytes.Buffer{}, dir)
	if err := s.Begin(h); err != nil {
		t.Fatal(err)
	}
	w := s.Writer()
	var err error
	for i := 0; i < 1e6 && err == nil; i++ { // 100 MB: far more than fits
		w.(lineWriter).WriteLine([]byte(strings.Repeat("1", 90) + ",2\n"))
		if i%1000 == 999 {
			err = w.Flush()
		}
	}
	if !errors.Is(err, tmpspace.ErrFull) || !strings.HasPrefix(err.Error(), "parquet: spool: stopped after") {
		t.Fatalf("error %v, want the reserve's", err)
	}
	s.Close()
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("left after a failure: %v", left)
	}
}

// failAfter is a writer that fails once n bytes have been written.
type failAfter struct {
	n   int
	err error
}

func (w *failAfter) Write(p []byte) (int, error) {
	if w.n < len(p) {
		return 0, w.err
	}
	w.n -= len(p)
	return len(p), nil
}

// TestParquetFinishPipeline: Finish's two goroutines (the spool parsed into
// row groups while the group before is written) write many small groups
// in the rows' order, from several writers' batches; an output that fails
// half way, and a context cancelled, end Finish with that error, and no
// goroutine of it is left running.
func TestParquetFinishPipeline(t *testing.T) {
	h := join.OutputHeader([]string{"A", "S"}, oneKey(0, key.Int), []string{"A", "T"}, oneKey(0, key.Int), "")
	var lines []string
	for i := range 20000 {
		lines = append(lines, fmt.Sprintf("%d,s%d,t%d\n", i, i%7, i%3))
	}
	spool := func(out io.Writer, rowGroup int) Sink {
		s := NewParquetWith(out, t.TempDir(), ParquetOptions{RowGroup: rowGroup})
		if err := s.Begin(h); err != nil {
			t.Fatal(err)
		}
		w := s.Writer()
		for _, l := range lines {
			if err := w.(lineWriter).WriteLine([]byte(l)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	var out bytes.Buffer
	s := spool(&out, 300) // 67 row groups
	if err := s.Finish(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	checkOrder := func(name string, b []byte) {
		t.Helper()
		tbl := testutil.ReadParquet(t, b)
		if tbl.NumRows() != 20000 {
			t.Fatalf("%s: %d rows", name, tbl.NumRows())
		}
		a, _ := column(t, tbl, 0)
		for i, v := range a {
			if v != fmt.Sprint(i) {
				t.Fatalf("%s: row %d: A = %s: out of order", name, i, v)
			}
		}
	}
	checkOrder("two groups in flight", out.Bytes())
	// Groups over bigGroupBytes (set small): each written before the next
	// is begun, the same rows in order.
	defer func(b int) { bigGroupBytes = b }(bigGroupBytes)
	bigGroupBytes = 1000
	out.Reset()
	s = spool(&out, 300)
	if err := s.Finish(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	checkOrder("big groups", out.Bytes())
	bigGroupBytes = 2 * parquetRowGroupBytes
	before := runtime.NumGoroutine()
	for _, c := range []struct {
		name   string
		out    io.Writer
		cancel bool
		want   string
	}{
		{"a full disk after 20 KB", &failAfter{n: 20000, err: errors.New("no space left on device")}, false, "no space left on device"},
		{"a full disk at once", &failAfter{err: errors.New("no space left on device")}, false, "no space left on device"},
		{"cancelled", io.Discard, true, context.Canceled.Error()},
	} {
		s := spool(c.out, 300)
		ctx, cancel := context.WithCancel(t.Context())
		if c.cancel {
			cancel()
		}
		err := s.Finish(ctx)
		cancel()
		s.Close()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Finish: %v, want %q", c.name, err, c.want)
		}
	}
	// The goroutines have done their work when Finish returns and end an
	// instant after; one still there half a minute later is a leak (a
	// deadline so long that no load makes a finished goroutine miss it).
	for deadline := time.Now().Add(30 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the failed Finishes, %d before", n, before)
	}
}

// TestParquetOutputFarYears: a Parquet key side's timestamps and dates of
// years beyond 0001-9999 (10000, 0000, -0001: Parquet's and Arrow's
// ranges hold them) are written to a Parquet output as they are, where
// Type.Value, reading them back through time.Parse, failed the run.
func TestParquetOutputFarYears(t *testing.T) {
	dir := t.TempDir()
	fields := []arrow.Field{
		{Name: "K", Type: arrow.PrimitiveTypes.Int64},
		{Name: "TS", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "D", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), arrow.NewSchema(fields, nil))
	defer b.Release()
	const y10000, y0, yMinus1 = 253402300800, -62167219200, -62198755200 // seconds since 1970 of 10000-01-01, 0000-01-01, -0001-01-01
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3, 4}, nil)
	b.Field(1).(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{y10000 * 1e6, y0*1e6 + 5, yMinus1*1e6 + 123456, 0}, []bool{true, true, true, false})
	b.Field(2).(*array.Date32Builder).AppendValues([]arrow.Date32{y10000 / 86400, y0 / 86400, yMinus1/86400 + 59, 0}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	kf := columnartest.Write(t, dir, "keys", rec, 2, false).Parquet
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("K,V\n1,a\n2,b\n3,c\n4,d\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.parquet")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(t.Context(), join.Options{Sides: join.Sides{Keys: kf, Input: in}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Output: join.Output{Sort: true}}, NewParquet(f, dir))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(readTable(t, out), ";")
	want := "1,a,10000-01-01T00:00:00,10000-01-01;2,b,0000-01-01T00:00:00.000005,0000-01-01;3,c,-0001-01-01T00:00:00.123456,-0001-03-01;4,d,,1970-01-01"
	if got != want {
		t.Errorf("read back:\n%s\nwant\n%s", got, want)
	}
}
