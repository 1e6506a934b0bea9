package local

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/acbfjoin/acbfjoin/columnar"
)

// jsonlSink writes the output as JSON lines: one object a row, its keys
// the header's names in order, its values typed as the Parquet sink types
// them (a Parquet or Arrow side's column by its type; a CSV side's by its
// values: every value an integer, a number, else text), NULL as null: the
// rows of a typedSpool, read back at Finish. Integers and floats are JSON
// numbers (a float that is not finite a string, which JSON has no number
// for), booleans true and false, binary columns base64 strings, every
// other type (text, dates, timestamps, decimals) its canonical text as a
// string. Writers are safe for concurrent use, as the Parquet sink's.
type jsonlSink struct {
	typedSpool
	w io.Writer
}

// NewJSONL returns a Sink that writes JSON lines to w, its temporary
// Parquet file in tempDir ("" for the system's).
func NewJSONL(w io.Writer, tempDir string) (Sink, error) {
	sp, err := newTypedSpool(tempDir, "jsonl")
	if err != nil {
		return nil, err
	}
	return &jsonlSink{typedSpool: sp, w: w}, nil
}

// Finish completes the Parquet file, then writes its rows as JSON lines.
func (s *jsonlSink) Finish(ctx context.Context) error {
	t, err := s.table(ctx)
	if err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	defer t.Close()
	keys := make([][]byte, len(t.Names))
	for i, n := range t.Names {
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
			b = append(b, f...)
			if !bytes.ContainsAny(f, ".eE") {
				// A whole number written as a float (1.0, -0.0): a JSON
				// reader types 1 and -0 as integers, losing -0's sign
				// and the column's DOUBLE (a review found DuckDB's
				// read_json making the column BIGINT).
				b = append(b, '.', '0')
			}
			return b
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
