package local

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// bloomFixture is testdata/parquet-bloom/bloom.parquet (DuckDB's, with
// Bloom filters on id, s and v: bench/parquet-bloom-fixture.sh) as a
// model, read row group by row group: its rows, and the row groups' first
// rows (the last entry the row count).
func bloomFixture(t *testing.T) (path string, d tableData, starts []int) {
	t.Helper()
	path = filepath.Join(testutil.RepoRoot(t), "testdata", "parquet-bloom", "bloom.parquet")
	tab, err := columnar.Open(context.Background(), path, "", columnar.Parquet, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	d = tableData{names: tab.Names, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}}
	if want := []string{"id", "s", "v", "row", "pay"}; !slices.Equal(tab.Names, want) {
		t.Fatalf("columns %v, want %v", tab.Names, want)
	}
	for rg := range tab.Chunks() {
		starts = append(starts, len(d.rows))
		cols, err := tab.Read(rg, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range cols[0].Len() {
			row := make([]*string, len(cols))
			for j, c := range cols {
				if !c.Null(i) {
					row[j] = sp(string(c.AppendText(nil, i)))
				}
			}
			d.rows = append(d.rows, row)
		}
	}
	return path, d, append(starts, len(d.rows))
}

// TestParquetBloomSkip joins a few keys against DuckDB's Bloom-filtered
// fixture, on its INT64, BYTE_ARRAY and INT32 columns, with every join
// type: the output is the model's (typedJoin) and the same with the Bloom
// skip off (Options.IgnoreFileBloom); inner, semi and right joins skip by
// the filters exactly the row groups that hold none of the keys (computed
// from the rows; the fixture's filters have no false positive for these
// keys, as probes.csv says of DuckDB's own probes), with their rows, NULLs
// and the report's other counts as without; anti, left and full joins
// skip none (they write those rows). Integer keys beyond an INT32 column
// are not probed: they cannot match. Under the race detector, 3 of the
// cases and one join type each (raceJoinTypes), of each kind of skip in
// turn. Both with the key columns read as dictionaries (filterDict) and
// as values (ACBFJOIN_DICT=off: filterInts for the INT32 column, which has
// no NULL, the general loop for the INT64 and text ones), each of which
// screens the rows of the row groups read (RowsScreenedBloom).
func TestParquetBloomSkip(t *testing.T) {
	for _, off := range []bool{false, true} {
		t.Run(fmt.Sprintf("dict off %v", off), func(t *testing.T) {
			defer func(d bool) { noDict = d }(noDict)
			noDict = off
			parquetBloomSkip(t)
		})
	}
}

func parquetBloomSkip(t *testing.T) {
	path, model, starts := bloomFixture(t)
	dir := t.TempDir()
	off := testutil.RaceSeed(t)
	// Under the race detector, 3 of the 5 cases (RacePick).
	for ci, c := range testutil.RacePick([]struct {
		name, col string
		keys      []string
	}{
		{"int64", "id", []string{"356", "5015", "51", "9977", "100000"}},
		{"string", "s", []string{"k356", "k5015", "k51", "kx"}},
		{"int32", "v", []string{"1006", "9950", "51"}},
		{"int32, keys beyond it", "v", []string{"-5000000000", "1015", "5000000000"}},
		{"int32, every key beyond it", "v", []string{"-5000000000", "5000000000"}},
		{"int64, false positives of the filters", "id", append([]string{"356", "9977"}, bloomFalsePositives(t, path, "id", 2)...)},
	}, 3, off) {
		col := slices.Index(model.names, c.col)
		keyData := tableData{names: []string{c.col}, types: []arrow.DataType{model.types[col]}}
		if c.col == "v" {
			keyData.types[0] = arrow.PrimitiveTypes.Int64 // the keys beyond an int32
		}
		for _, k := range c.keys {
			keyData.rows = append(keyData.rows, []*string{sp(k)})
		}
		kf := filepath.Join(dir, fmt.Sprintf("keys-%s.csv", strings.ReplaceAll(c.name, " ", "-")))
		keyData.csv(t, kf)
		// The expected skips: the row groups holding none of the keys, by
		// their statistics where no key lies between their least and
		// greatest value (keyPoints), else by their Bloom filters.
		less := func(a, b string) bool { return a < b } // bytewise, as Parquet orders text
		if c.col != "s" {
			less = func(a, b string) bool {
				x, _ := strconv.ParseInt(a, 10, 64)
				y, _ := strconv.ParseInt(b, 10, 64)
				return x < y
			}
		}
		var statGroups, statRows, statNulls, skipGroups, skipRows, skipNulls int64
		var read []int // the row groups read: those holding a key
		for rg := range len(starts) - 1 {
			hold, nulls := false, int64(0)
			var lo, hi *string
			for _, row := range model.rows[starts[rg]:starts[rg+1]] {
				v := row[col]
				if v == nil {
					nulls++
					continue
				}
				hold = hold || slices.Contains(c.keys, *v)
				if lo == nil || less(*v, *lo) {
					lo = v
				}
				if hi == nil || less(*hi, *v) {
					hi = v
				}
			}
			between := lo == nil // no bounds: the statistics cannot decide
			for _, k := range c.keys {
				between = between || !less(k, *lo) && !less(*hi, k)
			}
			switch {
			case hold:
				read = append(read, rg)
			case !between:
				statGroups++
				statRows += int64(starts[rg+1] - starts[rg])
				statNulls += nulls
			default:
				skipGroups++
				skipRows += int64(starts[rg+1] - starts[rg])
				skipNulls += nulls
			}
		}
		t.Logf("%s: %d row groups skipped by statistics, %d by Bloom filters expected", c.name, statGroups, skipGroups)
		for _, jt := range raceJoinTypes(off+uint64(ci), 1) {
			name := fmt.Sprintf("%s, %s join", c.name, jt)
			opt := join.Options{Sides: join.Sides{Keys: kf, Input: path}, Keying: join.Keying{KeyCol: c.col, JoinCol: c.col}, JoinType: jt,
				Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 3, Reducers: 2, TempDir: t.TempDir()}}
			rep, out := runJoin(t, opt)
			opt.IgnoreFileBloom = true
			off, offOut := runJoin(t, opt)
			if want := typedJoin(keyData, model, []int{0}, []int{col}, jt); !slices.Equal(parseOutput(t, out), want) {
				t.Fatalf("%s: %s", name, testutil.FirstDiff(parseOutput(t, out), want))
			}
			if string(out) != string(offOut) {
				t.Fatalf("%s: the output differs from the join without the Bloom skip", name)
			}
			tr, ot := rep.InputTable, off.InputTable
			if ot.ChunksSkippedBloom != 0 || ot.BloomChecked != 0 {
				t.Errorf("%s, IgnoreFileBloom: %d row groups skipped by Bloom filters, %d read", name, ot.ChunksSkippedBloom, ot.BloomChecked)
			}
			wantGroups, wantRows, wantNulls := skipGroups, skipRows, skipNulls
			wantStat, wantStatRows, wantStatNulls := statGroups, statRows, statNulls
			if jt.KeepsUnmatchedLarge() {
				wantGroups, wantRows, wantNulls = 0, 0, 0
				wantStat, wantStatRows, wantStatNulls = 0, 0, 0
			}
			if tr.ChunksSkipped != wantStat || tr.RowsSkipped != wantStatRows || tr.SkippedNulls != wantStatNulls {
				t.Errorf("%s: skipped by statistics %d row groups, %d rows, %d NULLs; want %d, %d, %d (no key between a group's bounds)",
					name, tr.ChunksSkipped, tr.RowsSkipped, tr.SkippedNulls, wantStat, wantStatRows, wantStatNulls)
			}
			if tr.ChunksSkippedBloom != wantGroups || tr.RowsSkippedBloom != wantRows || tr.SkippedNullsBloom != wantNulls {
				t.Errorf("%s: skipped by Bloom filters %d row groups, %d rows, %d NULLs; want %d, %d, %d",
					name, tr.ChunksSkippedBloom, tr.RowsSkippedBloom, tr.SkippedNullsBloom, wantGroups, wantRows, wantNulls)
			}
			if want := int64(len(starts)-1) - statGroups; !jt.KeepsUnmatchedLarge() && (tr.BloomChecked != want || want > 0 && tr.BloomOff) {
				t.Errorf("%s: %d filters read, want %d (the row groups the statistics left), off %v (survival %.3f)", name, tr.BloomChecked, want, tr.BloomOff, tr.BloomSurvival)
			}
			if strings.Contains(c.name, "false positives") && !jt.KeepsUnmatchedLarge() && tr.ChunksSkippedDictProof == 0 {
				t.Errorf("%s: no row group skipped by its dictionary after its filter passed a key", name)
			}
			// The rows of the row groups read whose value is none of the
			// keys their filter passed: dropped without a probe.
			wantScreened := int64(0)
			if !jt.KeepsUnmatchedLarge() {
				wantScreened = screenedRows(t, path, c.col, c.keys, model, starts, read)
			}
			if tr.RowsScreenedBloom != wantScreened {
				t.Errorf("%s: %d rows screened by the filters of the row groups read, want %d", name, tr.RowsScreenedBloom, wantScreened)
			}
			if got := rep.MapOutputRecords + rep.FilteredOutRecords + rep.Keys.InputNull + rep.Keys.InputUnmatchable + tr.RowsSkipped - tr.SkippedNulls +
				tr.RowsSkippedBloom - tr.SkippedNullsBloom + tr.RowsScreenedBloom; got != rep.InputRecords {
				t.Errorf("%s: the rows accounted for are %d of %d", name, got, rep.InputRecords)
			}
			if wantGroups > 0 && tr.BytesSkippedBloom <= 0 {
				t.Errorf("%s: %d bytes skipped", name, tr.BytesSkippedBloom)
			}
			// The rows skipped are counted as the rows read would be.
			if rep.InputRecords != off.InputRecords || rep.Keys.InputNull != off.Keys.InputNull || rep.JoinRows != off.JoinRows ||
				rep.FilteredOutRecords+tr.RowsSkippedBloom-tr.SkippedNullsBloom+tr.RowsScreenedBloom < off.FilteredOutRecords-off.FalsePositiveRecords {
				t.Errorf("%s: input %d, NULL %d, join rows %d, filtered out %d; without the skip %d, %d, %d, %d",
					name, rep.InputRecords, rep.Keys.InputNull, rep.JoinRows, rep.FilteredOutRecords, off.InputRecords, off.Keys.InputNull, off.JoinRows, off.FilteredOutRecords)
			}
		}
	}
}

// screenedRows is the model of TableReport.RowsScreenedBloom of key
// column name (the fixture's text column s takes string keys, the others
// integer keys): in each row group of read, the keys whose hash its Bloom
// filter passes (at most maxScreen of them, else none is screened), and
// its rows of a value that is none of them (NULLs aside).
func screenedRows(t *testing.T, path, name string, keys []string, model tableData, starts, read []int) int64 {
	t.Helper()
	tab, err := columnar.Open(context.Background(), path, "", columnar.Parquet, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	col := tab.Column(name)
	var n int64
	for _, rg := range read {
		f := tab.BloomFilter(rg, col)
		if f == nil {
			t.Fatalf("row group %d: no Bloom filter of %s", rg, name)
		}
		var passed []string
		kt := key.Int
		if name == "s" {
			kt = key.String
		}
		for _, k := range keys {
			kb, err := key.Of(kt, make([]byte, 8), []byte(k))
			if err != nil {
				t.Fatal(err)
			}
			hs, ok := tab.BloomHashes(col, kt, [][]byte{kb})
			if !ok {
				t.Fatalf("%s: no Bloom hashes", name)
			}
			if len(hs) == 1 && f.MightContainHash(hs[0]) { // none: beyond the column's type
				passed = append(passed, k)
			}
		}
		if len(passed) > maxScreen {
			continue
		}
		for _, row := range model.rows[starts[rg]:starts[rg+1]] {
			if v := row[col]; v != nil && !slices.Contains(passed, *v) {
				n++
			}
		}
	}
	return n
}

// bloomFalsePositives returns n integers that column name of the Parquet
// file at path does not hold and that some row group's Bloom filter of it
// passes (its false positives), the least from 10^6 up.
func bloomFalsePositives(t *testing.T, path, name string, n int) []string {
	t.Helper()
	tab, err := columnar.Open(context.Background(), path, "", columnar.Parquet, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	col := tab.Column(name)
	var out []string
	for v := int64(1_000_000); len(out) < n && v < 2_000_000; v++ {
		k, err := key.Of(key.Int, make([]byte, 8), []byte(strconv.FormatInt(v, 10)))
		if err != nil {
			t.Fatal(err)
		}
		hs, ok := tab.BloomHashes(col, key.Int, [][]byte{k})
		if !ok || len(hs) != 1 {
			t.Fatalf("BloomHashes: %v, %v", hs, ok)
		}
		for rg := range tab.Chunks() {
			if f := tab.BloomFilter(rg, col); f != nil && f.MightContainHash(hs[0]) {
				out = append(out, strconv.FormatInt(v, 10))
				break
			}
		}
	}
	if len(out) < n {
		t.Fatalf("%d false positives of column %s's filters found, want %d", len(out), name, n)
	}
	return out
}

// TestParquetBloomRule: with as many keys as the fixture's column holds
// (10,000), a row group without a key would pass its filter almost surely,
// so the first filter read turns the filters off (at most one read a
// mapper), and the join is the same.
func TestParquetBloomRule(t *testing.T) {
	path, model, _ := bloomFixture(t)
	keyData := tableData{names: []string{"id"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64}}
	for k := range 10000 {
		keyData.rows = append(keyData.rows, []*string{sp(fmt.Sprint(k))})
	}
	kf := filepath.Join(t.TempDir(), "keys.csv")
	keyData.csv(t, kf)
	const mappers = 2
	rep, out := runJoin(t, join.Options{Sides: join.Sides{Keys: kf, Input: path}, Keying: join.Keying{KeyCol: "id", JoinCol: "id"},
		Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: mappers, Reducers: 2, TempDir: t.TempDir()}})
	if want := typedJoin(keyData, model, []int{0}, []int{0}, join.JoinInner); !slices.Equal(parseOutput(t, out), want) {
		t.Fatal(testutil.FirstDiff(parseOutput(t, out), want))
	}
	tr := rep.InputTable
	if !tr.BloomOff || tr.BloomSurvival <= maxBloomSurvival || tr.BloomChecked < 1 || tr.BloomChecked > mappers || tr.ChunksSkippedBloom != 0 {
		t.Errorf("off %v, survival %.3f, %d filters read, %d row groups skipped; want off after the first (one a mapper at most)",
			tr.BloomOff, tr.BloomSurvival, tr.BloomChecked, tr.ChunksSkippedBloom)
	}
}

// TestParquetNoBloom: a Parquet file without Bloom filters (arrow/go's
// writer, the one our Parquet outputs go through, writes none) joins as
// before: no filter read, none skipped, the model's rows.
func TestParquetNoBloom(t *testing.T) {
	_, model, _ := bloomFixture(t)
	dir := t.TempDir()
	rec := columnartest.Record(t, model.names, model.types, model.rows)
	defer rec.Release()
	files := columnartest.Write(t, dir, "nobloom", rec, 2048, true)
	keyData := tableData{names: []string{"id"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64}, rows: [][]*string{{sp("356")}, {sp("51")}}}
	kf := filepath.Join(dir, "keys.csv")
	keyData.csv(t, kf)
	rep, out := runJoin(t, join.Options{Sides: join.Sides{Keys: kf, Input: files.Parquet}, Keying: join.Keying{KeyCol: "id", JoinCol: "id"},
		Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 2, Reducers: 2, TempDir: t.TempDir()}})
	if want := typedJoin(keyData, model, []int{0}, []int{0}, join.JoinInner); !slices.Equal(parseOutput(t, out), want) {
		t.Fatal(testutil.FirstDiff(parseOutput(t, out), want))
	}
	if tr := rep.InputTable; tr.BloomChecked != 0 || tr.ChunksSkippedBloom != 0 || tr.BloomOff {
		t.Errorf("%d filters read, %d row groups skipped, off %v; the file has no filter", tr.BloomChecked, tr.ChunksSkippedBloom, tr.BloomOff)
	}
}
