package app

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// readCSV reads a whole CSV file with encoding/csv: the independent reader.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

func csvLine(fields []string) string {
	var b []byte
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = csvscan.AppendField(b, []byte(f))
	}
	return string(b)
}

// TestStreamNBERMini: join stream prep, then join stream --window on the
// real sample, equals a naive range join of the prepared files read with
// encoding/csv (a citation joins the cited patent granted in the W days up
// to the citing patent's grant), as a multiset, for ACBF and CBF.
func TestStreamNBERMini(t *testing.T) {
	mini := testutil.NBERMini(t)
	pat := filepath.Join(mini, "apat63_99.mini.txt")
	dir := t.TempDir()
	if _, errOut, err := runCmd("stream", "prep", "--patents", pat, "--citations", filepath.Join(mini, "cite75_99.mini.txt"), "--out", dir); err != nil {
		t.Fatalf("stream prep: %v\n%s", err, errOut)
	}
	pats := readCSV(t, filepath.Join(dir, "patents-by-gdate.csv"))
	cites := readCSV(t, filepath.Join(dir, "citations-by-gdate.csv"))
	gcol := slices.Index(pats[0], "GDATE")
	type prow struct {
		g    int64
		rest string
	}
	byPatent := map[string][]prow{}
	for _, r := range pats[1:] {
		g, _ := strconv.ParseInt(r[gcol], 10, 64)
		byPatent[r[0]] = append(byPatent[r[0]], prow{g, csvLine(r[1:])})
	}
	const w = 1826
	var want []string
	for _, c := range cites[1:] {
		t0, _ := strconv.ParseInt(c[2], 10, 64)
		for _, p := range byPatent[c[1]] {
			if p.g <= t0 && t0-p.g < w {
				want = append(want, csvLine(c)+","+p.rest)
			}
		}
	}
	if len(want) < 100 {
		t.Fatalf("only %d expected rows: the test would show little", len(want))
	}
	slices.Sort(want)
	for _, kind := range testutil.RacePick([]string{"acbf", "cbf", "cuckoo"}, 1, testutil.RaceSeed(t)) { // under -race, one of them
		out := filepath.Join(dir, kind+".csv")
		stdout, errOut, err := runCmd("stream", "--key-events", filepath.Join(dir, "patents-by-gdate.csv"), "--key-col", "PATENT", "--key-time", "GDATE",
			"--probe", filepath.Join(dir, "citations-by-gdate.csv"), "--join-col", "CITED", "--window", strconv.Itoa(w), "--batch", "700",
			"--filter", kind, "--fpp", "0.01", "--verify", "--out", out)
		if err != nil {
			t.Fatalf("%s: %v\n%s", kind, err, errOut)
		}
		if !strings.Contains(stdout, "false negatives: 0") || !strings.Contains(stdout, "batch") {
			t.Errorf("%s: the report lacks its batch lines or false negatives:\n%s", kind, stdout)
		}
		got := readCSV(t, out)
		var lines []string
		for _, r := range got[1:] {
			lines = append(lines, csvLine(r))
		}
		slices.Sort(lines)
		if !slices.Equal(lines, want) {
			t.Fatalf("%s: %d rows, want %d; first difference: %s", kind, len(lines), len(want), firstDiff(lines, want))
		}
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] + " vs " + b[i]
		}
	}
	return "one is a prefix of the other"
}

// TestStreamCLI: flags and files as a user meets them.
func TestStreamCLI(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	ev := mk("ev.csv", "K,V\n+1,a\n+2,b\n-1\n")
	pr := mk("pr.csv", "K,W\n1,x\n2,y\n3,z\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--key-events", ev, "--probe", pr, "--filter", "bloom"}, "cannot delete keys"},
		{[]string{"--key-events", ev, "--probe", pr, "--batch", "0"}, "--batch 0: leave it out"},
		{[]string{"--key-events", ev, "--probe", pr, "--batch", "-3"}, "--batch -3"},
		{[]string{"--key-events", ev, "--probe", pr, "--window", "5"}, "--key-time is required with a window"},
		{[]string{"--key-events", ev, "--probe", pr, "--key-time", "V"}, "--key-time V: applies only with a window"},
		{[]string{"--key-events", ev, "--probe", pr, "--key-type", "float"}, "--key-type float: want auto, int or string"},
		{[]string{"--key-events", ev, "--probe", pr, "--bits-per-key", "0"}, "--bits-per-key 0"},
		{[]string{"--key-events", ev, "--probe", pr, "--filter", "cuckoo", "--k", "3"}, "--k: the cuckoo filter does not read it"},
		{[]string{"--key-events", ev, "--probe", pr, "--filter", "acbf", "--bucket-size", "2"}, "--bucket-size: the acbf filter does not read it"},
		{[]string{"--key-events", ev, "--probe", pr, "--cms-eps", "2"}, "--cms-eps 2"},
		{[]string{"--key-events", ev, "--probe", pr, "--report-json", ev}, "would destroy the input"},
		{[]string{"--key-events", ev, "--probe", pr, "--key-col", "Z"}, "--key-col Z"},
		{[]string{"--probe", pr}, "--key-events"},
		{[]string{"--key-events", "-", "--probe", "-"}, "one side only"},
	} {
		out := filepath.Join(dir, "out.csv")
		args := append([]string{"stream", "--out", out}, c.args...)
		_, errOut, err := runCmd(args...)
		if err == nil || !strings.Contains(err.Error()+errOut, c.want) {
			t.Errorf("join %q: %v (%s), want an error containing %q", args, err, errOut, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("join %q: failed but left %s", args, out)
			os.Remove(out)
		}
	}
	// A good run: one batch line, the output, a JSON report.
	out, rep := filepath.Join(dir, "ok.csv"), filepath.Join(dir, "rep.json")
	stdout, errOut, err := runCmd("stream", "--key-events", ev, "--probe", pr, "--batch", "1", "--out", out, "--report-json", rep)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	got, _ := os.ReadFile(out)
	// Batch 0 (probe row 1) sees events 0 (+1): 1 joins. Batch 1 sees +2:
	// 2 joins. Batch 2 sees -1: 3 joins nothing.
	if string(got) != "K,W,V\n1,x,a\n2,y,b\n" {
		t.Errorf("output %q", got)
	}
	if b, err := os.ReadFile(rep); err != nil || !strings.Contains(string(b), `"batch_reports"`) {
		t.Errorf("report %s: %v", b, err)
	}
	if strings.Count(stdout, "\n    ") < 3 {
		t.Errorf("want a line a batch:\n%s", stdout)
	}
}
