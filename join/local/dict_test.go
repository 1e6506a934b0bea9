package local

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestDictKeys: a string join column that a Parquet file keeps
// dictionary-encoded is filtered by its dictionary (each entry tested once:
// the report's ChunksDict), and every join type gives the model's rows,
// NULLs, duplicates, commas, quotes and line breaks included, for several
// filter kinds, as the same data read as CSV and as plain Parquet do; an
// Arrow file whose join column is a dictionary array too, and with few
// survivors (their rows alone decoded).
func TestDictKeys(t *testing.T) {
	seed := testutil.Seed(t)
	keys, input := genTables(seed)
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	kinds := []filters.Kind{filters.None, filters.Exact, filters.Bloom, filters.ACBF}
	if testing.Short() { // the race run: one kind that filters, one that does not
		kinds = []filters.Kind{filters.None, filters.ACBF}
	}
	// Under the race detector, two join types and one kind each.
	for ji, jt := range raceJoinTypes(seed, 2) {
		want := typedJoin(keys, input, []int{2}, []int{3}, jt)
		for _, kind := range testutil.RacePick(kinds, 1, seed+uint64(ji)) {
			var sorted []byte
			for _, format := range []string{"csv", "parquet-rg7-dict", "parquet-plain"} {
				opt := join.Options{Sides: join.Sides{Keys: kf["csv"], Input: inf[format]}, Keying: join.Keying{KeyCol: "P", JoinCol: "S"}, FilterChoice: join.FilterChoice{Filter: kind},
					Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 2, Reducers: 3, TempDir: t.TempDir()}, JoinType: jt}
				rep, out := runJoin(t, opt)
				if got := parseOutput(t, out); !slices.Equal(got, want) {
					t.Fatalf("%s, %s, %s: %d rows, the model's %d; %s", jt, kind, format, len(got), len(want), testutil.FirstDiff(got, want))
				}
				if sorted == nil {
					sorted = out
				} else if !bytes.Equal(out, sorted) {
					t.Errorf("%s, %s, %s: sorted output differs from the CSV side's", jt, kind, format)
				}
				dict := int64(0)
				if rep.InputTable != nil {
					dict = rep.InputTable.ChunksDict
				}
				if wantDict := format == "parquet-rg7-dict"; (dict > 0) != wantDict {
					t.Errorf("%s, %s, %s: %d chunks filtered by their dictionary", jt, kind, format, dict)
				}
			}
		}
	}

	// An integer key: a dictionary-encoded INT32 join column with NULLs,
	// mostly distinct (K: read as its values), and an INT64 one of three
	// values (G: filtered entry by entry; columnar.Table.ReadIntKey).
	for ci, kc := range []struct {
		name       string
		kcol, jcol int
	}{{"K", 0, 1}, {"G", 1, 2}} {
		for _, jt := range raceJoinTypes(seed+uint64(7+ci), 2) {
			want := typedJoin(keys, input, []int{kc.kcol}, []int{kc.jcol}, jt)
			for _, format := range []string{"parquet-rg7-dict", "parquet-plain"} {
				rep, out := runJoin(t, join.Options{Sides: join.Sides{Keys: kf["csv"], Input: inf[format]}, Keying: join.Keying{KeyCol: kc.name, JoinCol: kc.name},
					FilterChoice: join.FilterChoice{Filter: filters.ACBF}, Output: join.Output{Sort: true}, JoinType: jt})
				if got := parseOutput(t, out); !slices.Equal(got, want) {
					t.Fatalf("integer key %s, %s, %s: %s", kc.name, jt, format, testutil.FirstDiff(got, want))
				}
				// A chunk is read as its dictionary where that has at most
				// half as many entries as rows (columnar.Table.ReadIntKey): G's
				// three values always; K's 400 only in a row group of few
				// values (a seed gave one). A chunk of NULLs alone may go
				// either way, and inner, semi and right joins skip some
				// chunks unread (by their statistics).
				lo, hi := int64(0), int64(0)
				if format == "parquet-rg7-dict" {
					lo, hi = dictGroups(input, kc.jcol, 7)
				}
				if !jt.KeepsUnmatchedLarge() {
					lo = 0
				}
				if dict := rep.InputTable.ChunksDict; dict < lo || dict > hi || kc.name == "G" && format == "parquet-rg7-dict" && dict == 0 {
					t.Errorf("integer key %s, %s, %s: %d chunks filtered by their dictionary, want %d to %d", kc.name, jt, format, dict, lo, hi)
				}
			}
		}
	}

	// An Arrow file whose join column is a dictionary array.
	af := arrowDictFile(t, dir, input, 3)
	for _, jt := range raceJoinTypes(seed+1, 2) {
		want := typedJoin(keys, input, []int{2}, []int{3}, jt)
		rep, out := runJoin(t, join.Options{Sides: join.Sides{Keys: kf["csv"], Input: af}, Keying: join.Keying{KeyCol: "P", JoinCol: "S"}, FilterChoice: join.FilterChoice{Filter: filters.Bloom}, JoinType: jt})
		if got := parseOutput(t, out); !slices.Equal(got, want) {
			t.Fatalf("Arrow dictionary, %s: %s", jt, testutil.FirstDiff(got, want))
		}
		if rep.InputTable == nil || rep.InputTable.ChunksDict == 0 {
			t.Fatalf("Arrow dictionary, %s: no chunk filtered by its dictionary: %+v", jt, rep.InputTable)
		}
	}

	// ACBFJOIN_DICT=off: the same rows, every row probed.
	noDict = true
	want := typedJoin(keys, input, []int{2}, []int{3}, join.JoinLeft)
	rep, out := runJoin(t, join.Options{Sides: join.Sides{Keys: kf["csv"], Input: inf["parquet-rg7-dict"]}, Keying: join.Keying{KeyCol: "P", JoinCol: "S"}, JoinType: join.JoinLeft})
	noDict = false
	if got := parseOutput(t, out); !slices.Equal(got, want) {
		t.Fatalf("ACBFJOIN_DICT=off: %s", testutil.FirstDiff(got, want))
	}
	if rep.InputTable.ChunksDict != 0 {
		t.Fatalf("ACBFJOIN_DICT=off: %d chunks filtered by their dictionary", rep.InputTable.ChunksDict)
	}

	// Few survivors in one large row group: their rows alone are read.
	r := testutil.Rand(seed)
	big := tableData{names: []string{"ID", "S", "V"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64}}
	for i := range 30000 {
		row := []*string{sp(fmt.Sprint(i)), sp(fmt.Sprintf("t%d", r.IntN(10000))), sp(fmt.Sprint(r.IntN(7)))}
		if i%13 == 0 {
			row[1] = nil
		}
		big.rows = append(big.rows, row)
	}
	few := tableData{names: []string{"K", "P"}, types: []arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.String}}
	for k := range 25 {
		few.rows = append(few.rows, []*string{sp(fmt.Sprintf("t%d", k*397)), sp(fmt.Sprintf("p,%d", k))})
	}
	rec := columnartest.Record(t, big.names, big.types, big.rows)
	defer rec.Release()
	f := columnartest.Write(t, dir, "big", rec, 1<<20, true)
	fk := sideFiles(t, dir, "few", few)
	for _, jt := range testutil.RacePick([]join.JoinType{join.JoinInner, join.JoinSemi, join.JoinLeft}, 1, seed) { // under -race, one of them
		want := typedJoin(few, big, []int{0}, []int{1}, jt)
		rep, out := runJoin(t, join.Options{Sides: join.Sides{Keys: fk["csv"], Input: f.Parquet}, Keying: join.Keying{KeyCol: "K", JoinCol: "S"}, FilterChoice: join.FilterChoice{Filter: filters.Exact}, JoinType: jt})
		if got := parseOutput(t, out); !slices.Equal(got, want) {
			t.Fatalf("few survivors, %s: %s", jt, testutil.FirstDiff(got, want))
		}
		if tr := rep.InputTable; tr == nil || tr.ChunksDict != 1 || tr.DictEntries > 10000 {
			t.Fatalf("few survivors, %s: %+v", jt, tr)
		}
	}
}

// arrowDictFile writes d as an Arrow IPC file of two record batches whose
// column col is a dictionary array of its text (the others as
// columnartest.Record makes them), and returns its path.
func arrowDictFile(t *testing.T, dir string, d tableData, col int) string {
	t.Helper()
	plain := columnartest.Record(t, d.names, d.types, d.rows)
	defer plain.Release()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	b := array.NewDictionaryBuilder(memory.NewGoAllocator(), dt).(*array.BinaryDictionaryBuilder)
	defer b.Release()
	for _, row := range d.rows {
		if row[col] == nil {
			b.AppendNull()
		} else if err := b.AppendString(*row[col]); err != nil {
			t.Fatal(err)
		}
	}
	cols := plain.Columns()
	cols[col] = b.NewArray()
	defer cols[col].Release()
	fields := slices.Clone(plain.Schema().Fields())
	fields[col].Type = dt
	schema := arrow.NewSchema(fields, nil)
	rec := array.NewRecord(schema, cols, plain.NumRows())
	defer rec.Release()
	path := filepath.Join(dir, "dict.arrow")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema))
	if err != nil {
		t.Fatal(err)
	}
	half := rec.NumRows() / 2
	for _, part := range []arrow.Record{rec.NewSlice(0, half), rec.NewSlice(half, rec.NumRows())} {
		err := w.Write(part)
		part.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// dictGroups counts the row groups of groupRows rows of d's column col
// whose distinct values are at most half their rows, the rule of
// columnar.Table.ReadIntKey: lo those with a value, hi with those of NULLs
// alone too.
func dictGroups(d tableData, col, groupRows int) (lo, hi int64) {
	for g := range slices.Chunk(d.rows, groupRows) {
		seen := map[string]bool{}
		for _, row := range g {
			if row[col] != nil {
				seen[*row[col]] = true
			}
		}
		if 2*len(seen) <= len(g) {
			hi++
			if len(seen) > 0 {
				lo++
			}
		}
	}
	return lo, hi
}
