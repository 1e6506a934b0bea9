package app

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCSVLimits: a CSV side of 1,100 columns joins (the reader refused more
// than 1024 fields, even with --columns taking three), and the refusals of
// a record past the limits name the limit and what to do.
func TestCSVLimits(t *testing.T) {
	dir := t.TempDir()
	mk := fileMaker(t, dir)
	const n = 1100
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("C" + strconv.Itoa(i))
	}
	b.WriteByte('\n')
	for r := 1; r <= 3; r++ {
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(r*10000 + i))
		}
		b.WriteByte('\n')
	}
	wide := mk("wide.csv", b.String())
	keys := mk("k.csv", "PATENT,N\n10000,a\n30000,c\n")
	out := filepath.Join(dir, "o.csv")
	if _, stderr, err := runCmd("run", "--keys", keys, "--input", wide, "--join-col", "C0", "--columns", "C0,C1099,N", "--sort", "--quiet", "--out", out); err != nil {
		t.Fatalf("run on %d columns: %v %s", n, err, stderr)
	}
	if got, _ := os.ReadFile(out); string(got) != "C0,C1099,N\n10000,11099,a\n30000,31099,c\n" {
		t.Errorf("run on %d columns: %q", n, got)
	}
	// The wide file as the key side too, every column out.
	if _, stderr, err := runCmd("run", "--keys", wide, "--key-col", "C0", "--input", keys, "--join-col", "PATENT", "--quiet", "--out", out); err != nil {
		t.Fatalf("run with %d key-side columns: %v %s", n, err, stderr)
	}
	if got, _ := os.ReadFile(out); !strings.HasPrefix(string(got), "PATENT,N,C1,C2,") || strings.Count(string(got), "\n") != 3 {
		t.Errorf("run with %d key-side columns: %.80q", n, got)
	}
	long := mk("long.csv", "CITING,CITED\n1,\""+strings.Repeat("x", 2<<20)+"\n")
	_, _, err := runCmd("run", "--keys", keys, "--input", long, "--quiet", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "long.csv:2: record longer than 1048576 bytes (1 MiB), the most a CSV record may take: a quoted field runs on past it: a quote left unclosed") ||
		!strings.Contains(err.Error(), "read as Parquet or Arrow") {
		t.Errorf("a record of 2 MiB: %v", err)
	}
}
