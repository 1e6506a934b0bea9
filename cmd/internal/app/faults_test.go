package app

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/internal/tmpspace"

	"github.com/acbfjoin/acbfjoin/datasets/nber/nbertest"
)

// TestMain lets a test run the command in a child process: the test binary
// re-executes itself with JOIN_ARGS set (and JOIN_FSIZE to cap the size of
// the files it may write, as a full disk would; JOIN_TMP_FREE to make
// --tmp-dir's file system look small to the copies of streams, tmpspace).
func TestMain(m *testing.M) {
	// No plain progress lines in what the tests compare, on any machine
	// (TestPlainProgress sets its own).
	plainAfter = 1 << 62
	if args := os.Getenv("JOIN_ARGS"); args != "" {
		if m := os.Getenv("JOIN_UMASK"); m != "" {
			v, _ := strconv.ParseUint(m, 8, 32)
			syscall.Umask(int(v))
		}
		if id := os.Getenv("JOIN_UID"); id != "" { // run as another user (the parent is root)
			n, _ := strconv.Atoi(id)
			if err := errors.Join(syscall.Setgroups(nil), syscall.Setgid(n), syscall.Setuid(n)); err != nil {
				os.Stderr.WriteString("JOIN_UID: " + err.Error() + "\n")
				os.Exit(3)
			}
		}
		if lim := os.Getenv("JOIN_FSIZE"); lim != "" {
			n, _ := strconv.ParseUint(lim, 10, 64)
			signal.Ignore(syscall.SIGXFSZ) // get EFBIG instead of being killed
			syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n})
		}
		if free := os.Getenv("JOIN_TMP_FREE"); free != "" { // a small disk under --tmp-dir: this many bytes free, 20 times that in all
			n, _ := strconv.ParseUint(free, 10, 64)
			tmpspace.Fake(n, 20*n)
		}
		os.Args = append([]string{"join"}, strings.Split(args, "\x1f")...)
		Main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func child(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, "JOIN_ARGS="+strings.Join(args, "\x1f"))...)
	return cmd
}

// faultData generates a data set big enough that the join takes a while.
func faultData(t *testing.T) (keys, cite string) {
	d := nbertest.Generate(t, 0.05, 3000, 2)
	return d.Keys, d.Cite
}

// TestInterrupt: SIGINT, SIGTERM or SIGHUP (a closed terminal) while the
// shuffle spills stops the run, exits 128 + the signal, and leaves no spill
// file and no output. How soon is logged, not judged (within milliseconds
// here; a verdict must not follow the machine's load).
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	keys, cite := faultData(t)
	// A second signal soon after the first (a double Ctrl-C) once exited at
	// once and left the output's temporary file and the spill folder.
	for _, sigs := range [][]syscall.Signal{{syscall.SIGINT}, {syscall.SIGTERM}, {syscall.SIGHUP},
		{syscall.SIGINT, syscall.SIGINT}, {syscall.SIGINT, syscall.SIGTERM}} {
		sig := sigs[0]
		tmp, outDir := t.TempDir(), t.TempDir()
		cmd := child(nil, "run", "--keys", keys, "--input", cite, "--filter", "none", "--mem", "1MiB", "--mappers", "2", "--reducers", "2",
			"--temp-dir", tmp, "--out", filepath.Join(outDir, "out.csv"), "--sort")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the spill folder: the map phase is under way.
		deadline := time.Now().Add(20 * time.Second)
		for {
			if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("%v: no spill folder appeared", sig)
			}
			time.Sleep(5 * time.Millisecond)
		}
		sent := time.Now()
		for i, sg := range sigs {
			if i > 0 {
				time.Sleep(2 * time.Millisecond)
			}
			cmd.Process.Signal(sg)
		}
		err := cmd.Wait()
		took := time.Since(sent)
		if err == nil {
			t.Fatalf("%v: exit status 0", sigs)
		}
		t.Logf("%v: stopped %v after the signal", sigs, took)
		if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
			t.Errorf("%v: %d spill entries left", sig, len(ents))
		}
		if ents, _ := os.ReadDir(outDir); len(ents) != 0 {
			t.Errorf("%v: %d output files left", sig, len(ents))
		}
		if msg := strings.TrimSpace(stderr.String()); !strings.Contains(msg, "stopped by SIG") || strings.Contains(msg, "\n") {
			t.Errorf("%v: stderr %q, want one line saying it was stopped", sig, msg)
		}
		if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
			t.Errorf("%v: exit status %d, want %d", sig, code, 128+int(sig))
		}
	}
}

// TestDiskFull: when the spill files or the output cannot be written (the file
// size limit stands in for a full disk), the run fails with one line, exit
// status 1, and leaves nothing behind.
func TestDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	keys, cite := faultData(t)
	pat := nbertest.Generate(t, 0.05, 3000, 2).Pat // the patents as a key side too large for --mem
	for _, tc := range []struct {
		name  string
		limit string
		args  []string
	}{
		{"spill", "200000", []string{"--filter", "none", "--mem", "1MiB", "--mappers", "2", "--reducers", "2"}},
		// Issue 45: the key side joined in partitions, spilled with its
		// probe rows (a grace join), and the disk full on the way.
		{"key side's spill", "200000", []string{"--keys", pat, "--key-col", "PATENT", "--filter", "bloom", "--mem", "2MiB", "--mappers", "2", "--reducers", "2"}},
		{"output", "100000", []string{"--filter", "exact"}},
		{"parquet output", "100000", []string{"--filter", "exact", "--format", "parquet"}},
	} {
		tmp, outDir := t.TempDir(), t.TempDir()
		name := "out.csv"
		if slices.Contains(tc.args, "parquet") {
			name = "out.parquet"
		}
		args := append([]string{"run", "--input", cite, "--temp-dir", tmp, "--out", filepath.Join(outDir, name)}, tc.args...)
		if !slices.Contains(tc.args, "--keys") {
			args = append(args, "--keys", keys)
		}
		cmd := child([]string{"JOIN_FSIZE=" + tc.limit}, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 {
			t.Fatalf("%s: %v (stderr %q), want exit status 1", tc.name, err, stderr.String())
		}
		msg := strings.TrimSpace(stderr.String())
		if !strings.Contains(msg, "file too large") || strings.Contains(msg, "\n") || strings.Contains(msg, "goroutine") {
			t.Errorf("%s: stderr %q, want one line naming the failed write", tc.name, msg)
		}
		for _, d := range []string{tmp, outDir} {
			if ents, _ := os.ReadDir(d); len(ents) != 0 {
				t.Errorf("%s: %d entries left in %s", tc.name, len(ents), d)
			}
		}
		t.Logf("%s: %s", tc.name, msg)
	}
}

// TestGenFails: gen that cannot finish leaves the folder as it was: a folder
// it made is removed (it was left, empty), and an older pair of files stays
// whole (the citations were replaced, then removed, when the patents could
// not be written).
func TestGenFails(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	base := t.TempDir()
	fresh := filepath.Join(base, "fresh")
	cmd := child([]string{"JOIN_FSIZE=500000"}, "gen", "--scale", "0.005", "--out", fresh) // 1.3 MB of citations
	if out, err := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "file too large") {
		t.Errorf("gen on a full disk: %v %s, want exit 1 naming the failed write", err, out)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("the folder gen made is left: %v", err)
	}
	old := filepath.Join(base, "old")
	testutil.Check(t, os.Mkdir(old, 0o755))
	testutil.WriteFile(t, filepath.Join(old, "cite75_99.txt"), []byte("old"), 0o644)
	os.Mkdir(filepath.Join(old, "apat63_99.txt"), 0o755) // the patents cannot be written
	cmd = child(nil, "gen", "--scale", "0.005", "--out", old)
	if out, err := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "is a folder") {
		t.Errorf("gen over a folder: %v %s, want exit 1", err, out)
	}
	if data, _ := os.ReadFile(filepath.Join(old, "cite75_99.txt")); string(data) != "old" {
		t.Errorf("the old citations file holds %d bytes, want its 3", len(data))
	}
	if ents, _ := os.ReadDir(old); len(ents) != 2 {
		t.Errorf("%d entries in the old folder, want its 2", len(ents))
	}
}

// mountTmpfs mounts a tmpfs with the given options (size=512k, ro, ...) on a
// new folder, or skips the test where the machine does not allow it (it needs
// root).
func mountTmpfs(t *testing.T, opts string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs (%s) here (%v: %s); TestDiskFull covers full disks with a file size limit", opts, err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// TestFullTmpfs: a really full file system (a small tmpfs) under the spill
// files, the sort's runs or the output, or a read-only one under the spill
// files, fails the run with one line naming the write and what to do, exit
// status 1, and leaves the file system empty.
func TestFullTmpfs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	keys, cite := faultData(t)
	for _, tc := range []struct {
		name, opts string
		where      string // tmp or out: which folder is the tmpfs
		args       []string
		want       []string
	}{
		{"spill", "size=512k", "tmp", []string{"--filter", "none", "--mem", "256KiB"}, []string{"shuffle: spill", "no space left on device", "free some space"}},
		{"sort runs", "size=1536k", "tmp", []string{"--filter", "exact", "--sort", "--mem", "256KiB"}, []string{"sort:", "no space left on device", "free some space"}},
		{"output", "size=512k", "out", []string{"--filter", "exact"}, []string{"out.csv", "no space left on device", "free some space"}},
		{"read-only", "ro,size=64k", "tmp", []string{"--filter", "none", "--mem", "256KiB"}, []string{"spill folder", "read-only file system", "choose a folder you can write"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := mountTmpfs(t, tc.opts)
			tmp, outDir := t.TempDir(), t.TempDir()
			if tc.where == "tmp" {
				tmp = fs
			} else {
				outDir = fs
			}
			args := append([]string{"run", "--keys", keys, "--input", cite, "--tmp-dir", tmp, "--out", filepath.Join(outDir, "out.csv"), "--mappers", "2", "--reducers", "2"}, tc.args...)
			cmd := child(nil, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != 1 {
				t.Fatalf("%v (stderr %q), want exit status 1", err, stderr.String())
			}
			msg := strings.TrimSpace(stderr.String())
			for _, w := range tc.want {
				if !strings.Contains(msg, w) || strings.Contains(msg, "\n") {
					t.Errorf("stderr %q, want one line with %q", msg, w)
				}
			}
			for _, d := range []string{tmp, outDir} {
				if ents, _ := os.ReadDir(d); len(ents) != 0 {
					t.Errorf("%d entries left in %s", len(ents), d)
				}
			}
			t.Logf("%s", msg)
		})
	}
}
