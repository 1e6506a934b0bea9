package nber

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Open opens an NBER file for reading: plain text (.txt, .csv or anything
// else), gzip (.gz), or a zip archive (.zip) holding one text file, as NBER
// ships acite75_99.zip and apat63_99.zip. It returns the content stream and the
// name to use in error messages ("apat63_99.zip:apat63_99.txt" for a zip).
// The caller closes the stream.
func Open(path string) (io.ReadCloser, string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".gz":
		f, err := os.Open(path)
		if err != nil {
			return nil, path, err
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, path, fmt.Errorf("%s: not a gzip file: %w", path, err)
		}
		return &stacked{Reader: zr, closers: []io.Closer{zr, f}}, path, nil
	case ".zip":
		zr, err := zip.OpenReader(path)
		if err != nil {
			return nil, path, fmt.Errorf("%s: not a zip file: %w", path, err)
		}
		entry, err := zipEntry(&zr.Reader, path)
		if err != nil {
			zr.Close()
			return nil, path, err
		}
		rc, err := entry.Open()
		if err != nil {
			zr.Close()
			return nil, path, fmt.Errorf("%s: %w", path, err)
		}
		name := path + ":" + entry.Name
		return &stacked{Reader: rc, closers: []io.Closer{rc, zr}}, name, nil
	default:
		f, err := os.Open(path)
		if err != nil {
			return nil, path, err
		}
		return f, path, nil
	}
}

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
	switch {
	case len(files) == 1:
		return files[0], nil
	case len(text) == 1:
		return text[0], nil
	case len(files) == 0:
		return nil, fmt.Errorf("%s: zip archive is empty", path)
	}
	return nil, fmt.Errorf("%s: zip archive holds %d files, cannot tell which is the data", path, len(files))
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
// boundaries.
type Range struct{ Start, End int64 }

// ErrNotSplittable is returned by SplitFile for compressed files.
var ErrNotSplittable = errors.New("compressed files cannot be split into byte ranges")

// SplitFile divides the records after the header of the plain-text file at path
// into at most n byte ranges of about equal size that start and end on line
// boundaries, so that n readers (NewRangeReader) can read the file in parallel.
// It returns the header line's length too. It assumes no line break inside a
// quoted field, which holds for the NBER files (a reader of a range that breaks
// such a field reports a malformed record). O(n) small reads.
func SplitFile(path string, n int) (ranges []Range, headerEnd int64, err error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".gz", ".zip":
		return nil, 0, fmt.Errorf("%s: %w", path, ErrNotSplittable)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	return Split(f, st.Size(), n)
}

// Split is SplitFile on any io.ReaderAt of the given size.
func Split(f io.ReaderAt, size int64, n int) (ranges []Range, headerEnd int64, err error) {
	if n < 1 {
		n = 1
	}
	headerEnd, err = lineEnd(f, 0, size)
	if err != nil {
		return nil, 0, err
	}
	prev := headerEnd
	for i := 1; i <= n; i++ {
		cut := size
		if i < n {
			pos := headerEnd + (size-headerEnd)*int64(i)/int64(n)
			if pos <= prev {
				continue
			}
			// The range ends after the line that holds byte pos-1.
			if cut, err = lineEnd(f, pos-1, size); err != nil {
				return nil, 0, err
			}
		}
		if cut > prev {
			ranges = append(ranges, Range{prev, cut})
			prev = cut
		}
	}
	return ranges, headerEnd, nil
}

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
	f, ferr := os.Open(path)
	if ferr != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var line int64 = 1
	var off int64
	for off < pe.Offset {
		n, rerr := f.Read(buf[:min(int64(len(buf)), pe.Offset-off)])
		line += int64(bytes.Count(buf[:n], []byte{'\n'}))
		off += int64(n)
		if rerr != nil {
			break
		}
	}
	fixed := *pe
	fixed.Line = line
	return &fixed
}
