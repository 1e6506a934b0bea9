// Package columnartest writes the Parquet and Arrow files that tests read:
// with Arrow's own writers (pqarrow, ipc), an implementation independent of
// the reader under test.
package columnartest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Files are a record written three ways.
type Files struct {
	Parquet, ArrowFile, ArrowStream string
}

// Write writes rec into dir as name.parquet (rowGroup rows a row group,
// dictionary pages when dict), name.arrow (the IPC file format, in two
// record batches when it has two rows or more) and name.arrows (the IPC
// stream format). It fails t on an error (WriteFiles).
func Write(t testing.TB, dir, name string, rec arrow.Record, rowGroup int64, dict bool) Files {
	t.Helper()
	fs, err := WriteFiles(dir, name, rec, rowGroup, dict)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// WriteFiles is Write for a program (bench/cmd/nullcases): errors returned.
func WriteFiles(dir, name string, rec arrow.Record, rowGroup int64, dict bool) (Files, error) {
	fs := Files{filepath.Join(dir, name+".parquet"), filepath.Join(dir, name+".arrow"), filepath.Join(dir, name+".arrows")}
	f, err := os.Create(fs.Parquet)
	if err != nil {
		return fs, err
	}
	tbl := array.NewTableFromRecords(rec.Schema(), []arrow.Record{rec})
	defer tbl.Release()
	opts := []parquet.WriterProperty{parquet.WithMaxRowGroupLength(rowGroup), parquet.WithDictionaryDefault(dict)}
	if dict { // arrow-go v18 writes an uncompressed column plain where its dictionary saves no space; the callers want dictionaries
		for _, f := range rec.Schema().Fields() {
			opts = append(opts, parquet.WithDictionaryCostFallbackFor(f.Name, false))
		}
	}
	props := parquet.NewWriterProperties(opts...)
	err = pqarrow.WriteTable(tbl, f, rowGroup, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	f.Close() // WriteTable closed it, or failed
	if err != nil {
		return fs, err
	}
	g, err := os.Create(fs.ArrowFile)
	if err != nil {
		return fs, err
	}
	defer g.Close()
	w, err := ipc.NewFileWriter(g, ipc.WithSchema(rec.Schema()))
	if err != nil {
		return fs, err
	}
	half := rec.NumRows() / 2
	for _, part := range []arrow.Record{rec.NewSlice(0, half), rec.NewSlice(half, rec.NumRows())} {
		err := w.Write(part)
		part.Release()
		if err != nil {
			return fs, err
		}
	}
	if err := w.Close(); err != nil {
		return fs, err
	}
	if err := g.Close(); err != nil {
		return fs, err
	}
	h, err := os.Create(fs.ArrowStream)
	if err != nil {
		return fs, err
	}
	defer h.Close()
	sw := ipc.NewWriter(h, ipc.WithSchema(rec.Schema()))
	if err := sw.Write(rec); err != nil {
		return fs, err
	}
	if err := sw.Close(); err != nil {
		return fs, err
	}
	return fs, h.Close()
}

// Record builds a record of columns named names, of types (Int32, Int64,
// Uint64, Float32, Float64, String, Boolean, Date32 of 2006-01-02), from rows of text; a nil field is NULL. Every
// column is nullable. It fails t on an error (NewRecord).
func Record(t testing.TB, names []string, types []arrow.DataType, rows [][]*string) arrow.Record {
	t.Helper()
	rec, err := NewRecord(names, types, rows)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// NewRecord is Record for a program: errors returned.
func NewRecord(names []string, types []arrow.DataType, rows [][]*string) (arrow.Record, error) {
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
			case *array.Float32Builder:
				var x float64
				x, err = strconv.ParseFloat(*v, 32)
				fb.Append(float32(x))
			case *array.Date32Builder:
				var d time.Time
				d, err = time.Parse(time.DateOnly, *v)
				fb.Append(arrow.Date32FromTime(d))
			case *array.BooleanBuilder:
				var x bool
				x, err = strconv.ParseBool(*v)
				fb.Append(x)
			case *array.StringBuilder:
				fb.Append(*v)
			default:
				return nil, fmt.Errorf("columnartest: a column of type %s", types[j])
			}
			if err != nil {
				return nil, fmt.Errorf("columnartest: column %s: %v", names[j], err)
			}
		}
	}
	return b.NewRecord(), nil
}

// Nested builds a record of rows rows with nested columns among flat
// ones: K int64 (row i: i), tags list<string> (i%3 strings; NULL where
// i%5 is 4), P string ("p" and i; NULL where i%7 is 6), attrs struct<a
// int32, b string>, props map<string, int64> and Q int32 (10i), and flat,
// the same rows with the nested columns left out (K, P, Q): a join that
// leaves them out reads the one as the other.
func Nested(rows int) (nested, flat arrow.Record) {
	mem := memory.NewGoAllocator()
	attrs := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true})
	props := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "K", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "P", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "attrs", Type: attrs, Nullable: true},
		{Name: "props", Type: props, Nullable: true},
		{Name: "Q", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		tags := b.Field(1).(*array.ListBuilder)
		if i%5 == 4 {
			tags.AppendNull()
		} else {
			tags.Append(true)
			for j := range i % 3 {
				tags.ValueBuilder().(*array.StringBuilder).Append(fmt.Sprintf("t%d.%d", i, j))
			}
		}
		if i%7 == 6 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("p%d", i))
		}
		sb := b.Field(3).(*array.StructBuilder)
		sb.Append(true)
		sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(i))
		sb.FieldBuilder(1).(*array.StringBuilder).Append(fmt.Sprintf("b%d", i))
		mb := b.Field(4).(*array.MapBuilder)
		mb.Append(true)
		mb.KeyBuilder().(*array.StringBuilder).Append("x")
		mb.ItemBuilder().(*array.Int64Builder).Append(int64(i))
		b.Field(5).(*array.Int32Builder).Append(int32(10 * i))
	}
	nested = b.NewRecord()
	fields := []arrow.Field{schema.Field(0), schema.Field(2), schema.Field(5)}
	flat = array.NewRecord(arrow.NewSchema(fields, nil), []arrow.Array{nested.Column(0), nested.Column(2), nested.Column(5)}, int64(rows))
	return nested, flat
}
