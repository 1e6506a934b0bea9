package local

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestRowHelp: a table side of one row group, mapped by two mappers, the
// second of which has no chunk and helps the first write its survivors
// (helpBoard) while its columns are read two at a time (readColumns),
// gives the output and the counts one mapper gives: sorted
// CSV and JSON lines (typed cells), inner and left joins, PLAIN and
// dictionary pages, a filter and none; and the help happened.
func TestRowHelp(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	const n = 6000
	input := tableData{names: []string{"ID", "K", "S", "F"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64}}
	for i := range n {
		var k, s *string
		if rng.IntN(20) > 0 {
			k = sp(fmt.Sprint(rng.IntN(400)))
		}
		if rng.IntN(10) > 0 {
			s = sp([]string{"a", "b,c", `q"t`, "two\nlines", "é"}[rng.IntN(5)])
		}
		input.rows = append(input.rows, []*string{sp(fmt.Sprint(i)), k, s, sp(fmt.Sprintf("%d.5", rng.IntN(100)))})
	}
	keys := tableData{names: []string{"K", "V"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}}
	for k := range 300 {
		keys.rows = append(keys.rows, []*string{sp(fmt.Sprint(k)), sp(fmt.Sprintf("v%d", k))})
	}
	dir := t.TempDir()
	kf := sideFiles(t, dir, "keys", keys)
	one := func(name string, dict bool) string { // one row group
		rec := columnartest.Record(t, input.names, input.types, input.rows)
		defer rec.Release()
		return columnartest.Write(t, dir, name, rec, n, dict).Parquet
	}
	before, reads := helpedRows.Load(), parallelReads.Load()
	for _, in := range []string{one("plain", false), one("dict", true)} {
		for _, jt := range []join.JoinType{join.JoinInner, join.JoinLeft} {
			for _, kind := range []filters.Kind{filters.ACBF, filters.None} {
				for _, jsonl := range []bool{false, true} {
					run := func(mappers int) (*join.Report, []byte) {
						opt := join.Options{Sides: join.Sides{Keys: kf["csv"], Input: in}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"},
							FilterChoice: join.FilterChoice{Filter: kind}, Output: join.Output{Sort: true}, JoinType: jt,
							Resources: join.Resources{Mappers: mappers, Reducers: 2, TempDir: t.TempDir()}}
						var buf bytes.Buffer
						sink := NewCSV(&buf)
						if jsonl {
							var err error
							if sink, err = NewJSONL(&buf, t.TempDir()); err != nil {
								t.Fatal(err)
							}
						}
						rep, err := Run(context.Background(), opt, sink)
						if err != nil {
							t.Fatalf("%s, %s, %s, %d mappers: %v", in, jt, kind, mappers, err)
						}
						return rep, buf.Bytes()
					}
					wantRep, want := run(1)
					gotRep, got := run(2)
					what := fmt.Sprintf("%s, %s, %s, JSON lines %v", in, jt, kind, jsonl)
					if !bytes.Equal(got, want) {
						t.Fatalf("%s: 2 mappers wrote %d bytes, 1 mapper %d", what, len(got), len(want))
					}
					if g, w := joinCounts(gotRep), joinCounts(wantRep); g != w {
						t.Fatalf("%s: 2 mappers counted %s, 1 mapper %s", what, g, w)
					}
					if gotRep.JoinRows < 1000 {
						t.Fatalf("%s: %d join rows: too few to share", what, gotRep.JoinRows)
					}
				}
			}
		}
	}
	if helpedRows.Load() == before {
		t.Fatal("no mapper helped another write its survivors")
	}
	if parallelReads.Load() == reads {
		t.Fatal("no chunk's columns were read on two goroutines")
	}
}

// TestRowHelpUnprobed: with the filter guard turned off (every survivor
// unprobed), a row group's survivors written with a helper are counted
// unprobed as one mapper counts them: the owner's guard counts them all
// (a helper's own guard, never off, reported none of those it wrote;
// found by a review: 70,144 of 143,446).
func TestRowHelpUnprobed(t *testing.T) {
	const n = 150000 // the guard decides after 65,536 rows
	input := tableData{names: []string{"ID", "K", "S"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}}
	for i := range n {
		k := (i * 7919) % 100000 &^ 1
		if i%10 == 0 {
			k = 100001 + 2*(i%5000) // no key
		}
		input.rows = append(input.rows, []*string{sp(fmt.Sprint(i)), sp(fmt.Sprint(k)), sp("x")})
	}
	keys := tableData{names: []string{"K", "V"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}}
	for k := range 50000 {
		keys.rows = append(keys.rows, []*string{sp(fmt.Sprint(2 * k)), sp("v")})
	}
	dir := t.TempDir()
	kf := sideFiles(t, dir, "keys", keys)
	rec := columnartest.Record(t, input.names, input.types, input.rows)
	defer rec.Release()
	in := columnartest.Write(t, dir, "one", rec, n, false).Parquet
	run := func(mappers int) (*join.Report, []byte) {
		opt := join.Options{Sides: join.Sides{Keys: kf["csv"], Input: in}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"},
			FilterChoice: join.FilterChoice{Filter: filters.Bloom}, Output: join.Output{Sort: true},
			Resources: join.Resources{Mappers: mappers, Reducers: 2, TempDir: t.TempDir()}}
		return runJoinGuarded(t, opt, 0) // a dropped row saves nothing: the guard turns the filter off
	}
	before := helpedRows.Load()
	r1, o1 := run(1)
	r2, o2 := run(2)
	if !bytes.Equal(o1, o2) {
		t.Fatalf("2 mappers wrote %d bytes, 1 mapper %d", len(o2), len(o1))
	}
	if r1.FilterOff == nil || r2.FilterOff == nil || r1.FilterOff.Unprobed == 0 {
		t.Fatalf("the guard did not turn the filter off: %+v, %+v", r1.FilterOff, r2.FilterOff)
	}
	if r1.FilterOff.Unprobed != r2.FilterOff.Unprobed {
		t.Fatalf("unprobed rows: 1 mapper %d, 2 mappers %d (%d written by a helper)", r1.FilterOff.Unprobed, r2.FilterOff.Unprobed, helpedRows.Load()-before)
	}
	if helpedRows.Load() == before {
		t.Fatal("no mapper helped another write its survivors")
	}
}
