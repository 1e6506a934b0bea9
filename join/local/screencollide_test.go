package local

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/cespare/xxhash/v2"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestScreenHashCollision: two string keys of one XXH64 (a collision a
// review built: XXH64 of 16 bytes is two invertible rounds), both in a
// row group of a Parquet file with Bloom filters, both join: the screen
// keeps every key of a hash its filter passed (it kept one, and the
// other's row was dropped unprobed). With the dictionary read and not;
// the same rows as without the file's filters.
func TestScreenHashCollision(t *testing.T) {
	k1, k2 := "key-00000000abcd", "key-yvtcxZ5gsbsk"
	if xxhash.Sum64String(k1) != xxhash.Sum64String(k2) {
		t.Fatalf("%s and %s: not one hash", k1, k2)
	}
	dir := t.TempDir()
	d := tableData{names: []string{"s", "n"}, types: []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64}}
	for i := range 400 {
		s := fmt.Sprintf("key-%012d", i)
		switch i {
		case 100:
			s = k1
		case 300:
			s = k2
		}
		d.rows = append(d.rows, []*string{sp(s), sp(strconv.Itoa(i))})
	}
	rec := columnartest.Record(t, d.names, d.types, d.rows)
	defer rec.Release()
	tbl := array.NewTableFromRecords(rec.Schema(), []arrow.Record{rec})
	defer tbl.Release()
	in := filepath.Join(dir, "in.parquet")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithBloomFilterEnabled(true), parquet.WithBloomFilterFPP(0.01))
	if err := pqarrow.WriteTable(tbl, f, 400, props, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	keys := tableData{names: []string{"s"}, types: []arrow.DataType{arrow.BinaryTypes.String}, rows: [][]*string{{sp(k1)}, {sp(k2)}}}
	kf := filepath.Join(dir, "keys.csv")
	keys.csv(t, kf)
	want := typedJoin(keys, d, []int{0}, []int{0}, join.JoinInner)
	if len(want) != 2 {
		t.Fatalf("the model joins %d rows", len(want))
	}
	defer func(v bool) { noDict = v }(noDict)
	for _, off := range []bool{false, true} {
		noDict = off
		opt := join.Options{Sides: join.Sides{Keys: kf, Input: in}, Keying: join.Keying{KeyCol: "s", JoinCol: "s"}, JoinType: join.JoinInner,
			Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 1, Reducers: 1, TempDir: t.TempDir()}}
		rep, out := runJoin(t, opt)
		if got := parseOutput(t, out); !slices.Equal(got, want) {
			t.Errorf("dictionary off %v: %d rows, want %d (Bloom filters read %d, rows screened %d)", off, len(got), len(want), rep.InputTable.BloomChecked, rep.InputTable.RowsScreenedBloom)
		}
		if rep.InputTable.BloomChecked == 0 || rep.InputTable.RowsScreenedBloom == 0 {
			t.Errorf("dictionary off %v: %d filters read, %d rows screened: the screen not met", off, rep.InputTable.BloomChecked, rep.InputTable.RowsScreenedBloom)
		}
	}
}
