package beamjoin

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/key"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/acbfjoin/acbfjoin/datasets/triples"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/local"
	"github.com/acbfjoin/acbfjoin/join/source"

	"github.com/acbfjoin/acbfjoin/datasets/nber/nbertest"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	// Beam's LOOPBACK runs leave an empty beamloopbackworker-N file in the
	// temporary folder on every pipeline (beamjoin's main gives them a
	// folder of its own): the tests' go in one, removed at the end.
	tmp, err := os.MkdirTemp("", "beamjoin-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", tmp)
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

// rowsOf returns the rows of a CSV file (or several, for sharded output),
// sorted, without the header when header is set.
func rowsOf(t *testing.T, data []byte, header bool) []string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if header {
		lines = lines[1:]
	}
	if len(lines) == 1 && lines[0] == "" {
		lines = nil
	}
	slices.Sort(lines)
	return lines
}

func compareEngines(t *testing.T, keys, input, keyCol, joinCol string, kinds []filters.Kind) {
	compareTyped(t, keys, input, keyCol, joinCol, key.Int, kinds)
}

func compareTyped(t *testing.T, keys, input, keyCol, joinCol string, kt key.Type, kinds []filters.Kind) {
	compareSides(t, join.Sides{Keys: keys, Input: input}, keyCol, joinCol, kt, kinds)
}

// compareSides is compareTyped with the sides as join.Sides (their formats
// given, say).
func compareSides(t *testing.T, sides join.Sides, keyCol, joinCol string, kt key.Type, kinds []filters.Kind) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			var localOut bytes.Buffer
			rep, err := local.Run(context.Background(), join.Options{Sides: sides, Keying: join.Keying{KeyCol: keyCol, JoinCol: joinCol, KeyType: kt}, FilterChoice: join.FilterChoice{Filter: kind}}, local.NewCSV(&localOut))
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "rows.txt")
			counters, _, _, err := Execute(context.Background(), Options{
				Sides:  sides,
				Keying: join.Keying{KeyCol: keyCol, JoinCol: joinCol, KeyType: kt},
				Filter: kind,
				Output: out,
			}, prism.Execute)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(out)
			if err != nil && !os.IsNotExist(err) { // textio.Write writes no file for no rows
				t.Fatal(err)
			}
			got, want := rowsOf(t, data, false), rowsOf(t, localOut.Bytes(), true)
			if !slices.Equal(got, want) {
				t.Fatalf("beam gives %d rows, the local engine %d", len(got), len(want))
			}
			if counters[CJoinRows] != rep.JoinRows || counters[CMapOutput] != rep.MapOutputRecords ||
				counters[CFalsePositive] != rep.FalsePositiveRecords || counters[CInput] != rep.InputRecords ||
				counters[CInputNull] != rep.Keys.InputNull || counters[CInputUnmatchable] != rep.Keys.InputUnmatchable {
				t.Fatalf("counters %v, local report: join %d, map out %d, FP %d, input %d (%d NULL, %d unmatchable)", counters,
					rep.JoinRows, rep.MapOutputRecords, rep.FalsePositiveRecords, rep.InputRecords, rep.Keys.InputNull, rep.Keys.InputUnmatchable)
			}
			t.Logf("%s: %d rows, counters %v", kind, len(got), counters)
		})
	}
}

func TestGenerated(t *testing.T) {
	gen := nbertest.Generate(t, 0.001, 600, 3)
	keys := gen.Keys
	var kinds []filters.Kind
	for _, sp := range filters.Kinds() {
		kinds = append(kinds, sp.Kind)
	}
	compareEngines(t, keys, gen.Cite, "PATENT", "CITED", kinds)
	// A gzip large side: one span, read whole.
	gzPath := gzipCopy(t, gen.Cite, "cite.txt.gz")
	if sp, err := source.Spans(gzPath, "", ','); err != nil || !slices.Equal(sp, []source.Span{source.WholeFile}) {
		t.Fatalf("a gzip file: spans %v, %v", sp, err)
	}
	compareEngines(t, keys, gzPath, "PATENT", "CITED", []filters.Kind{filters.ACBF})
	// A gzip key file too (read whole by keyFileFn).
	gzKeys := gzipCopy(t, keys, "keys.gz")
	compareEngines(t, gzKeys, gzPath, "PATENT", "CITED", []filters.Kind{filters.Exact})
}

// gzipCopy writes a gzip copy of the file src in a temporary folder under
// name and returns its path.
func gzipCopy(t *testing.T, src, name string) string {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGzipTextIO: Beam 2.77's textio reads a .gz file only up to its
// compressed size (its restriction is the file's size, its offsets the
// decompressed text's), losing the rest: one reason the pipeline reads its
// files with its own DoFns. If this test fails, textio was fixed.
func TestGzipTextIO(t *testing.T) {
	gen := nbertest.Generate(t, 0.01, 400, 1)
	raw, err := os.ReadFile(gen.Cite)
	if err != nil {
		t.Fatal(err)
	}
	path := gzipCopy(t, gen.Cite, "cite.txt.gz")
	p, s := beam.NewPipelineWithRoot()
	out := filepath.Join(t.TempDir(), "lines.txt")
	textio.Write(s, out, textio.Read(s, path))
	if _, err := prism.Execute(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines, want := bytes.Count(got, []byte("\n")), bytes.Count(raw, []byte("\n"))
	if lines >= want {
		t.Fatalf("textio read all %d lines of a gzip file: the bug is fixed", lines)
	}
	t.Logf("textio read %d of the %d lines of a gzip file", lines, want)
}

// TestInputsRefused: paths the workers could not open again as the
// launcher did are refused before anything reads them, naming the input: a
// FIFO (read once), another file system, a folder, a missing file. A
// relative path works (it is made absolute), and a key file with no rows
// gives no rows, not an error.
func TestInputsRefused(t *testing.T) {
	gen := nbertest.Generate(t, 0.001, 100, 6)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(keys, input string) error {
		_, _, _, err := Execute(context.Background(), Options{
			Sides:  join.Sides{Keys: keys, Input: input},
			Keying: join.Keying{KeyCol: "PATENT", JoinCol: "CITED", KeyType: key.Int},
			Filter: filters.ACBF,
			Output: filepath.Join(t.TempDir(), "rows.txt"),
		}, prism.Execute)
		return err
	}
	for _, tc := range []struct{ keys, input, want string }{
		{gen.Keys, fifo, "not a regular file"},
		{fifo, gen.Cite, "not a regular file"},
		{gen.Keys, "hdfs://bucket/cite.txt", "hdfs:// is no file system of beamjoin's: it reads s3://, gs://, memfs:// and local files"},
		{gen.Keys, dir, "not a regular file"},
		{gen.Keys, filepath.Join(dir, "none.txt"), "no such file"},
	} {
		done := make(chan error, 1)
		go func() { done <- run(tc.keys, tc.input) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("keys %s, input %s: %v, want an error saying %q", tc.keys, tc.input, err, tc.want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("keys %s, input %s: no answer within a minute", tc.keys, tc.input)
		}
	}
	// A relative path, read from another working directory than the
	// launcher's would be wrong: it is made absolute.
	wd, _ := os.Getwd()
	rel, err := filepath.Rel(wd, gen.Cite)
	if err != nil {
		t.Fatal(err)
	}
	compareEngines(t, gen.Keys, rel, "PATENT", "CITED", []filters.Kind{filters.Bloom})
	// No key rows: an empty join.
	empty := filepath.Join(dir, "keys.csv")
	if err := os.WriteFile(empty, []byte("PATENT,GYEAR\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	compareEngines(t, empty, gen.Cite, "PATENT", "CITED", []filters.Kind{filters.Exact})
}

func TestRealSample(t *testing.T) {
	mini := testutil.NBERMini(t)
	cite, pat := filepath.Join(mini, "cite75_99.mini.txt"), filepath.Join(mini, "apat63_99.mini.txt")
	compareEngines(t, pat, cite, "PATENT", "CITED", []filters.Kind{filters.None, filters.Exact, filters.Bloom, filters.CBF, filters.ACBF})
}

// TestComposite: a three-column key with duplicates on both sides (the
// seed 001 triples over five integers), and the real sample's citations
// joined with a (CITING, CITED) pair file of every fifth citation.
func TestComposite(t *testing.T) {
	dir := t.TempDir()
	keys, err := triples.Generate(context.Background(), filepath.Join(dir, "k"), triples.Options{Rows: 200, Seed: 1, Domain: 5})
	if err != nil {
		t.Fatal(err)
	}
	input, err := triples.Generate(context.Background(), filepath.Join(dir, "i"), triples.Options{Rows: 2000, Seed: 2, Domain: 5})
	if err != nil {
		t.Fatal(err)
	}
	compareTyped(t, keys, input, "A,B,C", "A,B,C", "int,string,int", []filters.Kind{filters.Exact, filters.Bloom, filters.ACBF})

	cite := filepath.Join(testutil.NBERMini(t), "cite75_99.mini.txt")
	data, err := os.ReadFile(cite)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	pairs := "CITING,CITED\n"
	for i, l := range lines[1:] {
		if i%5 == 0 {
			pairs += l
		}
	}
	pp := filepath.Join(dir, "pairs.csv")
	if err := os.WriteFile(pp, []byte(pairs), 0o644); err != nil {
		t.Fatal(err)
	}
	compareTyped(t, pp, cite, "CITING,CITED", "CITING,CITED", key.Int, []filters.Kind{filters.Bloom})
}

// TestTSV: tab-separated files (by their .tsv name, as join run reads
// them), plain and gzip, give join run's rows, re-encoded as CSV.
func TestTSV(t *testing.T) {
	gen := nbertest.Generate(t, 0.001, 300, 8)
	dir := t.TempDir()
	tsv := func(src, name string) string {
		raw, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.ReplaceAll(raw, []byte(","), []byte("\t")), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	keys, cite := tsv(gen.Keys, "keys.tsv"), tsv(gen.Cite, "cite.tsv")
	compareEngines(t, keys, cite, "PATENT", "CITED", []filters.Kind{filters.ACBF})
	compareEngines(t, keys, gzipCopy(t, cite, "cite.tsv.gz"), "PATENT", "CITED", []filters.Kind{filters.Exact})
}

// TestChangedInput: a large side that changes after the ranges were cut is
// refused by the worker that opens a range, not read across record
// boundaries.
func TestChangedInput(t *testing.T) {
	gen := nbertest.Generate(t, 0.001, 100, 5)
	sp, err := source.Spans(gen.Cite, "", ',')
	if err != nil || len(sp) == 0 {
		t.Fatalf("spans: %v %v", sp, err)
	}
	if _, c, err := source.OpenSpan(context.Background(), gen.Cite, "", sp[0], 2, ','); err != nil {
		t.Fatalf("unchanged file: %v", err)
	} else {
		c.Close()
	}
	f, err := os.OpenFile(gen.Cite, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("1,2\n")
	f.Close()
	if _, _, err := source.OpenSpan(context.Background(), gen.Cite, "", sp[0], 2, ','); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("a file appended to: %v, want a refusal", err)
	}
}

// TestTables: Parquet and Arrow sides, a row group or a record batch a
// span, with NULL keys (which never match) and text that needs quoting,
// key types decided from the data: beam gives the local engine's rows and
// counters; a string key joined to an integer column is refused by name.
func TestTables(t *testing.T) {
	s := func(v string) *string { return &v }
	krows, irows := tableRows()
	dir := t.TempDir()
	keys := columnartest.Record(t, []string{"K", "P"}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}, krows)
	defer keys.Release()
	input := columnartest.Record(t, []string{"ID", "K"}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32}, irows)
	defer input.Release()
	kf := columnartest.Write(t, dir, "keys", keys, 16, true)
	inf := columnartest.Write(t, dir, "input", input, 64, false)
	if sp, err := source.Spans(inf.Parquet, "", ','); err != nil || len(sp) != 8 || !sp[0].Table {
		t.Fatalf("spans of 8 row groups: %v, %v", sp, err)
	}
	compareTyped(t, kf.Parquet, inf.Parquet, "K", "K", key.Auto, []filters.Kind{filters.ACBF, filters.Exact})
	compareTyped(t, kf.ArrowFile, inf.ArrowFile, "K", "K", key.Auto, []filters.Kind{filters.Bloom})
	// Where on the Parquet side: row groups 2 to 5 (ID 128 to 383) are ruled
	// out by their statistics and not read (source.OpenSpanWhere), as join
	// run skips them.
	// A side of many files (issue 47): the input in three parts, as a
	// folder of Parquet files and as a glob of Arrow files, the keys as a
	// folder; beam's rows are join run's.
	partsDir := filepath.Join(dir, "parts")
	os.MkdirAll(partsDir, 0o755)
	for i, rows := range [][][]*string{irows[:150], irows[150:151], irows[151:]} {
		rec := columnartest.Record(t, []string{"ID", "K"}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32}, rows)
		fs := columnartest.Write(t, partsDir, fmt.Sprint("part-", i), rec, 64, false)
		rec.Release()
		os.Remove(fs.ArrowStream)
	}
	os.WriteFile(filepath.Join(partsDir, "_SUCCESS"), nil, 0o644)
	keysDir := filepath.Join(dir, "keyparts")
	os.MkdirAll(keysDir, 0o755)
	for i, rows := range [][][]*string{krows[:10], krows[10:]} {
		rec := columnartest.Record(t, []string{"K", "P"}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}, rows)
		fs := columnartest.Write(t, t.TempDir(), "k", rec, 16, true)
		rec.Release()
		if err := os.Rename(fs.Parquet, filepath.Join(keysDir, fmt.Sprint("k-", i, ".parquet"))); err != nil {
			t.Fatal(err)
		}
	}
	if sp, err := source.Spans(filepath.Join(partsDir, "*.arrow"), "", ','); err != nil || len(sp) < 3 || sp[0].Path == "" {
		t.Fatalf("spans of the Arrow parts: %v, %v", sp, err)
	}
	compareSides(t, join.Sides{Keys: keysDir, Input: filepath.Join(partsDir, "*.arrow")}, "K", "K", key.Auto, []filters.Kind{filters.Exact})
	os.Rename(filepath.Join(partsDir, "part-0.arrow"), filepath.Join(dir, "part-0.arrow"))
	os.Rename(filepath.Join(partsDir, "part-1.arrow"), filepath.Join(dir, "part-1.arrow"))
	os.Rename(filepath.Join(partsDir, "part-2.arrow"), filepath.Join(dir, "part-2.arrow"))
	compareSides(t, join.Sides{Keys: kf.Parquet, Input: partsDir}, "K", "K", key.Auto, []filters.Kind{filters.Bloom})
	pruned := join.Sides{Keys: kf.Parquet, Input: inf.Parquet, Where: "ID < 100 or ID >= 400"}
	compareSides(t, pruned, "K", "K", key.Auto, []filters.Kind{filters.Exact})
	if rep, err := local.Run(context.Background(), join.Options{Sides: pruned, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}}, local.NewCSV(io.Discard)); err != nil || rep.Where.InputChunksSkipped != 4 {
		t.Fatalf("join run skipped %+v row groups (%v), want 4", rep.Where, err)
	}
	// Formats given, not by the names (join.Sides' KeysFormat, InputFormat).
	keysData, inputData := filepath.Join(dir, "keys.data"), filepath.Join(dir, "input.bin")
	for src, dst := range map[string]string{kf.Parquet: keysData, inf.ArrowFile: inputData} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	compareSides(t, join.Sides{Keys: keysData, Input: inputData, KeysFormat: "parquet", InputFormat: "arrow"}, "K", "K", key.Auto, []filters.Kind{filters.ACBF})
	strs := columnartest.Record(t, []string{"K"}, []arrow.DataType{arrow.BinaryTypes.String}, [][]*string{{s("1")}})
	defer strs.Release()
	sf := columnartest.Write(t, dir, "strs", strs, 1, false)
	_, _, _, err := Execute(context.Background(), Options{Sides: join.Sides{Keys: kf.Parquet, Input: sf.Parquet}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Filter: filters.ACBF, Output: filepath.Join(dir, "o")}, prism.Execute)
	if err == nil || !strings.Contains(err.Error(), "int64") || !strings.Contains(err.Error(), "string") {
		t.Fatalf("an integer key against a string column: %v", err)
	}
}

// tableRows are a key side (K int64 with NULLs and repeats, P text with a
// comma and quotes) and a large side (ID, K int32 with NULLs) for the
// tests of Parquet and Arrow sides.
func tableRows() (krows, irows [][]*string) {
	s := func(v string) *string { return &v }
	for k := range 40 {
		var kv *string
		if k%9 != 4 {
			kv = s(fmt.Sprint(k % 30))
		}
		krows = append(krows, []*string{kv, s(fmt.Sprintf("p,%d \"q\"", k))})
	}
	for i := range 500 {
		var kv *string
		if i%13 != 2 {
			kv = s(fmt.Sprint(i % 70))
		}
		irows = append(irows, []*string{s(fmt.Sprint(i)), kv})
	}
	return krows, irows
}

// TestJoinTypes: every join type on sides with NULL keys (empty fields,
// key types from the data) and duplicate keys gives the local engine's
// rows and counters; anti, left and full write the rows the filter rejects
// without the shuffle.
func TestJoinTypes(t *testing.T) {
	dir := t.TempDir()
	var kb, ib strings.Builder
	kb.WriteString("K,P\n")
	for k := range 60 {
		key := fmt.Sprint(k % 45)
		if k%11 == 3 {
			key = ""
		}
		fmt.Fprintf(&kb, "%s,\"p,%d\"\n", key, k)
	}
	ib.WriteString("ID,K\n")
	for i := range 700 {
		key := fmt.Sprint(i % 90)
		if i%17 == 5 {
			key = ""
		}
		fmt.Fprintf(&ib, "%d,%s\n", i, key)
	}
	keys, input := filepath.Join(dir, "k.csv"), filepath.Join(dir, "i.csv")
	os.WriteFile(keys, []byte(kb.String()), 0o644)
	os.WriteFile(input, []byte(ib.String()), 0o644)
	for _, jt := range join.JoinTypes {
		var localOut bytes.Buffer
		rep, err := local.Run(context.Background(), join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt}, local.NewCSV(&localOut))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "rows.txt")
		counters, _, _, err := Execute(context.Background(), Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt, Filter: filters.ACBF, Output: out}, prism.Execute)
		if err != nil {
			t.Fatalf("%s: %v", jt, err)
		}
		data, err := os.ReadFile(out)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		got, want := rowsOf(t, data, false), rowsOf(t, localOut.Bytes(), true)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: beam gives %d rows, the local engine %d", jt, len(got), len(want))
		}
		if counters[CJoinRows] != rep.JoinRows || counters[CFalsePositive] != rep.FalsePositiveRecords {
			t.Errorf("%s: counters %v, local report: join %d, FP %d", jt, counters, rep.JoinRows, rep.FalsePositiveRecords)
		}
	}
}

// TestSeparatorsAndColumns: the separators given (Sep, KeysSep, InputSep:
// beamjoin's --delim, --keys-delim, --input-delim) for files whose names
// say nothing, and Columns (--columns), give join run's rows and header on
// prism: a ';'-separated key side with a tab-separated large side, and
// both ';'-separated.
func TestSeparatorsAndColumns(t *testing.T) {
	gen := nbertest.Generate(t, 0.001, 300, 9)
	dir := t.TempDir()
	with := func(src, name string, sep byte) string {
		raw, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.ReplaceAll(raw, []byte(","), []byte{sep}), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	semiKeys, tabCite, semiCite := with(gen.Keys, "keys-semi.txt", ';'), with(gen.Cite, "cite-tab.txt", '\t'), with(gen.Cite, "cite-semi.txt", ';')
	for _, c := range []struct {
		name                   string
		keys, input            string
		sep, keysSep, inputSep byte
		columns                []string
		where, keysWhere       string // Options.Where, KeysWhere (issue 46)
		jt                     join.JoinType
	}{
		{"keys ; input tab, columns", semiKeys, tabCite, 0, ';', '\t', []string{"CITING", "GYEAR", "CITED"}, "", "", ""},
		{"both ;", semiKeys, semiCite, ';', 0, 0, nil, "", "", ""},
		{"both ;, one column", semiKeys, semiCite, ';', 0, 0, []string{"GYEAR"}, "", "", ""},
		{"predicates, left join", gen.Keys, gen.Cite, 0, 0, 0, nil, "CITING % 3 != 0", `GYEAR > 1965 and COUNTRY == "US"`, join.JoinLeft},
	} {
		t.Run(c.name, func(t *testing.T) {
			var localOut bytes.Buffer
			if _, err := local.Run(context.Background(), join.Options{
				Sides:        join.Sides{Keys: c.keys, Input: c.input, Sep: c.sep, KeysSep: c.keysSep, InputSep: c.inputSep, Where: c.where, KeysWhere: c.keysWhere},
				Keying:       join.Keying{KeyCol: "PATENT", JoinCol: "CITED"},
				FilterChoice: join.FilterChoice{Filter: filters.Bloom},
				Output:       join.Output{Columns: c.columns},
				JoinType:     c.jt,
			}, local.NewCSV(&localOut)); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "rows.txt")
			opt := Options{
				Sides:    join.Sides{Keys: c.keys, Input: c.input, Sep: c.sep, KeysSep: c.keysSep, InputSep: c.inputSep, Where: c.where, KeysWhere: c.keysWhere},
				Keying:   join.Keying{KeyCol: "PATENT", JoinCol: "CITED"},
				Filter:   filters.Bloom,
				Output:   out,
				Columns:  c.columns,
				JoinType: c.jt,
			}
			_, kh, ih, err := Execute(context.Background(), opt, prism.Execute)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(out)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			got, want := rowsOf(t, data, false), rowsOf(t, localOut.Bytes(), true)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Fatalf("beam gives %d rows, the local engine %d; first %q, %q", len(got), len(want), got[:min(1, len(got))], want[:min(1, len(want))])
			}
			h, err := OutputHeader(opt, kh, ih)
			if line, _, _ := bytes.Cut(localOut.Bytes(), []byte("\n")); err != nil || string(h.Line) != string(line)+"\n" {
				t.Fatalf("header %q (%v), join run's %q", h.Line, err, line)
			}
		})
	}
	// Refused as join run refuses them (the library's checks): a column
	// the output has not, a quote as the separator.
	_, _, _, err := Execute(context.Background(), Options{
		Sides:   join.Sides{Keys: semiKeys, Input: semiCite, Sep: ';'},
		Keying:  join.Keying{KeyCol: "PATENT", JoinCol: "CITED"},
		Filter:  filters.Bloom,
		Columns: []string{"NOPE"},
		Output:  filepath.Join(dir, "x"),
	}, prism.Execute)
	if err == nil || !strings.Contains(err.Error(), `the output has no column "NOPE"`) {
		t.Errorf("Columns NOPE: %v", err)
	}
	_, _, _, err = Execute(context.Background(), Options{
		Sides:  join.Sides{Keys: semiKeys, Input: semiCite, Sep: '"'},
		Keying: join.Keying{KeyCol: "PATENT", JoinCol: "CITED"},
		Filter: filters.Bloom,
		Output: filepath.Join(dir, "x"),
	}, prism.Execute)
	if err == nil || !strings.Contains(err.Error(), "a quote or line break cannot separate fields") {
		t.Errorf(`Sep '"': %v`, err)
	}
}

// TestNestedLeftOut: a nested column (list, struct, map) of a table side
// that --columns leaves out is never read, and the pipeline's rows equal
// join run's on the same files; one the output would hold is refused by
// name before the pipeline runs, as run refuses it.
func TestNestedLeftOut(t *testing.T) {
	dir := t.TempDir()
	nested, _ := columnartest.Nested(40)
	defer nested.Release()
	fs := columnartest.Write(t, dir, "n", nested, 16, false)
	input := filepath.Join(dir, "i.csv")
	os.WriteFile(input, []byte("J,ID\n1,a\n3,b\n5,c\n7,d\n100,e\n"), 0o644)
	for _, keys := range []string{fs.Parquet, fs.ArrowFile} {
		cols := []string{"J", "ID", "P", "Q"}
		var localOut bytes.Buffer
		if _, err := local.Run(context.Background(), join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "J"}, Output: join.Output{Columns: cols}}, local.NewCSV(&localOut)); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "rows.txt")
		if _, _, _, err := Execute(context.Background(), Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "J"}, Columns: cols, Filter: filters.ACBF, Output: out}, prism.Execute); err != nil {
			t.Fatalf("%s: %v", keys, err)
		}
		data, _ := os.ReadFile(out)
		if got, want := rowsOf(t, data, false), rowsOf(t, localOut.Bytes(), true); !slices.Equal(got, want) || len(got) != 4 {
			t.Errorf("%s: beam %q, run %q", keys, got, want)
		}
		_, _, _, err := Execute(context.Background(), Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "J"}, Filter: filters.ACBF, Output: out}, prism.Execute)
		if err == nil || !strings.Contains(err.Error(), `column "tags" is nested`) || !strings.Contains(err.Error(), "--columns") {
			t.Errorf("%s: every column in the output: %v", keys, err)
		}
	}
}

// TestBareCRQuoted: an input row whose unquoted field holds a bare CR
// (the reader keeps it in the field) is written with that field quoted
// (csvscan.PassRaw), as the local engine writes it, not as it is.
func TestBareCRQuoted(t *testing.T) {
	dir := t.TempDir()
	keys, input := filepath.Join(dir, "keys.csv"), filepath.Join(dir, "in.csv")
	if err := os.WriteFile(keys, []byte("k,w\n1,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(input, []byte("k,v\n1,a\rb\n2,c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "rows.txt")
	if _, _, _, err := Execute(context.Background(), Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "k", JoinCol: "k"},
		Filter: filters.Exact, Output: out}, prism.Execute); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("1,\"a\rb\",x\n")) {
		t.Errorf("output %q: want the row 1,\"a\\rb\",x", data)
	}
}

// TestEmptyParts: a CSV or JSON lines side of several files, some of them
// empty (0 bytes, or blank lines only: parts no row went to), is read as
// the files with rows, by beam as by join run (source.Spans leaves the
// empty files out, as csvscan.OpenInputs and columnar.OpenFiles do).
func TestEmptyParts(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.csv")
	os.WriteFile(keys, []byte("K,N\n1,one\n3,three\n"), 0o644)
	for ext, files := range map[string][]string{
		".csv":   {"", "K,V\n1,a\n2,b\n", "\n\n", "K,V\n3,c\n", ""},
		".jsonl": {"", "{\"K\":1,\"V\":\"a\"}\n", "\n", "{\"K\":3,\"V\":\"c\"}\n", ""},
	} {
		parts := filepath.Join(dir, "parts"+ext)
		os.MkdirAll(parts, 0o755)
		for i, text := range files {
			os.WriteFile(filepath.Join(parts, fmt.Sprint(i, ext)), []byte(text), 0o644)
		}
		compareSides(t, join.Sides{Keys: keys, Input: parts}, "K", "K", key.Auto, []filters.Kind{filters.Exact})
	}
}
