package csvscan

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/acbfjoin/acbfjoin/internal/remote"
)

// Open opens an NBER file for one sequential read: plain text, gzip or a zip
// archive holding one text file (as NBER ships acite75_99.zip and
// apat63_99.zip), recognised by their first bytes; "-" is standard input. It
// returns the content stream and the name to use in error messages
// ("apat63_99.zip:apat63_99.txt" for a zip). The caller closes the stream.
// OpenInput is the parallel reader's form.
func Open(path string) (io.ReadCloser, string, error) {
	return OpenContext(context.Background(), path)
}

// OpenContext is Open that gives up when ctx ends: opening a FIFO with no
// writer returns ctx's error, and a read blocked on a pipe or FIFO returns
// once ctx ends (the stream is closed under it).
func OpenContext(ctx context.Context, path string) (io.ReadCloser, string, error) {
	s, err := openStream(ctx, path)
	if err != nil {
		return nil, path, err
	}
	closers := s.closers
	if s.stop != nil {
		closers = append([]io.Closer{closerFunc(func() error { s.stop(); return nil })}, closers...)
	}
	return &stacked{Reader: s.r, closers: closers}, s.name, nil
}

type closerFunc func() error

func (c closerFunc) Close() error { return c() }

// zipEntry picks the data file of a zip: its only regular file, or its only
// .txt/.csv file.
func zipEntry(zr *zip.Reader, path string) (*zip.File, error) {
	var files, text []*zip.File
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		files = append(files, f)
		if ext := strings.ToLower(filepath.Ext(f.Name)); ext == ".txt" || ext == ".csv" {
			text = append(text, f)
		}
	}
	var entry *zip.File
	switch {
	case len(files) == 1:
		entry = files[0]
	case len(text) == 1:
		entry = text[0]
	case len(files) == 0:
		return nil, fmt.Errorf("%s: zip archive is empty", path)
	}
	if entry == nil {
		return nil, fmt.Errorf("%s: zip archive holds %d files, cannot tell which is the data", path, len(files))
	}
	// A Parquet or Arrow file in a zip, by its name or its first bytes:
	// refused as a .parquet.gz is (columnar.FormatOf), not read as CSV.
	format := tableExt(entry.Name)
	if format == "" {
		if rc, err := entry.Open(); err == nil {
			var head [8]byte
			n, _ := io.ReadFull(rc, head[:])
			rc.Close()
			format = tableMagic(head[:n])
		}
	}
	if format != "" {
		return nil, fmt.Errorf("%s: a compressed %s file (%s in the zip archive): %s compresses inside, give the file itself (unzip it)", path, format, printable(entry.Name), format)
	}
	return entry, nil
}

// tableExt is the format a file name says it is of, if a table's (as
// columnar.FormatOf reads extensions): "Parquet", "Arrow IPC", else "".
func tableExt(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".parquet", ".pq":
		return "Parquet"
	case ".arrow", ".feather", ".ipc", ".arrows":
		return "Arrow IPC"
	}
	return ""
}

type stacked struct {
	io.Reader
	closers []io.Closer
}

func (s *stacked) Close() error {
	var errs []error
	for _, c := range s.closers {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// Range is a byte range [Start, End) of a file that starts and ends on record
// boundaries (see Input).
type Range struct{ Start, End int64 }

// lineEnd returns the offset just after the first '\n' at or after off, or size.
func lineEnd(f io.ReaderAt, off, size int64) (int64, error) {
	var buf [4096]byte
	for off < size {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return off + int64(i) + 1, nil
		}
		off += int64(n)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if n == 0 {
			break
		}
	}
	return size, nil
}

// WithLine fills in the line number of a ParseError from a range reader (which
// knows only the record's byte offset) by counting the line breaks before the
// offset in the plain file at path. Other errors are returned as they are. It
// reads the file up to the offset: use it on the error path only.
func WithLine(err error, path string) error {
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 0 {
		return err
	}
	// Only a regular file can be read again (not a pipe, nor standard input).
	if !remote.Is(path) {
		if st, serr := os.Stat(path); path == "-" || serr != nil || !st.Mode().IsRegular() {
			return err
		}
	}
	line := LineAt(path, pe.Offset)
	if line == 0 {
		return err
	}
	fixed := *pe
	fixed.Line = line
	return &fixed
}

// LineAt returns the number of the line of the plain file at path that the
// byte offset off falls in (1 for the first), counting its line breaks
// before off: O(off), for error paths. It returns 0 if the file cannot be
// opened.
func LineAt(path string, off int64) int64 {
	f, err := openReaderAt(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var line int64 = 1
	for done := int64(0); done < off; {
		n, rerr := f.Read(buf[:min(int64(len(buf)), off-done)])
		line += int64(bytes.Count(buf[:n], []byte{'\n'}))
		done += int64(n)
		if rerr != nil || n == 0 {
			break
		}
	}
	return line
}
