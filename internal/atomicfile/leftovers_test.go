package atomicfile

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestLeftovers: entries of this program's names are listed with their
// process, running (this one) or gone; other names are not.
func TestLeftovers(t *testing.T) {
	dir := t.TempDir()
	gone := 1 << 22 // above Linux's default pid_max: no such process
	for _, name := range []string{TempPrefix() + "spill", "." + TempPrefix() + "out.csv-1.tmp", "acbfjoin-" + strconv.Itoa(gone) + "-sort",
		"acbfjoin-x-1", "acbfjoin-", "other.csv", ".acbfjoin-0-zero"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A folder and a link under an output's temporary name of a process
	// that is gone: what a run killed inside its Commit swap left there,
	// the user's, never listed (so `join clean` leaves them).
	swapped := filepath.Join(dir, ".acbfjoin-"+strconv.Itoa(gone)+"-out.csv-7.tmp")
	if err := os.MkdirAll(filepath.Join(swapped, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(swapped, filepath.Join(dir, ".acbfjoin-"+strconv.Itoa(gone)+"-b.csv-8.tmp")); err != nil {
		t.Fatal(err)
	}
	ls, err := Leftovers(dir)
	if err != nil || len(ls) != 3 {
		t.Fatalf("%v, %v", ls, err)
	}
	for _, l := range ls {
		if (l.PID == os.Getpid()) != l.Running || (l.PID != os.Getpid() && l.PID != gone) {
			t.Errorf("%+v", l)
		}
	}
	if _, err := Leftovers(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing folder: no error")
	}
}

// TestDead: the leftovers of processes that are gone, counted with the
// bytes of their files (a folder's whole tree); a running process's
// entries and other names are not.
func TestDead(t *testing.T) {
	dir := t.TempDir()
	gone := "acbfjoin-" + strconv.Itoa(1<<22) + "-"
	write := func(name string, n int) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(gone+"spill", 100)
	write(gone+"sort/a", 20)
	write(gone+"sort/b/c", 3)
	write(TempPrefix()+"mine", 1000) // this process runs
	write("other.csv", 5000)
	if n, size := Dead(dir); n != 2 || size != 123 {
		t.Errorf("Dead: %d entries, %d bytes; want 2, 123", n, size)
	}
	if n, size := Dead(filepath.Join(dir, "missing")); n != 0 || size != 0 {
		t.Errorf("a missing folder: %d, %d", n, size)
	}
}
