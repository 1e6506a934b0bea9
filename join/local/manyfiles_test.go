package local

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestManyFiles (issue 47): a side given as a folder of part files or a
// glob of them, CSV, Parquet (row groups of 7, dictionary pages) and Arrow
// files, the key side too, joins as the same rows in one file: every join
// type's sorted output is byte for byte the one file's (a row's place in
// the side orders --sort: file after file), a predicate's row groups are
// skipped by their statistics across the files, and the folder's hidden
// and _-prefixed files are left out.
func TestManyFiles(t *testing.T) {
	keys, input := genTables(testutil.Seed(t))
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	// The input in 3 parts (the last empty) and the keys in 2, each part
	// written in every format into a folder of its own.
	parts := func(d tableData, cuts ...int) []tableData {
		var out []tableData
		lo := 0
		for _, hi := range append(cuts, len(d.rows)) {
			out = append(out, tableData{names: d.names, types: d.types, rows: d.rows[lo:hi]})
			lo = hi
		}
		return out
	}
	for side, ps := range map[string][]tableData{"input": parts(input, 200, 600), "keys": parts(keys, 70)} {
		for i, p := range ps {
			files := sideFiles(t, dir, side+string(rune('0'+i)), p)
			for _, format := range []string{"csv", "parquet-rg7-dict", "arrow-file"} {
				folder := filepath.Join(dir, side+"-"+format)
				if err := os.MkdirAll(folder, 0o755); err != nil {
					t.Fatal(err)
				}
				ext := map[string]string{"csv": ".csv", "parquet-rg7-dict": ".parquet", "arrow-file": ".arrow"}[format]
				if err := os.Rename(files[format], filepath.Join(folder, "part-"+string(rune('0'+i))+ext)); err != nil {
					t.Fatal(err)
				}
				testutil.WriteFile(t, filepath.Join(folder, "_SUCCESS"), nil, 0o644)
				testutil.WriteFile(t, filepath.Join(folder, ".part-0"+ext+".crc"), []byte("not data"), 0o644)
			}
		}
	}
	for _, jt := range raceJoinTypes(testutil.RaceSeed(t), 3) {
		for _, format := range []string{"csv", "parquet-rg7-dict", "arrow-file"} {
			one := join.Options{Sides: join.Sides{Keys: kf[format], Input: inf[format]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt, Output: join.Output{Sort: true}}
			oneRep, want := runJoin(t, one)
			ext := map[string]string{"csv": "*.csv", "parquet-rg7-dict": "*.parquet", "arrow-file": "*.arrow"}[format]
			for _, sides := range []join.Sides{
				{Keys: filepath.Join(dir, "keys-"+format), Input: filepath.Join(dir, "input-"+format)},
				{Keys: kf[format], Input: filepath.Join(dir, "input-"+format, "part-"+ext)},
			} {
				many := one
				many.Sides = sides
				rep, got := runJoin(t, many)
				if !slices.Equal(got, want) {
					t.Fatalf("%s, %s, %+v: the output differs from one file's: %s", jt, format, sides, testutil.FirstDiff(parseOutput(t, got), parseOutput(t, want)))
				}
				if rep.InputRecords != oneRep.InputRecords || rep.KeysRecords != oneRep.KeysRecords || rep.JoinRows != oneRep.JoinRows {
					t.Fatalf("%s, %s: input %d, keys %d, join %d rows; one file's %d, %d, %d", jt, format, rep.InputRecords, rep.KeysRecords, rep.JoinRows, oneRep.InputRecords, oneRep.KeysRecords, oneRep.JoinRows)
				}
			}
		}
	}
	// A row a predicate fails on is named by its part file and its row
	// there (S is text: ordering it against a number fails).
	for _, format := range []string{"parquet-rg7-dict", "arrow-file"} {
		_, _, err := runJoinErr(join.Options{Sides: join.Sides{Keys: kf["csv"], Input: filepath.Join(dir, "input-"+format), Where: "S > 3"}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}})
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "input-"+format, "part-")) || !strings.Contains(err.Error(), ": row ") {
			t.Errorf("%s: a failing predicate: %v, want its part file and row", format, err)
		}
	}
	// A predicate that reads no column keeps (or drops) every row.
	_, all := runJoin(t, join.Options{Sides: join.Sides{Keys: kf["csv"], Input: filepath.Join(dir, "input-parquet-rg7-dict")}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Output: join.Output{Sort: true}})
	for _, c := range []struct {
		where string
		rows  int
	}{{"true", len(parseOutput(t, all))}, {"1 == 1", len(parseOutput(t, all))}, {"nil == nil", len(parseOutput(t, all))}, {"false", 0}} {
		rep, out := runJoin(t, join.Options{Sides: join.Sides{Keys: kf["csv"], Input: filepath.Join(dir, "input-parquet-rg7-dict"), Where: c.where}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Output: join.Output{Sort: true}})
		if got := parseOutput(t, out); len(got) != c.rows || c.rows > 0 && !slices.Equal(out, all) || rep.Where.InputDropped+rep.InputRecords != int64(len(input.rows)) {
			t.Errorf("--where %s: %d rows, want %d; %+v, %d input records", c.where, len(got), c.rows, rep.Where, rep.InputRecords)
		}
	}
	// A predicate on the Parquet parts: the row groups of every file that
	// its statistics rule out are skipped (ID is ascending: 0 to 599).
	rep, out := runJoin(t, join.Options{Sides: join.Sides{Keys: kf["csv"], Input: filepath.Join(dir, "input-parquet-rg7-dict"), Where: "ID >= 300 and ID < 400"}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Output: join.Output{Sort: true}})
	_, want := runJoin(t, join.Options{Sides: join.Sides{Keys: kf["csv"], Input: inf["parquet-rg7-dict"], Where: "ID >= 300 and ID < 400"}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Output: join.Output{Sort: true}})
	if !slices.Equal(out, want) || rep.Where.InputChunksSkipped < 60 {
		t.Fatalf("a predicate on the parts: %d row groups skipped; the output the one file's: %v", rep.Where.InputChunksSkipped, slices.Equal(out, want))
	}
}

// TestManyFilesRefused: files that do not agree on their columns, a
// folder of two formats, of a folder, of nothing, and a glob of nothing
// are refused, naming the file or the path.
func TestManyFilesRefused(t *testing.T) {
	keys, input := genTables(testutil.Seed(t))
	dir := t.TempDir()
	kf := sideFiles(t, dir, "keys", keys)
	other := tableData{names: []string{"ID", "K", "G"}, types: input.types[:3], rows: [][]*string{{sp("1"), sp("2"), sp("3")}}}
	mk := func(name string, files map[string]tableData) string {
		folder := filepath.Join(dir, name)
		if err := os.MkdirAll(folder, 0o755); err != nil {
			t.Fatal(err)
		}
		for fname, d := range files {
			fs := sideFiles(t, dir, "tmp", d)
			src := fs["csv"]
			if filepath.Ext(fname) == ".parquet" {
				src = fs["parquet-plain"]
			}
			if err := os.Rename(src, filepath.Join(folder, fname)); err != nil {
				t.Fatal(err)
			}
		}
		return folder
	}
	for _, c := range []struct {
		input string
		is    error
		want  string
	}{
		{mk("csvdiffer", map[string]tableData{"a.csv": input, "b.csv": other}), csvscan.ErrHeaderDiffers, `b.csv: has no column "S"`},
		{mk("pqdiffer", map[string]tableData{"a.parquet": input, "b.parquet": other}), columnar.ErrColumnsDiffer, `b.parquet: has no column "S"`},
		{mk("mixed", map[string]tableData{"a.csv": input, "b.parquet": input}), join.ErrOptions, "holds files of two formats"},
		{mk("empty", nil), join.ErrOptions, "an empty folder"},
		{filepath.Join(dir, "none-*.csv"), join.ErrOptions, "no file matches it"},
		{dir, join.ErrOptions, "holds the folder"},
	} {
		_, _, err := runJoinErr(join.Options{Sides: join.Sides{Keys: kf["csv"], Input: c.input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}})
		if !errors.Is(err, c.is) || !contains(err, c.want) {
			t.Errorf("%s: %v, want %q", c.input, err, c.want)
		}
	}
}

func contains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

// TestManyFilesCompressed: a folder of CSV parts some of which are gzip
// compressed (as Spark writes part-00000.csv.gz) joins as the one file:
// byte for byte with --sort, every join type, the key side too.
func TestManyFilesCompressed(t *testing.T) {
	keys, input := genTables(testutil.Seed(t))
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	write := func(folder string, d tableData, cuts []int, gz map[int]bool) string {
		path := filepath.Join(dir, folder)
		if err := os.MkdirAll(path, 0o755); err != nil {
			t.Fatal(err)
		}
		lo := 0
		for i, hi := range append(cuts, len(d.rows)) {
			name := filepath.Join(path, fmt.Sprintf("part-%d.csv", i))
			(tableData{names: d.names, types: d.types, rows: d.rows[lo:hi]}).csv(t, name)
			if gz[i] {
				raw, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				zw := gzip.NewWriter(&b)
				zw.Write(raw)
				zw.Close()
				testutil.WriteFile(t, name+".gz", b.Bytes(), 0o644)
				os.Remove(name)
			}
			lo = hi
		}
		return path
	}
	inParts := write("in", input, []int{250, 251, 400}, map[int]bool{0: true, 2: true})
	keyParts := write("k", keys, []int{60}, map[int]bool{1: true})
	for _, jt := range raceJoinTypes(testutil.RaceSeed(t), 3) {
		one := join.Options{Sides: join.Sides{Keys: kf["csv"], Input: inf["csv"]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt, Output: join.Output{Sort: true}}
		oneRep, want := runJoin(t, one)
		many := one
		many.Sides = join.Sides{Keys: keyParts, Input: inParts}
		rep, got := runJoin(t, many)
		if !slices.Equal(got, want) || rep.InputRecords != oneRep.InputRecords || rep.KeysRecords != oneRep.KeysRecords {
			t.Fatalf("%s: the output of compressed parts differs from one file's (input %d of %d, keys %d of %d): %s", jt, rep.InputRecords, oneRep.InputRecords,
				rep.KeysRecords, oneRep.KeysRecords, testutil.FirstDiff(parseOutput(t, got), parseOutput(t, want)))
		}
	}
}

// TestManyFilesBadRow: a malformed row in a part file is named by that
// file and its line, as a failure and as a skipped bad row.
func TestManyFilesBadRow(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.csv")
	testutil.WriteFile(t, keys, []byte("K\n1\n2\n"), 0o644)
	parts := filepath.Join(dir, "parts")
	os.MkdirAll(parts, 0o755)
	testutil.WriteFile(t, filepath.Join(parts, "a.csv"), []byte("ID,K\n1,1\n2,2\n"), 0o644)
	testutil.WriteFile(t, filepath.Join(parts, "b.csv"), []byte("ID,K\n3,1\n4,2,9\n5,2\n"), 0o644)
	opt := join.Options{Sides: join.Sides{Keys: keys, Input: parts}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}}
	want := filepath.Join(parts, "b.csv") + ":3:"
	if _, _, err := runJoinErr(opt); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a bad row: %v, want %q", err, want)
	}
	opt.SkipBadRows = true
	rep, _, err := runJoinErr(opt)
	if err != nil || rep.BadRows != 1 || len(rep.BadRowExamples) != 1 || !strings.Contains(rep.BadRowExamples[0], want) || rep.JoinRows != 4 {
		t.Errorf("skipped: %v, %d bad rows %q, %d join rows", err, rep.BadRows, rep.BadRowExamples, rep.JoinRows)
	}
}

// TestManyFilesEmptyParts: an empty part file (0 bytes, or blank lines
// only: a part no row went to) of a CSV or JSON lines folder holds no
// row, as DuckDB reads one in a glob: the join is the one file's of the
// other parts' rows, the empty one first, between or last; a folder of
// empty files only is refused as one empty file is (no header, no
// column). A review found them refused whole ("empty file: no header").
func TestManyFilesEmptyParts(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.csv")
	testutil.WriteFile(t, keys, []byte("K,N\n1,one\n3,three\n4,four\n"), 0o644)
	for _, c := range []struct {
		ext, a, b, one string
	}{
		{".csv", "K,V\n1,a\n2,b\n", "K,V\n3,c\n", "K,V\n1,a\n2,b\n3,c\n"},
		{".jsonl", "{\"K\":1,\"V\":\"a\"}\n{\"K\":2,\"V\":\"b\"}\n", "{\"K\":3,\"V\":\"c\"}\n", "{\"K\":1,\"V\":\"a\"}\n{\"K\":2,\"V\":\"b\"}\n{\"K\":3,\"V\":\"c\"}\n"},
	} {
		one := filepath.Join(dir, "one"+c.ext)
		testutil.WriteFile(t, one, []byte(c.one), 0o644)
		folder := filepath.Join(dir, "parts"+c.ext)
		os.MkdirAll(folder, 0o755)
		for name, text := range map[string]string{"0" + c.ext: "", "1" + c.ext: c.a, "2" + c.ext: "\n\n", "3" + c.ext: c.b, "4" + c.ext: ""} {
			testutil.WriteFile(t, filepath.Join(folder, name), []byte(text), 0o644)
		}
		for _, jt := range []join.JoinType{join.JoinInner, join.JoinFull, join.JoinAnti} {
			opt := join.Options{Sides: join.Sides{Keys: keys, Input: one}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt, Output: join.Output{Sort: true}}
			_, want := runJoin(t, opt)
			opt.Input = folder
			if _, got := runJoin(t, opt); !slices.Equal(got, want) {
				t.Errorf("%s, %s: %q, want %q", c.ext, jt, got, want)
			}
			opt.Keys, opt.Input, opt.KeyCol, opt.JoinCol = folder, keys, "K", "K"
			optOne := opt
			optOne.Keys = one
			_, wantK := runJoin(t, optOne)
			if _, got := runJoin(t, opt); !slices.Equal(got, wantK) {
				t.Errorf("%s, %s, as the key side: %q, want %q", c.ext, jt, got, wantK)
			}
		}
		empty := filepath.Join(dir, "empty"+c.ext)
		os.MkdirAll(empty, 0o755)
		testutil.WriteFile(t, filepath.Join(empty, "a"+c.ext), nil, 0o644)
		testutil.WriteFile(t, filepath.Join(empty, "b"+c.ext), []byte("\n"), 0o644)
		if _, _, err := runJoinErr(join.Options{Sides: join.Sides{Keys: keys, Input: empty}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}}); err == nil || !strings.Contains(err.Error(), filepath.Join(empty, "a"+c.ext)) {
			t.Errorf("%s: a folder of empty files: %v", c.ext, err)
		}
	}
}
