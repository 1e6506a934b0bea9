package tmpspace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/textfmt"
)

func TestReserve(t *testing.T) {
	for _, tc := range []struct{ size, want uint64 }{
		{0, 0},
		{100 << 20, 5 << 20},
		{20 << 30, 1 << 30},
		{252 << 30, 1 << 30},
	} {
		if got := Reserve(tc.size); got != tc.want {
			t.Errorf("Reserve(%d) = %d, want %d", tc.size, got, tc.want)
		}
	}
}

// TestWriterStops: a Writer over a file in a folder of a small (faked) disk
// writes until the reserve would be reached, then fails with a *FullError
// that says how much it wrote, and writes nothing more.
func TestWriterStops(t *testing.T) {
	dir := t.TempDir()
	defer Fake(3<<20, 20<<20)() // 3 MiB free, 1 MiB of it the reserve
	f, err := os.Create(filepath.Join(dir, "copy"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := NewWriter(f, dir)
	chunk := bytes.Repeat([]byte("x"), 100<<10)
	var werr error
	for range 1000 { // 100 MB: far more than fits
		if _, werr = w.Write(chunk); werr != nil {
			break
		}
	}
	var fe *FullError
	if !errors.As(werr, &fe) || !errors.Is(werr, ErrFull) {
		t.Fatalf("error %v, want a *FullError", werr)
	}
	st, _ := f.Stat()
	if st.Size() != w.Written() || w.Written() > 2<<20 || w.Written() < 2<<20-int64(len(chunk)) {
		t.Errorf("wrote %d bytes (file %d), want at most the 2 MiB above the reserve, within a write", w.Written(), st.Size())
	}
	if fe.Reserve != 1<<20 || fe.Written != w.Written() {
		t.Errorf("error %+v", fe)
	}
	for _, s := range []string{"stopped after " + textfmt.Bytes(uint64(w.Written())) + " written to " + dir, "the 1.00 MiB it keeps free", "5% of its size, at most 1 GiB"} {
		if !strings.Contains(werr.Error(), s) {
			t.Errorf("error %q, want %q", werr, s)
		}
	}
	if _, err := w.Write([]byte("y")); err == nil {
		t.Error("a write after the reserve was reached succeeded")
	}
}

// TestWriterFits: a copy that fits is written whole.
func TestWriterFits(t *testing.T) {
	dir := t.TempDir()
	defer Fake(3<<20, 20<<20)()
	var buf bytes.Buffer
	w := NewWriter(&buf, dir)
	data := bytes.Repeat([]byte("x"), 2<<20)
	if n, err := w.Write(data); err != nil || n != len(data) {
		t.Fatalf("Write = %d, %v", n, err)
	}
}

// TestStatfs: the real Statfs answers for an existing folder and fails for
// a missing one.
func TestStatfs(t *testing.T) {
	free, size, err := Statfs(t.TempDir())
	if err != nil || size == 0 || free > size {
		t.Errorf("Statfs = %d, %d, %v", free, size, err)
	}
	if _, _, err := Statfs(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Statfs of a missing folder succeeded")
	}
	w := NewWriter(&bytes.Buffer{}, filepath.Join(t.TempDir(), "missing"))
	if _, err := w.Write([]byte("x")); err == nil || !strings.Contains(err.Error(), "free space of") {
		t.Errorf("Write into a missing folder: %v", err)
	}
}

// TestWriterNoSize: a file system that reports no size (some FUSE and
// network ones) is written on, not refused.
func TestWriterNoSize(t *testing.T) {
	defer Fake(0, 0)()
	var buf bytes.Buffer
	w := NewWriter(&buf, t.TempDir())
	for range 3 {
		if _, err := w.Write(make([]byte, 1<<20)); err != nil {
			t.Fatal(err)
		}
	}
}
