package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// The test binary is beamjoin itself when BEAMJOIN_MAIN is set (the flags
// are package variables, and Beam's runner flags live in the global set).
func TestMain(m *testing.M) {
	if os.Getenv("BEAMJOIN_MAIN") == "1" {
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
		{"out in a missing folder", []string{"--keys", keys, "--input", input, "--out", filepath.Join(dir, "no", "o.csv")}, "does not exist"},
		{"input from standard input", []string{"--keys", keys, "--input", "-", "--out", filepath.Join(dir, "o.csv")}, "not standard input"},
		{"missing input", []string{"--keys", keys, "--input", filepath.Join(dir, "nope.csv"), "--out", filepath.Join(dir, "o.csv")}, "nope.csv: no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			code, _, stderr := runCmd(t, tmp, c.args...)
			if code != 1 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("exit %d, stderr %q: want 1 and one line containing %q", code, stderr, c.want)
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

func sortStrings(s []string) { slices.Sort(s) }

// TestWorkerErrorOneLine: a row error inside the pipeline is one line
// naming the file and line, with join's hint (it was the runner's plan and
// five log lines of it).
func TestWorkerErrorOneLine(t *testing.T) {
	dir := t.TempDir()
	keys, input := filepath.Join(dir, "ip.csv"), filepath.Join(dir, "i.csv")
	os.WriteFile(keys, []byte("IP,X\n49.69.121.227,1\n"), 0o644)
	os.WriteFile(input, []byte("CITING,CITED\n10,1\n"), 0o644)
	code, _, stderr := runCmd(t, t.TempDir(), "--keys", keys, "--key-col", "IP", "--input", input, "--out", filepath.Join(dir, "o.csv"), "--quiet")
	want := keys + `:2: IP: invalid integer "49.69.121.227" (keys are compared as integers by default: give --key-type string to compare them as text)`
	if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q: want one line with %q", code, stderr, want)
	}
}
