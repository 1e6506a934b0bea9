package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompositeCommands: composite keys through run, compare,
// build-filter and bank on generated triples with duplicates on both
// sides; every way gives the same rows.
func TestCompositeCommands(t *testing.T) {
	dir := t.TempDir()
	p := func(s string) string { return filepath.Join(dir, s) }
	for _, g := range [][]string{{"--rows", "300", "--seed", "1", "--out", p("k")}, {"--rows", "5000", "--seed", "2", "--out", p("i")}} {
		if _, _, err := runCmd(append([]string{"gen", "--dataset", "triples", "--domain", "6"}, g...)...); err != nil {
			t.Fatal(err)
		}
	}
	keys, input := p("k/triples.csv"), p("i/triples.csv")
	base := []string{"--keys", keys, "--input", input, "--key-col", "A,B,C", "--join-col", "A,B,C", "--quiet"}
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if _, _, err := runCmd(append([]string{"run", "--filter", "exact", "--sort", "--out", p("exact.csv")}, base...)...); err != nil {
		t.Fatal(err)
	}
	want := read(p("exact.csv"))
	if !strings.HasPrefix(want, "A,B,C,ROW,ROW_keys\n") || strings.Count(want, "\n") < 100 {
		t.Fatalf("exact join: %.200q", want)
	}
	for _, extra := range [][]string{
		{"--filter", "bloom"},
		{"--filter", "acbf", "--filter-layout", "per-column"},
		{"--filter", "cuckoo", "--key-type", "string"}, // the domain's integers have no leading zeros: the same rows
		{"--filter", "cbf", "--key-type", "int,string,int", "--mappers", "2", "--reducers", "3"},
	} {
		out := p("o.csv")
		if _, _, err := runCmd(append(append([]string{"run", "--sort", "--out", out}, base...), extra...)...); err != nil {
			t.Fatalf("%v: %v", extra, err)
		}
		if got := read(out); got != want {
			t.Fatalf("%v: output differs from the exact filter's", extra)
		}
	}
	// build-filter (the join columns left out: it reads the key side
	// only), then run with it.
	if _, _, err := runCmd("build-filter", "--keys", keys, "--key-col", "A,B,C", "--filter", "bloom", "--out", p("f.bin"), "--quiet"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(append([]string{"run", "--filter-file", p("f.bin"), "--sort", "--out", p("ff.csv")}, base...)...); err != nil {
		t.Fatal(err)
	}
	if read(p("ff.csv")) != want {
		t.Fatal("run --filter-file: output differs")
	}
	// compare shows both layouts of each kind.
	out, _, err := runCmd(append([]string{"compare", "--filters", "none,bloom,acbf"}, base[:len(base)-1]...)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"bloom per-column", "acbf per-column", " none ", " bloom "} {
		if !strings.Contains(out, s) {
			t.Errorf("compare output lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "none per-column") {
		t.Errorf("compare ran none per column:\n%s", out)
	}
	// A bank over the composite key, classed by ROW (every row its own
	// class would be too many: cut it), and a join by all its classes.
	if _, _, err := runCmd("bank", "build", "--keys", keys, "--key-col", "A,B,C", "--class-col", "ROW", "--classes", "cut:100,200", "--out", p("b.bank"), "--quiet"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd("bank", "validate", "--bank", p("b.bank"), "--keys", keys); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd("run", "--bank", p("b.bank"), "--keys", keys, "--input", input, "--join-col", "A,B,C", "--sort", "--out", p("bank.csv"), "--quiet"); err != nil {
		t.Fatal(err)
	}
	if read(p("bank.csv")) != want {
		t.Fatal("run --bank: output differs")
	}
	if _, _, err := runCmd("run", "--bank", p("b.bank"), "--keys", keys, "--input", input, "--key-col", "A,B", "--join-col", "A,B", "--out", p("x.csv"), "--quiet"); err == nil || !strings.Contains(err.Error(), "built with A,B,C") {
		t.Fatalf("bank of another key: %v", err)
	}
}

// TestCompositeFlagErrors: mistakes in composite key flags are one line
// naming the flag.
func TestCompositeFlagErrors(t *testing.T) {
	base := []string{"--keys", "k", "--input", "i"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--key-col", "A,B", "--join-col", "X"}, "run: --join-col X: 1 columns for the 2 key columns A,B"},
		{[]string{"run", "--key-col", ""}, "--key-col is empty"},
		{[]string{"run", "--key-col", "A,B", "--join-col", "X,Y", "--key-type", "int,int,int"}, "--key-type int,int,int"},
		{[]string{"run", "--filter-layout", "per-column"}, "--filter-layout per-column: needs a key of several columns"},
		{[]string{"run", "--key-col", "A,B", "--join-col", "X,Y", "--filter-layout", "stacked"}, "--filter-layout stacked: want composite or per-column"},
		{[]string{"build-filter", "--key-col", "A,B", "--filter-layout", "per-column", "--out", "f"}, "filter files hold composite filters"},
		{[]string{"run", "--key-col", `A,"B`, "--join-col", "X,Y"}, "--key-col"},
	} {
		_, _, err := runCmd(append(tc.args, base...)...)
		var u usageError
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &u) || strings.Contains(err.Error(), "\n") {
			t.Errorf("join %q = %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
}
