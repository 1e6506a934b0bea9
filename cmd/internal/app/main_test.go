package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func runCmd(args ...string) (string, string, error) {
	var out, errb bytes.Buffer
	err := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), err
}

// fileMaker returns a function that writes a file of the given content in
// dir and returns its path.
func fileMaker(t *testing.T, dir string) func(name, content string) string {
	return func(name, content string) string {
		p := filepath.Join(dir, name)
		testutil.WriteFile(t, p, []byte(content), 0o644)
		return p
	}
}

// withFlags returns base with the flags of over set: a flag base has gets the
// new value in place (a flag given twice is refused), others are appended.
func withFlags(base []string, over ...string) []string {
	out := slices.Clone(base)
	for i := 0; i < len(over); i++ {
		name, hasValue := over[i], i+1 < len(over) && !strings.HasPrefix(over[i+1], "--")
		if j := slices.Index(out, name); j >= 0 && hasValue && j+1 < len(out) {
			out[j+1] = over[i+1]
			i++
			continue
		}
		out = append(out, name)
		if hasValue {
			out = append(out, over[i+1])
			i++
		}
	}
	return out
}

// TestManyCores: on a machine with many cores the default mappers and
// reducers (one per core each) need more than the default 256 MiB budget; the
// default then grows to their minimum instead of refusing to run.
func TestManyCores(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := runCmd("gen", "--scale", "0.001", "--seed", "6", "--out", dir); err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(dir, "keys.txt")
	if _, _, err := runCmd("keys", "--patents", filepath.Join(dir, "apat63_99.txt"), "--sample", "100", "--out", keys); err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(72)) // 72 x 72 x 64 KiB = 324 MiB
	out, _, err := runCmd("run", "--keys", keys, "--input", filepath.Join(dir, "cite75_99.txt"), "--out", filepath.Join(dir, "out.csv"))
	if err != nil || !strings.Contains(out, "join:") {
		t.Fatalf("run with 72 cores and the default budget: %v\n%s", err, out)
	}
}

func TestGenKeys(t *testing.T) {
	dir := t.TempDir()
	out, _, err := runCmd("gen", "--scale", "0.002", "--seed", "3", "--out", dir)
	if err != nil || !strings.Contains(out, "5848 patents") {
		t.Fatalf("gen: %v\n%s", err, out)
	}
	keys := filepath.Join(dir, "keys.txt")
	out, _, err = runCmd("keys", "--patents", filepath.Join(dir, "apat63_99.txt"), "--sample", "50", "--where", "COUNTRY=US", "--out", keys)
	if err != nil || !strings.Contains(out, "50 of") {
		t.Fatalf("keys: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(keys)
	if n := strings.Count(string(data), "\n"); n != 51 {
		t.Fatalf("keys file has %d lines, want header + 50", n)
	}
}

func TestRunCompare(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := runCmd("gen", "--scale", "0.002", "--seed", "4", "--out", dir); err != nil {
		t.Fatal(err)
	}
	pat, cite := filepath.Join(dir, "apat63_99.txt"), filepath.Join(dir, "cite75_99.txt")
	keys := filepath.Join(dir, "keys.txt")
	if _, _, err := runCmd("keys", "--patents", pat, "--sample", "400", "--out", keys); err != nil {
		t.Fatal(err)
	}
	csvOut, pqOut, js := filepath.Join(dir, "out.csv"), filepath.Join(dir, "out.parquet"), filepath.Join(dir, "rep.json")
	out, _, err := runCmd("run", "--keys", keys, "--input", cite, "--out", csvOut, "--sort", "--report-json", js, "--mem", "1MiB", "--mappers", "2", "--reducers", "2", "--filter", "none")
	if err != nil || !strings.Contains(out, "join:") {
		t.Fatalf("run: %v\n%s", err, out)
	}
	var rep map[string]any
	data, _ := os.ReadFile(js)
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"filter", "keys_distinct", "input_records", "map_output_records", "filtered_out_records",
		"false_positive_records", "fpp_measured", "fpp_tested", "shuffle_records", "shuffle_bytes", "shuffle_bytes_no_filter", "shuffle_reduction", "join_rows",
		"timings_ms", "ns_per_row_core", "peak_heap_bytes", "peak_rss_bytes", "settings"} {
		if _, ok := rep[key]; !ok {
			t.Errorf("report JSON lacks %q", key)
		}
	}
	for _, key := range []string{"kind", "params", "budget_counters", "k", "first_level_bits", "memory_bits", "serialized_bytes", "fpp_formula"} {
		if _, ok := rep["filter"].(map[string]any)[key]; !ok {
			t.Errorf("report JSON filter lacks %q", key)
		}
	}
	settings := rep["settings"].(map[string]any)
	for key, want := range map[string]any{"keys": keys, "input": cite, "key_col": "PATENT", "join_col": "CITED", "key_type": "int",
		"filter": "none", "bits_per_key": 32.0, "mappers": 2.0, "reducers": 2.0, "mem_bytes": float64(1 << 20), "sort": true, "format": "csv"} {
		if settings[key] != want {
			t.Errorf("report JSON settings %q = %v, want %v", key, settings[key], want)
		}
	}
	if v, _ := settings["version"].(string); v == "" {
		t.Errorf("report JSON settings version %q", v)
	}
	// --quiet: no text report (and no bars), the JSON still written.
	js2 := filepath.Join(dir, "rep2.json")
	if out, errOut, err := runCmd("run", "--keys", keys, "--input", cite, "--out", filepath.Join(dir, "q.csv"), "--report-json", js2, "--quiet"); err != nil || out != "" || errOut != "" {
		t.Errorf("run --quiet: %v, printed %q %q", err, out, errOut)
	}
	if data, err := os.ReadFile(js2); err != nil || !strings.Contains(string(data), `"join_rows"`) {
		t.Errorf("run --quiet --report-json: %v %s", err, data)
	}
	// compare writes its reports as a JSON array.
	js3 := filepath.Join(dir, "compare.json")
	if _, _, err := runCmd("compare", "--keys", keys, "--input", cite, "--filters", "exact,acbf", "--report-json", js3); err != nil {
		t.Fatal(err)
	}
	var reps []map[string]any
	if data, _ := os.ReadFile(js3); json.Unmarshal(data, &reps) != nil || len(reps) != 2 || reps[1]["filter"].(map[string]any)["kind"] != "acbf" {
		t.Errorf("compare --report-json: %d reports", len(reps))
	}
	if rep["spilled_bytes"].(float64) == 0 {
		t.Errorf("--mem 1MiB with no filter did not spill: %v", rep)
	}
	csvData, _ := os.ReadFile(csvOut)
	rows := strings.Count(string(csvData), "\n") - 1
	if float64(rows) != rep["join_rows"].(float64) || !strings.HasPrefix(string(csvData), "CITING,CITED,GYEAR,") {
		t.Fatalf("CSV output: %d rows, report %v; header %q", rows, rep["join_rows"], strings.SplitN(string(csvData), "\n", 2)[0])
	}
	if _, _, err := runCmd("run", "--keys", keys, "--input", cite, "--out", pqOut, "--format", "parquet"); err != nil {
		t.Fatal(err)
	}
	// Typed: the NBER columns as their schema says, the keys as integers
	// (every column was a required string, less typed than the CSV).
	pq, _ := os.ReadFile(pqOut)
	tbl := testutil.ReadParquet(t, pq)
	for name, want := range map[string]arrow.DataType{"CITING": arrow.PrimitiveTypes.Int64, "CITED": arrow.PrimitiveTypes.Int64,
		"GYEAR": arrow.PrimitiveTypes.Int64, "RATIOCIT": arrow.PrimitiveTypes.Float64, "COUNTRY": arrow.BinaryTypes.String} {
		idx := tbl.Schema().FieldIndices(name)
		if len(idx) != 1 || !arrow.TypeEqual(tbl.Schema().Field(idx[0]).Type, want) {
			t.Errorf("parquet column %s: %v, want %v", name, idx, want)
		}
	}
	if float64(tbl.NumRows()) != rep["join_rows"].(float64) {
		t.Errorf("parquet output: %d rows, want %v", tbl.NumRows(), rep["join_rows"])
	}
	out, _, err = runCmd("compare", "--keys", keys, "--input", cite, "--filters", "cbf,acbf", "--repeat", "2")
	if err != nil || !strings.Contains(out, "ACBF against CBF") || !strings.Contains(out, "-72.3%") {
		t.Fatalf("compare: %v\n%s", err, out)
	}
	// A failed run leaves no output file.
	bad := filepath.Join(dir, "bad.csv")
	if _, _, err := runCmd("run", "--keys", keys, "--input", cite, "--join-col", "NOPE", "--out", bad); err == nil || !strings.Contains(err.Error(), `--join-col NOPE`) {
		t.Fatalf("bad --join-col: %v", err)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Fatal("failed run left its output file")
	}
	for _, e := range testutil.DirNames(t, dir) {
		if strings.Contains(e, ".tmp-") {
			t.Fatalf("temporary file %s left", e)
		}
	}
}

func TestFilterFile(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := runCmd("gen", "--scale", "0.002", "--seed", "4", "--out", dir); err != nil {
		t.Fatal(err)
	}
	pat, cite := filepath.Join(dir, "apat63_99.txt"), filepath.Join(dir, "cite75_99.txt")
	keys, keys2 := filepath.Join(dir, "keys.txt"), filepath.Join(dir, "keys2.txt")
	runCmd("keys", "--patents", pat, "--sample", "400", "--out", keys)
	runCmd("keys", "--patents", pat, "--sample", "300", "--out", keys2)
	fb := filepath.Join(dir, "f.bin")
	if out, _, err := runCmd("build-filter", "--keys", keys, "--filter", "acbf", "--out", fb); err != nil || !strings.Contains(out, ": acbf(m=3200,k=6,m1=10400,room=400) filter of 400 int keys") {
		t.Fatalf("build-filter: %v %s", err, out)
	}
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	if _, _, err := runCmd("run", "--keys", keys, "--input", cite, "--sort", "--out", a); err != nil {
		t.Fatal(err)
	}
	if out, _, err := runCmd("run", "--keys", keys, "--input", cite, "--sort", "--filter-file", fb, "--out", b); err != nil ||
		!strings.Contains(out, "\nfilter: from the filter file "+fb+" (acbf, built for 400 distinct keys of column PATENT, key type int; ") {
		t.Fatalf("run --filter-file: %v; the report does not say where the filter came from:\n%s", err, out)
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if !bytes.Equal(da, db) {
		t.Fatal("run with --filter-file gives other rows")
	}
	good, _ := os.ReadFile(fb)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		testutil.WriteFile(t, p, data, 0o644)
		return p
	}
	corrupt := bytes.Clone(good)
	corrupt[len(corrupt)/2] ^= 0xff
	version := bytes.Clone(good)
	version[4] = 9
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--filter-file", write("trunc.bin", good[:len(good)-10])}, "truncated or corrupt"},
		{[]string{"--filter-file", write("corrupt.bin", corrupt)}, "truncated or corrupt"},
		{[]string{"--filter-file", write("version.bin", version)}, "format version 9"},
		{[]string{"--filter-file", write("foreign.bin", []byte("PAR1 not a filter at all"))}, "not a filter file"},
		{[]string{"--filter-file", fb, "--filter", "cbf"}, "holds the acbf filter, the join asks for cbf"},
		{[]string{"--filter-file", fb, "--key-type", "string"}, "built for int keys, this join compares string keys"},
		{[]string{"--filter-file", fb, "--keys", keys2}, "built from 400 distinct keys, the key file has 300"},
		{[]string{"--filter-file", fb, "--bits-per-key", "8"}, "--bits-per-key 8: cannot change the filter of the filter file"},
		{[]string{"--filter-file", fb, "--k", "3"}, "--k 3: cannot change the filter of the filter file"},
	} {
		args := withFlags([]string{"run", "--keys", keys, "--input", cite, "--out", filepath.Join(dir, "x.csv")}, tc.args...)
		_, _, err := runCmd(args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	// A filter of other keys, of the same count, would drop matching rows
	// (keys {1,2,3} against {4,5,6}: the right answer has 2 rows).
	k123, k456 := write("k123.csv", []byte("PATENT\n1\n2\n3\n")), write("k456.csv", []byte("PATENT\n4\n5\n6\n"))
	in := write("in.csv", []byte("CITING,CITED\n10,4\n11,6\n12,9\n"))
	f123 := filepath.Join(dir, "f123.bin")
	if _, _, err := runCmd("build-filter", "--keys", k123, "--filter", "bloom", "--out", f123); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd("run", "--keys", k456, "--input", in, "--filter-file", f123, "--out", filepath.Join(dir, "x.csv")); err == nil ||
		!strings.Contains(err.Error(), "built from other keys than the key file's 3") {
		t.Errorf("filter of keys 1,2,3 with keys 4,5,6: %v", err)
	}
	// A version 1 file (no fingerprint) is refused with what to do.
	v1 := bytes.Clone(good)
	v1[4] = 1
	if _, _, err := runCmd("run", "--keys", keys, "--input", cite, "--filter-file", write("v1.bin", v1), "--out", filepath.Join(dir, "x.csv")); err == nil ||
		!strings.Contains(err.Error(), "format version 1, this join reads versions 2 to 3: rebuild it with join build-filter") {
		t.Errorf("version 1 filter file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.csv")); !os.IsNotExist(err) {
		t.Fatal("a refused filter file left an output")
	}
}

func TestDemo(t *testing.T) {
	out, _, err := runCmd("demo", "--scale", "0.005")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"none", "exact", "bloom", "cbf", "acbf", "false positives", "ACBF against CBF"} {
		if !strings.Contains(out, want) {
			t.Fatalf("demo output lacks %q:\n%s", want, out)
		}
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args  []string
		want  string
		usage bool
	}{
		{nil, "no command", true},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`, true},
		{[]string{"gen", "--scale", "x", "--out", dir}, "invalid value", true},
		{[]string{"gen", "--scale", "1"}, "--out is required", true},
		{[]string{"gen", "--scale", "-1", "--out", dir}, "--scale -1: want 0 < scale <= 10", true},
		{[]string{"gen", "--out", dir, "extra"}, `unexpected argument "extra"`, true},
		{[]string{"keys", "--patents", filepath.Join(dir, "missing.txt"), "--out", filepath.Join(dir, "k")}, "missing.txt", false},
		{[]string{"keys", "--patents", "p", "--out", "k", "--where", "GYEAR >"}, `keys: --where: where "GYEAR >": unexpected token EOF (1:7) (or COLUMN=VALUE)`, true},
		{[]string{"keys", "--patents", "p", "--out", "k", "--sample", "0"}, "--sample 0", true},
		{[]string{"fetch", "--dir", dir, "--url", "http://127.0.0.1:1/"}, "join gen", false},
		{[]string{"run", "--keys", "k"}, "run: --input is required (the large file)", true},
		{[]string{"run", "--keys", "k", "--input", "i", "--filter", "quotient"}, "--filter quotient: unknown filter", true},
		{[]string{"run", "--keys", "k", "--input", "i", "--mem", "lots"}, `--mem "lots"`, true},
		{[]string{"run", "--keys", "k", "--input", "i", "--format", "parquet"}, "needs --out FILE", true},
		{[]string{"compare", "--keys", "k", "--input", "i", "--repeat", "0"}, "--repeat 0", true},
	} {
		_, _, err := runCmd(tc.args...)
		var u usageError
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &u) != tc.usage {
			t.Errorf("join %q = %v, want an error with %q (usage %v)", tc.args, err, tc.want, tc.usage)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("join %q: error spans lines: %q", tc.args, err)
		}
	}
	// Nothing partial was written by the failed runs.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Fatalf("failed runs left %d files in %s", len(ents), dir)
	}
}

// TestCommandList: the usage lists every command of the dispatch table
// (stream was once missing), a mistyped command gets the nearest, and an
// unrelated one the whole list; help COMMAND is COMMAND -h.
func TestCommandList(t *testing.T) {
	_, _, err := runCmd("rnu")
	if err == nil || !strings.Contains(err.Error(), `"rnu" (did you mean run?)`) {
		t.Errorf("join rnu: %v, want a suggestion of run", err)
	}
	_, _, err = runCmd("xyzzy")
	for _, name := range commandNames() {
		if !strings.Contains(usageText(), "\n  "+name+" ") {
			t.Errorf("the usage does not list %s", name)
		}
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("join xyzzy: %v, does not list %s", err, name)
		}
	}
	out, _, err := runCmd("help", "gen")
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("help gen: %v", err)
	}
	_, helpErr, _ := runCmd("gen", "-h")
	if !strings.Contains(out+helpErr, "usage: join gen") {
		t.Errorf("help gen printed %q", out)
	}
}

// TestSideDelims: a tab-separated large side with a comma-separated key
// file joins with --input-delim tab; without it the error names the
// missing column, says the header holds tabs and gives the flag.
func TestSideDelims(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	keys := mk("k.csv", "PATENT,NAME\n1,a\n2,\"b, c\"\n")
	input := mk("cite.txt", "CITING\tCITED\n10\t1\n11\t3\n12\t2\n")
	out := filepath.Join(dir, "o.csv")
	if _, _, err := runCmd("run", "--keys", keys, "--input", input, "--input-delim", "tab", "--quiet", "--sort", "--out", out); err != nil {
		t.Fatal(err)
	}
	if got, want := readString(t, out), "CITING,CITED,NAME\n10,1,a\n12,2,\"b, c\"\n"; got != want {
		t.Fatalf("output %q, want %q", got, want)
	}
	_, _, err := runCmd("run", "--keys", keys, "--input", input, "--quiet", "--out", out)
	if err == nil || !strings.Contains(err.Error(), `no column "CITED"`) || !strings.Contains(hint(err), "--input-delim tab") {
		t.Fatalf("no --input-delim: %v%s", err, hint(err))
	}
	// The key side's own separator, and a bad value named by its flag.
	tsvKeys := mk("k.txt", "PATENT\tNAME\n1\ta\n")
	if _, _, err := runCmd("run", "--keys", tsvKeys, "--keys-delim", "\\t", "--input", input, "--input-delim", "tab", "--quiet", "--out", out); err != nil {
		t.Fatal(err)
	}
	_, _, err = runCmd("run", "--keys", keys, "--input", input, "--input-delim", `"`, "--out", out)
	if err == nil || !strings.Contains(err.Error(), "--input-delim") {
		t.Fatalf(`--input-delim ": %v`, err)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestKeysFromTSV: keys samples a tab-separated file into Parquet, read
// with tabs; into a .csv it refuses (its records are copied as they are,
// and would be tab-separated under a .csv name).
func TestKeysFromTSV(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	src := mk("r.tsv", "tconst\tvotes\ntt1\t5\ntt2\t7\n")
	if _, _, err := runCmd("keys", "--from", src, "--sample", "5", "--out", filepath.Join(dir, "k.csv")); err == nil || !strings.Contains(err.Error(), ".parquet") {
		t.Fatalf("a .csv sample of a TSV: %v", err)
	}
	pq := filepath.Join(dir, "k.parquet")
	if _, _, err := runCmd("keys", "--from", src, "--sample", "5", "--out", pq); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "o.csv")
	if _, _, err := runCmd("run", "--keys", pq, "--key-col", "tconst", "--input", src, "--join-col", "tconst", "--join", "semi", "--sort", "--quiet", "--out", out); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, out); got != "tconst,votes\ntt1,5\ntt2,7\n" {
		t.Fatalf("the Parquet sample's join: %q", got)
	}
}
