package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
)

// typedSpool is the Parquet sink writing a temporary file in tempDir,
// under the sinks of the other typed formats (JSON lines, Arrow): one
// typing of a CSV side's columns for every typed output, at the cost of
// the output written twice (a filtered join's output is a small part of
// its input). Its Finish (table) completes the file and opens it; Close
// removes it, on every path.
type typedSpool struct {
	Sink    // the Parquet sink, writing to tmp
	tmp     *os.File
	tempDir string
}

// newTypedSpool starts the spool of an output of format (in messages and
// the file's name).
func newTypedSpool(tempDir, format string) (typedSpool, error) {
	f, err := os.CreateTemp(tempDir, atomicfile.TempPrefix()+format+"-*.parquet")
	if err != nil {
		return typedSpool{}, fmt.Errorf("%s: %w", format, err)
	}
	return typedSpool{Sink: NewParquetWith(f, tempDir, ParquetOptions{BloomFPP: -1}), tmp: f, tempDir: tempDir}, nil
}

// takeCells switches the Parquet sink under it to typed rows
// (typedRowSink).
func (s *typedSpool) takeCells() bool {
	t, ok := s.Sink.(typedRowSink)
	return ok && t.takeCells()
}

// table completes the Parquet file and opens it for reading back.
func (s *typedSpool) table(ctx context.Context) (*columnar.Table, error) {
	if err := s.Sink.Finish(ctx); err != nil {
		return nil, err
	}
	return columnar.Open(ctx, s.tmp.Name(), filepath.Base(s.tmp.Name()), columnar.Parquet, s.tempDir)
}

// Close removes the temporary file.
func (s *typedSpool) Close() error {
	err := s.Sink.Close()
	if s.tmp != nil {
		s.tmp.Close()
		os.Remove(s.tmp.Name())
		s.tmp = nil
	}
	return err
}
