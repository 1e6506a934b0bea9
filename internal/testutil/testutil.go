// Package testutil holds helpers shared by the tests and benchmarks of acbfjoin:
// logged random seeds, reproducible key sets, checked setup, row diffs.
package testutil

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Seed returns the seed for a randomised test: ACBFJOIN_SEED if set, else the
// clock. It logs the seed so that a failure can be replayed with
// ACBFJOIN_SEED=<seed> go test -run <name>.
func Seed(t testing.TB) uint64 {
	t.Helper()
	if s := os.Getenv("ACBFJOIN_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ACBFJOIN_SEED=%q: %v", s, err)
		}
		t.Logf("seed %d (from ACBFJOIN_SEED)", v)
		return v
	}
	v := uint64(time.Now().UnixNano())
	t.Logf("seed %d (replay with ACBFJOIN_SEED=%d)", v, v)
	return v
}

// Rand returns a PCG generator for seed.
func Rand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x5eed))
}

// Keys returns n distinct 8-byte keys: the little-endian encodings of
// base, base+1, ..., base+n-1. Key sets with disjoint ranges are disjoint.
func Keys(base, n uint64) [][]byte {
	buf := make([]byte, 8*n)
	out := make([][]byte, n)
	for i := uint64(0); i < n; i++ {
		b := buf[8*i : 8*i+8 : 8*i+8]
		binary.LittleEndian.PutUint64(b, base+i)
		out[i] = b
	}
	return out
}

// Key writes the 8-byte key for i into dst (len 8) and returns it.
func Key(dst []byte, i uint64) []byte {
	binary.LittleEndian.PutUint64(dst[:8], i)
	return dst[:8]
}

// WriteFile writes a test's input file, failing the test if it cannot.
func WriteFile(t testing.TB, path string, data []byte, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, perm); err != nil {
		t.Fatalf("setup: %v", err)
	}
}

// Check fails the test on a setup error (a folder, a link, a FIFO made for
// the test).
func Check(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
}

// FirstDiff describes where two sorted row lists part: the first differing
// row of each, for a differential test's failure message.
func FirstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("row %d: got %q, want %q", i, got[i], want[i])
		}
	}
	switch {
	case len(got) > len(want):
		return fmt.Sprintf("%d extra rows, the first %q", len(got)-len(want), got[len(want)])
	case len(got) < len(want):
		return fmt.Sprintf("%d rows missing, the first %q", len(want)-len(got), want[len(got)])
	}
	return "no difference"
}

// Golden compares data, a serialized value, with the golden file at path
// and returns the file's bytes; a difference or a missing file fails t. With
// update it first writes data to path, and corpus() (name -> serialized
// value) as the seed corpus of the package's FuzzUnmarshalBinary under
// testdata/fuzz, in `go test fuzz v1` format.
func Golden(t testing.TB, path string, data []byte, update bool, corpus func() map[string][]byte) []byte {
	t.Helper()
	if update {
		dir := filepath.Join("testdata", "fuzz", "FuzzUnmarshalBinary")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for name, b := range corpus() {
			if err := os.WriteFile(filepath.Join(dir, name), fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(data, want) {
		t.Fatalf("serialization changed: %d bytes, golden %s %d bytes", len(data), path, len(want))
	}
	return want
}

// DirNames returns the names of what is in dir, failing the test if it
// cannot be read: for checks that nothing is left behind.
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// ReadParquet reads a Parquet file back as an Arrow table with Arrow's
// pqarrow reader (released when the test ends).
func ReadParquet(t testing.TB, data []byte) arrow.Table {
	t.Helper()
	rdr, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{}, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tbl.Release)
	return tbl
}

// rootModule is the module path of the repository's root go.mod.
const rootModule = "github.com/acbfjoin/acbfjoin"

// RepoRoot returns the repository's root folder: the nearest folder, from the
// working directory up, whose go.mod declares the root module (so a test of
// the beam module, which has its own go.mod, finds the same folder). It fails
// the test if there is none.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && modulePath(b) == rootModule {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatalf("setup: no go.mod of module %s above the working directory", rootModule)
		}
		dir = up
	}
}

// modulePath returns the path of a go.mod's module line, "" if none.
func modulePath(gomod []byte) string {
	for line := range bytes.Lines(gomod) {
		f := bytes.Fields(line)
		if len(f) >= 2 && string(f[0]) == "module" {
			return strings.Trim(string(f[1]), `"`)
		}
	}
	return ""
}

// NBERMini returns the folder of the real NBER sample kept in the repository
// (testdata/nber-mini: cite75_99.mini.txt and apat63_99.mini.txt; see its
// README.md). It fails the test, never skips, if a file is missing.
func NBERMini(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "testdata", "nber-mini")
	for _, n := range []string{"cite75_99.mini.txt", "apat63_99.mini.txt"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Fatalf("setup: the repository's NBER sample: %v", err)
		}
	}
	return dir
}

// SkipUnderRace skips t when the race detector is on (Race). It is for a
// test that runs on the test's goroutine alone (a statistical test, a model
// test, a decoder's), which the race detector has nothing to check in and
// only slows down by an order of magnitude; the same test runs at full size
// in CI's phase without -race.
func SkipUnderRace(t testing.TB) {
	t.Helper()
	if Race {
		t.Skip("single goroutine: nothing for the race detector; runs in the phase without -race")
	}
}

// RaceSize returns full, or under the race detector (Race) small: the size
// of a concurrent test under -race, large enough to exercise each of its
// goroutine interactions, while the phase without -race runs it at full.
func RaceSize[T int | int64 | uint64 | float64](full, small T) T {
	if Race {
		return small
	}
	return full
}

// RaceSeed returns, under the race detector (Race), Seed(t), and else 0
// without logging a seed: the offset for RacePick in a test whose data are
// fixed, so that the cases it runs under -race turn from run to run (and
// ACBFJOIN_SEED replays a run's), while the test is unchanged without -race.
func RaceSeed(t testing.TB) uint64 {
	t.Helper()
	if !Race {
		return 0
	}
	return Seed(t)
}

// RacePick returns all, or under the race detector (Race) k of its elements
// spread evenly over it: all[(off + j*len(all)/k) % len(all)] for j < k. A
// test passes its seed (plus the index of the case it is in) as off, so
// that the cases run under -race vary from run to run and from case to
// case, while each run keeps some of every part of its matrix; the phase
// without -race runs all of them.
func RacePick[T any](all []T, k int, off uint64) []T {
	n := len(all)
	if !Race || k >= n {
		return all
	}
	out := make([]T, 0, k)
	for j := range k {
		out = append(out, all[(off+uint64(j*n/k))%uint64(n)])
	}
	return out
}

// Child runs the test binary again, only its test named run (-test.run=^run$
// -test.v), with env ("NAME=value") added to its environment, and returns
// its standard output and error; a child that fails fails t with them. For
// a test of what the package's init read from the environment (the CPU
// switch), which the running process cannot change.
func Child(t testing.TB, run string, env ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+run+"$", "-test.v")
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s with %q: child: %v\n%s%s", run, env, err, out.String(), errb.String())
	}
	return out.String(), errb.String()
}
