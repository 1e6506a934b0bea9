package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/join"
)

// TestRoutedDir: the folder appears whole at Commit, not before; Close
// before Finish and Abort leave nothing; an existing folder, a missing
// parent, case-insensitive twins and an unknown format are refused.
func TestRoutedDir(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	d, err := NewRoutedDir(out, "C", []string{"a", "b/c", ".."}, "csv", dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Begin(join.Header{Line: []byte("X\n")}); err != nil {
		t.Fatal(err)
	}
	if err := d.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("the folder is there before Commit")
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	// The folder's mode is a folder's (MkdirTemp made it 0700).
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o755&^umask() {
		t.Errorf("the folder's mode: %v, %v (umask %o)", st.Mode(), err, umask())
	}
	d.Close()
	d.Abort() // after Commit: nothing removed
	for _, sub := range []string{"C=a", "C=b%2Fc", "C=%2E%2E"} {
		if data, err := os.ReadFile(filepath.Join(out, sub, "part.csv")); err != nil || string(data) != "X\n" {
			t.Errorf("%s: %q, %v", sub, data, err)
		}
	}
	left := func() int { es, _ := os.ReadDir(dir); return len(es) }
	d2, err := NewRoutedDir(filepath.Join(dir, "out2"), "C", []string{"a"}, "parquet", dir)
	if err != nil {
		t.Fatal(err)
	}
	d2.Close() // before Finish: removed
	if n := left(); n != 1 {
		t.Errorf("%d entries after a closed, unfinished folder", n)
	}
	for _, c := range []struct {
		dir, format string
		labels      []string
	}{{out, "csv", []string{"a"}}, {filepath.Join(dir, "no", "x"), "csv", []string{"a"}}, {filepath.Join(dir, "o3"), "csv", []string{"A", "a"}}, {filepath.Join(dir, "o4"), "xlsx", nil}} {
		if _, err := NewRoutedDir(c.dir, "C", c.labels, c.format, dir); err == nil {
			t.Errorf("%+v: no error", c)
		} else if c.format == "xlsx" && !errors.Is(err, join.ErrOptions) {
			t.Errorf("a format: %v", err)
		}
	}
	// A label the file system cannot name: the folder and the class
	// named, not the temporary folder, and no option error (the bank's
	// label, not the command line).
	long := strings.Repeat("L", 300)
	if _, err := NewRoutedDir(filepath.Join(dir, "o5"), "C", []string{"a", long}, "csv", dir); err == nil || errors.Is(err, join.ErrOptions) ||
		!strings.HasPrefix(err.Error(), filepath.Join(dir, "o5")+`: class "LLLL`) || !strings.Contains(err.Error(), "longer than the file system allows") {
		t.Errorf("a label of 300 bytes: %v", err)
	}
	if n := left(); n != 1 {
		t.Errorf("refusals left %d entries", n)
	}
	if EscapeLabel("") != "" || EscapeLabel(".") != "%2E" || EscapeLabel("1.5") != "1.5" {
		t.Errorf("EscapeLabel: %q %q %q", EscapeLabel(""), EscapeLabel("."), EscapeLabel("1.5"))
	}
}
