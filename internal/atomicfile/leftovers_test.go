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
