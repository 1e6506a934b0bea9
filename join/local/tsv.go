package local

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/join"
)

// tsvSink writes the output as tab-separated values with a header: each
// output row (a CSV line, as every phase forms it) is split and its fields
// written tab-separated, quoted only where they must be (a tab, a quote or
// a line break in the field: the quoting csvscan, Python's csv module and
// DuckDB read with a tab delimiter), so that the join reads its own
// output back field for field (TestTSVOutput). Each writer converts its
// own batch; the batches go to w under a lock, as the CSV sink's do.
type tsvSink struct {
	mu  sync.Mutex
	out *bufio.Writer
}

// NewTSV returns a Sink that writes TSV with a header to w.
func NewTSV(w io.Writer) Sink { return &tsvSink{out: bufio.NewWriterSize(w, 64<<10)} }

func (s *tsvSink) Begin(h join.Header) error {
	line := appendTSV(nil, toBytes(h.Names))
	_, err := s.out.Write(append(line, '\n'))
	return err
}

func toBytes(names []string) [][]byte {
	b := make([][]byte, len(names))
	for i, n := range names {
		b[i] = []byte(n)
	}
	return b
}

func (s *tsvSink) Writer() RowWriter {
	w := &tsvWriter{s: s}
	w.lb.flush = w.convert
	return &w.lb
}

func (s *tsvSink) Finish(context.Context) error { return s.out.Flush() }

func (s *tsvSink) Close() error { return nil }

// tsvWriter is one writer's: its CSV lines (lb) converted a batch at a
// time into out.
type tsvWriter struct {
	s      *tsvSink
	lb     lineBuffer
	out    []byte
	fields [][]byte
	unq    []byte
}

// convert turns a batch of CSV lines into TSV lines and writes them.
func (w *tsvWriter) convert(lines []byte) error {
	w.out = w.out[:0]
	for len(lines) > 0 {
		var n int
		var err error
		w.fields, w.unq, n, err = splitLine(lines, w.fields[:0], w.unq[:0])
		if err != nil {
			return fmt.Errorf("tsv: an output row: %w", err)
		}
		w.out = append(appendTSV(w.out, w.fields), '\n')
		lines = lines[n:]
	}
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	_, err := w.s.out.Write(w.out)
	return err
}

// appendTSV appends fields tab-separated, each quoted (its quotes
// doubled) when it holds a tab, a quote, a CR or a line break; one empty
// field is written "" so that the row is no blank line.
func appendTSV(b []byte, fields [][]byte) []byte {
	if len(fields) == 1 && len(fields[0]) == 0 {
		return append(b, '"', '"')
	}
	for i, f := range fields {
		if i > 0 {
			b = append(b, '\t')
		}
		// A first field beginning with U+FEFF is quoted: at the file's
		// start (the header's) a reader takes it for a byte order mark; a
		// row's is quoted as harmlessly.
		quote := i == 0 && len(f) > 0 && f[0] == 0xef && csvscan.HeaderNeedsQuotes(string(f)) // U+FEFF's first byte: no string made of a row's field
		for _, c := range f {
			if c == '\t' || c == '"' || c == '\n' || c == '\r' {
				quote = true
				break
			}
		}
		if !quote {
			b = append(b, f...)
			continue
		}
		b = append(b, '"')
		for _, c := range f {
			if c == '"' {
				b = append(b, '"')
			}
			b = append(b, c)
		}
		b = append(b, '"')
	}
	return b
}
