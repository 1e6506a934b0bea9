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

// TestMakeDir: Undo removes a folder MakeDir made, and the parents it made,
// while they are empty, and leaves one that existed or that holds a file.
func TestMakeDir(t *testing.T) {
	base := t.TempDir()
	made := filepath.Join(base, "a", "b")
	d, err := MakeDir(made)
	if err != nil {
		t.Fatal(err)
	}
	d.Undo()
	if _, err := os.Stat(made); !os.IsNotExist(err) {
		t.Errorf("a folder MakeDir made is still there after Undo: %v", err)
	}
	// The parents it made go too (a was left behind).
	if _, err := os.Stat(filepath.Join(base, "a")); !os.IsNotExist(err) {
		t.Errorf("a parent MakeDir made is still there after Undo: %v", err)
	}
	d, err = MakeDir(base) // existed
	if err != nil {
		t.Fatal(err)
	}
	d.Undo()
	if _, err := os.Stat(base); err != nil {
		t.Errorf("Undo removed a folder that existed: %v", err)
	}
	full := filepath.Join(base, "c")
	d, _ = MakeDir(full)
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d.Undo()
	if _, err := os.Stat(full); err != nil {
		t.Errorf("Undo removed a folder holding a file: %v", err)
	}
	AbortAll(nil, nil) // nil files are skipped
}

// TestCheckStdStreams: standard output or error that is an input is
// refused; the error of standard error matches ErrStderrIsInput.
func TestCheckStdStreams(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	os.WriteFile(in, []byte("a\n"), 0o644)
	f, err := os.OpenFile(in, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ins := []Named{{"--input", in}}
	saved := os.Stderr
	os.Stderr = f
	err = Check(nil, ins)
	os.Stderr = saved
	if !errors.Is(err, ErrPath) || !errors.Is(err, ErrStderrIsInput) {
		t.Errorf("standard error into the input: %v", err)
	}
	saved = os.Stdout
	os.Stdout = f
	err = Check(nil, ins)
	os.Stdout = saved
	if !errors.Is(err, ErrPath) || errors.Is(err, ErrStderrIsInput) {
		t.Errorf("standard output into the input: %v", err)
	}
	if err := Check([]Named{{"--out", filepath.Join(dir, "o.csv")}}, ins); err != nil {
		t.Errorf("a new output: %v", err)
	}
}
