package app

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// endlessReader is standard input that never ends: head, then body again
// and again (zeros when body is empty).
type endlessReader struct {
	head, body string
	at         int64
}

func (e *endlessReader) Read(p []byte) (int, error) {
	for i := range p {
		at := e.at + int64(i)
		switch {
		case at < int64(len(e.head)):
			p[i] = e.head[at]
		case e.body != "":
			p[i] = e.body[(at-int64(len(e.head)))%int64(len(e.body))]
		default:
			p[i] = 0
		}
	}
	e.at += int64(len(p))
	return len(p), nil
}

// oneLine checks that a failed run said one line naming what, exited 1,
// and left --tmp-dir empty.
func oneLine(t *testing.T, name, stderr string, code int, tmp string, what ...string) {
	t.Helper()
	msg := strings.TrimSpace(stderr)
	if code != 1 || strings.Contains(msg, "\n") || strings.Contains(msg, "goroutine") {
		t.Errorf("%s: exit %d, stderr %q; want exit 1 and one line", name, code, msg)
	}
	for _, w := range what {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: stderr %q, want %q in it", name, msg, w)
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("%s: %d entries left in --tmp-dir (%s)", name, len(ents), ents[0].Name())
	}
}

// TestEndlessSides: /dev/zero, /dev/urandom and standard input without end
// as either side, under every key type, end in one line naming the file,
// exit status 1, with --tmp-dir left empty. /dev/zero as --keys under
// --key-type auto was copied to --tmp-dir without a limit (3 to 5 GB a
// few seconds) until the disk was full (issue 41). No check of time: a
// run that did not stop would fill the disk, not fail the test late.
func TestEndlessSides(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	keys, input := filepath.Join(dir, "keys.csv"), filepath.Join(dir, "in.csv")
	os.WriteFile(keys, []byte("K,V\n1,a\n"), 0o644)
	os.WriteFile(input, []byte("J,W\n1,b\n"), 0o644)
	tmp := t.TempDir()
	for _, src := range []string{"/dev/zero", "/dev/urandom", "-"} {
		for _, side := range []string{"--keys", "--input"} {
			for _, typ := range []string{"auto", "int", "string"} {
				args := []string{"run", "--keys", keys, "--key-col", "K", "--input", input, "--join-col", "J", "--key-type", typ, "--tmp-dir", tmp, "--out", filepath.Join(dir, "out.csv")}
				if side == "--keys" {
					args[2] = src
				} else {
					args[6] = src
				}
				name := fmt.Sprintf("%s %s, --key-type %s", side, src, typ)
				_, stderr, code := runChild(t, nil, &endlessReader{}, args...)
				file := src
				if src == "-" {
					file = "stdin"
				}
				want := file // a malformed record, or a header without the key column (random bytes)
				if src != "/dev/urandom" {
					want = file + ":1: record longer than 1048576 bytes"
				}
				oneLine(t, name, stderr, code, tmp, want)
			}
		}
	}
	_, stderr, code := runChild(t, nil, &endlessReader{}, "compare", "--keys", keys, "--key-col", "K", "--input", "-", "--join-col", "J", "--tmp-dir", tmp)
	oneLine(t, "compare --input -", stderr, code, tmp, "stdin:1: record longer than 1048576 bytes")
	_, stderr, code = runChild(t, nil, nil, "run", "--keys", "/dev/zero", "--keys-format", "parquet", "--input", input, "--tmp-dir", tmp)
	oneLine(t, "--keys /dev/zero --keys-format parquet", stderr, code, tmp, "/dev/zero: not a valid file of its format: it does not begin as a Parquet file does (PAR1)")
}

// TestEndlessRecords: good records without end on standard input, copied
// to --tmp-dir (key type auto, compare, a Parquet stream), stop at the
// reserve of --tmp-dir's file system (a small disk faked: 16 MiB free of
// 320 MiB, 16 MiB of which it keeps) with one line naming the flag, and
// leave nothing.
func TestEndlessRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	keys, input := filepath.Join(dir, "keys.csv"), filepath.Join(dir, "in.csv")
	os.WriteFile(keys, []byte("K,V\n1,a\n"), 0o644)
	os.WriteFile(input, []byte("J,W\n1,b\n"), 0o644)
	tmp := t.TempDir()
	small := []string{"JOIN_TMP_FREE=" + fmt.Sprint(32<<20)}
	records := func() io.Reader { return &endlessReader{head: "K,V\n", body: "1,x\n"} }
	_, stderr, code := runChild(t, small, records(), "run", "--keys", "-", "--key-col", "K", "--input", input, "--join-col", "J", "--tmp-dir", tmp)
	oneLine(t, "--keys -", stderr, code, tmp, "run: --keys -: a stream is copied to the temporary folder to infer its key type", "stopped after", "written to "+tmp, "keeps free (5% of its size, at most 1 GiB")
	_, stderr, code = runChild(t, small, &endlessReader{head: "J,W\n", body: "1,x\n"}, "compare", "--keys", keys, "--key-col", "K", "--input", "-", "--join-col", "J", "--tmp-dir", tmp)
	oneLine(t, "compare --input -", stderr, code, tmp, "compare: --input -: a stream is copied to the temporary folder to read it once per filter", "stopped after")
	_, stderr, code = runChild(t, small, &endlessReader{head: "PAR1"}, "run", "--keys", "-", "--keys-format", "parquet", "--input", input, "--tmp-dir", tmp)
	oneLine(t, "--keys - --keys-format parquet", stderr, code, tmp, "run: --keys -: a stream is copied to the temporary folder whole", "stopped after")
}

// TestKilledSpool: the copy of a stream left by a run killed with SIGKILL
// (no handler runs) is named for `clean`, which removes it; a later run
// stopped at the reserve says it is there and how to remove it. The child
// is fed by hand and killed while it waits for more, so nothing depends on
// its speed.
func TestKilledSpool(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	input := filepath.Join(dir, "in.csv")
	os.WriteFile(input, []byte("J\n1\n"), 0o644)
	tmp := t.TempDir()
	cmd := child(nil, "run", "--keys", "-", "--key-col", "K", "--input", input, "--join-col", "J", "--tmp-dir", tmp)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdin.Write([]byte("K\n" + strings.Repeat("1\n", 1<<20))) // 2 MiB, then nothing: the child waits
	var spool string
	for start := time.Now(); spool == "" && time.Since(start) < time.Minute; time.Sleep(2 * time.Millisecond) {
		if m, _ := filepath.Glob(filepath.Join(tmp, fmt.Sprintf("acbfjoin-%d-spool-*", cmd.Process.Pid))); len(m) == 1 {
			if st, err := os.Stat(m[0]); err == nil && st.Size() > 1<<20 {
				spool = m[0]
			}
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	stdin.Close()
	if spool == "" {
		t.Fatal("no copy of standard input appeared in --tmp-dir within a minute")
	}
	if _, err := os.Stat(spool); err != nil {
		t.Fatalf("the killed run's copy: %v", err)
	}
	_, stderr, code := runChild(t, []string{"JOIN_TMP_FREE=" + fmt.Sprint(32<<20)}, &endlessReader{head: "K\n", body: "1\n"}, "run", "--keys", "-", "--key-col", "K", "--input", input, "--join-col", "J", "--tmp-dir", tmp)
	if msg := strings.TrimSpace(stderr); code != 1 || !strings.Contains(msg, "1 leftover(s) of runs that died hold") || !strings.Contains(msg, "clean --tmp-dir "+tmp+" removes them") {
		t.Errorf("a run stopped at the reserve: exit %d, %q; want it to name the leftover", code, msg)
	}
	out, _, code := runChild(t, nil, nil, "clean", "--tmp-dir", tmp)
	if code != 0 || !strings.Contains(out, "removed "+spool) || !strings.Contains(out, "removed 1 leftover(s)") {
		t.Errorf("clean: exit %d, %q", code, out)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("%d entries left in --tmp-dir after clean", len(ents))
	}
}
