package local

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/join"
)

// jsonlSink writes the output as JSON lines: one object a row, its keys
// the header's names in order, its values typed as the Parquet sink types
// them (a Parquet or Arrow side's column by its type; a CSV side's by its
// values: every value an integer, a number, else text), NULL as null. It
// is the Parquet sink writing to a temporary file in tempDir, read back
// at Finish and written as JSON: one typing for both formats, at the cost
// of the output written twice (a filtered join's output is a small part
// of its input). Integers and floats are JSON numbers (a float that is
// not finite a string, which JSON has no number for), booleans true and
// false, binary columns base64 strings, every other type (text, dates,
// timestamps, decimals) its canonical text as a string. Writers are safe
// for concurrent use, as the Parquet sink's.
type jsonlSink struct {
	Sink    // the Parquet sink, writing to tmp
	w       io.Writer
	tmp     *os.File
	tempDir string
	names   []string
}

// NewJSONL returns a Sink that writes JSON lines to w, its temporary
// Parquet file in tempDir ("" for the system's).
func NewJSONL(w io.Writer, tempDir string) (Sink, error) {
	f, err := os.CreateTemp(tempDir, atomicfile.TempPrefix()+"jsonl-*.parquet")
	if err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	return &jsonlSink{Sink: NewParquetWith(f, tempDir, ParquetOptions{BloomFPP: -1}), w: w, tmp: f, tempDir: tempDir}, nil
}

func (s *jsonlSink) Begin(h join.Header) error {
	s.names = h.Names
	return s.Sink.Begin(h)
}

// Finish completes the Parquet file, then writes its rows as JSON lines.
func (s *jsonlSink) Finish(ctx context.Context) error {
	if err := s.Sink.Finish(ctx); err != nil {
		return err
	}
	if err := s.tmp.Sync(); err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	t, err := columnar.Open(ctx, s.tmp.Name(), filepath.Base(s.tmp.Name()), columnar.Parquet, s.tempDir)
	if err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	defer t.Close()
	keys := make([][]byte, len(s.names))
	for i, n := range s.names {
		keys[i], _ = json.Marshal(n)
	}
	bw := bufio.NewWriterSize(s.w, 256<<10)
	r := columnar.NewReader(t)
	var line []byte
	for n := 0; r.Next(); n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line = append(line[:0], '{')
		for j, f := range r.Fields() {
			if j > 0 {
				line = append(line, ',')
			}
			line = append(line, keys[j]...)
			line = append(line, ':')
			line = appendJSONValue(line, f, t.Types[j], r.Null(j))
		}
		line = append(line, '}', '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	return bw.Flush()
}

// Close removes the temporary file, on every path.
func (s *jsonlSink) Close() error {
	err := s.Sink.Close()
	if s.tmp != nil {
		s.tmp.Close()
		os.Remove(s.tmp.Name())
		s.tmp = nil
	}
	return err
}

// appendJSONValue appends the JSON of a value whose canonical text is f,
// of type t (NULL: null).
func appendJSONValue(b, f []byte, t columnar.Type, null bool) []byte {
	if null {
		return append(b, "null"...)
	}
	switch t.Kind {
	case columnar.Int, columnar.Uint:
		return append(b, f...)
	case columnar.Float:
		if v, err := strconv.ParseFloat(string(f), 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			return append(b, f...)
		}
	case columnar.Bool:
		return append(b, f...)
	case columnar.Binary:
		q := base64.StdEncoding.AppendEncode(append(b, '"'), f)
		return append(q, '"')
	}
	q, _ := json.Marshal(string(f))
	return append(b, q...)
}
