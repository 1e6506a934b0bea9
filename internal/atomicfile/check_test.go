package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckManyInputs (issue 47): an output in the folder of an input
// given as a folder, or matching an input's glob, is refused (the next run
// would read it as one of the input's files); elsewhere, or a name the
// glob does not match, it is not.
func TestCheckManyInputs(t *testing.T) {
	dir := t.TempDir()
	parts := filepath.Join(dir, "parts")
	if err := os.MkdirAll(parts, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parts, "part-0.csv"), []byte("a\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	glob := filepath.Join(parts, "part-*.csv")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(parts, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in, out, want string
	}{
		{filepath.Join(link, "part-*.csv"), filepath.Join(parts, "part-7.csv"), "matches the input"},
		{link, filepath.Join(parts, "joined.csv"), "is in the folder of the input"},
		{parts, filepath.Join(link, "joined.csv"), "is in the folder of the input"},
		{parts, filepath.Join(parts, "joined.csv"), "is in the folder of the input"},
		{parts, filepath.Join(parts, "part-0.csv"), "is in the folder of the input"},
		{parts + "/", filepath.Join(parts, "joined.parquet"), "is in the folder of the input"},
		{glob, filepath.Join(parts, "part-9.csv"), "matches the input"},
		{glob, filepath.Join(parts, "joined.csv"), ""},
		{parts, filepath.Join(dir, "joined.csv"), ""},
		{parts, "-", ""},
	} {
		err := Check([]Named{{"--out", c.out}}, []Named{{"--input", c.in}})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s into %s: %v", c.in, c.out, err)
		case c.want != "" && (!errors.Is(err, ErrPath) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--input "+c.in)):
			t.Errorf("%s into %s: %v, want %q", c.in, c.out, err, c.want)
		}
	}
}

// TestCheckURLOutput: an output named by a URL is refused (it would be
// written as the local folders s3: and b), even when such a folder exists.
func TestCheckURLOutput(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("s3:/data", 0o755); err != nil {
		t.Fatal(err)
	}
	err := Check([]Named{{Label: "--out", Path: "s3://data/x.csv"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "--out s3://data/x.csv: s3:// is written by beamjoin") {
		t.Errorf("a URL output: %v", err)
	}
}
