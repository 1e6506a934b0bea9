package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/schema"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/join"
)

// ColumnType is the type of a Parquet output column.
type ColumnType int

const (
	Text    ColumnType = iota // UTF-8 (BYTE_ARRAY, logical type String)
	Int64                     // INT64
	Float64                   // DOUBLE
)

// A Parquet row group is written at 64K rows or when its values take 8 MiB,
// so a wide output does not hold tens of megabytes per group.
const (
	parquetRowGroup      = 65536
	parquetRowGroupBytes = 8 << 20
)

// parquetSink writes the output rows as a Parquet file, typed: each output
// line is split into its fields (they are the large-side row as it is in its
// file and the key-side fields as join.AppendCSVField wrote them: valid
// CSV) and each field is stored as its column's type. Writers buffer 256 KiB
// of lines each; the sink parses and appends them to the row group under a
// lock, so it holds one row group and the writers' buffers.
//
// It writes through Apache Arrow's parquet/file package rather than pqarrow:
// pqarrow pulls in Arrow Flight and gRPC, whose initialisation adds to the
// resident memory of every run, a cost --mem cannot bound (docs/design.md).
type parquetSink struct {
	w     io.Writer
	types func(name string) ColumnType

	mu     sync.Mutex
	names  []string
	kinds  []ColumnType
	fw     *file.Writer
	texts  [][]parquet.ByteArray // per column, by kind
	ints   [][]int64
	floats [][]float64
	defs   [][]int16 // definition levels: 1 present, 0 NULL
	rows   int
	bytes  int
	arena  []byte // the row group's text bytes
	fields [][]byte
	unq    []byte
}

// NewParquet returns a Sink that writes Parquet to w. types gives the type
// of a column by name (nil: every column is Text); the join column is Int64
// with integer keys whatever types says. Every column is optional: an empty
// field is NULL. A field that does not parse as its column's type fails the
// run with the column and the value; Snappy compression.
func NewParquet(w io.Writer, types func(name string) ColumnType) Sink {
	return &parquetSink{w: w, types: types}
}

func (s *parquetSink) Begin(h join.Header) (err error) {
	defer recoverWrite(&err)
	s.names = h.Names
	fields := make(schema.FieldList, len(h.Names))
	s.kinds = make([]ColumnType, len(h.Names))
	s.texts = make([][]parquet.ByteArray, len(h.Names))
	s.ints = make([][]int64, len(h.Names))
	s.floats = make([][]float64, len(h.Names))
	s.defs = make([][]int16, len(h.Names))
	for i, name := range h.Names {
		k := Text
		if s.types != nil {
			k = s.types(name)
		}
		if h.IntColumn(i) {
			k = Int64
		}
		s.kinds[i] = k
		var node schema.Node
		switch k {
		case Int64:
			node, err = schema.NewPrimitiveNodeLogical(name, parquet.Repetitions.Optional, schema.NewIntLogicalType(64, true), parquet.Types.Int64, -1, -1)
		case Float64:
			node, err = schema.NewPrimitiveNode(name, parquet.Repetitions.Optional, parquet.Types.Double, -1, -1)
		default:
			node, err = schema.NewPrimitiveNodeLogical(name, parquet.Repetitions.Optional, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)
		}
		if err != nil {
			return fmt.Errorf("parquet: column %q: %w", name, err)
		}
		fields[i] = node
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	// The file writer closes a sink that is an io.Closer; the caller owns w.
	s.fw = file.NewParquetWriter(struct{ io.Writer }{s.w}, root, file.WithWriterProps(props))
	return nil
}

// recoverWrite turns a panic of the Parquet writer (it panics on some write
// errors) into *err.
func recoverWrite(err *error) {
	if p := recover(); p != nil {
		if perr, ok := p.(error); ok {
			*err = fmt.Errorf("parquet: %w", perr)
		} else {
			*err = fmt.Errorf("parquet: %v", p)
		}
	}
}

func (s *parquetSink) Writer() RowWriter { return &lineBuffer{flush: s.add} }

// add appends the rows of lines (each ending in '\n') to the row group.
func (s *parquetSink) add(lines []byte) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer recoverWrite(&err)
	for len(lines) > 0 {
		var n int
		if s.fields, s.unq, n, err = splitLine(lines, s.fields[:0], s.unq[:0]); err != nil {
			return err
		}
		lines = lines[n:]
		if len(s.fields) != len(s.names) {
			return fmt.Errorf("parquet: an output row has %d fields, the header %d", len(s.fields), len(s.names))
		}
		for i, f := range s.fields {
			if len(f) == 0 {
				s.defs[i] = append(s.defs[i], 0)
				continue
			}
			s.defs[i] = append(s.defs[i], 1)
			switch s.kinds[i] {
			case Int64:
				v, err := csvscan.ParseInt(f)
				if err != nil {
					return fmt.Errorf("parquet: column %q: %q is not an integer", s.names[i], f)
				}
				s.ints[i] = append(s.ints[i], v)
			case Float64:
				v, err := strconv.ParseFloat(string(f), 64)
				if err != nil {
					return fmt.Errorf("parquet: column %q: %q is not a number", s.names[i], f)
				}
				s.floats[i] = append(s.floats[i], v)
			default:
				start := len(s.arena)
				s.arena = append(s.arena, f...)
				s.texts[i] = append(s.texts[i], parquet.ByteArray(s.arena[start:len(s.arena):len(s.arena)]))
			}
		}
		s.rows++
		if s.rows == parquetRowGroup || len(s.arena)+24*len(s.names)*s.rows >= parquetRowGroupBytes {
			if err := s.flushGroup(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flushGroup writes the buffered rows as a row group. Called with mu held.
func (s *parquetSink) flushGroup() error {
	if s.rows == 0 {
		return nil
	}
	rg := s.fw.AppendRowGroup()
	for i := range s.names {
		cw, err := rg.NextColumn()
		if err != nil {
			return fmt.Errorf("parquet: %w", err)
		}
		switch c := cw.(type) {
		case *file.Int64ColumnChunkWriter:
			_, err = c.WriteBatch(s.ints[i], s.defs[i], nil)
		case *file.Float64ColumnChunkWriter:
			_, err = c.WriteBatch(s.floats[i], s.defs[i], nil)
		case *file.ByteArrayColumnChunkWriter:
			_, err = c.WriteBatch(s.texts[i], s.defs[i], nil)
		default:
			err = errors.New("unexpected column writer")
		}
		if err == nil {
			err = cw.Close()
		}
		if err != nil {
			return fmt.Errorf("parquet: %w", err)
		}
		s.texts[i], s.ints[i], s.floats[i], s.defs[i] = s.texts[i][:0], s.ints[i][:0], s.floats[i][:0], s.defs[i][:0]
	}
	if err := rg.Close(); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	s.rows, s.arena = 0, nil // the written values may still be referenced: start afresh
	return nil
}

func (s *parquetSink) Finish(context.Context) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer recoverWrite(&err)
	if err := s.flushGroup(); err != nil {
		return err
	}
	if err := s.fw.Close(); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}

func (s *parquetSink) Close() error { return nil }

// splitLine splits the first line of b, a CSV record ending in '\n' (line
// breaks inside quotes are data), into fields appended to fields; quoted
// fields are unquoted into unq. It returns the bytes the line took. It has no
// limit on the length or the number of fields: the output's rows are up to
// twice the input's largest.
func splitLine(b []byte, fields [][]byte, unq []byte) ([][]byte, []byte, int, error) {
	// Unquoted copies are appended to unq; remember where each starts and
	// fix the slices at the end, since unq may move as it grows.
	type span struct{ field, lo, hi int }
	var spans []span
	i := 0
	for {
		if i < len(b) && b[i] == '"' {
			lo := len(unq)
			i++
			for {
				j := i
				for j < len(b) && b[j] != '"' {
					j++
				}
				unq = append(unq, b[i:j]...)
				if j >= len(b) {
					return fields, unq, 0, errors.New("parquet: an output row has an unclosed quote")
				}
				if j+1 < len(b) && b[j+1] == '"' {
					unq = append(unq, '"')
					i = j + 2
					continue
				}
				i = j + 1
				break
			}
			spans = append(spans, span{len(fields), lo, len(unq)})
			fields = append(fields, nil)
		} else {
			j := i
			for j < len(b) && b[j] != ',' && b[j] != '\n' {
				j++
			}
			fields = append(fields, b[i:j])
			i = j
		}
		if i >= len(b) {
			return fields, unq, 0, errors.New("parquet: an output row has no line end")
		}
		c := b[i]
		i++
		if c == '\n' {
			break
		}
		if c != ',' {
			return fields, unq, 0, fmt.Errorf("parquet: unexpected %q after a quoted field of an output row", c)
		}
	}
	for _, sp := range spans {
		fields[sp.field] = unq[sp.lo:sp.hi]
	}
	return fields, unq, i, nil
}
