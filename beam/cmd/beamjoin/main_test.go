package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// The test binary is beamjoin itself when BEAMJOIN_MAIN is set (the flags
// are package variables, and Beam's runner flags live in the global set).
func TestMain(m *testing.M) {
	if os.Getenv("BEAMJOIN_MAIN") == "1" {
		if os.Getenv("BEAMJOIN_SIGNAL_BEFORE_COPY") == "1" {
			beforeCopy = func(ctx context.Context) { // a stop signal as the rows are copied into --out
				syscall.Kill(os.Getpid(), syscall.SIGINT)
				<-ctx.Done() // delivered and the run cancelled, however long it takes
			}
		}
		os.Args = append([]string{"beamjoin"}, strings.Fields(os.Getenv("BEAMJOIN_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runCmd runs the command with args in a fresh temporary folder (TMPDIR),
// returning its exit status, standard output and standard error.
func runCmd(t *testing.T, tmp string, args ...string) (int, string, string) {
	t.Helper()
	for _, a := range args {
		if strings.ContainsAny(a, " \t\n") {
			t.Fatalf("argument %q: no spaces (passed in an environment variable)", a)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BEAMJOIN_MAIN=1", "BEAMJOIN_ARGS="+strings.Join(args, " "), "TMPDIR="+tmp)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// files writes a small key file and input into a new folder.
func files(t *testing.T) (dir, keys, input string) {
	t.Helper()
	dir = t.TempDir()
	keys, input = filepath.Join(dir, "k.csv"), filepath.Join(dir, "i.csv")
	if err := os.WriteFile(keys, []byte("PATENT,NAME\n1,a\n2,b\n3,c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(input, []byte("CITING,CITED\n10,1\n11,2\n12,9\n13,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, keys, input
}

// TestOutputsRefused: beamjoin refuses every output that join run refuses
// (the same code: atomicfile.Check), and an input read from standard input,
// with the inputs untouched and nothing left in the temporary folder.
func TestOutputsRefused(t *testing.T) {
	dir, keys, input := files(t)
	if err := os.Symlink(input, filepath.Join(dir, "link-i.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(keys, filepath.Join(dir, "link-k.csv")); err != nil {
		t.Fatal(err)
	}
	keysBefore, _ := os.ReadFile(keys)
	inputBefore, _ := os.ReadFile(input)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"out is the input", []string{"--keys", keys, "--input", input, "--out", input}, "would destroy the input"},
		{"out is the key file", []string{"--keys", keys, "--input", input, "--out", keys}, "would destroy the input"},
		{"out links to the input", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "link-i.csv")}, "would destroy the input"},
		{"out links to the key file", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "link-k.csv")}, "would destroy the input"},
		{"out is a folder", []string{"--keys", keys, "--input", input, "--out", dir}, "is a folder"},
		{"out named as Parquet", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.parquet")}, "beamjoin writes CSV, and the name asks for parquet (join run writes it): name it .csv or .csv.gz"},
		{"out named as TSV", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.tsv")}, "the name asks for tsv"},
		{"out named as a zip", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.zip")}, "o.zip: its name is no CSV file's: beamjoin writes CSV alone (name it .csv or .csv.gz)"},
		{"out in a missing folder", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "no", "o.csv")}, "does not exist"},
		{"input from standard input", []string{"--keys", keys, "--input", "-", "--out", filepath.Join(dir, "o.csv")}, "not standard input"},
		{"missing input", []string{"--keys", keys, "--input", filepath.Join(dir, "nope.csv"), "--out", filepath.Join(dir, "o.csv")}, "nope.csv: no such file"},
		{"cpuprofile is the input", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--cpuprofile", input}, "--cpuprofile " + input + " is the input --input"},
		{"cpuprofile is the output", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--cpuprofile", filepath.Join(dir, "o.csv")}, "are the same file"},
		{"bits-per-key 0", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--bits-per-key", "0"}, "--bits-per-key 0: want a positive number of bits per key (leave it out for 32)"},
		{"bits-per-key and fpp", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--bits-per-key", "8", "--fpp", "0.01"}, "give one"},
		{"a size for exact", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--filter", "exact", "--bits-per-key", "8"}, "--bits-per-key: the exact filter does not read it"},
		{"a negative k", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--k", "-1"}, "--k -1: want a whole number from 1 to 64"},
		{"a flag given twice", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--k", "3", "--k", "4"}, `beamjoin: invalid value "4" for flag -k: given twice ("3", then "4") (see beamjoin -h)`},
		{"a separator of two bytes", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--delim", ";;"}, `beamjoin: --delim ";;": want one byte such as "," or "\t" (not a quote or line break)`},
		{"a quote as a side's separator", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--input-delim", `"`}, `--input-delim "\"": want one byte`},
		{"an empty column name", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--columns", "CITED,,NAME"}, `beamjoin: --columns "CITED,,NAME": want column names, comma-separated`},
		{"an unknown flag", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--bogus"}, "beamjoin: flag provided but not defined: -bogus (see beamjoin -h)"},
		{"on with key-col", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--on", "CITED", "--key-col", "PATENT"}, `beamjoin: --on "CITED" names the join column of both sides: give --on, or --key-col and --join-col, not both`},
		{"on names a missing column", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--on", "NOPE"}, `beamjoin: --on NOPE: `}, // not --key-col, which was not given
		{"an empty suffix", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--suffix="}, "--suffix is empty"},
		{"a size too small for the keys", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--filter", "acbf3", "--bits-per-key", "2"}, "--bits-per-key 2: k = 1 counter bits per key do not fit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			code, _, stderr := runCmd(t, tmp, c.args...)
			// A bad command line exits 2, as join's; what it names that
			// cannot be read or fits no keys, 1.
			want := 2
			if strings.Contains(c.name, "missing input") || strings.Contains(c.name, "standard input") || strings.Contains(c.name, "too small") || strings.Contains(c.name, "missing column") {
				want = 1
			}
			if code != want || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("exit %d, stderr %q: want %d and one line containing %q", code, stderr, want, c.want)
			}
			if got, _ := os.ReadFile(keys); !bytes.Equal(got, keysBefore) {
				t.Errorf("the key file changed: %q", got)
			}
			if got, _ := os.ReadFile(input); !bytes.Equal(got, inputBefore) {
				t.Errorf("the input changed: %q", got)
			}
			if l := testutil.DirNames(t, tmp); len(l) > 0 {
				t.Errorf("left in TMPDIR: %q", l)
			}
			if _, err := os.Stat(filepath.Join(dir, "o.csv")); err == nil {
				t.Errorf("an output was written")
			}
		})
	}
}

// TestHelp: -h prints the usage, every flag with its type and default
// (it printed a panic a flag: flag.PrintDefaults made a zero cli.Once
// wrapper), and exits 0.
func TestHelp(t *testing.T) {
	code, stdout, stderr := runCmd(t, t.TempDir(), "-h")
	help := stdout + stderr
	if code != 0 || strings.Contains(help, "panic calling") || !strings.Contains(help, "-bits-per-key float") || !strings.Contains(help, "-keys string") {
		t.Errorf("-h: exit %d, %q", code, help)
	}
}

// TestNothingLeft: a run that succeeds, one that fails in the pipeline and
// one with no rows leave nothing in the temporary folder (Beam's LOOPBACK
// runs leave an empty beamloopbackworker-N there) nor beside the output.
func TestNothingLeft(t *testing.T) {
	dir, keys, input := files(t)
	out := filepath.Join(dir, "out", "joined.csv")
	if err := os.Mkdir(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.csv")
	if err := os.WriteFile(empty, []byte("CITING,CITED\n10,99\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noKeys := filepath.Join(dir, "nokeys.csv")
	if err := os.WriteFile(noKeys, []byte("PATENT,NAME\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		rows string
	}{
		{"joined", []string{"--keys", keys, "--input", input, "--out", out, "--quiet"}, 0, "10,1,a\n11,2,b\n13,1,a\n"},
		{"no rows", []string{"--keys", keys, "--input", empty, "--out", out, "--quiet"}, 0, ""},
		{"no keys", []string{"--keys", noKeys, "--input", input, "--out", out, "--quiet"}, 0, ""},
		{"no keys, bloom", []string{"--keys", noKeys, "--input", input, "--filter", "bloom", "--out", out, "--quiet"}, 0, ""},
		{"no such column", []string{"--keys", keys, "--input", input, "--join-col", "NOPE", "--out", out, "--quiet"}, 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(out)
			tmp := t.TempDir()
			code, stdout, stderr := runCmd(t, tmp, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, stdout, stderr)
			}
			if l := testutil.DirNames(t, tmp); len(l) > 0 {
				t.Errorf("left in TMPDIR: %q", l)
			}
			if l := testutil.DirNames(t, filepath.Dir(out)); c.code == 0 && (len(l) != 1 || l[0] != "joined.csv") || c.code != 0 && len(l) != 0 {
				t.Errorf("beside the output: %q", l)
			}
			if c.code != 0 {
				return
			}
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(got), "\n")
			body := lines[1:]
			sortStrings(body)
			if lines[0] != "CITING,CITED,NAME\n" || strings.Join(body, "") != c.rows {
				t.Errorf("output %q, want the header and %q", got, c.rows)
			}
		})
	}
}

// TestStdout: --out - writes the rows to standard output and the report to
// standard error.
func TestStdout(t *testing.T) {
	_, keys, input := files(t)
	code, stdout, stderr := runCmd(t, t.TempDir(), "--keys", keys, "--input", input, "--out", "-", "--quiet")
	if code != 0 || !strings.HasPrefix(stdout, "CITING,CITED,NAME\n") || strings.Count(stdout, "\n") != 4 || !strings.Contains(stderr, "join: 3 rows") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestDelimsAndColumns: --keys-delim, --input-delim, --delim and
// --columns, as join run takes them: sides of other separators (their
// names say nothing), the output CSV of the columns asked.
func TestDelimsAndColumns(t *testing.T) {
	dir, keys, input := files(t)
	semi := filepath.Join(dir, "i-semi.txt")
	raw, _ := os.ReadFile(input)
	if err := os.WriteFile(semi, bytes.ReplaceAll(raw, []byte(","), []byte(";")), 0o644); err != nil {
		t.Fatal(err)
	}
	tab := filepath.Join(dir, "k-tab.txt")
	raw, _ = os.ReadFile(keys)
	if err := os.WriteFile(tab, bytes.ReplaceAll(raw, []byte(","), []byte("\t")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--keys", keys, "--input", semi, "--input-delim", ";"},
		{"--keys", tab, "--input", semi, "--keys-delim", "tab", "--delim", ";"},
	} {
		code, stdout, stderr := runCmd(t, t.TempDir(), append(args, "--columns", "NAME,CITING", "--out", "-", "--quiet")...)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		sortStrings(lines[1:])
		if code != 0 || strings.Join(lines, "|") != "NAME,CITING|a,10|a,13|b,11" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	code, _, stderr := runCmd(t, t.TempDir(), "--keys", keys, "--input", input, "--columns", "NOPE", "--out", "-", "--quiet")
	if code == 0 || !strings.Contains(stderr, `--columns NOPE: the output has no column "NOPE" (its columns: "CITING", "CITED", "NAME")`) {
		t.Errorf("--columns NOPE: exit %d, %q", code, stderr)
	}
}

func sortStrings(s []string) { slices.Sort(s) }

// TestOnSuffixVersion: --on names the join column of both sides; a
// key-side column whose name the large side has is written with --suffix
// (default _keys), as join run writes it; --version names the build.
func TestOnSuffixVersion(t *testing.T) {
	dir, _, input := files(t)
	keys := filepath.Join(dir, "k2.csv")
	if err := os.WriteFile(keys, []byte("CITED,CITING,NAME\n1,100,a\n2,200,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for suffix, want := range map[string]string{"": "CITING,CITED,CITING_keys,NAME", "_k": "CITING,CITED,CITING_k,NAME"} {
		args := []string{"--keys", keys, "--input", input, "--on", "CITED", "--out", "-", "--quiet"}
		if suffix != "" {
			args = append(args, "--suffix", suffix)
		}
		code, stdout, stderr := runCmd(t, t.TempDir(), args...)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		sortStrings(lines[1:])
		if code != 0 || strings.Join(lines, "|") != want+"|10,1,100,a|11,2,200,b|13,1,100,a" {
			t.Errorf("--suffix %q: exit %d, stdout %q, stderr %q", suffix, code, stdout, stderr)
		}
	}
	// Qualified names pick a side's column, as join run takes them.
	code, stdout, stderr := runCmd(t, t.TempDir(), "--keys", keys, "--input", input, "--on", "CITED", "--columns", "keys.CITING,input.CITING,NAME", "--out", "-", "--quiet")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	sortStrings(lines[1:])
	if code != 0 || strings.Join(lines, "|") != "CITING_keys,CITING,NAME|100,10,a|100,13,a|200,11,b" {
		t.Errorf("--columns keys.CITING,input.CITING,NAME: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// Predicates, as join run takes them (spaces are not passed here).
	code, stdout, stderr = runCmd(t, t.TempDir(), "--keys", keys, "--input", input, "--on", "CITED", "--where", "CITING>10", "--keys-where", `NAME=="a"`, "--out", "-", "--quiet")
	lines = strings.Split(strings.TrimSpace(stdout), "\n")
	sortStrings(lines[1:])
	if code != 0 || strings.Join(lines, "|") != "CITING,CITED,CITING_keys,NAME|13,1,100,a" {
		t.Errorf("--where, --keys-where: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, _, stderr = runCmd(t, t.TempDir(), "--keys", keys, "--input", input, "--on", "CITED", "--where", "CITNG>10", "--out", "-", "--quiet")
	if code == 0 || !strings.Contains(stderr, `--where CITNG>10: `) || !strings.Contains(stderr, `has no column "CITNG" (at character 1)`) {
		t.Errorf("--where with a bad column: exit %d, %q", code, stderr)
	}
	code, stdout, stderr = runCmd(t, t.TempDir(), "--version")
	if code != 0 || !strings.HasPrefix(stdout, "beamjoin ") || strings.Count(stdout, "\n") != 1 {
		t.Errorf("--version: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestWorkerErrorOneLine: a row error inside the pipeline is one line
// naming the file and line, with join's hint (it was the runner's plan and
// five log lines of it).
func TestWorkerErrorOneLine(t *testing.T) {
	dir := t.TempDir()
	keys, input := filepath.Join(dir, "ip.csv"), filepath.Join(dir, "i.csv")
	os.WriteFile(keys, []byte("IP,X\n49.69.121.227,1\n"), 0o644)
	os.WriteFile(input, []byte("CITING,CITED\n10,1\n"), 0o644)
	code, _, stderr := runCmd(t, t.TempDir(), "--keys", keys, "--key-col", "IP", "--key-type", "int", "--input", input, "--out", filepath.Join(dir, "o.csv"), "--quiet")
	want := keys + `:2: IP: invalid integer "49.69.121.227" (give --key-type string to compare them as text)`
	if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q: want one line with %q", code, stderr, want)
	}
}

// TestSizesTakeTheKeyCount: a size is judged for the keys there are, not
// one (8 bits a key was refused for the cuckoo filter, "of 1 keys"), and a
// pipe closed on standard output (| head) leaves nothing in TMPDIR.
func TestSizesTakeTheKeyCount(t *testing.T) {
	_, keys, input := files(t)
	code, stdout, stderr := runCmd(t, t.TempDir(), "--keys", keys, "--input", input, "--filter", "cuckoo", "--bits-per-key", "8", "--out", "-", "--quiet")
	if code != 0 || strings.Count(stdout, "\n") != 4 {
		t.Errorf("cuckoo at 8 bits a key: exit %d, %q %q", code, stdout, stderr)
	}
}

// TestClosedPipe: standard output closed by its reader (| head -1) ends the
// run with SIGPIPE's status and nothing left in TMPDIR.
func TestClosedPipe(t *testing.T) {
	dir, keys, _ := files(t)
	input := filepath.Join(dir, "big.csv")
	var b strings.Builder
	b.WriteString("CITING,CITED\n")
	for i := range 200000 {
		fmt.Fprintf(&b, "%d,%d\n", i, 1+i%3)
	}
	os.WriteFile(input, []byte(b.String()), 0o644)
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BEAMJOIN_MAIN=1", "BEAMJOIN_ARGS="+strings.Join([]string{"--keys", keys, "--input", input, "--out", "-", "--quiet"}, " "), "TMPDIR="+tmp)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	buf := make([]byte, 10)
	io.ReadFull(pr, buf) // the header's first bytes, then the reader leaves
	pr.Close()
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 141 {
		t.Errorf("exit %d, want 141 (SIGPIPE)", code)
	}
	if l := testutil.DirNames(t, tmp); len(l) > 0 {
		t.Errorf("left in TMPDIR: %q", l)
	}
}

// TestSignalWhileCopying: a stop signal that comes as the pipeline's rows
// are copied into --out stops the run with the old output in place, and
// "nothing written" is true (a review found the output committed over the
// old file, then that message); nothing is left in TMPDIR.
func TestSignalWhileCopying(t *testing.T) {
	dir, keys, input := files(t)
	out := filepath.Join(dir, "o.csv")
	if err := os.WriteFile(out, []byte("GOOD\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BEAMJOIN_MAIN=1", "BEAMJOIN_SIGNAL_BEFORE_COPY=1", "BEAMJOIN_ARGS="+strings.Join([]string{"--keys", keys, "--input", input, "--out", out, "--quiet"}, " "), "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "stopped by SIGINT") || !strings.Contains(stderr.String(), "nothing written") {
		t.Fatalf("%v, stderr %q: want exit 130 and nothing written", err, stderr.String())
	}
	if got, _ := os.ReadFile(out); string(got) != "GOOD\n" {
		t.Errorf("--out is now %q", got)
	}
	if l := testutil.DirNames(t, tmp); len(l) > 0 {
		t.Errorf("left in TMPDIR: %q", l)
	}
	if l := testutil.DirNames(t, dir); len(l) != 3 {
		t.Errorf("the output folder holds %q", l)
	}
}

// TestProfileFailsFirst: a --cpuprofile that cannot be written (/dev/full)
// fails the run before --out is committed: the old output stays (a
// review found it replaced, then the run failed), as join run keeps it
// when --report-json cannot be written.
func TestProfileFailsFirst(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir, keys, input := files(t)
	out := filepath.Join(dir, "o.csv")
	if err := os.WriteFile(out, []byte("GOOD\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, t.TempDir(), "--keys", keys, "--input", input, "--out", out, "--quiet", "--cpuprofile", "/dev/full")
	if code != 1 || !strings.Contains(stderr, "--cpuprofile /dev/full") {
		t.Errorf("exit %d, stderr %q: want 1 naming --cpuprofile", code, stderr)
	}
	if got, _ := os.ReadFile(out); string(got) != "GOOD\n" {
		t.Errorf("--out is now %q", got)
	}
}

// TestShardsNotTheInputFolder: --out naming the input's folder is refused
// with --shards too (the shards would land beside the folder under its
// name; a review found it accepted), as without them.
func TestShardsNotTheInputFolder(t *testing.T) {
	_, keys, input := files(t)
	parts := filepath.Join(t.TempDir(), "parts")
	os.MkdirAll(parts, 0o755)
	data, _ := os.ReadFile(input)
	os.WriteFile(filepath.Join(parts, "a.csv"), data, 0o644)
	code, _, stderr := runCmd(t, t.TempDir(), "--keys", keys, "--input", parts, "--out", parts, "--shards", "2")
	if code != 2 || !strings.Contains(stderr, "--out "+parts+": it is --input, a folder of files") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if l := testutil.DirNames(t, filepath.Dir(parts)); len(l) != 1 {
		t.Errorf("beside the folder: %q", l)
	}
}
