package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/remote"
)

// Span is a part of a side that a worker in another process reads by
// itself (beam's ranged map: an element of its input): a byte range of a
// CSV file (csvscan.Range), with the file's size and modification time (Unix ns) when
// the ranges were cut: a worker that finds the file otherwise refuses to
// read it (its ranges no longer fall on record boundaries).
// A table's (Parquet, Arrow file) Span is one chunk: a row group, a record
// batch, index Start.
type Span struct {
	Start, End, Size, MTime int64
	Table                   bool
	// Path is the span's file of a side of many files (a folder, a glob:
	// Files); "" for a side of one.
	Path string
}

// SpanRows is a CSV reader's rows or a table's (columnar.Reader, whose
// fields are its values' canonical text, a NULL empty, and whose Raw is
// the row as a CSV line).
type SpanRows interface {
	Next() bool
	Fields() [][]byte
	Raw() []byte
	Line() int64
	Err() error
}

// WholeFile is the span of a whole local file that cannot be cut (a
// compressed file): its records after the header, read in one piece.
var WholeFile = Span{Start: 0, End: -1}

// Whole reports whether sp is a whole file read in one piece (WholeFile,
// or its Path's of a side of many files).
func (sp Span) Whole() bool { return sp.Start == 0 && sp.End == -1 && !sp.Table }

// OpenSpan opens the records of a span of a local file: a byte range
// (csvscan.OpenRange), or with wholeFile the whole stream, decompressed
// (csvscan.Open, which knows gzip and zip by their bytes), its header read;
// of a Parquet or Arrow file, a chunk (a span with Table), or with wholeFile
// every chunk (columnar.Reader). format is columnar.FormatOf's ("": by
// the path's extension); sep is a CSV file's field separator.
func OpenSpan(ctx context.Context, path, format string, sp Span, nfields int, sep byte) (SpanRows, io.Closer, error) {
	return OpenSpanWhere(ctx, path, format, sp, nfields, sep, nil)
}

// OpenSpanWhere is OpenSpan that reads nothing of a table chunk's span
// whose statistics refute the side's predicate (refutes: where.Pred's
// Refutes, nil for none; Side.Prune's rule, and NoPrune turns it off too):
// its rows are then none.
func OpenSpanWhere(ctx context.Context, path, format string, sp Span, nfields int, sep byte, refutes func(stats func(col int) (columnar.Stats, bool)) bool) (SpanRows, io.Closer, error) {
	f, err := columnar.FormatOf(path, format)
	if err != nil {
		return nil, nil, err
	}
	if !sp.Whole() {
		size, mtime, err := fileState(ctx, path)
		if err != nil {
			return nil, nil, err
		}
		if size != sp.Size || mtime != sp.MTime {
			return nil, nil, fmt.Errorf("%s changed after the pipeline cut it into ranges (%d bytes then, %d now): run again on a copy that nothing writes", path, sp.Size, size)
		}
		if sp.Table {
			t, err := OpenSkipNested(ctx, path, f)
			if err != nil {
				return nil, nil, err
			}
			var first int64
			for i := range int(sp.Start) {
				first += t.ChunkRows(i)
			}
			if refutes != nil && !NoPrune && refutes(func(col int) (columnar.Stats, bool) { return t.Stats(int(sp.Start), col) }) {
				return columnar.NewRows(t.Name, nil, first), t, nil
			}
			cols, err := t.Read(int(sp.Start), nil)
			if err != nil {
				t.Close()
				return nil, nil, err
			}
			return columnar.NewRows(t.Name, cols, first), t, nil
		}
		return csvscan.OpenRange(path, csvscan.Range{Start: sp.Start, End: sp.End}, nfields, sep)
	}
	if f != columnar.CSV {
		t, err := OpenSkipNested(ctx, path, f)
		if err != nil {
			return nil, nil, err
		}
		return columnar.NewReader(t), t, nil
	}
	rc, name, err := csvscan.Open(path)
	if err != nil {
		return nil, nil, err
	}
	r := csvscan.NewReader(rc, name)
	if err := r.SetSep(sep); err != nil {
		rc.Close()
		return nil, nil, err
	}
	if _, err := r.ReadHeader(); err != nil {
		rc.Close()
		return nil, nil, err
	}
	return r, rc, nil
}

// OpenSkipNested opens a Parquet, Arrow or JSON lines side for a worker:
// a nested column reads as NULLs (columnar.Table.SkipNested), never
// written, since the launcher refused one that a key or the output would
// hold (DecideKeyTypes checks them with Columns, as OpenPair does).
func OpenSkipNested(ctx context.Context, path string, format columnar.Format) (*columnar.Table, error) {
	t, err := columnar.Open(ctx, path, "", format, "", columnar.AllowNested)
	if err != nil {
		return nil, err
	}
	t.SkipNested()
	return t, nil
}

// Spans returns the parts of a local regular file for workers that read
// them by themselves (beam's rangeMapFn): at
// least two a core, and one each 32 MiB, so that a runner can spread them
// over its workers; a compressed file or an Arrow stream is one span, WholeFile; a table's, one a chunk. sep is a CSV
// file's field separator. A side of many files (a folder, a glob: Files)
// gives the spans of each file in turn, each with its Path, once the files
// are found to agree on their columns (Open's check); a compressed file of
// them is one span, read whole.
func Spans(path, format string, sep byte) ([]Span, error) {
	files, many, err := Files(path, format)
	if err != nil {
		return nil, err
	}
	if !many {
		return fileSpans(path, format, sep)
	}
	// The files must agree on their columns, as join run's Open checks.
	s, err := Open(context.Background(), Options{Option: "Input", Path: path, Format: format, Sep: sep})
	if err != nil {
		return nil, err
	}
	s.Close()
	var out []Span
	for _, f := range files {
		sp, err := fileSpans(f, format, sep)
		if errors.Is(err, csvscan.ErrNoHeader) || errors.Is(err, columnar.ErrNoObject) {
			continue // an empty file of several holds no row (Open skipped it too)
		}
		if err != nil {
			return nil, err
		}
		for _, x := range sp { // a compressed file is one span: read whole, decompressed
			x.Path = f
			out = append(out, x)
		}
	}
	return out, nil
}

// fileSpans is Spans of one file.
func fileSpans(path, format string, sep byte) ([]Span, error) {
	size, mtime, err := fileState(context.Background(), path)
	if err != nil {
		return nil, err
	}
	if f, err := columnar.FormatOf(path, format); err != nil {
		return nil, err
	} else if f != columnar.CSV {
		t, err := OpenSkipNested(context.Background(), path, f)
		if err != nil {
			return nil, err
		}
		defer t.Close()
		if t.Stream() { // an Arrow stream is read in order: one span
			return []Span{WholeFile}, nil
		}
		var out []Span
		for i := range t.Chunks() {
			out = append(out, Span{Start: int64(i), End: int64(i + 1), Size: size, MTime: mtime, Table: true})
		}
		return out, nil
	}
	parts := int(max(int64(2*runtime.NumCPU()), min(size>>25, 1<<12)))
	in, err := csvscan.OpenInput(context.Background(), path, csvscan.InputOptions{Parts: parts, Sep: sep})
	if err != nil {
		return nil, err
	}
	defer in.Close()
	if !in.Regular {
		return []Span{WholeFile}, nil
	}
	var out []Span
	for _, rg := range in.Ranges() {
		out = append(out, Span{Start: rg.Start, End: rg.End, Size: size, MTime: mtime})
	}
	return out, nil
}

// fileState returns the size and modification time (Unix ns) of the local
// or remote (remote.Is: its version) file path, for Span's check that a
// file was not written after it was cut.
func fileState(ctx context.Context, path string) (size, mtime int64, err error) {
	if remote.Is(path) {
		info, err := remote.Stat(ctx, path)
		return info.Size, info.MTime, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, 0, err
	}
	return st.Size(), st.ModTime().UnixNano(), nil
}
