package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestNewKindsEverywhere: the cuckoo, scalable and blocked kinds work in run
// (with their own flags), build-filter and run --filter-file, and compare,
// and give the rows of the join without a filter; the flags of one kind
// are refused for another.
func TestNewKindsEverywhere(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := runCmd("gen", "--scale", "0.002", "--seed", "6", "--out", dir); err != nil {
		t.Fatal(err)
	}
	pat, cite := filepath.Join(dir, "apat63_99.txt"), filepath.Join(dir, "cite75_99.txt")
	keys := filepath.Join(dir, "keys.txt")
	if _, _, err := runCmd("keys", "--patents", pat, "--sample", "500", "--out", keys); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(dir, "ref.csv")
	if _, _, err := runCmd("run", "--keys", keys, "--input", cite, "--filter", "none", "--sort", "--quiet", "--out", ref); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(ref)
	// Under the race detector, 3 of the 8 filters.
	for _, tc := range testutil.RacePick([]struct {
		kind  string
		flags []string
		shape string
	}{
		{"cuckoo", nil, "b=4 f=30"},
		{"cuckoo", []string{"--bucket-size", "8", "--fingerprint-bits", "12"}, "b=8 f=12"},
		{"cuckoo", []string{"--fpp", "0.001"}, "b=4 f=13"},
		{"scalable", nil, "from 1000 keys"},
		{"scalable", []string{"--initial-capacity", "100", "--growth", "4", "--tightening", "0.8", "--fpp", "0.01"}, "P0=0.002 s=4 r=0.8 from 100 keys"},
		{"blocked", nil, "k=15"},
		{"blocked", []string{"--bits-per-key", "10", "--k", "4"}, "k=4"},
		{"acbf", []string{"--bits-per-key", "40", "--k", "3", "--acbf-capacity", "2000"}, "k=3"},
	}, 3, testutil.RaceSeed(t)) {
		name := tc.kind + strings.Join(tc.flags, "")
		out := filepath.Join(dir, name+".csv")
		rep := filepath.Join(dir, name+".json")
		args := append([]string{"run", "--keys", keys, "--input", cite, "--filter", tc.kind, "--sort", "--quiet", "--out", out, "--report-json", rep}, tc.flags...)
		if _, _, err := runCmd(args...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
			t.Fatalf("%s %v: other rows than without a filter", tc.kind, tc.flags)
		}
		var r struct {
			Filter struct {
				Kind, Shape, Params string
				MemoryBits          uint64 `json:"memory_bits"`
			}
		}
		data, _ := os.ReadFile(rep)
		if err := json.Unmarshal(data, &r); err != nil || r.Filter.Kind != tc.kind || !strings.Contains(r.Filter.Shape, tc.shape) || r.Filter.MemoryBits == 0 {
			t.Fatalf("%s %v: report filter %+v (%v), want shape %q", tc.kind, tc.flags, r.Filter, err, tc.shape)
		}
		// The same filter through a filter file.
		fb := filepath.Join(dir, name+".bin")
		bf := append([]string{"build-filter", "--keys", keys, "--filter", tc.kind, "--out", fb}, tc.flags...)
		if stdout, _, err := runCmd(bf...); err != nil || !strings.Contains(stdout, ": "+r.Filter.Params+" filter of") {
			t.Fatalf("%v: %v %q", bf, err, stdout)
		}
		out2 := filepath.Join(dir, name+"-file.csv")
		rep2 := filepath.Join(dir, name+"-file.json")
		if _, _, err := runCmd("run", "--keys", keys, "--input", cite, "--filter-file", fb, "--sort", "--quiet", "--out", out2, "--report-json", rep2); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(out2); !bytes.Equal(got, want) {
			t.Fatalf("%s %v from a filter file: other rows", tc.kind, tc.flags)
		}
		data2, _ := os.ReadFile(rep2)
		var r2 struct{ Filter map[string]any }
		var r1 struct{ Filter map[string]any }
		json.Unmarshal(data, &r1)
		json.Unmarshal(data2, &r2)
		// The same filter, and where it came from: the file.
		file, _ := r2.Filter["file"].(map[string]any)
		if file["name"] != fb || file["key_col"] != "PATENT" || file["key_type"] != "int" || file["keys"] == nil || r1.Filter["file"] != nil {
			t.Fatalf("%s: the filter file's report says it came from %v (built: %v)", tc.kind, r2.Filter["file"], r1.Filter["file"])
		}
		delete(r2.Filter, "file")
		if !reflect.DeepEqual(r1.Filter, r2.Filter) {
			t.Fatalf("%s: the filter file's report differs:\n%v\n%v", tc.kind, r1.Filter, r2.Filter)
		}
	}
	stdout, _, err := runCmd("compare", "--keys", keys, "--input", cite, "--filters", "cbf,cuckoo,scalable,blocked", "--bucket-size", "2", "--quiet")
	if err != nil {
		t.Fatal(err)
	}
	if stdout != "" {
		t.Fatalf("compare --quiet printed %q", stdout)
	}
	stdout, _, err = runCmd("compare", "--keys", keys, "--input", cite, "--filters", "cbf,cuckoo,scalable,blocked", "--bucket-size", "2")
	if err != nil || !strings.Contains(stdout, "b=2 f=") || !strings.Contains(stdout, "from 1000 keys") {
		t.Fatalf("compare: %v\n%s", err, stdout)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--filter", "bloom", "--bucket-size", "8"}, "run: --bucket-size: the bloom filter does not read it (an option of cuckoo)"},
		{[]string{"run", "--filter", "cuckoo", "--k", "3"}, "run: --k: the cuckoo filter does not read it"},
		{[]string{"run", "--growth", "3"}, "run: --growth: the acbf filter does not read it (an option of scalable)"},
		{[]string{"compare", "--filters", "cbf,bloom", "--tightening", "0.7"}, "compare: --tightening: none of cbf, bloom reads it (an option of scalable)"},
		{[]string{"run", "--filter", "cuckoo", "--bucket-size", "3"}, "run: --bucket-size 3: want 1, 2, 4 or 8"},
		{[]string{"run", "--filter", "cuckoo", "--bucket-size", "0"}, "run: --bucket-size 0: want 1, 2, 4 or 8"},
		{[]string{"run", "--filter", "scalable", "--growth", "0.5"}, "run: --growth 0.5: want a factor from 1 to 1024"},
		{[]string{"run", "--filter", "blocked", "--k", "20"}, "run: --k 20: the blocked filter takes a whole number from 1 to 16"},
		{[]string{"run", "--filter", "cbf", "--acbf-capacity", "900"}, "run: --acbf-capacity: the cbf filter does not read it (an option of acbf, acbf1, acbf2, acbf3)"},
		{[]string{"run", "--acbf-capacity", "499"}, "run: --acbf-capacity 499: the filter holds 500 keys: want a capacity of at least that"},
		{[]string{"run", "--acbf-capacity", "0"}, "run: --acbf-capacity 0: want 1 to 2^40 keys, at least the distinct keys (leave it out for exactly those)"},
		{[]string{"run", "--k", "6", "--acbf-capacity", "3000"}, "run: --acbf-capacity 3000: counter room for 3000 keys (k = 6 bits each) does not fit"},
		{[]string{"compare", "--filters", "cbf,acbf", "--acbf-capacity", "100"}, "compare: --acbf-capacity 100: the filter holds 500 keys"},
		{[]string{"run", "--filter", "fuse", "--fingerprint-bits", "12"}, "run: --fingerprint-bits 12: the fuse filter takes 8, 16 or 32"},
		{[]string{"compare", "--filters", "cuckoo,fuse", "--fingerprint-bits", "12"}, "compare: --fingerprint-bits 12: the fuse filter takes 8, 16 or 32"},
	} {
		args := append([]string{tc.args[0], "--keys", keys, "--input", cite, "--out", filepath.Join(dir, "x.csv")}, tc.args[1:]...)
		if tc.args[0] == "compare" {
			args = append([]string{"compare", "--keys", keys, "--input", cite}, tc.args[1:]...)
		}
		_, _, err := runCmd(args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
		// A value a kind does not take is a bad command line (exit 2),
		// known before any work; what only the keys' count decides is not.
		var u usageError
		if err != nil && !strings.Contains(tc.want, "keys") && !errors.As(err, &u) {
			t.Errorf("%v: %v is not a usage error", tc.args, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.csv")); !os.IsNotExist(err) {
		t.Fatal("a refused run left an output")
	}
}

// TestFilterSize: the table lists every kind with its parameters and formula
// FP at or below the target; sizes that cannot be met are a row naming
// why, not an error; bad flags are one-line usage errors.
func TestFilterSize(t *testing.T) {
	testutil.SkipUnderRace(t)
	out, _, err := runCmd("filter", "size", "--n", "1e6", "--fpp", "0.01")
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range filters.Kinds() {
		if !strings.Contains(out, "| "+string(sp.Kind)+" |") {
			t.Errorf("no row for %s:\n%s", sp.Kind, out)
		}
	}
	var rows []filters.SizeRow
	js, _, err := runCmd("filter", "size", "--n", "1e6", "--fpp", "0.01", "--json")
	if err != nil || json.Unmarshal([]byte(js), &rows) != nil || len(rows) != len(filters.Kinds()) {
		t.Fatalf("--json: %v, %d rows\n%s", err, len(rows), js)
	}
	for _, r := range rows {
		if sp, _ := filters.Lookup(string(r.Kind)); sp.Sized && (r.FPP > 0.01 || r.FPP <= 0 || r.BitsPerKey <= 0 || r.Err != "") {
			t.Errorf("%s: FP %v at %v bits per key (%s)", r.Kind, r.FPP, r.BitsPerKey, r.Err)
		}
	}
	out, _, err = runCmd("filter", "size", "--n", "1000", "--bits-per-key", "8", "--kind", "acbf2,cuckoo", "--k", "6")
	if err != nil || !strings.Contains(out, "| acbf2 | | | | | yes | cannot: --bits-per-key 8: k = 6 counter bits per key do not fit") {
		t.Fatalf("acbf2 at 8 bits per key, k = 6: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"filter", "size"}, "filter size: --n is required"},
		{[]string{"filter", "size", "--n", "1.5"}, `invalid value "1.5" for flag -n: want a whole number`},
		{[]string{"filter", "size", "--n", "10", "--fpp", "0.1", "--bits-per-key", "8"}, "filter size: --bits-per-key and --fpp both size the filter: give one"},
		{[]string{"filter", "size", "--n", "10", "--filter-budget", "1KiB", "--bits-per-key", "8"}, "filter size: --bits-per-key and --filter-budget both size the filter: give one"},
		{[]string{"filter", "size", "--n", "10", "--filter-budget", "2GiB"}, "filter size: --filter-budget \"2GiB\": want at most 1GiB"},
		{[]string{"filter", "size", "--n", "10", "--kind", "quotient"}, `filter size: --kind "quotient": unknown filter (want all, or some of none, exact`},
		{[]string{"compare", "--keys", "k", "--input", "i", "--filters", "auto"}, `compare: --filters auto: compare measures each kind named; auto chooses one`},
		{[]string{"filter", "size", "--n", "10", "--kind", "cbf", "--fingerprint-bits", "8"}, "--fingerprint-bits: the cbf filter does not read it"},
		{[]string{"filter", "nope"}, `filter: unknown subcommand "nope"`},
		{[]string{"filter", "eval"}, "filter eval: --n 0 (the default): want 1 to"},
		{[]string{"filter", "eval", "--n", "10", "--churn", "-1"}, `invalid value "-1" for flag -churn: want a whole number`},
		{[]string{"filter", "eval", "--n", "10", "--queries", "0"}, "--queries 0: want 1 to"},
		{[]string{"filter", "plot", "--n", "10"}, "filter plot: --out is required"},
		{[]string{"filter", "plot", "--n", "10", "--bits", "8:4:1", "--out", "x.svg"}, `--bits "8:4:1": want FROM <= TO`},
		{[]string{"filter", "plot", "--n", "10", "--bits", "-2,8", "--out", "x.svg"}, "--bits \"-2,8\""},
	} {
		_, _, err := runCmd(tc.args...)
		var u usageError
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errorsAs(err, &u) {
			t.Errorf("%v: %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
}

// TestFilterEval: every kind passes at a small n with churn; the JSON has
// the same verdicts as the table; --report-json writes the same JSON.
func TestFilterEval(t *testing.T) {
	testutil.SkipUnderRace(t)
	dir := t.TempDir()
	rep := filepath.Join(dir, "eval.json")
	out, _, err := runCmd("filter", "eval", "--n", "3000", "--queries", "30000", "--churn", "2", "--seed", "5", "--report-json", rep)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "FAIL") || strings.Count(out, "| PASS |") != len(filters.Kinds()) {
		t.Fatalf("not every kind passed:\n%s", out)
	}
	js, _, err := runCmd("filter", "eval", "--n", "3000", "--queries", "30000", "--churn", "2", "--seed", "5", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var a, b evalReport
	data, _ := os.ReadFile(rep)
	if json.Unmarshal([]byte(js), &a) != nil || json.Unmarshal(data, &b) != nil || len(a.Results) != len(filters.Kinds()) || a.Seed != 5 || a.Churn != 2 {
		t.Fatalf("JSON: %+v", a)
	}
	for i := range a.Results {
		ra, rb := a.Results[i], b.Results[i]
		if ra.Kind != rb.Kind || ra.FalsePositives != rb.FalsePositives || ra.Pass != rb.Pass || !ra.Pass {
			t.Errorf("%s: the same seed gave %d and %d false positives (pass %v, %v)", ra.Kind, ra.FalsePositives, rb.FalsePositives, ra.Pass, rb.Pass)
		}
	}
	for _, tc := range []struct{ args, want string }{
		{"eval --n 100 --churn 1e9", "filter eval: --churn 1000000000: want 0 to 1000 rounds"},
		{"eval --n 100 --kinds cuckoo,bloom,cuckoo", "filter eval: --kinds cuckoo is given twice"},
		{"plot --out x.svg --bits 0", "filter plot: --bits \"0\": 0: want bits per key above 0"},
		{"plot --out x.svg --bits -2:4:2", "filter plot: --bits \"-2:4:2\": FROM -2: want bits per key above 0"},
	} {
		_, _, err := runCmd(append([]string{"filter"}, strings.Fields(tc.args)...)...)
		if err == nil || err.Error() != tc.want {
			t.Errorf("filter %s: %v, want %q", tc.args, err, tc.want)
		}
	}
	svg := filepath.Join(dir, "fp.svg")
	out, _, err = runCmd("filter", "plot", "--n", "2000", "--queries", "20000", "--bits", "8,16", "--kinds", "bloom,cuckoo,none", "--out", svg)
	if err != nil || strings.Count(out, "| bloom |") != 2 || strings.Count(out, "| cuckoo |") != 2 || strings.Contains(out, "| none |") {
		t.Fatalf("plot: %v\n%s", err, out)
	}
	if data, err := os.ReadFile(svg); err != nil || !bytes.Contains(data, []byte("<svg")) || !bytes.Contains(data, []byte("cuckoo")) {
		t.Fatalf("plot SVG: %v", err)
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
