package local

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestTablePairedChunks: a Parquet input whose INT64 join column is
// PLAIN and Snappy-compressed in many row groups is mapped two row groups
// at a time, the second's key column decoded with the first's
// (source.Chunk.ReadKey, columnar.Table.ReadPair), and joins as the same
// rows as CSV do and as the model says: inner, left and anti joins, one to
// three mappers, the input's key statistics pruning some row groups or
// none.
func TestTablePairedChunks(t *testing.T) {
	seed := testutil.Seed(t)
	r := testutil.Rand(seed)
	keys := tableData{names: []string{"K", "V"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}}
	for range 120 {
		keys.rows = append(keys.rows, []*string{sp(fmt.Sprint(r.IntN(3000))), sp(fmt.Sprintf("v%d", r.IntN(9)))})
	}
	input := tableData{names: []string{"ID", "K"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64}}
	for i := range 3000 {
		k := sp(fmt.Sprint(r.IntN(3000)))
		if i > 1500 { // sorted beyond: row groups the keys' range can leave out
			k = sp(fmt.Sprint(i))
		}
		if r.IntN(30) == 0 {
			k = nil
		}
		input.rows = append(input.rows, []*string{sp(fmt.Sprint(i)), k})
	}
	dir := t.TempDir()
	rec := columnartest.Record(t, input.names, input.types, input.rows)
	defer rec.Release()
	pq := filepath.Join(dir, "in.parquet")
	f, err := os.Create(pq)
	testutil.Check(t, err)
	props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(false), parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(100))
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, props, pqarrow.DefaultWriterProps())
	testutil.Check(t, err)
	testutil.Check(t, w.Write(rec))
	testutil.Check(t, w.Close())
	csvIn := filepath.Join(dir, "in.csv")
	input.csv(t, csvIn)
	kf := filepath.Join(dir, "keys.csv")
	keys.csv(t, kf)
	paired0 := columnar.PairedPages()
	for _, jt := range []join.JoinType{join.JoinInner, join.JoinLeft, join.JoinAnti} {
		want := typedJoin(keys, input, []int{0}, []int{1}, jt)
		for mappers := 1; mappers <= 3; mappers++ {
			var outs [][]byte
			for _, in := range []string{pq, csvIn} {
				opt := join.Options{Sides: join.Sides{Keys: kf, Input: in}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt,
					FilterChoice: join.FilterChoice{Filter: filters.ACBF}, Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: mappers, Reducers: 2, TempDir: t.TempDir()}}
				_, out := runJoin(t, opt)
				if got := parseOutput(t, out); !slices.Equal(got, want) {
					t.Fatalf("%v, %d mappers, input %s: %d rows, the model's %d; %s", jt, mappers, filepath.Base(in), len(got), len(want), testutil.FirstDiff(got, want))
				}
				outs = append(outs, out)
			}
			if string(outs[0]) != string(outs[1]) {
				t.Fatalf("%v, %d mappers: the Parquet input's sorted output differs from the CSV's", jt, mappers)
			}
		}
	}
	if tb, err := columnar.Open(t.Context(), pq, "in.parquet", columnar.Parquet, ""); err == nil {
		pays := tb.PairsPay(1)
		tb.Close()
		if pays && columnar.PairedPages() == paired0 {
			t.Errorf("no page decoded in a pair: the test did not exercise Chunk.ReadKey")
		}
		t.Logf("pairs pay: %v; %d pages decoded in pairs", pays, columnar.PairedPages()-paired0)
	}
}
