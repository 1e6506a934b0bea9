package beamjoin

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acbfjoin/acbfjoin/datasets/nber/nbertest"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/local"
)

// TestOutOfProcess runs the pipeline as a cluster would: prism as its own
// job server process (Beam's prism command), beamjoin submitting to it with
// the universal runner, and the workers in other processes than the runner:
// LOOPBACK (the workers in the submitting process) and EXTERNAL (a Go SDK
// worker pool, Beam's container boot program with --worker_pool, starting
// a worker process for the job from the staged worker binary). The DoFns and
// the side input go through the Fn API and the staged binary as they would
// on a cluster. On the real sample and on generated data, the rows equal the
// local engine's. Skipped with -short (it builds three binaries).
func TestOutOfProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds prism, the worker pool and beamjoin: not with -short")
	}
	bin := t.TempDir()
	t.Cleanup(func() {
		if _, err := os.Stat("pipeline_options.json"); err == nil {
			t.Error("pipeline_options.json was written into the source tree")
		}
	})
	build := func(name, pkg string) string {
		out := filepath.Join(bin, name)
		cmd := exec.Command("go", "build", "-o", out, pkg)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, msg)
		}
		return out
	}
	prismBin := build("prism", "github.com/apache/beam/sdks/v2/go/cmd/prism")
	bootBin := build("boot", "github.com/apache/beam/sdks/v2/go/container")
	joinBin := build("beamjoin", "./cmd/beamjoin")

	port := freePort(t)
	start(t, "prism", prismBin, "--job_port", strconv.Itoa(port), "--serve_http=false", "--log_level", "warn")
	waitPort(t, port)
	endpoint := "localhost:" + strconv.Itoa(port)

	type data struct{ name, keys, input string }
	gen := nbertest.Generate(t, 0.01, 600, 11)
	sets := []data{{"generated", gen.Keys, gen.Cite}}
	mini := testutil.NBERMini(t)
	sets = append(sets, data{"real sample", filepath.Join(mini, "apat63_99.mini.txt"), filepath.Join(mini, "cite75_99.mini.txt")})

	envs := [][]string{{"--environment_type=LOOPBACK"}}
	leaveNoWorkerCopies(t)
	if startPool(t, bootBin) {
		envs = append(envs, []string{"--environment_type=EXTERNAL", "--environment_config=localhost:50000", "--worker_binary=" + joinBin})
	} else {
		t.Log("port 50000 is taken (the Go worker pool listens only there): EXTERNAL not run")
	}
	for _, env := range envs {
		for _, d := range sets {
			t.Run(strings.TrimPrefix(env[0], "--environment_type=")+"/"+d.name, func(t *testing.T) {
				var want bytes.Buffer
				if _, err := local.Run(context.Background(), join.Options{Sides: join.Sides{Keys: d.keys, Input: d.input}, Keying: join.Keying{KeyCol: "PATENT", JoinCol: "CITED"}, FilterChoice: join.FilterChoice{Filter: filters.ACBF}}, local.NewCSV(&want)); err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(t.TempDir(), "joined.csv")
				args := append([]string{"--keys", d.keys, "--input", d.input, "--filter", "acbf", "--out", out, "--runner=universal", "--endpoint=" + endpoint}, env...)
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, joinBin, args...)
				msg, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("beamjoin %s: %v\n%s", strings.Join(args, " "), err, msg)
				}
				got, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := rowsOf(t, got, true), rowsOf(t, want.Bytes(), true); !slices.Equal(g, w) {
					t.Fatalf("%d rows out of process, the local engine %d\n%s", len(g), len(w), msg)
				}
				if !bytes.Contains(msg, []byte("join: ")) {
					t.Errorf("no counters printed:\n%s", msg)
				}
			})
		}
	}
}

// freePort returns a TCP port free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// poolFree reports whether nothing listens on the worker pool's port.
func poolFree(t *testing.T) bool {
	t.Helper()
	c, err := net.DialTimeout("tcp", "127.0.0.1:50000", 200*time.Millisecond)
	if err == nil {
		c.Close()
		return false
	}
	return true
}

// startPool starts Beam's Go worker pool, which listens only on port
// 50000, and reports whether it listens there. That port is in Linux's
// ephemeral range (32768-60999): a connection of a test running beside
// this one (beamjoin's fake S3 servers and their clients) can hold it as
// its local port when the pool binds, and the pool then exits ("bind:
// address already in use": a CI run failed so, the port free a moment
// before). It is started again, a second apart, up to 5 times; false
// where something listens there already or it never binds. The pool is
// killed with its workers when the test ends, its output logged if the
// test failed.
func startPool(t *testing.T, bin string) bool {
	t.Helper()
	for attempt := 1; attempt <= 5; attempt++ {
		if !poolFree(t) {
			return false
		}
		var out bytes.Buffer
		cmd := exec.Command(bin, "--worker_pool")
		cmd.Dir = t.TempDir() // the worker pool writes pipeline_options.json into its folder
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatalf("worker pool: %v", err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		if listening(50000, exited) && running(exited) {
			t.Cleanup(func() {
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-exited
				if t.Failed() {
					t.Logf("worker pool's output:\n%s", out.String())
				}
			})
			return true
		}
		select {
		case <-exited:
			t.Logf("worker pool, attempt %d of 5, exited: %s", attempt, strings.TrimSpace(out.String()))
		default: // not listening after 30 s, still running
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
			t.Fatalf("worker pool: nothing listens on port 50000 after 30 s:\n%s", out.String())
		}
		time.Sleep(time.Second)
	}
	return false
}

// running reports whether exited is still open.
func running(exited <-chan struct{}) bool {
	select {
	case <-exited:
		return false
	default:
		return true
	}
}

// listening waits up to 30 s for a listener on port, and reports false
// at once when exited is closed (the server is gone; nil: never).
func listening(port int, exited <-chan struct{}) bool {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond); err == nil {
			c.Close()
			return true
		}
		select {
		case <-exited:
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
	return false
}

// waitPort waits up to 30 s for a listener on port.
func waitPort(t *testing.T, port int) {
	t.Helper()
	if !listening(port, nil) {
		t.Fatalf("nothing listens on port %d after 30 s", port)
	}
}

// start runs a server process in its own process group, killed (with its
// children: the pool's workers) when the test ends; its output goes to the
// test log if the test fails.
func start(t *testing.T, name, bin string, args ...string) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir() // the worker pool writes pipeline_options.json into its folder
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		if t.Failed() {
			t.Logf("%s's output:\n%s", name, out.String())
		}
	})
}

// leaveNoWorkerCopies removes, once the test and the worker pool it
// starts next are done, what Beam's boot program leaves in /tmp whatever
// TMPDIR says: a copy of the worker binary for each worker it starts
// (/tmp/bin*/worker, about 200 MB each: a run of the tests left 200 MB
// behind) and the staged artifacts (/tmp/staged), where the test made
// them (those there before are left alone). Register it before the pool
// starts: cleanups run last first, so this runs after the pool stops.
func leaveNoWorkerCopies(t *testing.T) {
	before := map[string]bool{}
	bins, _ := filepath.Glob("/tmp/bin*")
	for _, b := range bins {
		before[b] = true
	}
	_, err := os.Stat("/tmp/staged")
	stagedBefore := err == nil
	t.Cleanup(func() {
		bins, _ := filepath.Glob("/tmp/bin*")
		for _, b := range bins {
			if before[b] {
				continue
			}
			if ents, err := os.ReadDir(b); err == nil && len(ents) == 1 && ents[0].Name() == "worker" {
				os.RemoveAll(b)
			}
		}
		if !stagedBefore {
			os.RemoveAll("/tmp/staged")
		}
	})
}
