package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/join/local"

	"github.com/acbfjoin/acbfjoin/internal/testutil"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestParquetKeepsValues: the Parquet output's types come from the values
// written, not the columns' names: with string keys, 007 and 7 (which the
// join keeps apart) stay apart and abc is written (it failed the write), and
// a column named like an NBER integer column holds text when its values are.
func TestParquetKeepsValues(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	keys := mk("keys.csv", "PATENT,GYEAR\n007,1999\n7,+5\nabc,\n")
	input := mk("input.csv", "CITING,CITED\n1,007\n2,7\n3,abc\n4,0007\n")
	out := filepath.Join(dir, "out.parquet")
	if _, stderr, err := runCmd("run", "--keys", keys, "--input", input, "--key-type", "string", "--out", out, "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	tbl := testutil.ReadParquet(t, data)
	if tbl.NumRows() != 3 {
		t.Fatalf("%d rows, want 3", tbl.NumRows())
	}
	got := map[string]string{}
	for _, chunk := range tbl.Column(1).Data().Chunks() {
		cited := chunk.(*array.String)
		for i := range cited.Len() {
			got[cited.Value(i)] = "x"
		}
	}
	if len(got) != 3 || got["007"] == "" || got["7"] == "" || got["abc"] == "" {
		t.Errorf("CITED values %v, want 007, 7 and abc", got)
	}
	for name, want := range map[string]arrow.DataType{"CITING": arrow.PrimitiveTypes.Int64, "CITED": arrow.BinaryTypes.String, "GYEAR": arrow.BinaryTypes.String} {
		idx := tbl.Schema().FieldIndices(name)
		if len(idx) != 1 || !arrow.TypeEqual(tbl.Schema().Field(idx[0]).Type, want) {
			t.Errorf("column %s: %v, want %v", name, tbl.Schema().Field(idx[0]).Type, want)
		}
	}
}

// TestFormatFromExtension: an output's extension names its format; a
// --format that contradicts it, and an extension of a format the join does
// not write, are refused before any work, with nothing written.
func TestFormatFromExtension(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	keys := mk("keys.csv", "PATENT\n1\n2\n")
	input := mk("input.csv", "CITING,CITED\n10,1\n11,3\n")
	pq := filepath.Join(dir, "x.parquet")
	if _, stderr, err := runCmd("run", "--keys", keys, "--input", input, "--out", pq, "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if b, _ := os.ReadFile(pq); !strings.HasPrefix(string(b), "PAR1") {
		t.Errorf("--out x.parquet wrote %q, want Parquet", b[:min(len(b), 16)])
	}
	csvOut := filepath.Join(dir, "x.csv.gz")
	if _, stderr, err := runCmd("run", "--keys", keys, "--input", input, "--out", csvOut, "--quiet"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, c := range []struct{ out, format, want string }{
		{"y.parquet", "csv", "--format csv: the output"},
		{"y.csv", "parquet", "y.csv is named as csv: name it .parquet"},
		{"y.xlsx", "", "names a format the join does not write"},
		{"y.parquet.gz", "", "refuse"},
		{"y.csv", "xml", "--format xml: want csv, tsv, jsonl, parquet, arrow or arrow-stream"},
	} {
		args := []string{"run", "--keys", keys, "--input", input, "--out", filepath.Join(dir, c.out), "--quiet"}
		if c.format != "" {
			args = append(args, "--format", c.format)
		}
		_, _, err := runCmd(args...)
		if err == nil || (c.want != "refuse" && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("--out %s --format %q: %v, want an error containing %q", c.out, c.format, err, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, c.out)); err == nil {
			t.Errorf("--out %s --format %q: written", c.out, c.format)
		}
	}
	// filter plot: .png is a PNG, .pdf a PDF.
	png := filepath.Join(dir, "p.png")
	if _, stderr, err := runCmd("filter", "plot", "--n", "500", "--queries", "2000", "--kinds", "bloom", "--bits", "8,16", "--out", png); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if b, _ := os.ReadFile(png); !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("filter plot --out p.png wrote %q", b[:min(len(b), 16)])
	}
}

// TestReproChecksDataFirst: repro --data names what is wrong with the
// folder before any figure runs (it ran Figures 4-7 for minutes first).
func TestReproChecksDataFirst(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	out := filepath.Join(dir, "out")
	_, _, err := runCmd("repro", "--quick", "--data", dir, "--out", out)
	if err == nil || !strings.Contains(err.Error(), "repro: --data "+dir+": none of cite75_99.txt") {
		t.Errorf("an empty folder: %v", err)
	}
	mk("cite75_99.txt", "CITING,CITED\n1,2\n")
	mk("apat63_99.txt", "ID,GYEAR\n1,1999\n")
	_, _, err = runCmd("repro", "--quick", "--data", dir, "--out", out)
	if err == nil || !strings.Contains(err.Error(), "apat63_99.txt has no column PATENT") {
		t.Errorf("a file without the join's column: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the output folder was made")
	}
}

// TestReportWords: each kind's report line spells its own parameters (a
// Bloom filter was once "m=... counters, first level ..."), and demo --data on a small
// real sample takes the paper's ratio of its patents, and says so truly.
func TestReportWords(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	keys := mk("k.csv", "PATENT\n1\n2\n")
	input := mk("i.csv", "CITING,CITED\n10,1\n")
	for kind, want := range map[string]string{
		"bloom":   "filter bloom(m=64,k=22), memory 64 bits,",
		"blocked": "filter blocked(m=512,k=16), memory 512 bits,",
		"cbf":     "filter cbf(m=16,k=6), memory 64 bits,",
		"acbf":    "filter acbf(m=16,k=6,m1=52,room=2), memory 64 bits,",
		"cuckoo":  "filter cuckoo(b=4,f=16,slots=4), memory 64 bits,",
		"exact":   "filter exact(bitmap), memory 64 bits,",
	} {
		out, _, err := runCmd("run", "--keys", keys, "--input", input, "--filter", kind, "--out", filepath.Join(dir, "o.csv"))
		if err != nil || !strings.HasPrefix(out, want) {
			t.Errorf("--filter %s: %v, report %q, want it to start %q", kind, err, strings.SplitN(out, "\n", 2)[0], want)
		}
	}
	sample := testutil.NBERMini(t)
	out, _, err := runCmd("demo", "--data", sample)
	if err != nil || !strings.Contains(out, "399 join keys sampled from 17732 patents (2.25%") {
		t.Errorf("demo --data: %v\n%s", err, out)
	}
}

// TestCSVOnlyOutputs: the commands that write CSV only refuse an output
// named as another format (stream --out x.parquet wrote CSV into it); keys
// writes .parquet as Parquet (typed by its values), read back as the same
// rows as its CSV.
func TestCSVOnlyOutputs(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	pat := mk("p.csv", "PATENT,GYEAR\n1,1999\n")
	events := mk("e.csv", "op,PATENT\n")
	input := mk("i.csv", "CITING,CITED\n10,1\n")
	for _, args := range [][]string{
		{"keys", "--patents", pat, "--out", filepath.Join(dir, "k.tsv")},
		{"stream", "--key-events", events, "--probe", input, "--join-col", "CITED", "--out", filepath.Join(dir, "s.parquet")},
	} {
		out := args[len(args)-1]
		if _, _, err := runCmd(args...); err == nil || !strings.Contains(err.Error(), "--out "+out) {
			t.Errorf("%s --out %s: %v, want a refusal naming it", args[0], out, err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: %s written", args[0], out)
		}
	}
	kp, kc := filepath.Join(dir, "k.parquet"), filepath.Join(dir, "k.csv")
	for _, o := range []string{kp, kc} {
		if _, _, err := runCmd("keys", "--patents", pat, "--out", o); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, k := range []string{kp, kc} {
		o := filepath.Join(dir, filepath.Base(k)+".out.csv")
		if _, _, err := runCmd("run", "--keys", k, "--input", input, "--out", o, "--quiet"); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(o)
		got = append(got, string(b))
	}
	if got[0] != got[1] || !strings.Contains(got[0], "10,1,1999") {
		t.Errorf("keys as Parquet joins as %q, as CSV %q", got[0], got[1])
	}
}

// TestGenParquet: gen --format parquet writes each file as NAME.parquet,
// row groups of --row-group rows, no temporary folder left; joined, the
// Parquet twins give the CSV files' rows.
func TestGenParquet(t *testing.T) {
	dir := t.TempDir()
	pq, csv := filepath.Join(dir, "pq"), filepath.Join(dir, "csv")
	common := []string{"--dataset", "semijoin", "--keys", "200", "--rows", "3000", "--key-shape", "string", "--seed", "4"}
	if _, _, err := runCmd(append([]string{"gen", "--format", "parquet", "--row-group", "500", "--out", pq}, common...)...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(append([]string{"gen", "--out", csv}, common...)...); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(pq)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "input.parquet,keys.parquet" {
		t.Fatalf("gen --format parquet wrote %v", names)
	}
	var outs []string
	for _, d := range []struct{ keys, input string }{{filepath.Join(pq, "keys.parquet"), filepath.Join(pq, "input.parquet")}, {filepath.Join(csv, "keys.csv"), filepath.Join(csv, "input.csv")}} {
		o := filepath.Join(dir, fmt.Sprint(len(outs), ".csv"))
		stdout, _, err := runCmd("run", "--keys", d.keys, "--input", d.input, "--key-col", "K", "--join-col", "K", "--sort", "--out", o)
		if err != nil {
			t.Fatal(err)
		}
		if len(outs) == 0 && !strings.Contains(stdout, "input parquet: 6 row groups") {
			t.Errorf("not 6 row groups of 500 rows:\n%s", stdout)
		}
		b, _ := os.ReadFile(o)
		outs = append(outs, string(b))
	}
	if outs[0] != outs[1] {
		t.Error("the Parquet twins join to other rows than the CSV files")
	}
	if _, _, err := runCmd("gen", "--row-group", "5", "--out", csv); err == nil {
		t.Error("--row-group without --format parquet")
	}
}

// TestStreamParquetProbe: join stream reads a Parquet probe and gives the
// rows of the same data as CSV; key events (+row, -key lines) are text, and
// a Parquet key side is refused outside a window, saying so.
func TestStreamParquetProbe(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	var ev, probe strings.Builder
	ev.WriteString("op,K\n")
	probe.WriteString("ID,K,S\n")
	for k := range 50 {
		fmt.Fprintf(&ev, "+,%d\n", k*3)
	}
	for i := range 2000 {
		fmt.Fprintf(&probe, "%d,%d,\"s,%d\"\n", i, i%200, i%7)
	}
	evCSV, probeCSV := mk("ev.csv", ev.String()), mk("probe.csv", probe.String())
	toParquet := func(src string) string {
		in, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		dst := strings.TrimSuffix(src, ".csv") + ".parquet"
		out, err := os.Create(dst)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		if _, err := local.ConvertCSV(context.Background(), local.CSVInput{Text: in, Name: src, Sep: ','}, out, 300, dir); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	evPQ, probePQ := toParquet(evCSV), toParquet(probeCSV)
	var outs []string
	if _, _, err := runCmd("stream", "--key-events", evPQ, "--key-col", "K", "--probe", probePQ, "--join-col", "K", "--out", filepath.Join(dir, "x.csv")); err == nil || !strings.Contains(err.Error(), "with a window") {
		t.Errorf("Parquet key events without a window: %v", err)
	}
	for _, p := range [][2]string{{evCSV, probeCSV}, {evCSV, probePQ}} {
		o := filepath.Join(dir, fmt.Sprint("s", len(outs), ".csv"))
		if _, _, err := runCmd("stream", "--key-events", p[0], "--key-col", "K", "--probe", p[1], "--join-col", "K", "--out", o); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		b, _ := os.ReadFile(o)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		slices.Sort(lines)
		outs = append(outs, strings.Join(lines, "\n"))
	}
	if strings.Count(outs[0], "\n") < 400 || outs[0] != outs[1] {
		t.Fatalf("stream rows differ by format (%d, %d lines)", strings.Count(outs[0], "\n"), strings.Count(outs[1], "\n"))
	}
}

// TestStreamJoinTypes: join stream --join semi writes each probe row with a
// live key once, anti each without one (a NULL key too), with the probe's
// columns only; left, right and full are refused by name.
func TestStreamJoinTypes(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	var ev, probe strings.Builder
	ev.WriteString("op,K,V\n")
	live := map[string]bool{}
	for k := range 40 {
		fmt.Fprintf(&ev, "+,%d,a%d\n+,%d,b%d\n", k*5, k, k*5, k) // two rows a key
		live[fmt.Sprint(k*5)] = true
	}
	probe.WriteString("ID,K\n")
	var semi, anti []string
	for i := range 1000 {
		k := fmt.Sprint(i % 300)
		if i%37 == 0 {
			k = "" // NULL
		}
		line := fmt.Sprintf("%d,%s", i, k)
		probe.WriteString(line + "\n")
		if live[k] {
			semi = append(semi, line)
		} else {
			anti = append(anti, line)
		}
	}
	evf, pf := mk("ev.csv", ev.String()), mk("probe.csv", probe.String())
	for jt, want := range map[string][]string{"semi": semi, "anti": anti} {
		o := filepath.Join(dir, jt+".csv")
		if _, _, err := runCmd("stream", "--key-events", evf, "--key-col", "K", "--probe", pf, "--join-col", "K", "--join", jt, "--batch", "64", "--out", o); err != nil {
			t.Fatalf("%s: %v", jt, err)
		}
		b, _ := os.ReadFile(o)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if lines[0] != "ID,K" {
			t.Errorf("%s: header %q", jt, lines[0])
		}
		got := lines[1:]
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: %d rows, want %d", jt, len(got), len(want))
		}
	}
	if _, _, err := runCmd("stream", "--key-events", evf, "--key-col", "K", "--probe", pf, "--join-col", "K", "--join", "left", "--out", filepath.Join(dir, "l.csv")); err == nil || !strings.Contains(err.Error(), "--join left") {
		t.Errorf("stream --join left: %v", err)
	}
}

// TestStreamNullKeepsBatches: a probe row of a NULL key counts in its batch
// for every join type (dropping it moved the later rows into earlier
// batches, against another key state: semi and anti both wrote row 1).
func TestStreamNullKeepsBatches(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	ev, pr := mk("ev.csv", "K,V\n+1,a\n-1\n"), mk("pr.csv", "ID,K\n0,\n1,1\n")
	for jt, want := range map[string]string{"inner": "ID,K,V\n", "semi": "ID,K\n", "anti": "ID,K\n0,\n1,1\n"} {
		o := filepath.Join(dir, jt+".csv")
		if _, _, err := runCmd("stream", "--key-events", ev, "--probe", pr, "--join", jt, "--batch", "1", "--out", o, "--quiet"); err != nil {
			t.Fatalf("%s: %v", jt, err)
		}
		if b, _ := os.ReadFile(o); string(b) != want {
			t.Errorf("%s: %q, want %q", jt, b, want)
		}
	}
}

// TestRunParquetBloom: run's Parquet output carries Bloom filters of its
// join column in row groups of --row-group rows (a join on it then skips
// the row groups its statistics cannot by them, as its report says), none with
// --parquet-bloom off; a rate out of [1e-6, 1), a word, or the flags with a
// CSV output are usage errors naming the flag, with no output left.
func TestRunParquetBloom(t *testing.T) {
	dir := t.TempDir()
	var large, keys strings.Builder
	large.WriteString("K,V\n")
	keys.WriteString("K\n")
	for i := range 4000 { // even keys only: an odd one lies within a row group's bounds, not in it
		fmt.Fprintf(&large, "%d,v%d\n", 2*i, i)
		fmt.Fprintf(&keys, "%d\n", 2*i)
	}
	lf, kf, few := filepath.Join(dir, "l.csv"), filepath.Join(dir, "k.csv"), filepath.Join(dir, "few.csv")
	for p, s := range map[string]string{lf: large.String(), kf: keys.String(), few: "K\n1500\n"} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		bloom   string
		skipped string
	}{{"", "3 row groups skipped by the file's Bloom filters"}, {"0.001", "3 row groups skipped by the file's Bloom filters"}, {"off", ""}} {
		out := filepath.Join(dir, "o"+c.bloom+".parquet")
		args := []string{"run", "--keys", kf, "--input", lf, "--key-col", "K", "--join-col", "K", "--sort", "--row-group", "500", "--out", out}
		if c.bloom != "" {
			args = append(args, "--parquet-bloom", c.bloom)
		}
		if _, _, err := runCmd(args...); err != nil {
			t.Fatal(err)
		}
		// Row group g holds 1000g to 1000g+998 (the rows are sorted). Keys
		// 1501, 3001 and 4501 lie within groups 1, 3 and 4 and are in
		// none: their filters skip them. The statistics skip group 0
		// (below every key) and 2, 5 and 6 (no key between their bounds);
		// group 7 holds 7998.
		if err := os.WriteFile(few, []byte("K\n1501\n3001\n4501\n7998\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, _, err := runCmd("run", "--keys", few, "--input", out, "--key-col", "K", "--join-col", "K", "--sort", "--out", filepath.Join(dir, "j.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if c.skipped != "" && !strings.Contains(stdout, c.skipped) || c.skipped == "" && strings.Contains(stdout, "by the file's Bloom filters") ||
			!strings.Contains(stdout, "8 row groups, 4 skipped by their statistics") {
			t.Errorf("--parquet-bloom %q: a join on the output:\n%s", c.bloom, stdout)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "j.csv")); string(b) != "K,V\n7998,v3999\n" {
			t.Errorf("--parquet-bloom %q: joined %q", c.bloom, b)
		}
	}
	for _, args := range [][]string{
		{"--parquet-bloom", "1", "--out", filepath.Join(dir, "x.parquet")},
		{"--parquet-bloom", "0", "--out", filepath.Join(dir, "x.parquet")},
		{"--parquet-bloom", "NaN", "--out", filepath.Join(dir, "x.parquet")},
		{"--parquet-bloom", "1e-300", "--out", filepath.Join(dir, "x.parquet")},
		{"--parquet-bloom", "some", "--out", filepath.Join(dir, "x.parquet")},
		{"--parquet-bloom", "0.01", "--out", filepath.Join(dir, "x.csv")},
		{"--row-group", "0", "--out", filepath.Join(dir, "x.parquet")},
		{"--row-group", "100", "--out", filepath.Join(dir, "x.csv")},
	} {
		_, stderr, err := runCmd(append([]string{"run", "--keys", kf, "--input", lf, "--key-col", "K", "--join-col", "K"}, args...)...)
		if err == nil || !strings.Contains(stderr+err.Error(), args[0]) {
			t.Errorf("%v: %v, %s", args, err, stderr)
		}
		if _, err := os.Stat(args[3]); err == nil {
			t.Errorf("%v: left %s", args, args[3])
		}
	}
}
