package local

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// tableData is a side as a model: column names and rows of text, nil for
// NULL. It is written as CSV (NULL as an empty field) and, typed, as
// Parquet and Arrow files.
type tableData struct {
	names []string
	types []arrow.DataType
	rows  [][]*string
}

func sp(s string) *string { return &s }

// twins writes d to dir as a Parquet file of rowGroup rows a row group
// (dictionary-encoded or not) and as the same rows in CSV, which has no
// statistics, and returns their paths.
func (d tableData) twins(t *testing.T, dir string, rowGroup int64, dict bool) (pq, csvPath string) {
	rec := columnartest.Record(t, d.names, d.types, d.rows)
	defer rec.Release()
	pq = columnartest.Write(t, dir, "in", rec, rowGroup, dict).Parquet
	csvPath = filepath.Join(dir, "in.csv")
	d.csv(t, csvPath)
	return pq, csvPath
}

// csv writes d as a CSV file.
func (d tableData) csv(t *testing.T, path string) {
	var b []byte
	b = csvscan.AppendNames(b, d.names)
	b = append(b, '\n')
	for _, row := range d.rows {
		fs := make([][]byte, len(row))
		for i, v := range row {
			if v != nil {
				fs[i] = []byte(*v)
			}
		}
		b = append(csvscan.AppendFields(b, fs), '\n')
	}
	testutil.WriteFile(t, path, b, 0o644)
}

// sideFiles writes d as CSV, Parquet of 7-row groups with dictionary pages,
// Parquet of one plain row group, and Arrow file and stream; by name.
func sideFiles(t *testing.T, dir, name string, d tableData) map[string]string {
	rec := columnartest.Record(t, d.names, d.types, d.rows)
	defer rec.Release()
	small := columnartest.Write(t, dir, name+"-rg7", rec, 7, true)
	one := columnartest.Write(t, dir, name+"-rg1", rec, 1<<20, false)
	c := filepath.Join(dir, name+".csv")
	d.csv(t, c)
	return map[string]string{"csv": c, "parquet-rg7-dict": small.Parquet, "parquet-plain": one.Parquet, "arrow-file": small.ArrowFile, "arrow-stream": small.ArrowStream}
}

// tableJoin is the reference: the inner join of the models on the columns
// kc and jc (NULL never matches), rows as parseOutput gives them.
func tableJoin(keys, input tableData, kc, jc []int) []string {
	return typedJoin(keys, input, kc, jc, join.JoinInner)
}

func deref(v *string) string {
	if v == nil {
		return ""
	}
	return *v
}

// genTables makes a key side (K int64, G int64, P text with commas, quotes
// and line breaks, W a float) and a large side (ID, K int32, G, S) with
// duplicate keys on both sides and NULLs in every column, from seed.
func genTables(seed uint64) (keys, input tableData) {
	r := testutil.Rand(seed)
	maybe := func(p float64, s string) *string {
		if r.Float64() < p {
			return nil
		}
		return sp(s)
	}
	texts := []string{"plain", "a,b", `say "hi"`, "two\nlines", "é ü", " lead"}
	keys = tableData{names: []string{"K", "G", "P", "W"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64}}
	for range 150 {
		keys.rows = append(keys.rows, []*string{maybe(0.05, fmt.Sprint(r.IntN(120))), sp(fmt.Sprint(r.IntN(3))), maybe(0.1, texts[r.IntN(len(texts))]), maybe(0.1, fmt.Sprintf("%d.25", r.IntN(50)-25))})
	}
	input = tableData{names: []string{"ID", "K", "G", "S"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}}
	for i := range 600 {
		input.rows = append(input.rows, []*string{sp(fmt.Sprint(i)), maybe(0.05, fmt.Sprint(r.IntN(400))), maybe(0.05, fmt.Sprint(r.IntN(3))), maybe(0.1, texts[r.IntN(len(texts))])})
	}
	return keys, input
}

// TestTableSides: every pairing of CSV, Parquet (small dictionary-encoded
// row groups, one plain group) and Arrow (file, stream) sides gives the
// model's join, for every filter kind on the Parquet pair; an int64 key
// side matches an int32 join column by value; NULL keys never match and
// are counted; a composite key of two typed columns; sorted output is
// byte-identical whatever the formats.
func TestTableSides(t *testing.T) {
	seed := testutil.Seed(t)
	keys, input := genTables(seed)
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	want := tableJoin(keys, input, []int{0}, []int{1})
	if len(want) < 100 {
		t.Fatalf("the reference has %d rows", len(want))
	}
	var inputNull int64
	for _, row := range input.rows {
		if row[1] == nil {
			inputNull++
		}
	}
	var sorted []byte
	for _, kfmt := range []string{"csv", "parquet-rg7-dict", "arrow-file"} {
		for _, ifmt := range []string{"csv", "parquet-rg7-dict", "parquet-plain", "arrow-file", "arrow-stream"} {
			ks := []filters.Kind{filters.ACBF}
			if kfmt == "parquet-rg7-dict" && ifmt == "parquet-rg7-dict" {
				ks = testutil.RacePick(kinds(), 3, seed) // under -race, 3 of them
			}
			for _, kind := range ks {
				name := fmt.Sprintf("keys %s, input %s, %s", kfmt, ifmt, kind)
				opt := join.Options{Sides: join.Sides{Keys: kf[kfmt], Input: inf[ifmt]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, FilterChoice: join.FilterChoice{Filter: kind}, Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 3, Reducers: 2, TempDir: t.TempDir()}}
				if kind == filters.Fuse {
					opt.Sizing = filters.Sizing{BitsPerKey: 9}
				}
				rep, out := runJoin(t, opt)
				if got := parseOutput(t, out); !slices.Equal(got, want) {
					t.Fatalf("%s: %d rows, the model's %d; %s", name, len(got), len(want), testutil.FirstDiff(got, want))
				}
				if rep.Keys.InputNull != inputNull {
					t.Errorf("%s: %d NULL input keys counted, %d in the data", name, rep.Keys.InputNull, inputNull)
				}
				if rep.Settings.KeyType != key.Int {
					t.Errorf("%s: key type %v", name, rep.Settings.KeyType)
				}
				// The header is the large side's as CSV: the same for every format.
				if sorted == nil {
					sorted = out
				} else if !bytes.Equal(out, sorted) {
					t.Errorf("%s: sorted output differs from the CSV pair's", name)
				}
			}
		}
	}
	// A composite key of typed columns.
	want2 := tableJoin(keys, input, []int{0, 1}, []int{1, 2})
	for _, f := range []string{"csv", "parquet-rg7-dict", "arrow-stream"} {
		_, out := runJoin(t, join.Options{Sides: join.Sides{Keys: kf["parquet-plain"], Input: inf[f]}, Keying: join.Keying{KeyCol: "K,G", JoinCol: "K,G"}, FilterChoice: join.FilterChoice{Filter: filters.Blocked}})
		if got := parseOutput(t, out); !slices.Equal(got, want2) {
			t.Fatalf("composite, input %s: %s", f, testutil.FirstDiff(got, want2))
		}
	}
}

// TestTableStringKeys: string key columns compare as bytes: "7" and "007"
// are other keys, from a Parquet side and from a CSV side alike (auto types
// the CSV string: 007 is no canonical integer).
func TestTableStringKeys(t *testing.T) {
	keys := tableData{names: []string{"K", "V"}, types: []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64}}
	input := tableData{names: []string{"K"}, types: []arrow.DataType{arrow.BinaryTypes.String}}
	for i, k := range []string{"7", "007", "tt0000019", "10.0.0.1", "-3"} {
		keys.rows = append(keys.rows, []*string{sp(k), sp(fmt.Sprint(i))})
	}
	for _, k := range []string{"7", "07", "007", "tt0000019", "10.0.0.1", "10.0.0.2", "-3", "+3"} {
		input.rows = append(input.rows, []*string{sp(k)}, []*string{sp(k)})
	}
	input.rows = append(input.rows, []*string{nil})
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	want := tableJoin(keys, input, []int{0}, []int{0})
	if len(want) != 10 {
		t.Fatalf("the model has %d rows", len(want))
	}
	for _, kfmt := range []string{"csv", "parquet-plain"} {
		for _, ifmt := range []string{"csv", "parquet-rg7-dict", "arrow-stream"} {
			rep, out := runJoin(t, join.Options{Sides: join.Sides{Keys: kf[kfmt], Input: inf[ifmt]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}})
			if got := parseOutput(t, out); !slices.Equal(got, want) {
				t.Fatalf("keys %s, input %s: %s", kfmt, ifmt, testutil.FirstDiff(got, want))
			}
			if rep.Settings.KeyType != key.String {
				t.Errorf("keys %s, input %s: key type %v (%s)", kfmt, ifmt, rep.Settings.KeyType, rep.Keys.Why)
			}
		}
	}
}

// TestTableRefusals: an integer column joined to a string column is refused
// with both types named; a float column is no key; a damaged footer names
// its file; nothing is left in the temporary folder.
func TestTableRefusals(t *testing.T) {
	keys, input := genTables(3)
	dir := t.TempDir()
	kf := sideFiles(t, dir, "keys", keys)
	strs := tableData{names: []string{"K"}, types: []arrow.DataType{arrow.BinaryTypes.String}, rows: [][]*string{{sp("1")}, {sp("x")}}}
	sf := sideFiles(t, dir, "strs", strs)
	inf := sideFiles(t, dir, "input", input)
	data, err := os.ReadFile(inf["parquet-plain"])
	testutil.Check(t, err)
	bad := filepath.Join(dir, "damaged.parquet")
	testutil.WriteFile(t, bad, data[:len(data)-20], 0o644)
	tmp := t.TempDir()
	for _, c := range []struct {
		name string
		opt  join.Options
		want []string
	}{
		{"int to string", join.Options{Sides: join.Sides{Keys: kf["parquet-plain"], Input: sf["parquet-plain"]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}}, []string{"int64", "string"}},
		{"float key", join.Options{Sides: join.Sides{Keys: kf["parquet-plain"], Input: inf["parquet-plain"]}, Keying: join.Keying{KeyCol: "W", JoinCol: "K"}}, []string{`"W"`, "float64"}},
		{"damaged footer", join.Options{Sides: join.Sides{Keys: kf["csv"], Input: bad}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}}, []string{"damaged.parquet"}},
	} {
		c.opt.TempDir = tmp
		_, err := Run(context.Background(), c.opt, NewCSV(&bytes.Buffer{}))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %s", c.name, err, w)
			}
		}
	}
	if names := testutil.DirNames(t, tmp); len(names) != 0 {
		t.Errorf("left behind: %v", names)
	}
}

// TestTableParquetOutput: a Parquet output of Parquet sides keeps their
// column types (int32 stays int32, a string of digits stays a string) and
// reads back as the CSV output's text.
func TestTableParquetOutput(t *testing.T) {
	keys, input := genTables(5)
	keys.names[1] = "H"              // the output reads back: no two columns of one name
	for _, row := range input.rows { // S holds digits only: typed by values it would be INT64
		if row[3] != nil {
			row[3] = sp(fmt.Sprint(len(*row[3])))
		}
	}
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	var pq bytes.Buffer
	opt := join.Options{Sides: join.Sides{Keys: kf["parquet-plain"], Input: inf["parquet-rg7-dict"]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Output: join.Output{Sort: true}}
	if _, err := Run(context.Background(), opt, NewParquet(&pq, t.TempDir())); err != nil {
		t.Fatal(err)
	}
	_, csvOut := runJoin(t, opt)
	tbl := testutil.ReadParquet(t, pq.Bytes())
	wantTypes := []string{"int64", "int32", "int64", "utf8", "int64", "utf8", "float64"}
	for i, w := range wantTypes {
		if got := tbl.Schema().Field(i).Type.String(); got != w {
			t.Errorf("column %s: %s, want %s", tbl.Schema().Field(i).Name, got, w)
		}
	}
	out := filepath.Join(dir, "out.parquet")
	testutil.WriteFile(t, out, pq.Bytes(), 0o644)
	// Read back through a join with itself as the input: its rows' text.
	_, again := runJoin(t, join.Options{Sides: join.Sides{Keys: kf["csv"], Input: out}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Output: join.Output{Sort: true}})
	if got, w := parseOutput(t, again), parseOutput(t, joinWithKeysAgain(t, kf["csv"], csvOut)); !slices.Equal(got, w) {
		t.Fatalf("the Parquet output read back: %s", testutil.FirstDiff(got, w))
	}
}

// joinWithKeysAgain joins the CSV output out to the key file once more.
func joinWithKeysAgain(t *testing.T, keysPath string, out []byte) []byte {
	p := filepath.Join(t.TempDir(), "out.csv")
	testutil.WriteFile(t, p, out, 0o644)
	_, again := runJoin(t, join.Options{Sides: join.Sides{Keys: keysPath, Input: p}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Output: join.Output{Sort: true}})
	return again
}

// TestBatchAfterAnOddKey: a batch with a key that does not parse (skipped
// as a bad row, or NULL under auto typing) is gathered one key at a time;
// the batches after it pair every row with its own key. (The gathered keys
// once overwrote the slots of the integer keys, and later batches paired
// rows with their neighbours' keys: a silent wrong join.)
func TestBatchAfterAnOddKey(t *testing.T) {
	dir := t.TempDir()
	kb := []byte("K,V\n")
	for k := range 50 {
		kb = fmt.Appendf(kb, "%d,v%d\n", k, k)
	}
	keys := filepath.Join(dir, "keys.csv")
	testutil.WriteFile(t, keys, kb, 0o644)
	for _, odd := range []string{"x", ""} {
		ib := []byte("ID,K\n")
		want := 0
		for i := range 5000 {
			if i%97 == 5 {
				ib = fmt.Appendf(ib, "%d,%s\n", i, odd)
				continue
			}
			ib = fmt.Appendf(ib, "%d,%d\n", i, i%50)
			want++
		}
		input := filepath.Join(dir, "input.csv")
		testutil.WriteFile(t, input, ib, 0o644)
		opt := join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Resources: join.Resources{Mappers: 1}}
		if odd == "x" {
			opt.KeyType, opt.SkipBadRows = key.Int, true
		}
		_, out := runJoin(t, opt)
		rows := parseOutput(t, out)
		if len(rows) != want {
			t.Fatalf("odd key %q: %d rows, want %d", odd, len(rows), want)
		}
		for _, r := range rows {
			f := strings.Split(r, "\x1f")
			if "v"+f[1] != f[2] {
				t.Fatalf("odd key %q: row %q has another key's payload", odd, r)
			}
		}
	}
}

// TestTableSparseSurvivors: a row group with few survivors reads its other
// columns at their rows only (Table.ReadRows, the values between skipped):
// the same rows as the model, with NULLs, quoting and dictionary pages, and
// a smaller share of the table decoded.
func TestTableSparseSurvivors(t *testing.T) {
	_, input := genTables(11)
	r := testutil.Rand(11)
	for i := 600; i < 20000; i++ { // a larger side: few rows per key
		row := []*string{sp(fmt.Sprint(i)), sp(fmt.Sprint(1000 + r.IntN(100000))), sp(fmt.Sprint(r.IntN(3))), sp(fmt.Sprintf("t%d,\"x\"", r.IntN(50)))}
		if i%17 == 0 {
			row[3] = nil
		}
		input.rows = append(input.rows, row)
	}
	keys := tableData{names: []string{"K", "P"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}}
	for k := range 30 {
		keys.rows = append(keys.rows, []*string{sp(fmt.Sprint(k * 37)), sp(fmt.Sprintf("p%d", k))})
	}
	dir := t.TempDir()
	kf := sideFiles(t, dir, "keys", keys)
	rec := columnartest.Record(t, input.names, input.types, input.rows)
	defer rec.Release()
	for _, dict := range []bool{true, false} {
		f := columnartest.Write(t, dir, fmt.Sprint("input-", dict), rec, 1<<20, dict)
		want := tableJoin(keys, input, []int{0}, []int{1})
		rep, out := runJoin(t, join.Options{Sides: join.Sides{Keys: kf["csv"], Input: f.Parquet}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, FilterChoice: join.FilterChoice{Filter: filters.Exact}})
		if got := parseOutput(t, out); !slices.Equal(got, want) {
			t.Fatalf("dict %v: %s", dict, testutil.FirstDiff(got, want))
		}
		if tr := rep.InputTable; tr == nil || tr.DecodedBytes*2 > tr.Bytes {
			t.Fatalf("dict %v: decoded %+v: the sparse read took more than half", dict, tr)
		}
	}
}

// TestUint64Keys: uint64 keys beyond int64 match between two uint64
// columns (compared as decimal text: no int key holds them), for inner and
// anti joins; against an int64 column they compare by value (7 meets 7),
// and with the type given string too. TestUint64Widths has the rest.
func TestUint64Keys(t *testing.T) {
	big := []string{"18446744073709551615", "9223372036854775808", "7"}
	keys := tableData{names: []string{"K", "V"}, types: []arrow.DataType{arrow.PrimitiveTypes.Uint64, arrow.BinaryTypes.String}}
	input := tableData{names: []string{"ID", "K"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Uint64}}
	ints := tableData{names: []string{"ID", "K"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64}}
	for i, k := range big {
		keys.rows = append(keys.rows, []*string{sp(k), sp(fmt.Sprint("v", i))})
		input.rows = append(input.rows, []*string{sp(fmt.Sprint(i)), sp(k)}, []*string{sp(fmt.Sprint(i + 10)), sp(k)})
	}
	ints.rows = [][]*string{{sp("1"), sp("7")}, {sp("2"), sp("8")}}
	dir := t.TempDir()
	kf, inf, nf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input), sideFiles(t, dir, "ints", ints)
	want := tableJoin(keys, input, []int{0}, []int{1})
	if len(want) != 6 {
		t.Fatalf("the model has %d rows", len(want))
	}
	for _, k := range []string{"parquet-plain", "arrow-file"} {
		for _, jt := range []join.JoinType{join.JoinInner, join.JoinAnti} {
			rep, out := runJoin(t, join.Options{Sides: join.Sides{Keys: kf[k], Input: inf["parquet-rg7-dict"]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt})
			got := parseOutput(t, out)
			if jt == join.JoinInner && !slices.Equal(got, want) || jt == join.JoinAnti && len(got) != 0 {
				t.Fatalf("keys %s, %s: %d rows (%s); the model's inner join %d", k, jt, len(got), rep.Keys.Why, len(want))
			}
		}
	}
	_, out := runJoin(t, join.Options{Sides: join.Sides{Keys: kf["parquet-plain"], Input: nf["parquet-plain"]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}})
	if got := parseOutput(t, out); len(got) != 1 || !strings.HasPrefix(got[0], "1\x1f7\x1f") {
		t.Fatalf("uint64 against int64: %q", got)
	}
	_, out = runJoin(t, join.Options{Sides: join.Sides{Keys: kf["parquet-plain"], Input: nf["parquet-plain"]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K", KeyType: "string"}})
	if got := parseOutput(t, out); len(got) != 1 || !strings.HasPrefix(got[0], "1\x1f7\x1f") {
		t.Fatalf("uint64 against int64 as strings: %q", got)
	}
}

// TestTableEmptyComponent: in a composite key of Parquet sides an empty
// string is a value (it matches an empty string, as SQL's does), a NULL
// never matches; the model says which rows.
func TestTableEmptyComponent(t *testing.T) {
	keys := tableData{names: []string{"A", "B", "V"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, arrow.BinaryTypes.String}}
	keys.rows = [][]*string{{sp("1"), sp("a"), sp("x1")}, {sp("1"), sp("a"), sp("x1b")}, {sp("2"), nil, sp("x2")}, {nil, sp("b"), sp("x3")}, {sp("3"), sp(""), sp("x4")}}
	input := tableData{names: []string{"ID", "X", "Y"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}}
	input.rows = [][]*string{{sp("10"), sp("1"), sp("a")}, {sp("11"), sp("2"), nil}, {sp("12"), nil, sp("b")}, {sp("13"), sp("3"), sp("")}, {sp("14"), sp("4"), sp("D")}}
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	for _, jt := range []join.JoinType{join.JoinInner, join.JoinAnti} {
		want := typedJoin(keys, input, []int{0, 1}, []int{1, 2}, jt)
		_, out := runJoin(t, join.Options{Sides: join.Sides{Keys: kf["parquet-plain"], Input: inf["arrow-file"]}, Keying: join.Keying{KeyCol: "A,B", JoinCol: "X,Y"}, JoinType: jt})
		if got := parseOutput(t, out); !slices.Equal(got, want) {
			t.Fatalf("%s: %q, want %q", jt, got, want)
		}
	}
}

// TestRightJoinParquetTypes: a right join's unmatched key rows write their
// key into the large side's join column, so a Parquet output gives that
// column a type that holds both sides' keys: int64 keys into an int32
// column widen it (they failed the output at its end).
func TestRightJoinParquetTypes(t *testing.T) {
	keys := tableData{names: []string{"K", "V"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}}
	keys.rows = [][]*string{{sp("1"), sp("a")}, {sp("9000000000"), sp("b")}}
	input := tableData{names: []string{"ID", "K"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32}}
	input.rows = [][]*string{{sp("1"), sp("1")}, {sp("2"), sp("5")}}
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	for _, jt := range []join.JoinType{join.JoinRight, join.JoinFull} {
		var pq bytes.Buffer
		if _, err := Run(t.Context(), join.Options{Sides: join.Sides{Keys: kf["parquet-plain"], Input: inf["parquet-plain"]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt}, NewParquet(&pq, t.TempDir())); err != nil {
			t.Fatalf("%s: %v", jt, err)
		}
		tbl := testutil.ReadParquet(t, pq.Bytes())
		if got := tbl.Schema().Field(1).Type.String(); got != "int64" {
			t.Errorf("%s: the join column is %s, want int64", jt, got)
		}
	}
}

// TestTableStringKeyRange: a Parquet large side whose string join column
// is sorted across its row groups (k0000 to k0599, 100 a group, NULLs in
// two) skips, by the groups' statistics, the groups whose least and
// greatest values have none of the keys between them (compared as bytes,
// as Parquet orders text; keyPoints), beyond the key side's least and
// greatest keys or between two keys, a bound equal to a key included;
// the output of every join type is the model's and the CSV input's, with
// the skipped rows counted as read; anti, left and full joins skip
// nothing. With a key in every group, nothing is skipped.
func TestTableStringKeyRange(t *testing.T) {
	input := tableData{names: []string{"K", "V"}, types: []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64}}
	for i := range 600 {
		k := sp(fmt.Sprintf("k%04d", i))
		if i == 7 || i == 431 {
			k = nil
		}
		input.rows = append(input.rows, []*string{k, sp(fmt.Sprint(i))})
	}
	dir := t.TempDir()
	pq, csvIn := input.twins(t, dir, 100, true)
	off := testutil.RaceSeed(t)
	for ci, c := range []struct {
		keys  []string
		skips int64 // row groups skipped (inner, semi, right)
		nulls int64
	}{
		{[]string{"k0250", "k0199", "k0200", "k0250x"}, 4, 2},                  // groups 1 and 2 kept (the least key, k0199, is group 1's greatest); the NULLs of groups 0 and 4 skipped
		{[]string{"k0100", "zz"}, 5, 2},                                        // all but group 1: group 0 below the keys, 2 to 5 between them (keyPoints)
		{[]string{"a", "k0300", "z"}, 5, 2},                                    // all but group 3: the range alone skipped none
		{[]string{"k0000", "k0150", "k0250", "k0350", "k0450", "k0599"}, 0, 0}, // a key in every group
	} {
		keys := tableData{names: []string{"K", "W"}, types: []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64}}
		for i, k := range c.keys {
			keys.rows = append(keys.rows, []*string{sp(k), sp(fmt.Sprint(i))})
		}
		kf := filepath.Join(dir, fmt.Sprintf("keys%d.csv", ci))
		keys.csv(t, kf)
		for _, jt := range raceJoinTypes(off+uint64(ci), 1) {
			name := fmt.Sprintf("keys %v, %s join", c.keys, jt)
			opt := join.Options{Sides: join.Sides{Keys: kf, Input: pq}, Keying: join.Keying{KeyCol: "K", JoinCol: "K", KeyType: key.String}, JoinType: jt,
				Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 3, Reducers: 2, TempDir: t.TempDir()}}
			rep, out := runJoin(t, opt)
			if want := typedJoin(keys, input, []int{0}, []int{0}, jt); !slices.Equal(parseOutput(t, out), want) {
				t.Fatalf("%s: %s", name, testutil.FirstDiff(parseOutput(t, out), want))
			}
			opt.Input = csvIn
			crep, cout := runJoin(t, opt)
			if !bytes.Equal(out, cout) {
				t.Fatalf("%s: the output differs from the CSV input's", name)
			}
			wantSkips, wantNulls := c.skips, c.nulls
			if jt.KeepsUnmatchedLarge() {
				wantSkips, wantNulls = 0, 0
			}
			if tr := rep.InputTable; tr.ChunksSkipped != wantSkips || tr.RowsSkipped != 100*wantSkips || tr.SkippedNulls != wantNulls {
				t.Errorf("%s: skipped %d row groups, %d rows, %d NULLs; want %d, %d, %d", name, tr.ChunksSkipped, tr.RowsSkipped, tr.SkippedNulls, wantSkips, 100*wantSkips, wantNulls)
			}
			if rep.InputRecords != crep.InputRecords || rep.Keys.InputNull != crep.Keys.InputNull || rep.JoinRows != crep.JoinRows {
				t.Errorf("%s: input %d, NULL %d, join rows %d; the CSV input's %d, %d, %d", name, rep.InputRecords, rep.Keys.InputNull, rep.JoinRows, crep.InputRecords, crep.Keys.InputNull, crep.JoinRows)
			}
		}
	}
}

// TestTableKeyBuckets: a key side too large for the points under its
// budget (20,000 integer keys in two clusters, 128 KiB of points at a
// 2 MiB budget) is summarized in buckets (keyBuckets), which still skip
// the row groups between the clusters: of a Parquet side sorted by its
// key in 100 groups of 1,000, the 80 that hold no key (the keys' range
// alone skips 20); the output is the CSV input's, which has no statistics.
func TestTableKeyBuckets(t *testing.T) {
	input := tableData{names: []string{"K", "V"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64}}
	for i := range 100_000 {
		input.rows = append(input.rows, []*string{sp(fmt.Sprint(i)), sp(fmt.Sprint(7 * i))})
	}
	dir := t.TempDir()
	pq, csvIn := input.twins(t, dir, 1000, false)
	keys := tableData{names: []string{"K"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64}}
	for _, base := range []int{10_000, 80_000} {
		for i := range 10_000 {
			keys.rows = append(keys.rows, []*string{sp(fmt.Sprint(base + i))})
		}
	}
	kf := filepath.Join(dir, "keys.csv")
	keys.csv(t, kf)
	opt := join.Options{Sides: join.Sides{Keys: kf, Input: pq}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"},
		Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 2, Reducers: 2, MemBudget: 2 << 20, TempDir: t.TempDir()}}
	rep, out := runJoin(t, opt)
	if tr := rep.InputTable; tr.ChunksSkipped != 80 || tr.RowsSkipped != 80_000 {
		t.Errorf("skipped %d row groups, %d rows; want 80, 80000", tr.ChunksSkipped, tr.RowsSkipped)
	}
	if rep.JoinRows != 20_000 {
		t.Errorf("%d join rows, want 20000", rep.JoinRows)
	}
	opt.Input = csvIn
	if _, cout := runJoin(t, opt); !bytes.Equal(out, cout) {
		t.Fatal("the output differs from the CSV input's")
	}
}

// TestTableEmptyStringKey: a Parquet key side whose first row group holds
// only "" keys (a value in Parquet, not NULL), read by two mappers, joins
// the large side's "" rows whichever mapper finishes first: a review
// found the "" rows' row groups skipped (30,000 of 30,190 join rows lost)
// in half the runs, where the worker that read only "" keys finished
// first. Ten runs, each checked against the count of a scan.
func TestTableEmptyStringKey(t *testing.T) {
	dir := t.TempDir()
	str := []arrow.DataType{arrow.BinaryTypes.String}
	var keys, large [][]*string
	for range 300 {
		keys = append(keys, []*string{sp("")})
	}
	for i := range 300 {
		keys = append(keys, []*string{sp(fmt.Sprintf("k%05d", i))})
	}
	for range 10 {
		large = append(large, []*string{sp("")})
	}
	for i := range 500 {
		large = append(large, []*string{sp(fmt.Sprintf("k%05d", i))})
	}
	krec := columnartest.Record(t, []string{"S"}, str, keys)
	defer krec.Release()
	lrec := columnartest.Record(t, []string{"S"}, str, large)
	defer lrec.Release()
	kf := columnartest.Write(t, dir, "keys", krec, 300, false).Parquet
	lf := columnartest.Write(t, dir, "large", lrec, 10, false).Parquet
	want := int64(10*300 + 300) // each "" row meets the 300 "" keys; k00000-k00299 one key each
	for run := range 10 {
		opt := join.Options{Sides: join.Sides{Keys: kf, Input: lf}, Keying: join.Keying{KeyCol: "S", JoinCol: "S"},
			Resources: join.Resources{Mappers: 2, Reducers: 2, TempDir: t.TempDir()}}
		rep, _ := runJoin(t, opt)
		if rep.JoinRows != want {
			t.Fatalf("run %d: %d join rows, want %d (%d row groups skipped by their statistics)", run, rep.JoinRows, want, rep.InputTable.ChunksSkipped)
		}
	}
}

// TestTableLongTextStats: a Parquet large side whose row group holds a
// value of more than 4096 bytes (its max left out of the statistics by
// arrow-go, which then read as "") is not skipped: the join on "b" finds
// its row, and so does a predicate on the column (both lost before: a
// review found them). Against the same rows as CSV, which have no
// statistics.
func TestTableLongTextStats(t *testing.T) {
	long := strings.Repeat("z", 5000)
	input := tableData{names: []string{"ID", "S"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}}
	for i, s := range []string{"", "b", long, "apple", "banana", "cherry"} {
		input.rows = append(input.rows, []*string{sp(fmt.Sprint(i + 1)), sp(s)})
	}
	dir := t.TempDir()
	pq, csvIn := input.twins(t, dir, 3, false)
	keys := tableData{names: []string{"K"}, types: []arrow.DataType{arrow.BinaryTypes.String}, rows: [][]*string{{sp("b")}, {sp("banana")}}}
	kf := filepath.Join(dir, "keys.csv")
	keys.csv(t, kf)
	for _, where := range []string{"", `S == "b" || S == "banana"`} {
		opt := join.Options{Sides: join.Sides{Keys: kf, Input: pq}, Keying: join.Keying{KeyCol: "K", JoinCol: "S", KeyType: key.String},
			Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 2, Reducers: 2, TempDir: t.TempDir()}}
		opt.Where = where
		rep, out := runJoin(t, opt)
		if rep.JoinRows != 2 {
			t.Errorf("where %q: %d join rows, want 2 (b and banana); %d row groups skipped", where, rep.JoinRows, rep.InputTable.ChunksSkipped)
		}
		opt.Input = csvIn
		if _, cout := runJoin(t, opt); !bytes.Equal(out, cout) {
			t.Errorf("where %q: the output differs from the CSV input's", where)
		}
	}
}

// TestTypedOutputsKeepEmptyString: a Parquet side's "" (a value, unlike
// NULL) is written as "" by the Parquet, JSON lines and Arrow outputs, and
// its NULL as NULL: the typed outputs wrote both as NULL (a review found
// it), so a "" key stopped matching once the output was read again. Each
// output is read back as the next join's input and written as JSON lines.
func TestTypedOutputsKeepEmptyString(t *testing.T) {
	dir := t.TempDir()
	input := tableData{names: []string{"ID", "S"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String},
		rows: [][]*string{{sp("1"), sp("")}, {sp("2"), sp("b")}, {sp("3"), nil}}}
	rec := columnartest.Record(t, input.names, input.types, input.rows)
	defer rec.Release()
	pq := columnartest.Write(t, dir, "in", rec, 10, false).Parquet
	keys := tableData{names: []string{"K"}, types: []arrow.DataType{arrow.PrimitiveTypes.Int64}, rows: [][]*string{{sp("1")}, {sp("2")}, {sp("3")}}}
	kf := filepath.Join(dir, "keys.csv")
	keys.csv(t, kf)
	// run joins the keys to the input in into sink, or fails the test.
	run := func(in string, sink Sink, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		opt := join.Options{Sides: join.Sides{Keys: kf, Input: in}, Keying: join.Keying{KeyCol: "K", JoinCol: "ID"}, Output: join.Output{Sort: true},
			Resources: join.Resources{TempDir: t.TempDir()}}
		if _, err := Run(t.Context(), opt, sink); err != nil {
			t.Fatal(err)
		}
	}
	jsonl := func(in string) string {
		var buf bytes.Buffer
		sink, err := NewJSONL(&buf, t.TempDir())
		run(in, sink, err)
		return buf.String()
	}
	const want = "{\"ID\":1,\"S\":\"\"}\n{\"ID\":2,\"S\":\"b\"}\n{\"ID\":3,\"S\":null}\n"
	if got := jsonl(pq); got != want {
		t.Fatalf("JSON lines:\n%s\nwant\n%s", got, want)
	}
	for _, c := range []struct {
		name string
		sink func(io.Writer) (Sink, error)
	}{
		{"out.parquet", func(w io.Writer) (Sink, error) { return NewParquet(w, t.TempDir()), nil }},
		{"out.arrow", func(w io.Writer) (Sink, error) { return NewArrow(w, t.TempDir(), false) }},
	} {
		path := filepath.Join(dir, c.name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		sink, err := c.sink(f)
		run(pq, sink, err)
		f.Close()
		if got := jsonl(path); got != want {
			t.Errorf("%s read back:\n%s\nwant\n%s", c.name, got, want)
		}
	}
	// The Parquet output's statistics hold "" too: its row group's minimum
	// of S was "b" (arrow-go takes a nil value for no value, and an empty
	// text kept first in a row group was nil), so a join on S = "" skipped
	// the group by its statistics and lost the row.
	srec := columnartest.Record(t, []string{"S"}, []arrow.DataType{arrow.BinaryTypes.String}, [][]*string{{sp("")}})
	defer srec.Release()
	skeys := columnartest.Write(t, dir, "skeys", srec, 10, false).Parquet
	for _, in := range []string{pq, filepath.Join(dir, "out.parquet")} {
		var buf bytes.Buffer
		sink, err := NewJSONL(&buf, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		opt := join.Options{Sides: join.Sides{Keys: skeys, Input: in}, Keying: join.Keying{KeyCol: "S", JoinCol: "S"},
			Resources: join.Resources{TempDir: t.TempDir()}}
		if _, err := Run(t.Context(), opt, sink); err != nil {
			t.Fatal(err)
		}
		if got, want := buf.String(), "{\"ID\":1,\"S\":\"\"}\n"; got != want {
			t.Errorf("%s joined on S = \"\": %q, want %q", filepath.Base(in), got, want)
		}
	}
}

// TestEmptyStringEveryPath: a table side's empty text reaches a typed
// output as "" and its NULL as null on every path a row takes, not only
// the default one (a review found these wrote "" as NULL: the rows went
// through CSV text): Options.Columns picking either side's columns in any
// order, a composite key (its key side's other columns), a right join's
// key row whose key is NULL (written in the build), and the key side's
// empty texts beside the large side's.
func TestEmptyStringEveryPath(t *testing.T) {
	dir := t.TempDir()
	str := arrow.BinaryTypes.String
	i64 := arrow.PrimitiveTypes.Int64
	in := tableData{names: []string{"ID", "S"}, types: []arrow.DataType{i64, str},
		rows: [][]*string{{sp("1"), sp("")}, {sp("2"), sp("b")}, {sp("3"), nil}}}
	keys := tableData{names: []string{"K", "T", "U"}, types: []arrow.DataType{i64, str, str},
		rows: [][]*string{{sp("1"), sp(""), sp("u1")}, {sp("2"), sp("b"), sp("")}, {nil, sp(""), sp("n")}, {sp("3"), nil, nil}}}
	write := func(d tableData, name string) string {
		rec := columnartest.Record(t, d.names, d.types, d.rows)
		defer rec.Release()
		return columnartest.Write(t, dir, name, rec, 10, false).Parquet
	}
	inPq, keysPq := write(in, "in"), write(keys, "keys")
	// A large side without "": the key side's "" keys meet nothing.
	in2 := tableData{names: in.names, types: in.types, rows: in.rows[1:2]}
	in2Pq := write(in2, "in2")
	// A CSV large side (its empty field a NULL): the key side's "" stays
	// "" in the typed output, its rows' halves typed cells as a table
	// side's are (a review found them written through CSV text, "" as
	// NULL); a TSV's and a quoted field's too.
	writeText := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inCSV := writeText("in.csv", "ID,S\n1,\"x,y\"\n2,b\n3,\n4,z\n")
	inTSV := writeText("in.tsv", "ID\tS\n1\tx\n2\tb\n")
	in2CSV := writeText("in2.csv", "ID,S\n2,b\n")
	in3CSV := writeText("in3.csv", "ID,S\n2,7\n") // S would be INT64 by its values alone
	keys3Pq := write(tableData{names: keys.names, types: keys.types,
		rows: [][]*string{{sp("1"), sp(""), sp("u1")}, {sp("2"), sp("7"), sp("")}, {sp("3"), nil, sp("n")}}}, "keys3")
	for _, c := range []struct {
		name    string
		keyCol  string
		joinCol string
		jt      join.JoinType
		cols    []string
		want    string
	}{
		{"inner", "K", "ID", join.JoinInner, nil,
			`{"ID":1,"S":"","T":"","U":"u1"}` + "\n" + `{"ID":2,"S":"b","T":"b","U":""}` + "\n" + `{"ID":3,"S":null,"T":null,"U":null}` + "\n"},
		{"right, a NULL key", "K", "ID", join.JoinRight, nil,
			`{"ID":null,"S":null,"T":"","U":"n"}` + "\n" + `{"ID":1,"S":"","T":"","U":"u1"}` + "\n" + `{"ID":2,"S":"b","T":"b","U":""}` + "\n" + `{"ID":3,"S":null,"T":null,"U":null}` + "\n"},
		{"columns", "K", "ID", join.JoinInner, []string{"U", "S", "T"},
			`{"U":"u1","S":"","T":""}` + "\n" + `{"U":"","S":"b","T":"b"}` + "\n" + `{"U":null,"S":null,"T":null}` + "\n"},
		{"composite", "K,T", "ID,S", join.JoinInner, nil,
			`{"ID":1,"S":"","U":"u1"}` + "\n" + `{"ID":2,"S":"b","U":""}` + "\n"},
		{"right, empty keys unmatched", "T", "S", join.JoinRight, []string{"S", "U"},
			`{"S":"","U":"u1"}` + "\n" + `{"S":"","U":"n"}` + "\n" + `{"S":null,"U":null}` + "\n" + `{"S":"b","U":""}` + "\n"},
		{"full, composite, NULL keys", "K,T", "ID,S", join.JoinFull, []string{"ID", "S", "U"},
			`{"ID":null,"S":"","U":"n"}` + "\n" + `{"ID":3,"S":null,"U":null}` + "\n" + `{"ID":3,"S":null,"U":null}` + "\n" + `{"ID":1,"S":"","U":"u1"}` + "\n" + `{"ID":2,"S":"b","U":""}` + "\n"},
		{"composite, columns", "K,T", "ID,S", join.JoinLeft, []string{"S", "U"},
			`{"S":null,"U":null}` + "\n" + `{"S":"","U":"u1"}` + "\n" + `{"S":"b","U":""}` + "\n"}, // the NULL key's row first
		{"csv: inner", "K", "ID", join.JoinInner, nil,
			`{"ID":1,"S":"x,y","T":"","U":"u1"}` + "\n" + `{"ID":2,"S":"b","T":"b","U":""}` + "\n" + `{"ID":3,"S":null,"T":null,"U":null}` + "\n"},
		{"csv: left, columns", "K", "ID", join.JoinLeft, []string{"U", "S"},
			`{"U":"u1","S":"x,y"}` + "\n" + `{"U":"","S":"b"}` + "\n" + `{"U":null,"S":null}` + "\n" + `{"U":null,"S":"z"}` + "\n"},
		{"csv: right, empty keys unmatched", "T", "S", join.JoinRight, []string{"S", "U"},
			`{"S":"","U":"u1"}` + "\n" + `{"S":"","U":"n"}` + "\n" + `{"S":null,"U":null}` + "\n" + `{"S":"b","U":""}` + "\n"},
		{"csv: right, an integer column's unmatched empty keys", "T", "S", join.JoinRight, []string{"S", "U"},
			`{"S":"","U":"u1"}` + "\n" + `{"S":null,"U":"n"}` + "\n" + `{"S":"7","U":""}` + "\n"},
		{"tsv: full", "K", "ID", join.JoinFull, []string{"ID", "S", "T", "U"},
			`{"ID":null,"S":null,"T":"","U":"n"}` + "\n" + `{"ID":1,"S":"x","T":"","U":"u1"}` + "\n" + `{"ID":2,"S":"b","T":"b","U":""}` + "\n" + `{"ID":3,"S":null,"T":null,"U":null}` + "\n"},
	} {
		var buf bytes.Buffer
		sink, err := NewJSONL(&buf, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		input := inPq
		switch {
		case strings.HasPrefix(c.name, "csv") && strings.Contains(c.name, "integer column"):
			input = in3CSV
		case strings.HasPrefix(c.name, "csv") && strings.Contains(c.name, "unmatched"):
			input = in2CSV
		case strings.HasPrefix(c.name, "csv"):
			input = inCSV
		case strings.HasPrefix(c.name, "tsv"):
			input = inTSV
		case strings.Contains(c.name, "unmatched"):
			input = in2Pq
		}
		keysIn := keysPq
		if strings.Contains(c.name, "integer column") {
			keysIn = keys3Pq
		}
		opt := join.Options{Sides: join.Sides{Keys: keysIn, Input: input}, Keying: join.Keying{KeyCol: c.keyCol, JoinCol: c.joinCol}, JoinType: c.jt,
			Output: join.Output{Sort: true, Columns: c.cols}, Resources: join.Resources{TempDir: t.TempDir()}}
		if _, err := Run(t.Context(), opt, sink); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := buf.String(); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

// TestJSONLWholeFloats: a float column's whole numbers are written as
// JSON floats (1.0, -0.0), so that a JSON reader types the column as a
// float and keeps -0's sign (a review found DuckDB's read_json typing
// such a column BIGINT and reading -0 as 0); other floats as they print.
func TestJSONLWholeFloats(t *testing.T) {
	dir := t.TempDir()
	f64 := arrow.PrimitiveTypes.Float64
	i64 := arrow.PrimitiveTypes.Int64
	in := tableData{names: []string{"ID", "D"}, types: []arrow.DataType{i64, f64},
		rows: [][]*string{{sp("1"), sp("1")}, {sp("2"), sp("-0")}, {sp("3"), sp("2.5")}, {sp("4"), sp("1e+21")}, {sp("5"), nil}}}
	keys := tableData{names: []string{"K"}, types: []arrow.DataType{i64}, rows: [][]*string{{sp("1")}, {sp("2")}, {sp("3")}, {sp("4")}, {sp("5")}}}
	write := func(d tableData, name string) string {
		rec := columnartest.Record(t, d.names, d.types, d.rows)
		defer rec.Release()
		return columnartest.Write(t, dir, name, rec, 10, false).Parquet
	}
	var buf bytes.Buffer
	sink, err := NewJSONL(&buf, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opt := join.Options{Sides: join.Sides{Keys: write(keys, "keys"), Input: write(in, "in")}, Keying: join.Keying{KeyCol: "K", JoinCol: "ID"},
		Output: join.Output{Sort: true}, Resources: join.Resources{TempDir: t.TempDir()}}
	if _, err := Run(t.Context(), opt, sink); err != nil {
		t.Fatal(err)
	}
	want := `{"ID":1,"D":1.0}` + "\n" + `{"ID":2,"D":-0.0}` + "\n" + `{"ID":3,"D":2.5}` + "\n" + `{"ID":4,"D":1e+21}` + "\n" + `{"ID":5,"D":null}` + "\n"
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
