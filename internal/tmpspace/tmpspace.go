// Package tmpspace bounds what a run copies into its temporary folder: a
// Writer over a file there stops before the folder's file system would have
// less than a reserve free, so that a stream that never ends (/dev/zero, a
// FIFO fed by yes) fails the run instead of filling the disk.
//
// The reserve is 5% of the file system's size, at most 1 GiB
// (Reserve). The free space is looked at when the Writer starts and again
// after every 64 MiB written, or sooner near the reserve, so that other
// writers of the same disk count too.
package tmpspace

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/acbfjoin/acbfjoin/internal/textfmt"
)

const (
	maxReserve = 1 << 30  // the reserve's ceiling: 1 GiB
	reserveDiv = 20       // the reserve: 1/20 (5%) of the file system's size
	lookEvery  = 64 << 20 // bytes written between two looks at the free space
)

// Statfs reports the bytes of dir's file system free to an unprivileged
// user and its size. A variable so that tests stand a small disk in
// (Fake); the program never changes it.
var Statfs = func(dir string) (free, size uint64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), uint64(st.Blocks) * uint64(st.Bsize), nil
}

// Fake makes Statfs report a file system of size bytes that has free bytes
// free less the bytes of the files in the folder asked about (a stand-in
// for a small disk, for tests); the returned function restores the real
// Statfs. Not safe while Writers run.
func Fake(free, size uint64) (restore func()) {
	old := Statfs
	Statfs = func(dir string) (uint64, uint64, error) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return 0, 0, err
		}
		var used uint64
		for _, e := range ents {
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
				used += uint64(info.Size())
			}
		}
		return free - min(used, free), size, nil
	}
	return func() { Statfs = old }
}

// Reserve is the free space a Writer leaves on a file system of size
// bytes: 5% of it, at most 1 GiB.
func Reserve(size uint64) uint64 { return min(size/reserveDiv, maxReserve) }

// ErrFull is wrapped by every *FullError.
var ErrFull = errors.New("temporary folder's reserve reached")

// FullError is a copy stopped at the reserve: Written bytes went to Dir,
// whose file system had Free bytes free with Reserve to keep.
type FullError struct {
	Dir           string
	Written       int64
	Free, Reserve uint64
}

func (e *FullError) Error() string {
	return fmt.Sprintf("stopped after %s written to %s, before its file system fell below the %s it keeps free (5%% of its size, at most 1 GiB; %s were free)",
		textfmt.Bytes(uint64(e.Written)), e.Dir, textfmt.Bytes(e.Reserve), textfmt.Bytes(e.Free))
}

func (e *FullError) Unwrap() error { return ErrFull }

// Writer writes to w, a file in dir, until the next write would leave dir's
// file system with less than its reserve free; then it writes nothing more
// and returns a *FullError. Not safe for concurrent use.
type Writer struct {
	w       io.Writer
	dir     string
	n       int64 // written
	allowed int64 // n may grow to this before the next look
	err     error
}

// NewWriter returns a Writer to w, a file in dir.
func NewWriter(w io.Writer, dir string) *Writer { return &Writer{w: w, dir: dir} }

// Written is the bytes written so far.
func (w *Writer) Written() int64 { return w.n }

func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.n+int64(len(p)) > w.allowed {
		if err := w.look(int64(len(p))); err != nil {
			w.err = err
			return 0, err
		}
	}
	n, err := w.w.Write(p)
	w.n += int64(n)
	return n, err
}

// look reads the free space and sets how much more may be written before
// the next look; it fails if want bytes would eat into the reserve.
func (w *Writer) look(want int64) error {
	free, size, err := Statfs(w.dir)
	if err != nil {
		return fmt.Errorf("free space of %s: %w", w.dir, err)
	}
	if size == 0 {
		// A file system that reports no size (some FUSE and network
		// ones) has no free space to go by: write on, and look again.
		w.allowed = w.n + max(lookEvery, want)
		return nil
	}
	reserve := Reserve(size)
	if free < reserve || free-reserve < uint64(want) {
		return &FullError{Dir: w.dir, Written: w.n, Free: free, Reserve: reserve}
	}
	w.allowed = w.n + int64(min(free-reserve, max(lookEvery, uint64(want))))
	return nil
}
