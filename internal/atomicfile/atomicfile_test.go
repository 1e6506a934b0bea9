package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := Write(path, func(f *os.File) error { _, err := f.WriteString("hello"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "hello" {
		t.Fatalf("content %q", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v", st.Mode())
	}
	boom := errors.New("boom")
	if err := Write(path, func(f *os.File) error { f.WriteString("partial"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("Write = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "hello" {
		t.Fatalf("failed Write changed the file: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("%d files in the folder, want 1", len(ents))
	}
}
