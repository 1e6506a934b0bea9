package atomicfile

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// commitOver creates path, writes s to it, runs between (a change to the
// folder while the output is written), and commits.
func commitOver(t *testing.T, path, s string, between func()) error {
	t.Helper()
	f, err := Create(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if between != nil {
		between()
	}
	return f.Commit()
}

// onlyFiles fails unless the folder holds exactly names (no temporary file
// left, the replaced one included).
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("folder holds %q, want %q", got, names)
	}
	for i := range names {
		if got[i] != names[i] {
			t.Fatalf("folder holds %q, want %q", got, names)
		}
	}
}

// TestCommitReplaces: Commit over an existing file (swapped, then the old
// file removed), over a new name, over a file removed or replaced by
// another since Create, keeps the mode, leaves another hard link's content
// alone, and never takes a folder put at the name meanwhile.
func TestCommitReplaces(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.csv")
	if err := commitOver(t, out, "new\n", nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(out, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := commitOver(t, out, "newer\n", nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "newer\n" {
		t.Fatalf("content %q", b)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want the replaced file's 0600", st.Mode())
	}
	onlyFiles(t, dir, "out.csv")

	// A hard link to the old file keeps the old content, as with rename.
	link := filepath.Join(dir, "link.csv")
	if err := os.Link(out, link); err != nil {
		t.Fatal(err)
	}
	if err := commitOver(t, out, "third\n", nil); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(link); string(b) != "newer\n" {
		t.Fatalf("the other link reads %q, want the old content", b)
	}
	if b, _ := os.ReadFile(out); string(b) != "third\n" {
		t.Fatalf("content %q", b)
	}
	os.Remove(link)

	// Removed since Create: the plain rename.
	if err := commitOver(t, out, "fourth\n", func() { os.Remove(out) }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "fourth\n" {
		t.Fatalf("content %q", b)
	}
	onlyFiles(t, dir, "out.csv")

	// Replaced by a folder since Create: refused, the folder and what it
	// holds stay, no temporary file is left.
	err := commitOver(t, out, "fifth\n", func() {
		os.Remove(out)
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(out, "inside"), []byte("x"), 0o644)
	})
	if err == nil {
		t.Fatal("Commit over a folder put at the name succeeded")
	}
	if b, err := os.ReadFile(filepath.Join(out, "inside")); err != nil || string(b) != "x" {
		t.Fatalf("the folder's file: %q, %v", b, err)
	}
	onlyFiles(t, dir, "out.csv")
	// An empty folder too (os.Remove would take it).
	os.RemoveAll(out)
	err = commitOver(t, out, "sixth\n", func() {
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
	})
	if st, serr := os.Stat(out); err == nil || serr != nil || !st.IsDir() {
		t.Fatalf("Commit over an empty folder: %v; the folder: %v", err, serr)
	}
	onlyFiles(t, dir, "out.csv")
}

// TestCommitOverSymlinkPutThere: a symbolic link put at the name since
// Create is replaced, as rename does, and its target is not touched.
func TestCommitOverSymlinkPutThere(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.csv")
	other := filepath.Join(dir, "other.csv")
	os.WriteFile(out, []byte("old\n"), 0o644)
	os.WriteFile(other, []byte("other\n"), 0o644)
	err := commitOver(t, out, "new\n", func() {
		os.Remove(out)
		if err := os.Symlink(other, out); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(out); !st.Mode().IsRegular() {
		t.Fatalf("out is %v, want the regular file written", st.Mode())
	}
	if b, _ := os.ReadFile(other); string(b) != "other\n" {
		t.Fatalf("the link's target changed: %q", b)
	}
	onlyFiles(t, dir, "other.csv", "out.csv")
}
