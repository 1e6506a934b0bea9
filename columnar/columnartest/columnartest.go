// Package columnartest writes the Parquet and Arrow files that tests read:
// with Arrow's own writers (pqarrow, ipc), an implementation independent of
// the reader under test.
package columnartest

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
)

// Files are a record written three ways.
type Files struct {
	Parquet, ArrowFile, ArrowStream string
}

// Write writes rec into dir as name.parquet (rowGroup rows a row group,
// dictionary pages when dict), name.arrow (the IPC file format, in two
// record batches when it has two rows or more) and name.arrows (the IPC
// stream format).
func Write(t testing.TB, dir, name string, rec arrow.Record, rowGroup int64, dict bool) Files {
	t.Helper()
	fs := Files{filepath.Join(dir, name+".parquet"), filepath.Join(dir, name+".arrow"), filepath.Join(dir, name+".arrows")}
	f, err := os.Create(fs.Parquet)
	if err != nil {
		t.Fatal(err)
	}
	tbl := array.NewTableFromRecords(rec.Schema(), []arrow.Record{rec})
	defer tbl.Release()
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(rowGroup), parquet.WithDictionaryDefault(dict))
	if err := pqarrow.WriteTable(tbl, f, rowGroup, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())); err != nil {
		t.Fatal(err)
	}
	f.Close()
	g, err := os.Create(fs.ArrowFile)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ipc.NewFileWriter(g, ipc.WithSchema(rec.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	half := rec.NumRows() / 2
	for _, part := range []arrow.Record{rec.NewSlice(0, half), rec.NewSlice(half, rec.NumRows())} {
		if err := w.Write(part); err != nil {
			t.Fatal(err)
		}
		part.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	g.Close()
	h, err := os.Create(fs.ArrowStream)
	if err != nil {
		t.Fatal(err)
	}
	sw := ipc.NewWriter(h, ipc.WithSchema(rec.Schema()))
	if err := sw.Write(rec); err != nil {
		t.Fatal(err)
	}
	sw.Close()
	h.Close()
	return fs
}

// Record builds a record of columns named names, of types (Int32, Int64,
// Uint64, Float64, String, Boolean), from rows of text; a nil field is NULL. Every
// column is nullable.
func Record(t testing.TB, names []string, types []arrow.DataType, rows [][]*string) arrow.Record {
	t.Helper()
	fields := make([]arrow.Field, len(names))
	for i, n := range names {
		fields[i] = arrow.Field{Name: n, Type: types[i], Nullable: true}
	}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), arrow.NewSchema(fields, nil))
	defer b.Release()
	for _, row := range rows {
		for j, v := range row {
			fb := b.Field(j)
			if v == nil {
				fb.AppendNull()
				continue
			}
			var err error
			switch fb := fb.(type) {
			case *array.Int32Builder:
				var n int64
				n, err = strconv.ParseInt(*v, 10, 32)
				fb.Append(int32(n))
			case *array.Int64Builder:
				var n int64
				n, err = strconv.ParseInt(*v, 10, 64)
				fb.Append(n)
			case *array.Uint64Builder:
				var n uint64
				n, err = strconv.ParseUint(*v, 10, 64)
				fb.Append(n)
			case *array.Float64Builder:
				var x float64
				x, err = strconv.ParseFloat(*v, 64)
				fb.Append(x)
			case *array.BooleanBuilder:
				var x bool
				x, err = strconv.ParseBool(*v)
				fb.Append(x)
			case *array.StringBuilder:
				fb.Append(*v)
			default:
				t.Fatalf("columnartest: a column of type %s", types[j])
			}
			if err != nil {
				t.Fatalf("columnartest: column %s: %v", names[j], err)
			}
		}
	}
	return b.NewRecord()
}
