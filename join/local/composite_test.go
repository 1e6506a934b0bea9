package local

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// naiveTupleJoin is the reference of a composite-key join, read with
// encoding/csv (an independent reader): a nested-loop join, integer
// components compared as numbers, rows as field lists (large fields, then
// key fields but the key columns), sorted.
func naiveTupleJoin(t *testing.T, keysPath, inputPath string, keyCols, joinCols []string, types []key.Type) []string {
	t.Helper()
	read := func(path string) ([]string, [][]string) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return recs[0], recs[1:]
	}
	kh, krows := read(keysPath)
	ih, irows := read(inputPath)
	idx := func(h, cols []string) []int {
		var ix []int
		for _, c := range cols {
			ix = append(ix, slices.Index(h, c))
		}
		return ix
	}
	ki, ji := idx(kh, keyCols), idx(ih, joinCols)
	equal := func(a, b string, kt key.Type) bool {
		if kt == key.String {
			return a == b
		}
		x, err1 := strconv.ParseInt(a, 10, 64)
		y, err2 := strconv.ParseInt(b, 10, 64)
		return err1 == nil && err2 == nil && x == y
	}
	var out []string
	for _, in := range irows {
		for _, k := range krows {
			match := true
			for c := range ki {
				match = match && equal(in[ji[c]], k[ki[c]], types[c])
			}
			if !match {
				continue
			}
			row := slices.Clone(in)
			for i, f := range k {
				if !slices.Contains(ki, i) {
					row = append(row, f)
				}
			}
			out = append(out, strings.Join(row, "\x1f"))
		}
	}
	slices.Sort(out)
	return out
}

// writeCSVFile writes a header and rows with encoding/csv.
func writeCSVFile(t *testing.T, path string, header []string, rows [][]string) {
	t.Helper()
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(header)
	w.WriteAll(rows)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tupleFiles writes a key file (A int, B string, C int, PAY) and an input
// (ROW, X int, Y string, Z int) from small domains: duplicates on both
// sides, strings that split alike ("1","23" and "12","3"), quoted commas,
// integers written with leading zeros and signs.
func tupleFiles(t *testing.T, dir string, seed uint64, nk, ni int) (keys, input string) {
	r := rand.New(rand.NewPCG(seed, 3))
	strs := []string{"1", "12", "23", "3", "a,b", `q"x`, "é", "1 "}
	ints := func() string {
		v := r.IntN(4) - 1
		switch r.IntN(4) {
		case 0:
			return fmt.Sprintf("%03d", v)
		case 1:
			if v >= 0 {
				return fmt.Sprintf("+%d", v)
			}
		}
		return strconv.Itoa(v)
	}
	var krows, irows [][]string
	for i := range nk {
		krows = append(krows, []string{ints(), strs[r.IntN(len(strs))], ints(), "k" + strconv.Itoa(i)})
	}
	for i := range ni {
		irows = append(irows, []string{strconv.Itoa(i), ints(), strs[r.IntN(len(strs))], ints()})
	}
	keys, input = filepath.Join(dir, "keys.csv"), filepath.Join(dir, "input.csv")
	writeCSVFile(t, keys, []string{"A", "B", "C", "PAY"}, krows)
	writeCSVFile(t, input, []string{"ROW", "X", "Y", "Z"}, irows)
	return keys, input
}

// TestCompositeDifferential: a three-column key (int, string, int) with
// duplicates on both sides joins like the nested-loop reference for every
// kind in both layouts, with several mappers and reducers; with Sort the
// rows come in tuple order (X numerically, Y by bytes, Z numerically), then
// large-side row order.
func TestCompositeDifferential(t *testing.T) {
	seed := testutil.Seed(t)
	dir := t.TempDir()
	keys, input := tupleFiles(t, dir, seed, 60, 3000)
	cols, jcols := []string{"A", "B", "C"}, []string{"X", "Y", "Z"}
	types := []key.Type{key.Int, key.String, key.Int}
	want := naiveTupleJoin(t, keys, input, cols, jcols, types)
	if len(want) == 0 {
		t.Fatal("the generated sides do not join")
	}
	for _, kind := range testutil.RacePick(kinds(), 4, seed) { // under -race, 4 of the kinds
		for _, layout := range []join.Layout{join.LayoutComposite, join.LayoutPerColumn} {
			if kind == filters.None && layout == join.LayoutPerColumn {
				continue
			}
			t.Run(string(kind)+"/"+string(layout), func(t *testing.T) {
				rep, out := runJoin(t, join.Options{
					Sides:        join.Sides{Keys: keys, Input: input},
					Keying:       join.Keying{KeyCol: "A,B,C", JoinCol: "X,Y,Z", KeyType: "int,string,int", Layout: layout},
					FilterChoice: join.FilterChoice{Filter: kind, Sizing: sizingFor(kind)},
					Output:       join.Output{Sort: true},
					Resources:    join.Resources{Mappers: 2, Reducers: 3},
				})
				if got := parseOutput(t, out); !slices.Equal(got, want) {
					t.Fatalf("%d rows, reference %d; %s", len(got), len(want), testutil.FirstDiff(got, want))
				}
				checkReport(t, rep, len(want))
				checkTupleOrder(t, out)
				if rep.Settings.Layout != layout || rep.Settings.KeyType != "int,string,int" {
					t.Fatalf("settings %+v", rep.Settings)
				}
			})
		}
	}
	t.Logf("%d rows", len(want))
}

// sizingFor gives the small generated key sets a sizing every kind takes.
func sizingFor(kind filters.Kind) filters.Sizing {
	sp, err := filters.Lookup(string(kind))
	if err != nil || !sp.Sized {
		return filters.Sizing{}
	}
	return filters.Sizing{FPP: 0.05}
}

// checkTupleOrder: sorted output of tupleFiles' join is in (X, Y, Z, ROW)
// order.
func checkTupleOrder(t *testing.T, out []byte) {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	num := func(s string) int64 {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return v
	}
	rows := recs[1:]
	if !slices.IsSortedFunc(rows, func(a, b []string) int {
		return cmp.Or(cmp.Compare(num(a[1]), num(b[1])), strings.Compare(a[2], b[2]), cmp.Compare(num(a[3]), num(b[3])), cmp.Compare(num(a[0]), num(b[0])))
	}) {
		t.Fatalf("sorted output is not in tuple order:\n%s", out)
	}
}

// TestCompositeKeysDoNotRun: ("1","23") and ("12","3") are different keys,
// as are ("a","") pieces glued otherwise; only equal tuples join.
func TestCompositeKeysDoNotRun(t *testing.T) {
	dir := t.TempDir()
	keys, input := filepath.Join(dir, "k.csv"), filepath.Join(dir, "i.csv")
	writeCSVFile(t, keys, []string{"A", "B", "V"}, [][]string{{"1", "23", "x"}, {"a\x00", "b", "y"}})
	writeCSVFile(t, input, []string{"X", "Y"}, [][]string{{"12", "3"}, {"1", "23"}, {"a", "\x00b"}, {"123", "1"}})
	for _, kind := range []filters.Kind{filters.None, filters.Exact, filters.Bloom} {
		rep, out := runJoin(t, join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "A,B", JoinCol: "X,Y", KeyType: "string"}, FilterChoice: join.FilterChoice{Filter: kind}})
		if rep.JoinRows != 1 || !bytes.Contains(out, []byte("1,23,x\n")) {
			t.Fatalf("%s: %d rows:\n%s", kind, rep.JoinRows, out)
		}
	}
}

// TestCompositeBadRows: an integer component that does not parse is a bad
// row: an error naming the file, line and column, or with SkipBadRows a
// counted row. An empty CSV component is NULL under every key type: the
// row is left out and counted, never an error (docs/types.md).
func TestCompositeBadRows(t *testing.T) {
	dir := t.TempDir()
	keys, input := filepath.Join(dir, "k.csv"), filepath.Join(dir, "i.csv")
	writeCSVFile(t, keys, []string{"A", "B"}, [][]string{{"1", "x"}, {"2", ""}, {"3", "z"}})
	writeCSVFile(t, input, []string{"X", "Y"}, [][]string{{"1", "x"}, {"", "x"}, {"q", "z"}, {"3", "z"}})
	_, err := Run(context.Background(), join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "A,B", JoinCol: "X,Y", KeyType: "int,string"}}, NewCSV(&bytes.Buffer{}))
	if err == nil || !strings.Contains(err.Error(), "i.csv:4") || !strings.Contains(err.Error(), `X: invalid integer "q"`) {
		t.Fatalf("a component that does not parse: %v", err)
	}
	rep, out := runJoin(t, join.Options{Sides: join.Sides{Keys: keys, Input: input, SkipBadRows: true}, Keying: join.Keying{KeyCol: "A,B", JoinCol: "X,Y", KeyType: "int,string"}, Output: join.Output{Sort: true}})
	if rep.BadRows != 1 || rep.JoinRows != 2 || rep.Keys.KeysNull != 1 || rep.Keys.InputNull != 1 {
		t.Fatalf("%d bad rows, %d join rows, %d and %d NULL keys, want 1, 2, 1 and 1: %v\n%s", rep.BadRows, rep.JoinRows, rep.Keys.KeysNull, rep.Keys.InputNull, rep.BadRowExamples, out)
	}
}

// TestCompositeOptionErrors: the key lists must agree.
func TestCompositeOptionErrors(t *testing.T) {
	for _, c := range []struct {
		opt  join.Options
		want string
	}{
		{join.Options{Keying: join.Keying{KeyCol: "A,B", JoinCol: "X"}}, "1 columns for the 2 key columns"},
		{join.Options{Keying: join.Keying{KeyCol: "A,B", JoinCol: "X,Y", KeyType: "int,string,int"}}, "3 types for 2 key columns"},
		{join.Options{Keying: join.Keying{KeyCol: "A,B", JoinCol: "X,Y", KeyType: "int,float"}}, `"float": want auto, int or string`},
		{join.Options{Keying: join.Keying{KeyCol: "A,A", JoinCol: "X,Y"}}, "A twice"},
		{join.Options{Keying: join.Keying{KeyCol: "A,", JoinCol: "X,Y"}}, "an empty name"},
		{join.Options{Keying: join.Keying{KeyCol: "A", JoinCol: "X", Layout: join.LayoutPerColumn}}, "needs a key of several columns"},
		{join.Options{Keying: join.Keying{KeyCol: "A,B", JoinCol: "X,Y", Layout: "diagonal"}}, "want composite or per-column"},
		{join.Options{Keying: join.Keying{KeyCol: "A,B", JoinCol: "X,Y", Layout: join.LayoutPerColumn}, FilterChoice: join.FilterChoice{FilterFile: "f"}}, "filter files hold composite filters"},
	} {
		c.opt.Keys, c.opt.Input = "k", "i"
		_, err := c.opt.Resolve()
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, join.ErrOptions) {
			t.Errorf("%+v: %v, want %q", c.opt, err, c.want)
		}
	}
	o, err := join.Options{Sides: join.Sides{Keys: "k", Input: "i"}, Keying: join.Keying{KeyCol: `"A,1",B`, JoinCol: "X,Y", KeyType: "string"}}.Resolve()
	if err != nil || !slices.Equal(o.KeyCols, []string{"A,1", "B"}) || o.KeyType != "string,string" || o.KeyCol != `"A,1",B` {
		t.Fatalf("quoted column name: %+v, %v", o.KeyCols, err)
	}
}

// TestCompositeRealSample: the citations joined with a (CITING, CITED) pair
// file sampled from them (every fifth row), a two-column integer key, equal
// to the reference in both layouts; and with a filter file.
func TestCompositeRealSample(t *testing.T) {
	_, cite := miniFiles(t)
	dir := t.TempDir()
	data, err := os.ReadFile(cite)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	var pairs strings.Builder
	pairs.WriteString("CITING,CITED\n")
	distinct := map[string]bool{}
	every := testutil.RaceSize(5, 20) // under -race, a quarter of the pairs: the reference join is a nested loop
	for i, l := range lines[1:] {
		if i%every == 0 && l != "" {
			pairs.WriteString(l)
			distinct[l] = true
		}
	}
	distinctPairs := len(distinct)
	pp := filepath.Join(dir, "pairs.csv")
	if err := os.WriteFile(pp, []byte(pairs.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	want := naiveTupleJoin(t, pp, cite, []string{"CITING", "CITED"}, []string{"CITING", "CITED"}, []key.Type{key.Int, key.Int})
	base := join.Options{Sides: join.Sides{Keys: pp, Input: cite}, Keying: join.Keying{KeyCol: "CITING,CITED", JoinCol: "CITING,CITED"}, FilterChoice: join.FilterChoice{Filter: filters.Bloom}, Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 2, Reducers: 2}}
	for _, layout := range []join.Layout{join.LayoutComposite, join.LayoutPerColumn} {
		o := base
		o.Layout = layout
		rep, out := runJoin(t, o)
		if got := parseOutput(t, out); !slices.Equal(got, want) {
			t.Fatalf("%s: %d rows, reference %d; %s", layout, len(got), len(want), testutil.FirstDiff(got, want))
		}
		t.Logf("%s: %d join rows, %d false positives of %d rows (formula FP %.3g)", layout, rep.JoinRows, rep.FalsePositiveRecords, rep.InputRecords, rep.Filter.FPPFormula)
	}
	// A filter file of the composite keys (WriteFilterFile, as
	// build-filter writes it) gives the same join.
	ffp := filepath.Join(dir, "pairs.bloom")
	f, err := os.Create(ffp)
	if err != nil {
		t.Fatal(err)
	}
	built, err := WriteFilterFile(context.Background(), base, f)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if built.KeyCol != "CITING,CITED" || built.Filter.N != distinctPairs {
		t.Fatalf("filter file of key %s over %d keys", built.KeyCol, built.Filter.N)
	}
	perCol := base
	perCol.Layout = join.LayoutPerColumn
	if _, err := WriteFilterFile(context.Background(), perCol, &bytes.Buffer{}); !errors.Is(err, join.ErrOptions) {
		t.Fatalf("a per-column filter file: %v", err)
	}
	o2 := base
	o2.Filter, o2.FilterFile = "", ffp
	_, out := runJoin(t, o2)
	if got := parseOutput(t, out); !slices.Equal(got, want) {
		t.Fatalf("with a filter file: %s", testutil.FirstDiff(got, want))
	}
	o3 := o2
	o3.KeyCol, o3.JoinCol = "CITED,CITING", "CITED,CITING"
	if _, err := Run(context.Background(), o3, NewCSV(&bytes.Buffer{})); err == nil || !strings.Contains(err.Error(), "built on key column CITING,CITED") {
		t.Fatalf("filter file of another column order: %v", err)
	}
}
