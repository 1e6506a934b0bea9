package local

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestGuardParquetShortGroups: TestFilterGuard's data (90% of rows have a
// key, a dropped row saves 0 ns: off right after the warm-up), with the
// input a Parquet file of row groups of 300 rows (batches 256, 44, 256,
// 44, ...; unique keys, so the chunk is read as values, not a
// dictionary): the filter turns off (a review found it never did when the
// guard timed every fourth batch, short ones counted).
func TestGuardParquetShortGroups(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "k.csv")
	kb := []byte("K,V\n")
	for k := range 50000 {
		kb = fmt.Appendf(kb, "%d,v\n", k*2)
	}
	testutil.WriteFile(t, keys, kb, 0o644)
	schema := arrow.NewSchema([]arrow.Field{{Name: "ID", Type: arrow.PrimitiveTypes.Int64}, {Name: "K", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer rb.Release()
	for i := range testutil.RaceSize(200000, 80000) { // past the warm-up by a fifth under -race too
		k := (i * 7919) % 100000
		k &^= 1
		if i%10 == 0 {
			k = 100001 + 2*(i%5000)
		}
		rb.Field(0).(*array.Int64Builder).Append(int64(i))
		rb.Field(1).(*array.Int64Builder).Append(int64(k))
	}
	rec := rb.NewRecord()
	defer rec.Release()
	input := columnartest.Write(t, dir, "i", rec, 300, false).Parquet // row groups of 300 rows, no dictionaries
	base := join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, FilterChoice: join.FilterChoice{Filter: filters.Bloom}, Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 1}, JoinType: join.JoinInner}
	rep, _ := runJoinGuarded(t, base, 0)
	if f := rep.FilterOff; f == nil || f.AfterRows > guardWarmup+4*mapBatch {
		t.Errorf("a filter passing 90%% where a dropped row saves 0 ns: off %+v over %d rows, want off right after the warm-up (%d)", rep.FilterOff, rep.InputRecords, guardWarmup)
	}
}
