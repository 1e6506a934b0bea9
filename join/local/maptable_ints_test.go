package local

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// TestFilterIntsMatch: a Parquet side's integer join column without NULLs
// is probed as integers (filterInts: the ACBF is an IntBatchFilter); the
// same data as CSV goes the general way. Every join type, with and
// without a predicate on the large side (rows kept by it: filterInts'
// keep), gives the same bytes (Sort) and the same counts: rows read,
// filtered out, false positives, bypassed.
func TestFilterIntsMatch(t *testing.T) {
	b, err := filters.Build(filters.ACBF, [][]byte{make([]byte, 8)}, filters.Sizing{BitsPerKey: 16})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Filter.(filters.IntBatchFilter); !ok {
		t.Fatal("the ACBF has no ContainsInts: filterInts is not exercised")
	}
	r := testutil.Rand(testutil.Seed(t))
	keys := tableData{names: []string{"K", "V"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}}
	for i := range 300 {
		keys.rows = append(keys.rows, []*string{sp(fmt.Sprint(r.Int64N(4000) - 2000)), sp(fmt.Sprint("v", i))})
	}
	input := tableData{names: []string{"ID", "K"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64}}
	for i := range 5000 {
		input.rows = append(input.rows, []*string{sp(fmt.Sprint(i)), sp(fmt.Sprint(r.Int64N(8000) - 4000))})
	}
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	for _, jt := range join.JoinTypes {
		for _, where := range []string{"", "ID % 3 != 0"} {
			var outs [][]byte
			var reps []*join.Report
			for _, format := range []string{"csv", "parquet-rg7-dict", "parquet-plain"} {
				opt := join.Options{Sides: join.Sides{Keys: kf["csv"], Input: inf[format], Where: where}, Keying: join.Keying{KeyCol: "K", JoinCol: "K", KeyType: key.Int},
					JoinType: jt, Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 2, Reducers: 2, TempDir: t.TempDir()}}
				rep, out := runJoin(t, opt)
				outs, reps = append(outs, out), append(reps, rep)
			}
			for i := 1; i < len(outs); i++ {
				name := fmt.Sprintf("%s, where %q, input %d", jt, where, i)
				if !bytes.Equal(outs[i], outs[0]) {
					t.Fatalf("%s: output differs from the CSV input's: %s", name, testutil.FirstDiff(parseOutput(t, outs[i]), parseOutput(t, outs[0])))
				}
				a, b := reps[i], reps[0]
				// Rows of row groups skipped unread (their statistics hold
				// no key, a Bloom filter) are not counted as filtered out.
				skipped := a.InputTable.RowsSkipped - a.InputTable.SkippedNulls + a.InputTable.RowsSkippedBloom - a.InputTable.SkippedNullsBloom
				if a.InputRecords != b.InputRecords || a.FilteredOutRecords+skipped != b.FilteredOutRecords || a.FalsePositiveRecords != b.FalsePositiveRecords ||
					a.MapOutputRecords != b.MapOutputRecords || a.BypassedRecords != b.BypassedRecords || a.JoinRows != b.JoinRows {
					t.Errorf("%s: input %d filtered %d fp %d map %d bypassed %d join %d; CSV's %d %d %d %d %d %d", name,
						a.InputRecords, a.FilteredOutRecords, a.FalsePositiveRecords, a.MapOutputRecords, a.BypassedRecords, a.JoinRows,
						b.InputRecords, b.FilteredOutRecords, b.FalsePositiveRecords, b.MapOutputRecords, b.BypassedRecords, b.JoinRows)
				}
			}
		}
	}
}

// TestCountPass: countPass counts the true verdicts of slices of every
// length about its eight-a-step words (the tail shorter than a word), at
// every density, as a loop over the bools does.
func TestCountPass(t *testing.T) {
	r := testutil.Rand(testutil.Seed(t))
	for n := range 70 {
		for _, density := range []float64{0, 0.1, 0.5, 1} {
			pass := make([]bool, n+1)[:n] // a byte past the end that a word load must not count
			pass[:n+1][n] = true
			want := 0
			for j := range pass {
				pass[j] = r.Float64() < density
				if pass[j] {
					want++
				}
			}
			if got := countPass(pass); got != want {
				t.Fatalf("%d verdicts at density %g: countPass %d, want %d", n, density, got, want)
			}
		}
	}
}
