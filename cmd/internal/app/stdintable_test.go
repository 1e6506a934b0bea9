package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestTableOnStdin: a Parquet file, an Arrow IPC file and an Arrow IPC
// stream on standard input (a pipe) are told by their first bytes
// without --input-format, and joined as the same file named; an IPC file
// with --input-format arrow is read too (copied first: its footer is at
// its end). They were read as CSV (the stream) or called invalid (the IPC
// file given as arrow).
func TestTableOnStdin(t *testing.T) {
	dir := t.TempDir()
	s := func(v string) *string { return &v }
	rec := columnartest.Record(t, []string{"ID", "CITED"}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64},
		[][]*string{{s("1"), s("7")}, {s("2"), s("8")}, {s("3"), s("7")}, {s("4"), nil}})
	defer rec.Release()
	fs := columnartest.Write(t, dir, "in", rec, 2, false)
	keys := filepath.Join(dir, "keys.csv")
	os.WriteFile(keys, []byte("PATENT,N\n7,a\n9,b\n"), 0o644)
	const want = "ID,CITED,N\n1,7,a\n3,7,a\n"
	// Under the race detector, 1 of the 6 runs and 1 of the 4 compares
	// (each a child process of the instrumented binary).
	off := testutil.RaceSeed(t)
	for _, c := range testutil.RacePick([]struct{ file, format string }{
		{fs.Parquet, ""}, {fs.ArrowFile, ""}, {fs.ArrowStream, ""}, {fs.ArrowFile, "arrow"}, {fs.ArrowStream, "arrow"}, {fs.Parquet, "parquet"},
	}, 1, off) {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"run", "--keys", keys, "--input", "-", "--out", "-", "--sort", "--tmp-dir", dir}
		if c.format != "" {
			args = append(args, "--input-format", c.format)
		}
		out, stderr, code := runChild(t, nil, bytes.NewReader(data), args...)
		if code != 0 || out != want {
			t.Errorf("%s on stdin, format %q: exit %d, %q, want %q; %s", filepath.Base(c.file), c.format, code, out, want, strings.TrimSpace(stderr))
		}
	}
	// compare copies a stream side to read it once a filter: told by its
	// first bytes as run tells it (it copied it as CSV and refused it).
	for _, c := range testutil.RacePick([]struct{ file, format string }{{fs.Parquet, ""}, {fs.ArrowStream, ""}, {fs.ArrowFile, ""}, {fs.ArrowStream, "arrow"}}, 1, off) {
		data, _ := os.ReadFile(c.file)
		args := []string{"compare", "--keys", keys, "--input", "-", "--filters", "exact", "--tmp-dir", dir}
		if c.format != "" {
			args = append(args, "--input-format", c.format)
		}
		out, stderr, code := runChild(t, nil, bytes.NewReader(data), args...)
		if code != 0 || !strings.Contains(out, "exact") {
			t.Errorf("compare, %s on stdin, format %q: exit %d, %q; %s", filepath.Base(c.file), c.format, code, out, strings.TrimSpace(stderr))
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*spool*")); len(left) > 0 {
		t.Errorf("copies left: %v", left)
	}
}
