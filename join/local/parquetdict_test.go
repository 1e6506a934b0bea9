package local

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestParquetDictChunks: a Parquet output's column chunks, encoded with
// the dictionaries parquetdict.go makes or PLAIN where those save nothing,
// hold the values, statistics (minimum and maximum by the column's order,
// an unsigned column's unsigned, "" a minimum), null and value counts, and
// the join column's Bloom filter that arrow-go's value-by-value path
// writes (dictChunks off), on random columns of every kind the chunks
// take: integers of few and of many values, unsigned ones past 2^63,
// dates (INT32), texts of few values with "" and NULLs, texts all NULL or
// all "", texts all distinct; and doubles and floats (of few values, -0
// among them, of many, with NaN, with both zeros), which arrow-go encodes
// itself, beside them. A column of many distinct integers is written
// PLAIN (no dictionary page), one of few with a dictionary.
func TestParquetDictChunks(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	dir := t.TempDir()
	names := []string{"id", "few", "many", "u", "d", "s", "snull", "sempty", "sdistinct", "i32", "ffew", "fmany", "f32", "fnan", "fzeros"}
	f64, f32 := arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float32
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Uint64,
		arrow.FixedWidthTypes.Date32, arrow.BinaryTypes.String, arrow.BinaryTypes.String, arrow.BinaryTypes.String, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32,
		f64, f64, f32, f64, f64}
	fewFloats := []string{"-0", "0.5", "-2.25", "1e30", "-1e-30", "3"}
	sp := func(s string) *string { return &s }
	texts := []string{"", "a", "b", "ünï", "co,mma", "zz"}
	var rows [][]*string
	for i := range 3000 {
		null := func(v *string) *string {
			if rng.IntN(6) == 0 {
				return nil
			}
			return v
		}
		rows = append(rows, []*string{
			sp(strconv.Itoa(rng.IntN(50))),
			null(sp(strconv.Itoa(rng.IntN(7) - 3))),
			sp(strconv.FormatInt(rng.Int64N(1<<40)-1<<39, 10)),
			null(sp(strconv.FormatUint(rng.Uint64(), 10))),
			null(sp(fmt.Sprintf("%04d-%02d-%02d", 1900+rng.IntN(200), 1+rng.IntN(12), 1+rng.IntN(28)))),
			null(sp(texts[rng.IntN(len(texts))])),
			nil,
			sp(""),
			sp(fmt.Sprintf("t%d-%d", i, rng.IntN(1000))),
			sp(strconv.Itoa(rng.IntN(1 << 20))),
			null(sp(fewFloats[rng.IntN(len(fewFloats))])),
			sp(strconv.FormatFloat(rng.NormFloat64()*1e6, 'g', -1, 64)),
			null(sp(fewFloats[rng.IntN(len(fewFloats))])),
			sp([]string{"NaN", "1.5", "-1.5"}[rng.IntN(3)]),
			sp([]string{"0", "-0", "7"}[rng.IntN(3)]),
		})
	}
	rec := columnartest.Record(t, names, types, rows)
	defer rec.Release()
	in := columnartest.Write(t, dir, "in", rec, 1000, false).Parquet
	var keys bytes.Buffer
	keys.WriteString("k\n")
	for k := range 50 {
		fmt.Fprintf(&keys, "%d\n", k)
	}
	kf := filepath.Join(dir, "keys.csv")
	if err := os.WriteFile(kf, keys.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(dict bool) []byte {
		t.Helper()
		defer func(old bool) { dictChunks = old }(dictChunks)
		dictChunks = dict
		var out bytes.Buffer
		opt := join.Options{Sides: join.Sides{Keys: kf, Input: in}, Keying: join.Keying{KeyCol: "k", JoinCol: "id"},
			Output: join.Output{Sort: true}, Resources: join.Resources{TempDir: t.TempDir()}}
		if _, err := Run(t.Context(), opt, NewParquetWith(&out, t.TempDir(), ParquetOptions{RowGroup: 700})); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	got, want := write(true), write(false)

	// The same values.
	gt, wt := testutil.ReadParquet(t, got), testutil.ReadParquet(t, want)
	if gt.NumRows() != wt.NumRows() || gt.NumRows() != 3000 {
		t.Fatalf("%d rows, value by value %d, want 3000", gt.NumRows(), wt.NumRows())
	}
	for i := range int(gt.NumCols()) {
		for j, g := range gt.Column(i).Data().Chunks() {
			if w := wt.Column(i).Data().Chunks()[j]; !arrowEqual(g, w) {
				t.Errorf("column %s: values differ", names[i])
			}
		}
	}
	// The same statistics and Bloom filters, chunk by chunk.
	gr, err := file.NewParquetReader(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	wr, err := file.NewParquetReader(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	if gr.NumRowGroups() != wr.NumRowGroups() || gr.NumRowGroups() < 4 {
		t.Fatalf("%d row groups, value by value %d", gr.NumRowGroups(), wr.NumRowGroups())
	}
	for g := range gr.NumRowGroups() {
		gm, wm := gr.MetaData().RowGroup(g), wr.MetaData().RowGroup(g)
		for c, name := range names {
			gc, err := gm.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			wc, err := wm.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			gs, err := gc.Statistics()
			if err != nil {
				t.Fatal(err)
			}
			ws, err := wc.Statistics()
			if err != nil {
				t.Fatal(err)
			}
			if gs.HasMinMax() != ws.HasMinMax() || !bytes.Equal(gs.EncodeMin(), ws.EncodeMin()) || !bytes.Equal(gs.EncodeMax(), ws.EncodeMax()) ||
				gs.NullCount() != ws.NullCount() || gc.NumValues() != wc.NumValues() {
				t.Errorf("row group %d, column %s: statistics min %q max %q nulls %d values %d (%v), value by value %q %q %d %d (%v)", g, name,
					gs.EncodeMin(), gs.EncodeMax(), gs.NullCount(), gc.NumValues(), gs.HasMinMax(),
					ws.EncodeMin(), ws.EncodeMax(), ws.NullCount(), wc.NumValues(), ws.HasMinMax())
			}
			dictPage := gc.HasDictionaryPage()
			switch name {
			case "many", "sdistinct", "i32":
				if dictPage {
					t.Errorf("row group %d, column %s of distinct values: a dictionary page", g, name)
				}
			case "few", "s", "id", "ffew", "f32": // floats: arrow-go's own dictionaries
				if !dictPage {
					t.Errorf("row group %d, column %s of few values: no dictionary page", g, name)
				}
			}
		}
		// The join column's Bloom filter holds every id of the group.
		gb, err := gr.GetBloomFilterReader().RowGroup(g)
		if err != nil {
			t.Fatal(err)
		}
		f, err := gb.GetColumnBloomFilter(0)
		if err != nil || f == nil {
			t.Fatalf("row group %d: the join column's Bloom filter: %v", g, err)
		}
		cr, err := gr.RowGroup(g).Column(0)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]int64, gm.NumRows())
		defs := make([]int16, gm.NumRows())
		_, n, err := cr.(*file.Int64ColumnChunkReader).ReadBatch(gm.NumRows(), ids, defs, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids[:n] {
			if !f.CheckHash(f.Hasher().Sum64(binary.LittleEndian.AppendUint64(nil, uint64(id)))) {
				t.Errorf("row group %d: id %d not in its Bloom filter", g, id)
			}
		}
	}
}

// arrowEqual reports whether two arrays hold the same values (NULLs in the
// same rows).
func arrowEqual(a, b arrow.Array) bool {
	if a.Len() != b.Len() || a.NullN() != b.NullN() {
		return false
	}
	for i := range a.Len() {
		if a.IsNull(i) != b.IsNull(i) || !a.IsNull(i) && a.ValueStr(i) != b.ValueStr(i) {
			return false
		}
	}
	return true
}
