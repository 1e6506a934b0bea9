package local

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/acbfjoin/acbfjoin/join"

	"github.com/acbfjoin/acbfjoin/internal/fixture"
)

// writeParquet writes lines through a Parquet sink, from two writers.
func writeParquet(t *testing.T, h join.Header, types func(string) ColumnType, lines []string) []byte {
	t.Helper()
	var out bytes.Buffer
	s := NewParquet(&out, types)
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
	return out.Bytes()
}

// TestParquetTyped: the join column of integer keys is INT64, the columns the
// types function knows are INT64 and DOUBLE, the rest text; empty fields are
// NULL; quoted fields are unquoted; more rows than a row group.
func TestParquetTyped(t *testing.T) {
	h := join.OutputHeader([]byte(`"CITING","CITED"`), []string{"CITING", "CITED"}, oneKey(1, join.IntKeys),
		[]string{"PATENT", "GYEAR", "RATIOCIT", "COUNTRY"}, oneKey(0, join.IntKeys))
	types := func(name string) ColumnType {
		switch name {
		case "GYEAR":
			return Int64
		case "RATIOCIT":
			return Float64
		}
		return Text
	}
	var lines []string
	for i := 0; i < 70000; i++ { // more than one row group
		country := ""
		if i%3 == 0 {
			country = `"J""P, x"`
		}
		lines = append(lines, fmt.Sprintf("%d,+0%d,%d,0.5,%s\n", 4000000+i%7, 3858241, 1975+i%5, country))
	}
	lines = append(lines, "4000001,42,,,\n")
	tbl := fixture.ReadParquet(t, writeParquet(t, h, types, lines))
	if tbl.NumRows() != 70001 || tbl.NumCols() != 5 {
		t.Fatalf("table %d rows x %d cols", tbl.NumRows(), tbl.NumCols())
	}
	wantTypes := []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String}
	for i, want := range wantTypes {
		if f := tbl.Schema().Field(i); !arrow.TypeEqual(f.Type, want) || !f.Nullable {
			t.Errorf("column %d %s: %v (nullable %v), want nullable %v", i, f.Name, f.Type, f.Nullable, want)
		}
	}
	cited := tbl.Column(1).Data().Chunk(0).(*array.Int64)
	country := tbl.Column(4).Data().Chunk(0).(*array.String)
	if cited.Value(0) != 3858241 || country.Value(0) != `J"P, x` || !country.IsNull(1) {
		t.Fatalf("values: %d %q null %v", cited.Value(0), country.Value(0), country.IsNull(1))
	}
	// The row whose key is 42 has empty GYEAR and RATIOCIT: NULL.
	found := false
	for c, chunk := range tbl.Column(1).Data().Chunks() {
		for i := range chunk.Len() {
			if chunk.(*array.Int64).Value(i) == 42 {
				found = true
				if !tbl.Column(2).Data().Chunk(c).IsNull(i) || !tbl.Column(3).Data().Chunk(c).IsNull(i) {
					t.Fatal("empty numeric fields are not NULL")
				}
			}
		}
	}
	if !found {
		t.Fatal("the row of key 42 is missing")
	}
}

// TestParquetLimits: rows longer than the CSV reader's 1 MiB and wider than
// its 1024 columns, valid join output, are written (they failed when the
// Parquet writer re-read the CSV output); a value that is not of its
// column's type is an error naming the column.
func TestParquetLimits(t *testing.T) {
	long := strings.Repeat("p", 1<<20)
	h := join.OutputHeader([]byte("CITING,CITED,PAD"), []string{"CITING", "CITED", "PAD"}, oneKey(1, join.IntKeys), []string{"PATENT", "V"}, oneKey(0, join.IntKeys))
	tbl := fixture.ReadParquet(t, writeParquet(t, h, nil, []string{"10,1," + long + "," + long + "\n"}))
	if got := tbl.Column(2).Data().Chunk(0).(*array.String).Value(0); got != long {
		t.Fatalf("a 1 MiB field came back as %d bytes", len(got))
	}
	var names, key []string
	var row []string
	for i := range 600 {
		names = append(names, fmt.Sprintf("L%d", i))
		key = append(key, fmt.Sprintf("K%d", i))
		row = append(row, fmt.Sprint(i))
	}
	wide := join.OutputHeader([]byte(strings.Join(names, ",")), names, oneKey(0, join.StringKeys), key, oneKey(0, join.StringKeys))
	tbl = fixture.ReadParquet(t, writeParquet(t, wide, nil, []string{strings.Join(row, ",") + "," + strings.Join(row[1:], ",") + "\n"}))
	if tbl.NumCols() != 1199 {
		t.Fatalf("%d columns, want 1199", tbl.NumCols())
	}
	s := NewParquet(&bytes.Buffer{}, func(n string) ColumnType {
		if n == "PAD" {
			return Int64
		}
		return Text
	})
	if err := s.Begin(h); err != nil {
		t.Fatal(err)
	}
	w := s.Writer()
	w.(lineWriter).WriteLine([]byte("10,1,x,y\n"))
	if err := w.Flush(); err == nil || !strings.Contains(err.Error(), `column "PAD": "x" is not an integer`) {
		t.Fatalf("a text value in an integer column: %v", err)
	}
}

// oneKey is the KeySpec of one key column at index i.
func oneKey(i int, kt join.KeyType) join.KeySpec {
	return join.KeySpec{Cols: []int{i}, Names: []string{"key"}, Types: []join.KeyType{kt}}
}
