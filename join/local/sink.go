package local

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
)

// Sink receives the join's output: Begin once with the header, rows from
// the reducers through one RowWriter each, Finish once every writer is
// flushed, and Close on every path (after Finish, or instead of it on a
// failure) to release what it holds. The CSV sink writes rows as they come;
// with Options.Sort, Run puts an external sort in front of the sink.
type Sink interface {
	Begin(h join.Header) error
	// Writer returns a writer for one goroutine; Writer itself is safe for
	// concurrent use.
	Writer() RowWriter
	Finish(ctx context.Context) error
	Close() error
}

// RowWriter writes the output rows of one goroutine.
type RowWriter interface {
	// Write writes the output row of a match (join.AppendOutputRow of the
	// large-side and key-side rows) with its sort key: the join key, the
	// large-side row's position, the key-side row's. The bytes are valid
	// only during the call.
	Write(key []byte, seq, small int64, largeRow, smallRow []byte) error
	// Flush hands the buffered rows to the sink; the writer is done.
	Flush() error
}

// lineWriter is a RowWriter that also takes whole output lines, as the
// external sort hands them back in order.
type lineWriter interface {
	RowWriter
	WriteLine(line []byte) error
}

// csvSink writes CSV with a header to w: each writer buffers 256 KiB of
// lines, then hands them to the shared writer under a lock. Its buffer
// (64 KiB) is smaller than a writer's batch, so that a full batch goes to
// w as it is, not copied once more (bufio.Writer writes a large write
// straight through when it holds nothing): each output byte is copied
// once, from the two halves of its row into a reducer's batch.
type csvSink struct {
	mu  sync.Mutex
	out *bufio.Writer
}

// NewCSV returns a Sink that writes CSV with a header to w. The row order is
// the reducers' (use Options.Sort for a defined order).
func NewCSV(w io.Writer) Sink { return &csvSink{out: bufio.NewWriterSize(w, 64<<10)} }

func (s *csvSink) Begin(h join.Header) error {
	_, err := s.out.Write(h.Line)
	return err
}

func (s *csvSink) Writer() RowWriter { return &lineBuffer{flush: s.write, tryFlush: s.tryWrite} }

func (s *csvSink) Finish(context.Context) error { return s.out.Flush() }

func (s *csvSink) Close() error { return nil }

// write hands a writer's lines to the shared writer: straight through
// when they are a full batch and nothing is buffered.
func (s *csvSink) write(lines []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.out.Write(lines)
	return err
}

// tryWrite is write when no other writer holds the output: false, and
// nothing written, when one does.
func (s *csvSink) tryWrite(lines []byte) (bool, error) {
	if !s.mu.TryLock() {
		return false, nil
	}
	defer s.mu.Unlock()
	_, err := s.out.Write(lines)
	return true, err
}

// lineBuffer is a RowWriter that collects a writer's lines and hands them to
// flush 256 KiB at a time (a lock per batch, not per line). With tryFlush,
// a batch that finds the output busy (another reducer writing) is kept
// and grown, up to maxLineBuffer, instead of waited with: two reducers of
// the NBER join waited 4-6 ms in all for the output's lock, their 30 MB
// written one after the other (Intel Xeon).
type lineBuffer struct {
	buf      []byte
	flush    func(lines []byte) error
	tryFlush func(lines []byte) (bool, error) // nil: always flush
	// join forms a row from its two halves: join.AppendOutputRow, or
	// appendCellRow for a sink of typed rows (typedrows.go); nil for the
	// first.
	join func(dst, large, small []byte) []byte
}

// maxLineBuffer is the most a lineBuffer with tryFlush holds before it
// waits for the output.
const maxLineBuffer = 4 << 20

func (w *lineBuffer) Write(_ []byte, _, _ int64, largeRow, smallRow []byte) error {
	if w.join != nil {
		w.buf = w.join(w.buf, largeRow, smallRow)
	} else {
		w.buf = join.AppendOutputRow(w.buf, largeRow, smallRow)
	}
	if len(w.buf) >= 256<<10 {
		return w.full()
	}
	return nil
}

func (w *lineBuffer) WriteLine(line []byte) error {
	w.buf = append(w.buf, line...)
	if len(w.buf) >= 256<<10 {
		return w.full()
	}
	return nil
}

// full hands the batch on: at once where the output is free (or no
// tryFlush), else later, while it is under maxLineBuffer.
func (w *lineBuffer) full() error {
	if w.tryFlush == nil || len(w.buf) >= maxLineBuffer {
		return w.Flush()
	}
	ok, err := w.tryFlush(w.buf)
	if ok {
		w.buf = w.buf[:0]
	}
	return err
}

func (w *lineBuffer) Flush() error {
	err := w.flush(w.buf)
	w.buf = w.buf[:0]
	return err
}

// Output formats (NewCSV, NewTSV, NewJSONL, NewParquet).
const (
	FormatCSV     = "csv"
	FormatTSV     = "tsv"
	FormatJSONL   = "jsonl"
	FormatParquet = "parquet"
	// FormatArrow is the Arrow IPC file format, FormatArrowStream the IPC
	// stream format (NewArrow).
	FormatArrow       = "arrow"
	FormatArrowStream = "arrow-stream"
)

// FormatFor returns the format of an output at path: the one its extension
// names (.csv CSV, .tsv and .tab TSV, .jsonl and .ndjson JSON lines, each
// with .gz too; .parquet and .pq Parquet; .arrow, .feather and .ipc the
// Arrow IPC file, .arrows its stream), else asked, else CSV. It refuses (an option.Error naming
// Format or Output, wrapping join.ErrOptions) an asked format that the
// extension contradicts, an unknown asked format, and an extension naming
// a format no sink writes (.json, .xlsx, .orc, .avro), so that
// a file's name never lies about its bytes.
func FormatFor(path, asked string) (string, error) {
	if asked != "" && asked != FormatCSV && asked != FormatTSV && asked != FormatJSONL && asked != FormatParquet && asked != FormatArrow && asked != FormatArrowStream {
		return "", &option.Error{Pkg: "local", Name: "Format", Value: asked, Reason: "want csv, tsv, jsonl, parquet, arrow or arrow-stream", Err: join.ErrOptions}
	}
	lower := strings.ToLower(filepath.Base(path))
	if strings.HasSuffix(lower, ".zip") {
		return "", &option.Error{Pkg: "local", Name: "Output", Value: path, Reason: "the join does not write zip archives: name it .csv, .csv.gz, .tsv, .jsonl, .parquet or .arrow", Err: join.ErrOptions}
	}
	// A name of another compression (x.csv.zst): the bytes would be plain
	// text under it (a review found them so), and a name never lies about
	// its bytes.
	for _, ext := range []string{".zst", ".zstd", ".bz2", ".xz", ".lz4", ".br", ".lzma", ".z", ".7z"} {
		if strings.HasSuffix(lower, ext) {
			return "", &option.Error{Pkg: "local", Name: "Output", Value: path, Reason: fmt.Sprintf("the join compresses with gzip alone, not %s: name it .csv.gz (or leave the compression out)", ext), Err: join.ErrOptions}
		}
	}
	if asked == FormatParquet && strings.HasSuffix(lower, ".gz") {
		return "", &option.Error{Pkg: "local", Name: "Output", Value: path, Reason: "a Parquet file is compressed inside: leave out .gz", Err: join.ErrOptions}
	}
	name := strings.TrimSuffix(lower, ".gz")
	named := ""
	switch filepath.Ext(name) {
	case ".csv":
		named = FormatCSV
	case ".tsv", ".tab":
		named = FormatTSV
	case ".jsonl", ".ndjson":
		named = FormatJSONL
	case ".parquet", ".pq":
		named = FormatParquet
		if name != lower {
			return "", &option.Error{Pkg: "local", Name: "Output", Value: path, Reason: "a Parquet file is compressed inside: leave out .gz", Err: join.ErrOptions}
		}
	case ".arrow", ".feather", ".ipc", ".arrows":
		named = FormatArrow
		if filepath.Ext(name) == ".arrows" {
			named = FormatArrowStream
		}
		if name != lower {
			return "", &option.Error{Pkg: "local", Name: "Output", Value: path, Reason: "the join writes Arrow uncompressed: leave out .gz", Err: join.ErrOptions}
		}
	case ".json", ".xlsx", ".orc", ".avro":
		return "", &option.Error{Pkg: "local", Name: "Output", Value: path, Reason: "its extension names a format the join does not write: name it .csv, .tsv, .jsonl, .parquet or .arrow", Err: join.ErrOptions}
	}
	switch {
	case named != "" && asked != "" && named != asked:
		ext := asked
		if asked == FormatArrowStream {
			ext = "arrows" // the stream's name (.arrow-stream is no name of one)
		}
		return "", &option.Error{Pkg: "local", Name: "Format", Value: asked, Reason: fmt.Sprintf("the output %s is named as %s: name it .%s, or leave the format out", path, named, ext), Err: join.ErrOptions}
	case named != "":
		return named, nil
	case asked != "":
		return asked, nil
	}
	return FormatCSV, nil
}
