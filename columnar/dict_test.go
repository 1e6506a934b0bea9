package columnar

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// writeDictParquet writes n rows of a string column s, a binary column b
// (both of distinct values, NULL where nullEvery divides the row, if it is
// set) and an int64 column i to a Parquet file through pqarrow, in row
// groups of 300 rows and small pages, dictionary-encoded with a dictionary
// page of at most dictLimit bytes (beyond it the writer falls back to plain
// pages), or not at all.
func writeDictParquet(t *testing.T, rng *rand.Rand, n, distinct, nullEvery int, dict bool, dictLimit int64) string {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer rb.Release()
	for r := range n {
		v := rng.IntN(distinct)
		if nullEvery > 0 && r%nullEvery == 0 {
			rb.Field(0).AppendNull()
			rb.Field(1).AppendNull()
		} else {
			rb.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("key-%d", v))
			rb.Field(1).(*array.BinaryBuilder).Append([]byte{byte(v), 0, byte(v >> 8)})
		}
		rb.Field(2).(*array.Int64Builder).Append(int64(v))
	}
	rec := rb.NewRecord()
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.Record{rec})
	defer tbl.Release()
	path := filepath.Join(t.TempDir(), "dict.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(300), parquet.WithDictionaryDefault(dict),
		parquet.WithDictionaryPageSizeLimit(dictLimit), parquet.WithDataPageSize(512), parquet.WithBatchSize(50),
		// arrow-go v18 writes an uncompressed column plain where its
		// dictionary saves no space; this test wants the dictionaries.
		parquet.WithDictionaryCostFallbackFor("s", false), parquet.WithDictionaryCostFallbackFor("b", false), parquet.WithDictionaryCostFallbackFor("i", false))
	if err := pqarrow.WriteTable(tbl, f, 300, props, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadDict: a dictionary-encoded column chunk read as a Dict (with
// NULLs, in many row groups; with pages that fell back to plain encoding
// when read by readDictChunk: ReadDict leaves such chunks to Read) holds,
// row by row, the values and NULLs Read gives, and Column of any
// rows (and Select of Column) equals Read's Select of them. A column that is not a byte array, or
// a file written without dictionaries, reads as no Dict.
func TestReadDict(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(testutil.Seed(t))
	for _, tc := range []struct {
		name                string
		distinct, nullEvery int
		dict                bool
		limit               int64
		fallback            bool // some data page must be plain
	}{
		{"dictionary, NULLs", 40, 7, true, 1 << 20, false},
		{"dictionary, no NULLs", 3, 0, true, 1 << 20, false},
		{"plain fallback", 5000, 11, true, 200, true},
		{"no dictionary", 40, 5, false, 1 << 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeDictParquet(t, rng, 2000, tc.distinct, tc.nullEvery, tc.dict, tc.limit)
			tab, err := Open(context.Background(), path, "", Parquet, "")
			if err != nil {
				t.Fatal(err)
			}
			defer tab.Close()
			sawPlain, sawDict := false, false
			pt := tab.b.(*parquetBackend).pq
			for i := range tab.Chunks() {
				// The data pages' encodings, from the pages themselves: a
				// chunk with a plain one is not read as a Dict (dictPages),
				// though readDictChunk reads it right.
				plain := false
				pr, err := pt.r.RowGroup(i).GetColumnPageReader(0)
				if err != nil {
					t.Fatal(err)
				}
				for pr.Next() {
					if dp, ok := pr.Page().(file.DataPage); ok && parquet.Encoding(dp.Encoding()) == parquet.Encodings.Plain {
						plain = true
					}
				}
				sawPlain = sawPlain || plain
				if d, err := tab.ReadDict(i, 2); d != nil || err != nil {
					t.Fatalf("row group %d: the int64 column read as a dictionary: %v %v", i, d, err)
				}
				for col := range 2 {
					d, err := tab.ReadDict(i, col)
					if err != nil {
						t.Fatal(err)
					}
					if !tc.dict || plain {
						if d != nil {
							t.Fatalf("row group %d column %d: a Dict of a chunk without dictionaries, or with plain pages (%v)", i, col, plain)
						}
						if !tc.dict {
							continue
						}
						if d, err = pt.readDictChunk(i, col, tab.Types[col]); err != nil {
							t.Fatal(err)
						}
					} else {
						sawDict = true
					}
					if d == nil {
						t.Fatalf("row group %d column %d: no Dict", i, col)
					}
					want, err := tab.Read(i, []int{col})
					if err != nil {
						t.Fatal(err)
					}
					w := want[0]
					if d.Len() != w.Len() {
						t.Fatalf("row group %d column %d: %d rows, want %d", i, col, d.Len(), w.Len())
					}
					sameColumn(t, d.Column(nil), w, fmt.Sprintf("row group %d column %d", i, col))
					var sel []int
					for r := range w.Len() {
						if rng.IntN(4) == 0 {
							sel = append(sel, r)
						}
					}
					sameColumn(t, d.Column(sel), w.Select(sel), fmt.Sprintf("row group %d column %d, %d rows", i, col, len(sel)))
					sameColumn(t, d.Column(nil).Select(sel), w.Select(sel), fmt.Sprintf("row group %d column %d, %d rows selected", i, col, len(sel)))
					if len(d.Values.offs) > 0 && d.Values.Len() > tc.distinct {
						t.Fatalf("row group %d column %d: %d entries for %d distinct values", i, col, d.Values.Len(), tc.distinct)
					}
				}
			}
			if tc.fallback && !sawPlain {
				t.Fatal("no data page fell back to plain encoding: the case is not tested")
			}
			if tc.dict && !tc.fallback && !sawDict {
				t.Fatal("no chunk read as a Dict")
			}
		})
	}
}

// sameColumn fails t unless got and want hold the same NULLs and bytes.
func sameColumn(t *testing.T, got, want *Column, what string) {
	t.Helper()
	if got.Len() != want.Len() || got.Type != want.Type {
		t.Fatalf("%s: %d rows of %v, want %d of %v", what, got.Len(), got.Type, want.Len(), want.Type)
	}
	for r := range want.Len() {
		if got.Null(r) != want.Null(r) || !slices.Equal(got.Bytes(r), want.Bytes(r)) && !want.Null(r) {
			t.Fatalf("%s: row %d is %q (NULL %v), want %q (NULL %v)", what, r, got.Bytes(r), got.Null(r), want.Bytes(r), want.Null(r))
		}
	}
	if got.HasNulls() != want.HasNulls() {
		t.Fatalf("%s: HasNulls %v, want %v", what, got.HasNulls(), want.HasNulls())
	}
}

// TestArrowDict: an Arrow column that is a dictionary array of text (rows
// NULL, rows pointing at a NULL entry, entries no row uses) reads, from an
// IPC file and an IPC stream, as the values its rows point to; ReadDict of
// the file's batches gives each row's entry, and of the stream nothing.
func TestArrowDict(t *testing.T) {
	mem := memory.NewGoAllocator()
	vb := array.NewStringBuilder(mem)
	vb.AppendValues([]string{"a,b", "", "two\nlines", "unused"}, nil)
	vb.AppendNull() // entry 4: NULL
	vals := vb.NewArray()
	ib := array.NewInt32Builder(mem)
	idx := []int32{0, 2, 1, 4, 0, 2, 2, 1}
	valid := []bool{true, true, true, true, false, true, true, true}
	ib.AppendValues(idx, valid)
	indices := ib.NewArray()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	da := array.NewDictionaryArray(dt, indices, vals)
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: dt, Nullable: true}}, nil)
	rec := array.NewRecord(schema, []arrow.Array{da}, int64(da.Len()))
	defer rec.Release()
	want := []*string{sp("a,b"), sp("two\nlines"), sp(""), nil, nil, sp("two\nlines"), sp("two\nlines"), sp("")}
	dir := t.TempDir()
	for _, path := range []string{filepath.Join(dir, "d.arrow"), filepath.Join(dir, "d.arrows")} {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		var w interface {
			Write(arrow.Record) error
			Close() error
		}
		if filepath.Ext(path) == ".arrow" {
			if w, err = ipc.NewFileWriter(f, ipc.WithSchema(schema)); err != nil {
				t.Fatal(err)
			}
		} else {
			w = ipc.NewWriter(f, ipc.WithSchema(schema))
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		tab, err := Open(context.Background(), path, "", Arrow, "")
		if err != nil {
			t.Fatal(err)
		}
		var col *Column
		if tab.Stream() {
			cols, err := tab.Next(nil)
			if err != nil {
				t.Fatal(err)
			}
			col = cols[0]
		} else {
			cols, err := tab.Read(0, nil)
			if err != nil {
				t.Fatal(err)
			}
			col = cols[0]
			d, err := tab.ReadDict(0, 0)
			if err != nil || d == nil {
				t.Fatalf("%s: ReadDict: %v, %v", path, d, err)
			}
			sameColumn(t, d.Column(nil), col, path+": the Dict")
		}
		for i, v := range want {
			if col.Null(i) != (v == nil) || v != nil && string(col.Bytes(i)) != *v {
				t.Fatalf("%s: row %d is %q (NULL %v), want %v", path, i, col.Bytes(i), col.Null(i), v)
			}
		}
		tab.Close()
	}
}

func sp(s string) *string { return &s }

// TestReadIntKeyNamesThePart: a table of many files names the damaged file
// in ReadIntKey's error (the dictionary-encoded integer key's read), as
// Read's does: it named only the row group and column, whatever the file
// (an adversarial run's folder of two files, one damaged).
func TestReadIntKeyNamesThePart(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	dir := t.TempDir()
	p1, p2 := filepath.Join(dir, "p1.parquet"), filepath.Join(dir, "p2.parquet")
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	rb := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer rb.Release()
	for range 4000 {
		rb.Field(0).(*array.Int64Builder).Append(int64(rng.IntN(50)))
	}
	rec := rb.NewRecord()
	defer rec.Release()
	f, err := os.Create(p1)
	testutil.Check(t, err)
	props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(true), parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(1000))
	w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.DefaultWriterProps())
	testutil.Check(t, err)
	testutil.Check(t, w.Write(rec))
	testutil.Check(t, w.Close())
	tb := openDamagedTwin(t, p1, p2)
	if d, c, err := tb.ReadIntKey(0, 0); err != nil || d == nil && c == nil {
		t.Fatalf("p1's first row group: %v, %v, %v (not read as a dictionary-encoded key)", d, c, err)
	}
	_, _, err = tb.ReadIntKey(tb.Chunks()/2, 0) // p2's first row group
	if err == nil {
		t.Fatal("the damaged file read")
	}
	if !strings.HasPrefix(err.Error(), p2+":") && !strings.HasPrefix(err.Error(), "p2.parquet:") || !errors.Is(err, ErrFormat) {
		t.Errorf("the error does not begin with the damaged file's name, or is no ErrFormat: %v", err)
	}
}
