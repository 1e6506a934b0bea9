package local

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestIntDictJoins: an INT32 (and INT64) dictionary-encoded join column of
// few values (negatives, int32's bounds), NULLs, row groups large enough
// for ReadIntKey's Dict; every join type, several filter kinds, with and
// without Where, against the model and against ACBFJOIN_DICT=off.
func TestIntDictJoins(t *testing.T) {
	seed := testutil.Seed(t)
	r := testutil.Rand(seed)
	vals := []int64{-2147483648, -5, 0, 7, 2147483647, 123456, -99}
	input := tableData{names: []string{"ID", "K", "L", "S"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}}
	for i := range 5000 {
		var k, l *string
		if r.IntN(10) > 0 {
			k = sp(fmt.Sprint(vals[r.IntN(len(vals))]))
		}
		if r.IntN(10) > 0 {
			l = sp(fmt.Sprint(vals[r.IntN(len(vals))] * 1000003))
		}
		input.rows = append(input.rows, []*string{sp(fmt.Sprint(i)), k, l, sp(fmt.Sprintf("s%d", r.IntN(50)))})
	}
	keys := tableData{names: []string{"K", "L", "P"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}}
	// Keys: some held values, and the uint32 twins of negatives (4294967291
	// is -5's bits), values beyond int32.
	kvals := []int64{-5, 7, 4294967291, 2147483648, -2147483649, 2147483647, 99}
	for i, v := range kvals {
		keys.rows = append(keys.rows, []*string{sp(fmt.Sprint(v)), sp(fmt.Sprint(v * 1000003)), sp(fmt.Sprintf("p%d", i))})
	}
	keys.rows = append(keys.rows, []*string{nil, nil, sp("pnull")})
	dir := t.TempDir()
	kf := sideFiles(t, dir, "keys", keys)
	rec := columnartest.Record(t, input.names, input.types, input.rows)
	defer rec.Release()
	f := columnartest.Write(t, dir, "in-rg1000", rec, 1000, true)

	kinds := []filters.Kind{filters.None, filters.Exact, filters.Bloom, filters.ACBF, filters.Blocked}
	for _, col := range []struct {
		name string
		idx  int
	}{{"K", 1}, {"L", 2}} {
		for _, jt := range join.JoinTypes {
			for _, where := range []string{"", "ID % 3 != 0"} {
				in := input
				if where != "" {
					in.rows = nil
					for _, row := range input.rows {
						id, _ := strconv.Atoi(*row[0])
						if id%3 != 0 {
							in.rows = append(in.rows, row)
						}
					}
				}
				want := typedJoin(keys, in, []int{col.idx - 1}, []int{col.idx}, jt)
				for _, kind := range kinds {
					var reps []*join.Report
					for _, off := range []bool{false, true} {
						noDict = off
						opt := join.Options{Sides: join.Sides{Keys: kf["csv"], Input: f.Parquet, Where: where}, Keying: join.Keying{KeyCol: col.name, JoinCol: col.name},
							FilterChoice: join.FilterChoice{Filter: kind}, Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 2, Reducers: 2, TempDir: t.TempDir()}, JoinType: jt}
						rep, out := runJoin(t, opt)
						noDict = false
						name := fmt.Sprintf("%s, %s, where %q, %s, dict off %v", col.name, jt, where, kind, off)
						if got := parseOutput(t, out); !slices.Equal(got, want) {
							t.Fatalf("%s: %d rows, want %d: %s", name, len(got), len(want), testutil.FirstDiff(got, want))
						}
						if !off && rep.InputTable.ChunksDict == 0 {
							t.Errorf("%s: no chunk by its dictionary", name)
						}
						reps = append(reps, rep)
					}
					a, b := reps[0], reps[1]
					name := fmt.Sprintf("%s, %s, where %q, %s", col.name, jt, where, kind)
					if a.InputRecords != b.InputRecords || a.MapOutputRecords != b.MapOutputRecords || a.FilteredOutRecords != b.FilteredOutRecords ||
						a.FalsePositiveRecords != b.FalsePositiveRecords || a.BypassedRecords != b.BypassedRecords || a.Keys.InputNull != b.Keys.InputNull || a.Keys.InputUnmatchable != b.Keys.InputUnmatchable || a.JoinRows != b.JoinRows ||
						a.ShuffleRecords != b.ShuffleRecords || a.BypassedBytes != b.BypassedBytes {
						t.Errorf("%s: counts differ:\n dict %+v %+v\n off  %+v %+v", name, counts(a), a.Keys, counts(b), b.Keys)
					}
				}
			}
		}
	}
}

func counts(r *join.Report) []int64 {
	return []int64{r.InputRecords, r.MapOutputRecords, r.FilteredOutRecords, r.FalsePositiveRecords, r.BypassedRecords, r.JoinRows, r.ShuffleRecords, r.BypassedBytes}
}

// TestDictExclusionsCounted: HotExclusions with an integer key whose
// Parquet chunks are filtered by their dictionaries: ExcludedRecords are
// rows (with + excluded = false positives without), as with ACBFJOIN_DICT=off.
func TestDictExclusionsCounted(t *testing.T) { dictExclusions(t, false) }

// TestKeptIntDict: a Parquet side written by this package (Snappy,
// Bloom filters of the join column g, row groups of 1,000 rows, g of 8
// values a group), joined on g to keys some groups hold: the Bloom pass
// keeps the dictionary page (dictionaryMisses) and ReadIntKey takes it.
func TestKeptIntDict(t *testing.T) {
	dir := t.TempDir()
	var large, keys strings.Builder
	large.WriteString("g,id\n")
	keys.WriteString("g\n")
	in := tableData{names: []string{"g", "id"}}
	for i := range 10000 {
		g := (i/1000)*100 + i%8 - 3
		fmt.Fprintf(&large, "%d,%d\n", g, i)
		in.rows = append(in.rows, []*string{sp(fmt.Sprint(g)), sp(fmt.Sprint(i))})
	}
	kd := tableData{names: []string{"g"}}
	for _, g := range []int{-3, 2, 401, 404, 950, 12345, 7} {
		fmt.Fprintf(&keys, "%d\n", g)
		kd.rows = append(kd.rows, []*string{sp(fmt.Sprint(g))})
	}
	lf, kf := filepath.Join(dir, "large.csv"), filepath.Join(dir, "keys.csv")
	os.WriteFile(lf, []byte(large.String()), 0o644)
	os.WriteFile(kf, []byte(keys.String()), 0o644)
	out := filepath.Join(dir, "large.parquet")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	// The large side itself, written through a join of it to all its g values (a semi join keeps its rows).
	var all strings.Builder
	all.WriteString("g\n")
	for g := -3; g < 1000; g++ {
		fmt.Fprintf(&all, "%d\n", g)
	}
	af := filepath.Join(dir, "all.csv")
	os.WriteFile(af, []byte(all.String()), 0o644)
	jo := join.Options{Sides: join.Sides{Keys: af, Input: lf}, Keying: join.Keying{KeyCol: "g", JoinCol: "g"}, JoinType: join.JoinSemi,
		Resources: join.Resources{Mappers: 1, Reducers: 1, TempDir: t.TempDir()}}
	if _, err := Run(context.Background(), jo, NewParquetWith(f, t.TempDir(), ParquetOptions{RowGroup: 1000, BloomFPP: 0.2})); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, jt := range join.JoinTypes {
		want := typedJoin(kd, in, []int{0}, []int{0}, jt)
		rep, got := runJoin(t, join.Options{Sides: join.Sides{Keys: kf, Input: out}, Keying: join.Keying{KeyCol: "g", JoinCol: "g"}, JoinType: jt,
			Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 2, Reducers: 2, TempDir: t.TempDir()}})
		if g := parseOutput(t, got); !slices.Equal(g, want) {
			t.Fatalf("%s: %d rows, want %d: %s", jt, len(g), len(want), testutil.FirstDiff(g, want))
		}
		t.Logf("%s: %+v", jt, *rep.InputTable)
	}
}

// TestIntDictTypedOutputs: JSON lines and Arrow outputs (typed cells)
// of an integer key filtered by its dictionaries are those of
// ACBFJOIN_DICT=off, byte for byte (sorted).
func TestIntDictTypedOutputs(t *testing.T) {
	r := testutil.Rand(7)
	vals := []int64{-2147483648, -5, 0, 7, 2147483647}
	input := tableData{names: []string{"ID", "K", "S"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String}}
	for i := range 4000 {
		var k *string
		if r.IntN(10) > 0 {
			k = sp(fmt.Sprint(vals[r.IntN(len(vals))]))
		}
		input.rows = append(input.rows, []*string{sp(fmt.Sprint(i)), k, sp(fmt.Sprintf("s%d", i%7))})
	}
	keys := tableData{names: []string{"K", "P"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}}
	for i, v := range []int64{-5, 2147483647, 99} {
		keys.rows = append(keys.rows, []*string{sp(fmt.Sprint(v)), sp(fmt.Sprintf("p%d", i))})
	}
	dir := t.TempDir()
	kf := sideFiles(t, dir, "keys", keys)
	rec := columnartest.Record(t, input.names, input.types, input.rows)
	defer rec.Release()
	f := columnartest.Write(t, dir, "in", rec, 1000, true)
	for _, jt := range join.JoinTypes {
		for _, format := range []string{"jsonl", "arrow"} {
			var outs [2][]byte
			for i, off := range []bool{false, true} {
				noDict = off
				var buf bytes.Buffer
				var sink Sink
				var err error
				if format == "jsonl" {
					sink, err = NewJSONL(&buf, t.TempDir())
				} else {
					sink, err = NewArrow(&buf, t.TempDir(), false)
				}
				if err != nil {
					t.Fatal(err)
				}
				_, err = Run(context.Background(), join.Options{Sides: join.Sides{Keys: kf["csv"], Input: f.Parquet}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt,
					Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 2, Reducers: 1, TempDir: t.TempDir()}}, sink)
				noDict = false
				if err != nil {
					t.Fatal(err)
				}
				outs[i] = buf.Bytes()
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("%s, %s: outputs differ (%d and %d bytes)", jt, format, len(outs[0]), len(outs[1]))
			}
		}
	}
}

// TestDictExclusionsText is TestDictExclusionsCounted of a text key.
func TestDictExclusionsText(t *testing.T) { dictExclusions(t, true) }

// dictExclusions is TestDictExclusionsCounted of an integer or a text key:
// 30,000 rows in dictionary row groups of 10,000, half of them 20 hot keys
// that are not members, a Bloom filter at 30% and 50 exclusions, with the
// dictionary path and without.
func dictExclusions(t *testing.T, text bool) {
	seed := testutil.Seed(t)
	r := testutil.Rand(seed)
	keyType, keyOf := arrow.DataType(arrow.PrimitiveTypes.Int64), func(k int) string { return fmt.Sprint(k) }
	if text {
		keyType, keyOf = arrow.BinaryTypes.String, func(k int) string { return fmt.Sprintf("k%d", k) }
	}
	input := tableData{names: []string{"ID", "K"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, keyType}}
	for i := range 30000 {
		k := r.IntN(3000)
		if r.IntN(2) == 0 {
			k = 1000 + r.IntN(20) // hot non-member keys
		}
		input.rows = append(input.rows, []*string{sp(fmt.Sprint(i)), sp(keyOf(k))})
	}
	keys := tableData{names: []string{"K", "P"}, types: []arrow.DataType{keyType, arrow.BinaryTypes.String}}
	for k := range 200 {
		keys.rows = append(keys.rows, []*string{sp(keyOf(k)), sp(fmt.Sprintf("p%d", k))})
	}
	dir := t.TempDir()
	kf := sideFiles(t, dir, "keys", keys)
	rec := columnartest.Record(t, input.names, input.types, input.rows)
	defer rec.Release()
	f := columnartest.Write(t, dir, "in-rg10000", rec, 10000, true)
	want := typedJoin(keys, input, []int{0}, []int{1}, join.JoinInner)
	run := func(hot int, off bool) *join.Report {
		noDict = off
		defer func() { noDict = false }()
		opt := join.Options{Sides: join.Sides{Keys: kf["csv"], Input: f.Parquet}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"},
			FilterChoice: join.FilterChoice{Filter: filters.Bloom, Sizing: filters.Sizing{FPP: 0.3}, HotExclusions: hot}, Output: join.Output{Sort: true}}
		rep, out := runJoin(t, opt)
		if got := parseOutput(t, out); !slices.Equal(got, want) {
			t.Fatalf("hot %d, off %v: %s", hot, off, testutil.FirstDiff(got, want))
		}
		return rep
	}
	for _, off := range []bool{false, true} {
		without, with := run(0, off), run(50, off)
		h := with.HotExclusions
		t.Logf("dict off %v: FP without %d, with %d, excluded %d (keys %d); chunks by dict %d; rates %.4g %.4g (without, as reported %.4g)",
			off, without.FalsePositiveRecords, with.FalsePositiveRecords, h.ExcludedRecords, h.Found, with.InputTable.ChunksDict, without.FPPMeasured, with.FPPMeasured, h.FPPMeasuredWithout)
		if with.FalsePositiveRecords+h.ExcludedRecords != without.FalsePositiveRecords {
			t.Errorf("dict off %v: %d false positives with + %d excluded != %d without", off, with.FalsePositiveRecords, h.ExcludedRecords, without.FalsePositiveRecords)
		}
	}
}
