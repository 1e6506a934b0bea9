package app

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
)

// TestBadInputs: every malformed input ends in one line naming the file and
// line (or flag) with exit status 1 (runtime) or 2 (usage), and no output file;
// the inputs that must work do.
func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	w := fileMaker(t, dir)
	gz := func(name, content string, cut int) string {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(content))
		zw.Close()
		data := b.Bytes()
		return w(name, string(data[:len(data)-cut]))
	}
	zipOf := func(name string, files map[string]string, cut int) string {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		for n, c := range files {
			f, _ := zw.Create(n)
			f.Write([]byte(c))
		}
		zw.Close()
		data := b.Bytes()
		return w(name, string(data[:len(data)-cut]))
	}
	keys := w("keys.csv", "PATENT,NAME\n1,one\n2,two\n")
	big := strings.Repeat("9", 3<<20)
	good := "CITING,CITED\n10,1\n11,2\n"
	cases := []struct {
		name, input, want string
		usage             bool
		ok                bool
	}{
		{"missing", filepath.Join(dir, "nope.csv"), "nope.csv: no such file", false, false},
		// A folder is a side of many files (issue 47): never one the
		// output is written into (this one's files do not agree either).
		{"directory", dir, "is in the folder of the input --input " + dir, true, false},
		{"empty", w("empty.csv", ""), "empty.csv:1: empty file: no header", false, false},
		{"header only", w("hdr.csv", "CITING,CITED\n"), "", false, true},
		{"no such column", w("nocol.csv", "A,B\n1,2\n"), `--join-col CITED (the default): ` + filepath.Join(dir, "nocol.csv") + ` has no column "CITED" (columns: "A", "B")`, false, false},
		{"duplicated column", w("dup.csv", "CITED,CITED\n1,2\n"), `dup.csv:1: column "CITED" appears twice`, false, false},
		{"too few fields", w("few.csv", good+"12\n"), "few.csv:4: 1 fields, want 2", false, false},
		{"too many fields", w("many.csv", good+"12,1,3\n"), "many.csv:4: 3 fields, want 2", false, false},
		{"not an integer", w("nonint.csv", good+"12,x1\n"), `nonint.csv:4: CITED: invalid integer "x1"`, false, false},
		{"overflow", w("overflow.csv", good+"12,99999999999999999999\n"), `overflow.csv:4: CITED: invalid integer "99999999999999999999": value out of range`, false, false},
		{"spaces", w("spaces.csv", good+"12, 1\n"), `spaces.csv:4: CITED: invalid integer " 1"`, false, false},
		{"leading plus", w("plus.csv", good+"12,+1\n"), "", false, true},
		{"quoted number", w("quoted.csv", good+"12,\"1\"\n"), "", false, true},
		{"line of megabytes", w("long.csv", good+"12,"+big+"\n"), "long.csv:4: record longer than 1048576 bytes", false, false},
		{"NUL and invalid UTF-8", w("bytes.csv", "CITING,CITED\n1\x00\xff,1\n"), "", false, true},
		{"CRLF, no final newline", w("crlf.csv", "CITING,CITED\r\n10,1\r\n11,2"), "", false, true},
		{"unterminated quote", w("quote.csv", good+"12,\"1\n"), "quote.csv:4: quoted field 2 is not closed", false, false},
		{"truncated gz", gz("trunc.csv.gz", good, 6), "trunc.csv.gz", false, false},
		{"good gz", gz("good.csv.gz", good, 0), "", false, true},
		{"truncated zip", zipOf("trunc.zip", map[string]string{"c.txt": good}, 30), "trunc.zip: not a zip file", false, false},
		{"empty zip", zipOf("none.zip", map[string]string{}, 0), "none.zip: zip archive is empty", false, false},
		{"zip of two", zipOf("two.zip", map[string]string{"a.txt": good, "b.txt": good}, 0), "two.zip: zip archive holds 2 files", false, false},
		{"same file both sides", keys, "", false, true},
	}
	for _, tc := range cases {
		out := filepath.Join(dir, "out-"+strings.ReplaceAll(tc.name, " ", "_")+".csv")
		args := []string{"run", "--keys", keys, "--input", tc.input, "--out", out}
		switch tc.name {
		case "same file both sides":
			args = append(args, "--join-col", "PATENT")
		case "not an integer", "overflow", "spaces":
			// Given int: a key that is no integer is an error (with
			// auto, it is a key that cannot match, counted).
			args = append(args, "--key-type", "int")
		}
		_, _, err := runCmd(args...)
		if tc.ok {
			if err != nil {
				t.Errorf("%s: %v, want success", tc.name, err)
			}
			continue
		}
		var u usageError
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &u) != tc.usage {
			t.Errorf("%s: %v, want %q (usage error %v)", tc.name, err, tc.want, tc.usage)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error spans lines", tc.name)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%s: output written", tc.name)
		}
	}
	// Flags.
	input := w("input.csv", good)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--frobnicate"}, "flag provided but not defined: -frobnicate (see join run -h)"},
		{[]string{"--k", "0"}, "--k 0: want a whole number from 1 to 64"},
		{[]string{"--fpp", "1.5"}, "--fpp 1.5: want a rate between 0 and 1"},
		{[]string{"--mappers", "-1"}, "--mappers -1: want at least 1 (0: one per core)"},
		{[]string{"--mem", "4KiB", "--mappers", "2", "--reducers", "2"}, "--mem 4KiB: below the minimum of 256KiB for 2 mappers and 2 reducers"},
		{[]string{"--mem", "1MiB", "--mappers", "2", "--reducers", "64"}, "--mem 1MiB: below the minimum of 8MiB for 2 mappers and 64 reducers"},
		{[]string{"--out", filepath.Join(dir, "no", "such", "out.csv")}, "does not exist"},
		{[]string{"--out", input}, "is the input"},
		{[]string{"--format", "xml"}, `--format xml: want csv, tsv, jsonl, parquet, arrow or arrow-stream`},
		{[]string{"--filter", "quotient"}, `--filter quotient: unknown filter (want auto or one of none, exact`},
		{[]string{"--bits-per-key", "-2"}, "--bits-per-key -2: want a positive number of bits per key"},
		{[]string{"--bits-per-key", "0"}, "--bits-per-key 0: want a positive number of bits per key (leave it out for 32)"},
		{[]string{"--bad-rows", "ignore"}, `--bad-rows "ignore"`},
		{[]string{"--tmp-dir", filepath.Join(dir, "missing")}, "--tmp-dir " + filepath.Join(dir, "missing") + ": not an existing folder"},
		{[]string{"--temp-dir", input}, "not an existing folder"},
	} {
		args := withFlags([]string{"run", "--keys", keys, "--input", input, "--out", filepath.Join(dir, "flags.csv")}, tc.args...)
		_, _, err := runCmd(args...)
		var u usageError
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &u) {
			t.Errorf("%v: %v, want usage error %q", tc.args, err, tc.want)
		}
	}
	// A flag given twice is refused: --out a --out b wrote b, silently.
	_, _, err := runCmd("run", "--keys", keys, "--input", input, "--out", filepath.Join(dir, "a.csv"), "--out", filepath.Join(dir, "b.csv"))
	var u usageError
	if err == nil || !strings.Contains(err.Error(), "flag -out: given twice") || !errors.As(err, &u) {
		t.Errorf("--out twice: %v", err)
	}
	// An ACBF whose k does not fit says which size would.
	_, _, err = runCmd("run", "--keys", keys, "--input", input, "--out", filepath.Join(dir, "k.csv"), "--k", "40")
	if err == nil || !strings.Contains(err.Error(), "--bits-per-key 32 (the default): 32 bits per key cannot hold k = 40 counter bits per key beside a first level (they share the budget): more than 40 bits per key, or a smaller k") {
		t.Errorf("--k 40: %v", err)
	}
}

// TestHelpAgrees: what the help says of a flag's value is what it does.
func TestHelpAgrees(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	keys := mk("k.csv", "PATENT,C\n1,a\n2,b\n")
	input := mk("i.csv", "CITING,CITED\n10,1\n11,3\n")
	events := mk("e.csv", "PATENT,GDATE\n1,5\n")
	// --mappers 0 and --reducers 0 are "one per core", as the help says.
	for _, cmd := range [][]string{
		{"run", "--keys", keys, "--input", input, "--mappers", "0", "--reducers", "0", "--out", filepath.Join(dir, "o.csv"), "--quiet"},
		{"bank", "build", "--keys", keys, "--key-col", "PATENT", "--class-col", "C", "--classes", "value", "--mappers", "0", "--out", filepath.Join(dir, "b.bank"), "--quiet"},
	} {
		if _, stderr, err := runCmd(cmd...); err != nil {
			t.Errorf("%s: %v\n%s", strings.Join(cmd, " "), err, stderr)
		}
	}
	if _, _, err := runCmd("bank", "build", "--keys", keys, "--key-col", "PATENT", "--class-col", "C", "--classes", "value", "--mappers", "-3", "--out", filepath.Join(dir, "c.bank")); err == nil || !strings.Contains(err.Error(), "--mappers -3: want at least 1") {
		t.Errorf("bank build --mappers -3: %v", err)
	}
	// Kinds without counters take a budget below one 4-bit counter a key.
	for _, kind := range []string{"bloom", "blocked", "scalable", "cbf", "acbf"} {
		path := filepath.Join(dir, kind+".csv")
		_, stderr, err := runCmd("run", "--keys", keys, "--input", input, "--filter", kind, "--bits-per-key", "1", "--out", path, "--quiet")
		if out, _ := os.ReadFile(path); err != nil || string(out) != "CITING,CITED,C\n10,1,a\n" {
			t.Errorf("--filter %s --bits-per-key 1: %v %q %s", kind, err, out, stderr)
		}
	}
	if _, _, err := runCmd("run", "--keys", keys, "--input", input, "--filter", "cuckoo", "--bits-per-key", "1"); err == nil || strings.Contains(err.Error(), "counter") || !strings.Contains(err.Error(), "cuckoo filter") {
		t.Errorf("cuckoo at 1 bit a key: %v, want its own minimum", err)
	}
	// filter size --bits-per-key 0 meant 32, silently.
	if _, _, err := runCmd("filter", "size", "--n", "1000", "--bits-per-key", "0"); err == nil || !strings.Contains(err.Error(), "--bits-per-key 0: want a positive number") {
		t.Errorf("filter size --bits-per-key 0: %v", err)
	}
	// stream --window 0: leaving --window out changes the mode.
	if _, _, err := runCmd("stream", "--key-events", events, "--key-col", "PATENT", "--key-time", "GDATE", "--probe", input, "--window", "0"); err == nil || strings.Contains(err.Error(), "leave it out") || !strings.Contains(err.Error(), "--window 0: want a positive time") {
		t.Errorf("stream --window 0: %v", err)
	}
}

// TestEmptyKeySide: a key side of a header and no rows joins nothing, as
// SQL's join with an empty table does, for every kind and every command
// that joins (a sized filter of no keys was an error, "cannot be sized for
// none", while beamjoin returned the empty join).
func TestEmptyKeySide(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	keys := mk("k.csv", "PATENT,NAME\n")
	pairs := mk("p.csv", "CITING,CITED,NAME\n")
	input := mk("i.csv", "CITING,CITED\n10,1\n11,2\n")
	const header = "CITING,CITED,NAME\n"
	out := filepath.Join(dir, "o.csv")
	check := func(what string, args []string, want string) {
		t.Helper()
		os.Remove(out)
		_, stderr, err := runCmd(append(args, "--out", out)...)
		got, _ := os.ReadFile(out)
		if err != nil || string(got) != want {
			t.Errorf("%s: %v %s; output %q, want %q", what, err, stderr, got, want)
		}
	}
	for _, sp := range filters.Kinds() {
		check("run --filter "+string(sp.Kind), []string{"run", "--keys", keys, "--input", input, "--filter", string(sp.Kind), "--quiet"}, header)
	}
	check("run --filter auto", []string{"run", "--keys", keys, "--input", input, "--filter", "auto", "--quiet"}, header)
	check("composite", []string{"run", "--keys", pairs, "--input", input, "--key-col", "CITING,CITED", "--join-col", "CITING,CITED", "--quiet"}, "CITING,CITED,NAME\n")
	check("per-column", []string{"run", "--keys", pairs, "--input", input, "--key-col", "CITING,CITED", "--join-col", "CITING,CITED", "--filter-layout", "per-column", "--filter", "bloom", "--quiet"}, "CITING,CITED,NAME\n")
	// compare: every kind, no error.
	if stdout, stderr, err := runCmd("compare", "--keys", keys, "--input", input, "--filters", "all"); err != nil || !strings.Contains(stdout, "acbf") {
		t.Errorf("compare: %v\n%s%s", err, stdout, stderr)
	}
	// A filter file of no keys, and a join with it.
	ff := filepath.Join(dir, "e.acbf")
	if _, stderr, err := runCmd("build-filter", "--keys", keys, "--out", ff); err != nil {
		t.Errorf("build-filter: %v %s", err, stderr)
	}
	check("run --filter-file", []string{"run", "--keys", keys, "--input", input, "--filter-file", ff, "--quiet"}, header)
	// A bank of no classes: built, validated, joined (also routed).
	bk := filepath.Join(dir, "e.bank")
	for _, args := range [][]string{
		{"bank", "build", "--keys", keys, "--key-col", "PATENT", "--class-col", "NAME", "--classes", "value", "--filter", "cbf", "--out", bk, "--quiet"},
		{"bank", "validate", "--bank", bk, "--keys", keys},
	} {
		if _, stderr, err := runCmd(args...); err != nil {
			t.Errorf("%s: %v %s", strings.Join(args[:2], " "), err, stderr)
		}
	}
	check("run --bank", []string{"run", "--bank", bk, "--keys", keys, "--input", input, "--quiet"}, header)
	check("run --bank --route column", []string{"run", "--bank", bk, "--keys", keys, "--input", input, "--route", "column", "--quiet"}, "CITING,CITED,NAME,class\n")
	// The stream: key events of none, and timed rows of none.
	events := mk("ev.csv", "op,PATENT\n")
	check("stream", []string{"stream", "--key-events", events, "--probe", input, "--join-col", "CITED", "--quiet"}, "CITING,CITED,PATENT\n")
	timed := mk("t.csv", "PATENT,GDATE\n")
	probe := mk("pt.csv", "CITING,CITED,GDATE\n10,1,3\n")
	check("stream --window", []string{"stream", "--key-events", timed, "--key-col", "PATENT", "--key-time", "GDATE", "--window", "5", "--probe", probe, "--join-col", "CITED", "--quiet"}, "CITING,CITED,GDATE,GDATE_keys\n")
}

// TestErrorsNameTheFlag: a missing or unreadable file is named by its flag
// (it said "stat nope.txt"), and a key that is not an integer hints at
// --key-type string.
func TestErrorsNameTheFlag(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	keys := mk("k.csv", "PATENT,C\n1,a\n")
	input := mk("i.csv", "CITING,CITED\n10,1\n")
	ips := mk("ip.csv", "IP,C\n49.69.121.227,a\n")
	nope := filepath.Join(dir, "nope")
	out := filepath.Join(dir, "o.csv")
	empty := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--keys", nope, "--input", input, "--out", out}, "run: --keys " + nope + ": no such file or directory"},
		{[]string{"run", "--keys", keys, "--input", nope, "--out", out}, "run: --input " + nope + ": no such file or directory"},
		// A folder, by either flag, is a side of many files (issue 47):
		// never one the output goes into; its files must agree.
		{[]string{"run", "--keys", dir, "--input", input, "--out", out}, "run: --out " + out + ": is in the folder of the input --keys " + dir},
		{[]string{"run", "--keys", dir, "--input", input, "--key-type", "int", "--out", out}, "run: --out " + out + ": is in the folder of the input --keys " + dir},
		{[]string{"run", "--keys", keys, "--input", dir, "--out", out}, "run: --out " + out + ": is in the folder of the input --input " + dir},
		{[]string{"compare", "--keys", dir, "--input", input}, "the files of a side must have the same header"},
		{[]string{"compare", "--keys", keys, "--input", dir}, "the files of a side must have the same header"},
		{[]string{"build-filter", "--keys", dir, "--out", out}, "build-filter: --out " + out + ": is in the folder of the input --keys " + dir},
		{[]string{"run", "--keys", keys, "--input", empty, "--out", out}, "run: --input " + empty + ": an empty folder"},
		{[]string{"run", "--keys", keys, "--input", filepath.Join(dir, "none-*.csv"), "--out", out}, "run: --input " + filepath.Join(dir, "none-*.csv") + ": no file matches it"},
		{[]string{"run", "--keys", keys, "--input", input, "--filter-file", nope, "--out", out}, "run: --filter-file " + nope + ": no such file"},
		{[]string{"run", "--bank", nope, "--keys", keys, "--input", input, "--out", out}, "run: --bank " + nope + ": no such file"},
		{[]string{"compare", "--keys", keys, "--input", nope}, "compare: --input " + nope + ": no such file"},
		{[]string{"build-filter", "--keys", nope, "--out", out}, "build-filter: --keys " + nope + ": no such file"},
		{[]string{"bank", "build", "--keys", nope, "--key-col", "PATENT", "--class-col", "C", "--out", out}, "bank build: --keys " + nope + ": no such file"},
		{[]string{"bank", "validate", "--bank", nope, "--keys", keys}, "bank validate: --bank " + nope + ": no such file"},
		{[]string{"stream", "--key-events", nope, "--probe", input}, "stream: --key-events " + nope + ": no such file"},
		{[]string{"stream", "--key-events", keys, "--probe", nope}, "stream: --probe " + nope + ": no such file"},
		{[]string{"stream", "--key-events", keys, "--probe", input, "--tmp-dir", nope}, "stream: --tmp-dir " + nope + ": not an existing folder"}, // as run refuses it, before any row
		{[]string{"keys", "--patents", nope, "--out", out}, "keys: --patents " + nope + ": no such file"},
		{[]string{"keys", "--from", nope, "--out", out}, "keys: --from " + nope + ": no such file"},
		{[]string{"stream", "prep", "--patents", nope, "--citations", input, "--out", filepath.Join(dir, "sp")}, "stream prep: --patents " + nope + ": no such file"},
		{[]string{"demo", "--data", nope}, "demo: --data " + nope + ": none of"},
		{[]string{"multikey", "absent", "--keys", nope, "--key-col", "A,B"}, "multikey absent: --keys " + nope + ": no such file"},
		{[]string{"multikey", "absent", "--keys", keys, "--key-col", "PATENT,PATENT"}, "join: multikey absent: --key-col PATENT,PATENT: column list"},
		{[]string{"multikey", "absent", "--keys", keys, "--key-col", "PATENT,NOPE"}, "join: multikey absent: --key-col PATENT,NOPE: " + keys + ` has no column "NOPE"`},
		{[]string{"run", "--keys", ips, "--key-col", "IP", "--key-type", "int", "--input", input, "--out", out}, `IP: invalid integer "49.69.121.227"`},
	} {
		_, _, err := runCmd(c.args...)
		msg := ""
		if err != nil {
			msg = "join: " + err.Error() // as main prints it
		}
		if err == nil || !strings.Contains(msg+hint(err), c.want) || strings.Count(msg, "multikey absent:") > 1 {
			t.Errorf("%s: %v, want %q", strings.Join(c.args, " "), err, c.want)
		}
		if err != nil && strings.Contains(c.want, "invalid integer") && !strings.Contains(hint(err), "--key-type string") {
			t.Errorf("%s: no hint of --key-type string: %q", strings.Join(c.args, " "), hint(err))
		}
	}
}
