package local

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/acbfjoin/acbfjoin/internal/extsort"
	"github.com/acbfjoin/acbfjoin/join"
)

// sorted puts an external merge sort (internal/extsort) in front of a sink:
// each writer fills a sort buffer, spilled to sorted runs in the temp folder
// when full, and Finish merges them into one writer of the inner sink. Rows
// are ordered by key, then the large-side row's position in its file, then
// the key-side row's: a total order, so the output is the same for any
// mappers, reducers and budget.
type sorted struct {
	inner   Sink
	sorter  *extsort.Sorter
	written atomic.Int64 // bytes merged out, for progress
	cells   bool         // the inner sink takes typed rows (typedrows.go)
}

func newSorted(inner Sink, tempDir string, budget int64, writers int) *sorted {
	return &sorted{inner: inner, sorter: extsort.New(tempDir, budget, writers)}
}

func (s *sorted) Begin(h join.Header) error { return s.inner.Begin(h) }

func (s *sorted) Writer() RowWriter {
	w := &sortWriter{b: s.sorter.NewBuffer(), join: join.AppendOutputRow, slack: 2}
	if s.cells {
		w.join, w.slack = appendCellRow, cellRowSlack
	}
	return w
}

// takeCells sorts rows framed with typed cells when the sink under the
// sort takes them (typedRowSink).
func (s *sorted) takeCells() bool {
	t, ok := s.inner.(typedRowSink)
	s.cells = ok && t.takeCells()
	return s.cells
}

type sortWriter struct {
	b     *extsort.Buffer
	join  func(dst, large, small []byte) []byte
	slack int // the bytes join adds to the halves' at most (extsort.Buffer.AddJoined)
}

// Write writes the output row into the sort's buffer from its two halves
// (AddJoined): each byte copied once.
func (w *sortWriter) Write(key []byte, seq, small int64, largeRow, smallRow []byte) error {
	return w.b.AddJoined(key, seq, small, largeRow, smallRow, w.slack, w.join)
}

func (w *sortWriter) Flush() error { return nil } // the buffer stays for the merge

func (s *sorted) Finish(ctx context.Context) error {
	w, ok := s.inner.Writer().(lineWriter)
	if !ok {
		return fmt.Errorf("join: internal error: the sorted output's sink takes no whole lines")
	}
	err := s.sorter.Merge(ctx, func(line []byte) error {
		s.written.Add(int64(len(line)))
		return w.WriteLine(line)
	})
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return s.inner.Finish(ctx)
}

func (s *sorted) Close() error {
	err := s.sorter.Close()
	if cerr := s.inner.Close(); err == nil {
		err = cerr
	}
	return err
}
