package app

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"

	"github.com/acbfjoin/acbfjoin/internal/testutil"

	"github.com/acbfjoin/acbfjoin/datasets/nber/nbertest"
)

// smallData generates a small NBER-shaped data set and a key sample.
func smallData(t *testing.T) (keys, cite string) {
	d := nbertest.Generate(t, 0.003, 500, 5)
	return d.Keys, d.Cite
}

// runChild runs the command in a child process with stdin as its standard
// input, and returns its standard output, standard error and exit status.
func runChild(t *testing.T, env []string, stdin io.Reader, args ...string) (string, string, int) {
	t.Helper()
	cmd := child(env, args...)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// TestStreamInputs: standard input, /dev/stdin, a FIFO and gzip content under
// a .txt name give the rows the regular file gives (they were read two or
// three times and lost rows); one stream as both sides is refused.
func TestStreamInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	keys, cite := smallData(t)
	dir := t.TempDir()
	citeData, _ := os.ReadFile(cite)
	keyData, _ := os.ReadFile(keys)
	base := []string{"run", "--keys", keys, "--sort", "--mappers", "2", "--filter", "bloom"}
	want, stderr, code := runChild(t, nil, nil, append(base, "--input", cite, "--out", "-")...)
	if code != 0 || strings.Count(want, "\n") < 100 {
		t.Fatalf("regular file: exit %d, %d lines\n%s", code, strings.Count(want, "\n"), stderr)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(citeData)
	zw.Close()
	gzTxt := filepath.Join(dir, "cite-gzip.txt")
	testutil.WriteFile(t, gzTxt, gz.Bytes(), 0o644)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		stdin []byte
		args  []string
		fifo  []byte // written into fifo by another goroutine
	}{
		{"--input -", citeData, []string{"--input", "-"}, nil},
		{"--input /dev/stdin", citeData, []string{"--input", "/dev/stdin"}, nil},
		{"gzip named .txt", nil, []string{"--input", gzTxt}, nil},
		{"gzip on stdin", gz.Bytes(), []string{"--input", "-"}, nil},
		{"FIFO", nil, []string{"--input", fifo}, citeData},
		{"keys on stdin", keyData, []string{"--input", cite, "--keys", "-"}, nil},
		{"keys from a FIFO", nil, []string{"--input", cite, "--keys", fifo}, keyData},
	} {
		if tc.fifo != nil {
			go func() {
				if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					w.Write(tc.fifo)
					w.Close()
				}
			}()
		}
		var stdin io.Reader
		if tc.stdin != nil {
			stdin = bytes.NewReader(tc.stdin) // exec hands the child a pipe
		}
		got, stderr, code := runChild(t, nil, stdin, append(withFlags(base, tc.args...), "--out", "-")...)
		if code != 0 || got != want {
			t.Errorf("%s: exit %d, %d bytes, want the regular file's %d\n%s", tc.name, code, len(got), len(want), stderr)
		}
	}
	_, stderr, code = runChild(t, nil, bytes.NewReader(citeData), "run", "--keys", "-", "--input", "-", "--out", filepath.Join(dir, "x.csv"))
	if code != 1 || !strings.Contains(stderr, "are the same stream, which can be read only once") {
		t.Errorf("--keys - --input -: exit %d, %q", code, stderr)
	}
	// A regular file on standard input is read from its offset, as cat
	// would ({ head -n 3 >/dev/null; join --input -; } < f): it was reopened
	// through /dev/stdin and read from byte 0.
	two := filepath.Join(dir, "two.csv")
	testutil.WriteFile(t, two, []byte("CITING,CITED\n10,1\n11,2\nCITING,CITED\n20,1\n"), 0o644)
	kk := filepath.Join(dir, "kk.csv")
	testutil.WriteFile(t, kk, []byte("PATENT,N\n1,a\n2,b\n"), 0o644)
	sf, err := os.Open(two)
	if err != nil {
		t.Fatal(err)
	}
	sf.Seek(int64(len("CITING,CITED\n10,1\n11,2\n")), io.SeekStart)
	cmd := child(nil, "run", "--keys", kk, "--input", "-", "--out", "-", "--filter", "exact")
	cmd.Stdin = sf
	if got, err := cmd.Output(); err != nil || string(got) != "CITING,CITED,N\n20,1,a\n" {
		t.Errorf("--input - on a regular file at an offset: %v, %q", err, got)
	}
	sf.Seek(0, io.SeekStart)
	cmd = child(nil, "run", "--keys", "-", "--input", "-", "--out", "-")
	cmd.Stdin = sf
	if got, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(got), "are the same stream") {
		t.Errorf("--keys - --input - on a regular file: %v, %q; want refused", err, got)
	}
	sf.Close()
	// A filter file from standard input; and one stream as two inputs.
	fb := filepath.Join(dir, "f.bin")
	if _, stderr, code := runChild(t, nil, nil, "build-filter", "--keys", keys, "--filter", "bloom", "--out", fb); code != 0 {
		t.Fatalf("build-filter: %s", stderr)
	}
	fbData, _ := os.ReadFile(fb)
	if got, stderr, code := runChild(t, nil, bytes.NewReader(fbData), append(slices.Clone(base), "--input", cite, "--filter-file", "-", "--out", "-")...); code != 0 || got != want {
		t.Errorf("--filter-file -: exit %d, %d bytes, want %d\n%s", code, len(got), len(want), stderr)
	}
	for _, ff := range []string{"-", "/dev/stdin"} {
		_, stderr, code = runChild(t, nil, bytes.NewReader(keyData), "run", "--keys", "-", "--input", cite, "--filter-file", ff, "--out", filepath.Join(dir, "x.csv"))
		if code != 1 || !strings.Contains(stderr, "keys - and filter file "+ff+" are the same stream") {
			t.Errorf("--keys - --filter-file %s: exit %d, %q", ff, code, stderr)
		}
	}
	// compare copies a stream to a temporary file, and still names the
	// stream in messages (it named the temporary file).
	_, stderr, code = runChild(t, nil, strings.NewReader("CITING,CITED\n10,1\n11,x\n"), "compare", "--keys", keys, "--input", "-", "--tmp-dir", dir, "--key-type", "int")
	if code != 1 || !strings.Contains(stderr, `stdin:3: CITED: invalid integer "x"`) {
		t.Errorf("compare with a bad row on stdin: exit %d, %q", code, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "acbfjoin-*")); len(left) != 0 {
		t.Errorf("compare left %v", left)
	}
	// compare runs the join once per filter: a stream is spooled first.
	out, stderr, code := runChild(t, nil, bytes.NewReader(citeData), "compare", "--keys", keys, "--input", "-", "--filters", "none,acbf")
	wantRows := strconv.Itoa(strings.Count(want, "\n")-1) + " join rows"
	if code != 0 || !strings.Contains(out, wantRows) {
		t.Errorf("compare on stdin: exit %d, want %q in\n%s%s", code, wantRows, out, stderr)
	}
}

// waitFIFOOpen waits until a thread of process pid waits in the open of a
// FIFO (its wchan, Linux's wait_for_partner).
func waitFIFOOpen(t *testing.T, pid int) {
	t.Helper()
	for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(2 * time.Millisecond) {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			t.Skipf("no /proc to see the child wait in the FIFO's open: %v", err)
		}
		for _, task := range tasks {
			if w, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/wchan", pid, task.Name())); string(w) == "wait_for_partner" {
				return
			}
		}
	}
	t.Fatal("the child did not reach the FIFO's open within a minute (a hang)")
}

// TestFIFOInterrupt: a FIFO nobody writes to blocked the open forever and
// ignored SIGINT; now the run stops with nothing left behind. The signal is
// sent once the child waits in the FIFO's open (not after a sleep, which a
// loaded machine can outlast: then the signal came before its handler and
// killed the child without the exit status 130).
func TestFIFOInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	keys, _ := smallData(t)
	dir, outDir := t.TempDir(), t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"--input", "--keys"} {
		args := []string{"run", "--keys", keys, "--input", keys, "--join-col", "PATENT", "--out", filepath.Join(outDir, "out.csv")}
		args[slices.Index(args, side)+1] = fifo
		cmd := child(nil, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFIFOOpen(t, cmd.Process.Pid)
		sent := time.Now()
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("%s FIFO: exit %d after SIGINT, want 130; stderr %q", side, code, stderr.String())
		}
		t.Logf("%s FIFO: stopped %v after SIGINT", side, time.Since(sent))
		if ents, _ := os.ReadDir(outDir); len(ents) != 0 {
			t.Errorf("%s FIFO: %d files left in the output folder", side, len(ents))
		}
	}
}

// TestQuotedNewlinesJoin: valid RFC 4180 files with line breaks, commas and
// quotes inside quoted fields, on both sides, join as encoding/csv reads
// them, at every mapper count, with and without --bad-rows skip, from a file
// and from a pipe (they were split inside quotes: a false error, or phantom
// rows with skip).
func TestQuotedNewlinesJoin(t *testing.T) {
	dir := t.TempDir()
	var kb, ib bytes.Buffer
	kb.WriteString("\xef\xbb\xbfID,NOTE\r\n") // a BOM too
	for i := range 300 {
		fmt.Fprintf(&kb, "%d,\"key %d\nsays \"\"hi\"\", then\n%d\"\r\n", i*3, i, i)
	}
	for i := range 3000 {
		fmt.Fprintf(&ib, "\"row %d,\n\"\"quoted\"\"\n\",%d\n", i, i%1000)
	}
	keys, input := filepath.Join(dir, "k.csv"), filepath.Join(dir, "i.csv")
	testutil.WriteFile(t, keys, kb.Bytes(), 0o644)
	testutil.WriteFile(t, input, append([]byte("TEXT,REF\n"), ib.Bytes()...), 0o644)
	// The reference: encoding/csv on both files, a nested-loop join.
	read := func(p string) [][]string {
		data, _ := os.ReadFile(p)
		recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return recs[1:]
	}
	var want []string
	keyRecs := read(keys)
	for _, in := range read(input) {
		for _, k := range keyRecs {
			if k[0] == in[1] {
				want = append(want, strings.Join([]string{in[0], in[1], strings.ReplaceAll(k[1], "\r\n", "\n")}, "\x00"))
			}
		}
	}
	slices.Sort(want)
	if len(want) != 900 {
		t.Fatalf("reference join has %d rows", len(want))
	}
	off := testutil.RaceSeed(t)
	for mappers := 1; mappers <= 4; mappers++ {
		// Under -race, one of --bad-rows's values a count of mappers.
		for _, skip := range testutil.RacePick([]string{"fail", "skip"}, 1, off+uint64(mappers)) {
			for _, viaStdin := range []bool{false, true} {
				out := filepath.Join(dir, "out.csv")
				args := []string{"run", "--keys", keys, "--key-col", "ID", "--join-col", "REF", "--mappers", strconv.Itoa(mappers),
					"--bad-rows", skip, "--out", out, "--filter", "exact"}
				var err error
				var stdout string
				if viaStdin {
					if testing.Short() {
						continue
					}
					data, _ := os.ReadFile(input)
					var stderr string
					var code int
					stdout, stderr, code = runChild(t, nil, bytes.NewReader(data), append(args, "--input", "-")...)
					if code != 0 {
						err = errors.New(stderr)
					}
				} else {
					stdout, _, err = runCmd(append(args, "--input", input)...)
				}
				what := fmt.Sprintf("mappers %d, --bad-rows %s, stdin %v", mappers, skip, viaStdin)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				if strings.Contains(stdout, "bad rows") {
					t.Errorf("%s: rows were skipped:\n%s", what, stdout)
				}
				data, _ := os.ReadFile(out)
				recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
				if err != nil {
					t.Fatalf("%s: output is not CSV: %v", what, err)
				}
				if !slices.Equal(recs[0], []string{"TEXT", "REF", "NOTE"}) {
					t.Errorf("%s: header %q", what, recs[0])
				}
				var got []string
				for _, r := range recs[1:] {
					got = append(got, strings.Join(r, "\x00"))
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Fatalf("%s: %d rows differ from encoding/csv's %d; %s", what, len(got), len(want), testutil.FirstDiff(got, want))
				}
			}
		}
	}
}

// TestOutputTargets: a device, a FIFO and /dev/stdout are written in place,
// a symbolic link is written through (the link stays), an existing file keeps
// its mode, a new one follows the umask, .gz is compressed.
func TestOutputTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	keys, cite := smallData(t)
	dir := t.TempDir()
	run := func(env []string, out string) (string, string, int) {
		return runChild(t, env, nil, "run", "--keys", keys, "--input", cite, "--sort", "--out", out)
	}
	want, _, code := run(nil, "-")
	if code != 0 {
		t.Fatal("reference run failed")
	}
	// A character device (a copy of /dev/null made in the temp folder):
	// renaming over it replaced the system's /dev/null when run as root.
	dev := filepath.Join(dir, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(1<<8|3)); err != nil {
		t.Logf("mknod not permitted (%v): device case skipped", err)
	} else {
		if _, stderr, code := run(nil, dev); code != 0 {
			t.Errorf("--out device: exit %d %s", code, stderr)
		}
		if st, err := os.Stat(dev); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("--out device: the device was replaced: %v %v", st.Mode(), err)
		}
	}
	// /dev/stdout: the report goes to standard error.
	if got, stderr, code := run(nil, "/dev/stdout"); code != 0 || got != want || !strings.Contains(stderr, "join:") {
		t.Errorf("--out /dev/stdout: exit %d, %d bytes (want %d), report on stderr %v", code, len(got), len(want), strings.Contains(stderr, "join:"))
	}
	// A FIFO, read by another goroutine.
	fifo := filepath.Join(dir, "fifo")
	testutil.Check(t, syscall.Mkfifo(fifo, 0o600))
	read := make(chan []byte)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			read <- nil
			return
		}
		data, _ := io.ReadAll(f)
		f.Close()
		read <- data
	}()
	if _, stderr, code := run(nil, fifo); code != 0 {
		t.Errorf("--out FIFO: exit %d %s", code, stderr)
	}
	if got := <-read; string(got) != want {
		t.Errorf("--out FIFO: read %d bytes, want %d", len(got), len(want))
	}
	if st, _ := os.Stat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Error("--out FIFO: the FIFO was replaced")
	}
	// /dev/fd/3 that the shell opened with >> on a regular file: appended to
	// (reopening it with O_TRUNC destroyed what >> meant to keep).
	kept := filepath.Join(dir, "appended.csv")
	testutil.WriteFile(t, kept, []byte("precious\n"), 0o644)
	fd3, err := os.OpenFile(kept, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmd := child(nil, "run", "--keys", keys, "--input", cite, "--sort", "--out", "/dev/fd/3")
	cmd.ExtraFiles = []*os.File{fd3}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("--out /dev/fd/3 3>>file: %v %s", err, out)
	}
	fd3.Close()
	if got, _ := os.ReadFile(kept); string(got) != "precious\n"+want {
		t.Errorf("--out /dev/fd/3 3>>file: the file holds %d bytes, want the old line and the %d of the join", len(got), len(want))
	}
	// A symbolic link to an existing 0600 file: written through, the link
	// stays, the mode stays.
	target, link := filepath.Join(dir, "target.csv"), filepath.Join(dir, "link.csv")
	testutil.WriteFile(t, target, []byte("old"), 0o600)
	testutil.Check(t, os.Symlink(target, link))
	if _, stderr, code := run(nil, link); code != 0 {
		t.Errorf("--out symlink: exit %d %s", code, stderr)
	}
	lst, _ := os.Lstat(link)
	data, _ := os.ReadFile(target)
	st, _ := os.Stat(target)
	if lst.Mode()&os.ModeSymlink == 0 || string(data) != want || st.Mode().Perm() != 0o600 {
		t.Errorf("--out symlink: link kept %v, target written %v, target mode %v (want 0600)", lst.Mode()&os.ModeSymlink != 0, string(data) == want, st.Mode().Perm())
	}
	// A new file follows the umask; .gz compresses.
	fresh := filepath.Join(dir, "fresh.csv.gz")
	if _, stderr, code := run([]string{"JOIN_UMASK=027"}, fresh); code != 0 {
		t.Fatalf("--out .gz: exit %d %s", code, stderr)
	}
	if st, _ := os.Stat(fresh); st.Mode().Perm() != 0o640 {
		t.Errorf("new output with umask 027: mode %v, want 0640", st.Mode().Perm())
	}
	f, _ := os.Open(fresh)
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("--out .gz is not gzip: %v", err)
	}
	if got, _ := io.ReadAll(zr); string(got) != want {
		t.Errorf("--out .gz: decompressed %d bytes, want %d", len(got), len(want))
	}
	f.Close()
	if ents, _ := filepath.Glob(filepath.Join(dir, ".acbfjoin-*")); len(ents) != 0 {
		t.Errorf("temporary files left: %v", ents)
	}
}

// TestOutputNotOurs: as another user, a read-only file and another user's
// file in a sticky folder were replaced by the rename (which needs only the
// folder's permission), or failed only after the whole join; now both are
// refused before any work, as the shell's > would refuse them, and left as
// they were. Needs root (to act as nobody).
func TestOutputNotOurs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to run the command as another user")
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir, err := os.MkdirTemp("", "acbfjoin-test-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	testutil.Check(t, os.Chmod(dir, 0o777))
	w := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		testutil.WriteFile(t, p, []byte(content), mode)
		testutil.Check(t, os.Chmod(p, mode))
		return p
	}
	keys := w("keys.csv", "PATENT,NAME\n1,one\n", 0o644)
	input := w("input.csv", "CITING,CITED\n10,1\n", 0o644)
	readOnly := w("ro.csv", "old", 0o444)
	sticky := filepath.Join(dir, "sticky")
	testutil.Check(t, os.Mkdir(sticky, 0o777))
	testutil.Check(t, os.Chmod(sticky, 0o777|os.ModeSticky))
	theirs := filepath.Join(sticky, "theirs.csv")
	testutil.WriteFile(t, theirs, []byte("old"), 0o666)
	testutil.Check(t, os.Chmod(theirs, 0o666))
	for _, tc := range []struct{ out, want string }{
		{readOnly, "permission denied"},
		{theirs, "belongs to another user and its folder is sticky"},
	} {
		_, stderr, code := runChild(t, []string{"JOIN_UID=65534"}, nil, "run", "--keys", keys, "--input", input, "--out", tc.out)
		if code == 3 {
			t.Skipf("cannot run as another user: %s", stderr)
		}
		data, _ := os.ReadFile(tc.out)
		st, _ := os.Stat(tc.out)
		if code != 1 || !strings.Contains(stderr, tc.want) || string(data) != "old" || st.Sys().(*syscall.Stat_t).Uid != 0 {
			t.Errorf("--out %s as nobody: exit %d, %q, content %q, owner %d; want exit 1, %q, the file untouched",
				tc.out, code, stderr, data, st.Sys().(*syscall.Stat_t).Uid, tc.want)
		}
	}
	if ents, _ := filepath.Glob(filepath.Join(dir, "*", ".acbfjoin-*")); len(ents) != 0 {
		t.Errorf("temporary files left: %v", ents)
	}
}

// TestStdoutFull: what goes to standard output (compare's table, run's
// report) was lost to a full disk with exit 0, and a --report-json that could
// not be written failed after --out was already in place; now both fail, and
// --out is not written.
func TestStdoutFull(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	keys, cite := smallData(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.csv")
	for _, tc := range []struct {
		args   []string
		stdout *os.File
		want   string
	}{
		{[]string{"compare", "--keys", keys, "--input", cite, "--filters", "none,acbf"}, full, "write standard output: "},
		{[]string{"run", "--keys", keys, "--input", cite, "--out", out}, full, "write standard output: "},
		{[]string{"run", "--keys", keys, "--input", cite, "--out", out, "--report-json", "/dev/full"}, nil, "--report-json /dev/full: "},
	} {
		cmd := child(nil, tc.args...)
		cmd.Stdout = tc.stdout
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 1 and %q", tc.args, code, stderr.String(), tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: --out was written though the run failed", tc.args)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files left", len(ents))
	}
}

// TestOutputConflicts: every output is checked against every input and every
// other output before any work (the same file through links too); the input
// is left as it was.
func TestOutputConflicts(t *testing.T) {
	dir := t.TempDir()
	w := fileMaker(t, dir)
	keys := w("keys.csv", "PATENT,NAME\n1,one\n2,two\n")
	input := w("input.csv", "CITING,CITED\n10,1\n11,2\n")
	testutil.Check(t, os.Symlink(input, filepath.Join(dir, "input-link.csv")))
	fb := filepath.Join(dir, "f.bin")
	if _, _, err := runCmd("build-filter", "--keys", keys, "--out", fb); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.csv")
	base := []string{"run", "--keys", keys, "--input", input}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", out, "--report-json", input}, "--report-json " + input + " is the input --input"},
		{[]string{"--out", out, "--report-json", keys}, "is the input --keys"},
		{[]string{"--out", out, "--report-json", out}, "are the same file"},
		{[]string{"--out", filepath.Join(dir, "input-link.csv")}, "is the input --input"},
		{[]string{"--out", fb, "--filter-file", fb}, "is the input --filter-file"},
		{[]string{"--out", ""}, "--out is empty"},
		{[]string{"--out", out, "--report-json", ""}, "--report-json is empty"},
		{[]string{"--out", out, "--report-json", filepath.Join(dir, "missing", "r.json")}, "folder " + filepath.Join(dir, "missing") + " does not exist"},
		{[]string{"--out", dir}, "is a folder"},
		{[]string{"--out", filepath.Join(dir, "x.zip")}, "the join does not write zip archives"},
		{[]string{"--out", filepath.Join(dir, "x.csv.zst")}, "the join compresses with gzip alone, not .zst"}, // plain text under the name, before
		{[]string{"--out", filepath.Join(dir, "x.jsonl.XZ")}, "not .xz"},
		{[]string{"--out", filepath.Join(dir, "x.arrow"), "--format", "arrow-stream"}, "name it .arrows, or leave the format out"}, // .arrow-stream, before: no name of one
		{[]string{"--out", filepath.Join(dir, "x.parquet.gz"), "--format", "parquet"}, "a Parquet file is compressed inside: leave out .gz"},
		{[]string{"--out", "-", "--report-json", "/dev/stdout"}, "are the same file"},
	} {
		_, _, err := runCmd(append(slices.Clone(base), tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
	if data, _ := os.ReadFile(input); string(data) != "CITING,CITED\n10,1\n11,2\n" {
		t.Errorf("the input changed: %q", data)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run left an output")
	}
	// keys --out equal to --patents.
	if _, _, err := runCmd("keys", "--patents", keys, "--out", keys); err == nil || !strings.Contains(err.Error(), "--out "+keys+" is the input --patents") {
		t.Errorf("keys --out = --patents: %v", err)
	}
	if ents, _ := filepath.Glob(filepath.Join(dir, ".acbfjoin-*")); len(ents) != 0 {
		t.Errorf("temporary files left: %v", ents)
	}
	// Standard output redirected into an input (join run ... >> keys.csv)
	// appended the report to the key file.
	if testing.Short() {
		return
	}
	for _, args := range [][]string{
		{"run", "--keys", keys, "--input", input, "--out", out},
		{"compare", "--keys", keys, "--input", input, "--filters", "exact"},
	} {
		app, err := os.OpenFile(keys, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		cmd := child(nil, args...)
		cmd.Stdout = app
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		app.Close()
		if data, _ := os.ReadFile(keys); string(data) != "PATENT,NAME\n1,one\n2,two\n" || !strings.Contains(stderr.String(), "standard output is the input --keys") {
			t.Errorf("%s >> keys: stderr %q, the key file now %q", args[0], stderr.String(), data)
		}
	}
}

// TestSIGPIPE: `join run --sort | head -n 2` exited 141 by the signal and
// left the sort's runs behind; now the closed pipe stops the run, which
// removes them, and exits 141 without a message.
func TestSIGPIPE(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	keys, cite := faultData(t)
	tmp := t.TempDir()
	cmd := child(nil, "run", "--keys", keys, "--input", cite, "--filter", "none", "--sort", "--mem", "1MiB",
		"--mappers", "2", "--reducers", "2", "--tmp-dir", tmp)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(stdout)
	for range 2 {
		if _, err := br.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	stdout.Close() // head has what it wants
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the run went on after its reader left")
	}
	if code := cmd.ProcessState.ExitCode(); code != 141 || stderr.Len() != 0 {
		t.Errorf("exit status %d, stderr %q; want 141 and nothing", code, stderr.String())
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("%d entries left in --tmp-dir", len(ents))
	}
}

// TestClean: join clean removes what dead processes left (named with their
// process id), and keeps what running ones use and anything else.
func TestClean(t *testing.T) {
	dir := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("no true command")
	}
	dead := gone.Process.Pid
	names := map[string]bool{ // name: removed
		fmt.Sprintf("acbfjoin-%d-shuffle-123", dead):        true,
		fmt.Sprintf(".acbfjoin-%d-out.csv-456.tmp", dead):   true,
		fmt.Sprintf("acbfjoin-%d-spool-789", dead):          true,
		atomicfile.TempPrefix() + "sort-1":                  false, // this process runs
		"acbfjoin-shuffle-old":                              false, // not ours to judge
		"notes.txt":                                         false,
		fmt.Sprintf("acbfjoinx-%d-shuffle", dead):           false,
		fmt.Sprintf("acbfjoin-%d", dead) + "nodash":         false,
		"acbfjoin-0-zero":                                   false,
		fmt.Sprintf("acbfjoin-%d-sort-2/run-000001", dead):  true,
		fmt.Sprintf("acbfjoin-%d-sort-2", dead) + "/nested": true,
	}
	for n := range names {
		p := filepath.Join(dir, n)
		testutil.Check(t, os.MkdirAll(filepath.Dir(p), 0o755))
		testutil.WriteFile(t, p, []byte("x"), 0o644)
	}
	if out, _, err := runCmd("clean", "--tmp-dir", dir, "--dry-run"); err != nil || !strings.Contains(out, "would remove 4 leftover(s)") {
		t.Fatalf("clean --dry-run: %v\n%s", err, out)
	}
	out, _, err := runCmd("clean", "--tmp-dir", dir)
	if err != nil || !strings.Contains(out, "removed 4 leftover(s); 1 belong to running processes") {
		t.Fatalf("clean: %v\n%s", err, out)
	}
	for n, removed := range names {
		_, err := os.Stat(filepath.Join(dir, n))
		if removed != os.IsNotExist(err) {
			t.Errorf("%s: removed %v, want %v", n, os.IsNotExist(err), removed)
		}
	}
}

// TestLimits: absurd values end in one line naming the flag and quoting the
// user's value, before anything large is allocated.
func TestLimits(t *testing.T) {
	dir := t.TempDir()
	w := fileMaker(t, dir)
	keys := w("keys.csv", "PATENT,NAME\n1,one\n2,two\n")
	input := w("input.csv", "CITING,CITED\n10,1\n11,2\n")
	for _, tc := range []struct {
		args  []string
		want  string
		usage bool
	}{
		{[]string{"--mappers", "100000"}, "--mappers 100000: at most 256", true},
		{[]string{"--reducers", "5000"}, "--reducers 5000: at most 256", true},
		{[]string{"--k", "65"}, "--k 65: want a whole number from 1 to 64", true},
		{[]string{"--mem", "NaN"}, `--mem "NaN": want a positive size`, true},
		{[]string{"--mem", "Inf"}, `--mem "Inf": want a positive size`, true},
		{[]string{"--mem", "1e10GiB"}, `--mem "1e10GiB": want at most 1PiB`, true},
		{[]string{"--filter", "bloom", "--bits-per-key", "1e12"}, "1e+12 bits per key for 2 keys is 232.8 GiB, above the 1 GiB a filter may take", false},
		{[]string{"--bits-per-key", "1e6"}, "", false}, // k is capped at 64: no contradiction, it runs
		{[]string{"--filter", "acbf", "--bits-per-key", "40", "--k", "40"}, "40 bits per key cannot hold k = 40 counter bits per key", false},
	} {
		args := append([]string{"run", "--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv")}, tc.args...)
		_, _, err := runCmd(args...)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%v: %v, want success", tc.args, err)
			}
			continue
		}
		var u usageError
		if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.usage && !errors.As(err, &u)) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want %q (usage %v)", tc.args, err, tc.want, tc.usage)
		}
	}
	// A header-only key file joins nothing (TestEmptyKeySide); a BOM
	// before a quoted header is stripped; names from a file are printed
	// quoted.
	hdrOnly := w("hdr.csv", "PATENT,NAME\n")
	if out, _, err := runCmd("run", "--keys", hdrOnly, "--input", input, "--filter", "exact", "--out", filepath.Join(dir, "o.csv")); err != nil || !strings.Contains(out, "join: 0 rows") {
		t.Errorf("header-only key file, exact: %v\n%s", err, out)
	}
	bom := w("bom.csv", "\xef\xbb\xbf\"PATENT\",NAME\n1,one\n")
	if out, _, err := runCmd("run", "--keys", bom, "--input", input, "--out", filepath.Join(dir, "o.csv")); err != nil || !strings.Contains(out, "join: 1 rows") {
		t.Errorf("BOM before a quoted header: %v\n%s", err, out)
	}
	esc := w("esc.csv", "PAT\x1b[31mENT,N\x00AME\n1,one\n")
	_, _, err := runCmd("run", "--keys", esc, "--input", input, "--out", filepath.Join(dir, "o.csv"))
	if err == nil || !strings.Contains(err.Error(), `(columns: "PAT\x1b[31mENT", "N\x00AME")`) || strings.ContainsAny(err.Error(), "\x1b\x00") {
		t.Errorf("escape sequences in a header: %q", err)
	}
}

// TestStdStreamsIntoInput: standard output or error redirected into an
// input is refused by every command that reads files, the input untouched
// (bank validate, multikey absent, demo and repro --data appended their
// tables to it; run appended its report with 2>> keys.csv). A refusal of
// standard error goes to standard output.
func TestStdStreamsIntoInput(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	keys := mk("k.csv", "PATENT,C\n1,a\n2,b\n")
	input := mk("i.csv", "CITING,CITED\n10,1\n11,2\n")
	data := filepath.Join(dir, "data")
	testutil.Check(t, os.Mkdir(data, 0o755))
	mini := testutil.NBERMini(t)
	for _, n := range []string{"cite75_99.txt", "apat63_99.txt"} {
		src, err := os.ReadFile(filepath.Join(mini, strings.Replace(n, ".txt", ".mini.txt", 1)))
		testutil.Check(t, err)
		testutil.WriteFile(t, filepath.Join(data, n), src, 0o644)
	}
	bk := filepath.Join(dir, "k.bank")
	if _, stderr, err := runCmd("bank", "build", "--keys", keys, "--key-col", "PATENT", "--class-col", "C", "--classes", "value", "--out", bk, "--quiet"); err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	for _, c := range []struct {
		args   []string
		victim string
		stderr bool
	}{
		{[]string{"bank", "validate", "--bank", bk, "--keys", keys}, keys, false},
		{[]string{"multikey", "absent", "--keys", keys, "--key-col", "PATENT,C", "--key-type", "int,string"}, keys, false},
		{[]string{"demo", "--data", data}, filepath.Join(data, "cite75_99.txt"), false},
		{[]string{"repro", "--quick", "--data", data, "--out", filepath.Join(dir, "r")}, filepath.Join(data, "apat63_99.txt"), false},
		{[]string{"run", "--keys", keys, "--input", input, "--out", "-"}, keys, true},
		{[]string{"run", "--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv")}, input, true},
	} {
		before, _ := os.ReadFile(c.victim)
		f, err := os.OpenFile(c.victim, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		cmd := child(nil, c.args...)
		var other bytes.Buffer
		if c.stderr {
			cmd.Stderr, cmd.Stdout = f, &other
		} else {
			cmd.Stdout, cmd.Stderr = f, &other
		}
		cmd.Run()
		after, _ := os.ReadFile(c.victim)
		// Both streams into the input (>> k.csv 2>&1): refused, and no
		// message anywhere, since any would change the input.
		both := child(nil, c.args...)
		both.Stdout, both.Stderr = f, f
		both.Run()
		f.Close()
		if again, _ := os.ReadFile(c.victim); !bytes.Equal(again, after) || both.ProcessState.ExitCode() != 2 {
			t.Errorf("%s with both streams into %s: exit %d; the input grew by %d bytes", strings.Join(c.args[:2], " "), filepath.Base(c.victim), both.ProcessState.ExitCode(), len(again)-len(after))
		}
		if !bytes.Equal(before, after) || cmd.ProcessState.ExitCode() != 2 || !strings.Contains(other.String(), "would destroy the input") {
			t.Errorf("%s with %s into %s: exit %d, %q; the input grew by %d bytes", strings.Join(c.args[:2], " "),
				map[bool]string{true: "standard error", false: "standard output"}[c.stderr], filepath.Base(c.victim), cmd.ProcessState.ExitCode(), other.String(), len(after)-len(before))
		}
	}
}

// TestOutputIsAnInput: outputs that are inputs by another flag (run --bank
// B --out B replaced the bank with CSV; stream prep wrote its sorted files
// over inputs of the same names) are refused, the files untouched.
func TestOutputIsAnInput(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	keys := mk("k.csv", "PATENT,C,GDATE\n1,a,5\n2,b,3\n")
	input := mk("i.csv", "CITING,CITED\n10,1\n11,2\n")
	bk := filepath.Join(dir, "k.bank")
	if _, stderr, err := runCmd("bank", "build", "--keys", keys, "--key-col", "PATENT", "--class-col", "C", "--classes", "value", "--out", bk, "--quiet"); err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	prep := filepath.Join(dir, "prep")
	os.Mkdir(prep, 0o755)
	pats := mk("prep/patents-by-gdate.csv", "PATENT,GDATE\n1,5\n2,3\n")
	cites := mk("prep/citations-by-gdate.csv", "CITING,CITED\n10,1\n")
	for _, c := range []struct {
		args   []string
		victim string
	}{
		{[]string{"run", "--bank", bk, "--keys", keys, "--input", input, "--out", bk}, bk},
		{[]string{"run", "--bank", bk, "--keys", keys, "--input", input, "--out", filepath.Join(dir, "o.csv"), "--report-json", bk}, bk},
		{[]string{"stream", "prep", "--patents", pats, "--citations", cites, "--out", prep}, pats},
	} {
		before, _ := os.ReadFile(c.victim)
		_, _, err := runCmd(c.args...)
		after, _ := os.ReadFile(c.victim)
		if err == nil || !strings.Contains(err.Error(), "would destroy the input") || !bytes.Equal(before, after) {
			t.Errorf("%s: %v; the input changed: %v", strings.Join(c.args, " "), err, !bytes.Equal(before, after))
		}
	}
}

// TestKeysToStdout: `keys --out -` writes the sample alone to standard
// output, its summary to standard error (a review found the summary read
// as one more key by `| join run --keys -`); `keys --from -` of a Parquet
// file says to name the file, keys having no format flag to give.
func TestKeysToStdout(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "one.csv")
	testutil.WriteFile(t, src, []byte("K\na\nb\nc\n"), 0o644)
	out, errOut, code := runChild(t, nil, nil, "keys", "--from", src, "--sample", "3", "--out", "-")
	if code != 0 || out != "K\na\nb\nc\n" || !strings.Contains(errOut, "wrote -: 3 of 3") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	pq := []byte("PAR1\x15\x04\x15\x00") // a Parquet file's first bytes: enough to be told
	_, errOut, code = runChild(t, nil, bytes.NewReader(pq), "keys", "--from", "-", "--out", filepath.Join(dir, "k.csv"))
	if code == 0 || !strings.Contains(errOut, "keys: --from -: standard input holds a Parquet or Arrow file, which keys reads only by its name") {
		t.Errorf("Parquet on standard input: exit %d, %q", code, errOut)
	}
}
