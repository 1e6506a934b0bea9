package local

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/schema"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/join"
)

// A column's type: columnText (UTF-8: BYTE_ARRAY, logical type String),
// columnInt64 (INT64) or columnFloat64 (DOUBLE).
type columnType int

const (
	columnText columnType = iota
	columnInt64
	columnFloat64
	columnBytes // BYTE_ARRAY unannotated: text that is not valid UTF-8
)

// A Parquet row group is written at 64K rows or when its values take 8 MiB,
// so a wide output does not hold tens of megabytes per group.
const (
	parquetRowGroup      = 65536
	parquetRowGroupBytes = 8 << 20
)

// parquetSink writes the output rows as a Parquet file whose column types
// come from the values written, never from names or a sample: a column is
// INT64 when every value written to it is an integer that prints back as
// the same text (canonicalInt: 7, -7, 0; not 007, +7, -0 or beyond int64),
// else DOUBLE when every value is a finite number that prints back as the
// same text (canonicalFloat: 0.5, -2, 3.25; not 7.0, 1e3, .5, NaN, or an
// integer beyond 2^53), else UTF-8, or BYTE_ARRAY without the String
// annotation when a value is not valid UTF-8 (readers refuse a String
// column holding one); so no value written changes, and two values the join
// kept apart (007 and 7 as string keys) stay apart. An empty field is NULL;
// a column of NULLs only, and every column of an output with no rows, is
// UTF-8.
//
// The types are known only when every row is in, so the rows are spooled
// first: each writer's batch of lines (256 KiB, lineBuffer) goes to a
// temporary file in the sink's folder, its fields checked against the types
// still possible for their columns as it goes; Finish decides the schema,
// reads the batches back and writes row groups. Cost: the output written
// twice and split twice (the output of a filtered join is a small part of
// its input); memory: one row group and one batch. The spool is named with
// atomicfile.TempPrefix (for `join clean` after a kill) and removed by Close
// on every path. Writers are safe for concurrent use (the batches are taken
// under a lock).
//
// It writes through Apache Arrow's parquet/file package rather than pqarrow:
// pqarrow pulls in Arrow Flight and gRPC, whose initialisation adds to the
// resident memory of every run, a cost --mem cannot bound (docs/design.md).
type parquetSink struct {
	out     firstError // the output, remembering its first write error
	tempDir string

	mu     sync.Mutex
	names  []string
	spool  *os.File
	sw     *bufio.Writer
	maybe  []columnTypes // per column: the types its values so far allow
	fields [][]byte
	unq    []byte
	batch  []byte // a batch read back from the spool

	// The row group being filled (in Finish).
	kinds  []columnType
	fw     *file.Writer
	texts  [][]parquet.ByteArray // per column, by kind
	ints   [][]int64
	floats [][]float64
	defs   [][]int16 // definition levels: 1 present, 0 NULL
	rows   int
	arena  []byte // the row group's text bytes
}

// columnTypes is what a column's values so far allow.
type columnTypes struct{ seen, notInt, notFloat, notUTF8 bool }

func (c *columnTypes) observe(f []byte) {
	c.seen = true
	if !c.notUTF8 && !utf8.Valid(f) {
		c.notUTF8 = true // BYTE_ARRAY without the String annotation: readers refuse invalid UTF-8 in a string column
	}
	switch {
	case c.notInt && c.notFloat:
	case canonicalInt(f):
		// Every integer of up to 15 digits is exact as a double (2^53 has
		// 16); a longer one only within 2^53 (canonicalFloat).
		if len(f) > 15 && !c.notFloat && !canonicalFloat(f) {
			c.notFloat = true
		}
	default:
		c.notInt = true
		if !c.notFloat && !canonicalFloat(f) {
			c.notFloat = true
		}
	}
}

func (c columnTypes) kind() columnType {
	switch {
	case !c.seen:
		return columnText
	case c.notInt && c.notFloat && c.notUTF8:
		return columnBytes
	case !c.notInt:
		return columnInt64
	case !c.notFloat:
		return columnFloat64
	}
	return columnText
}

// canonicalInt reports whether f is an int64 written as strconv.FormatInt
// writes it: an optional '-', no '+', no leading zero, not "-0".
func canonicalInt(f []byte) bool {
	d := f
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 19 || (d[0] == '0' && (len(d) > 1 || len(f) > len(d))) {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	if len(d) < 19 {
		return true
	}
	_, err := strconv.ParseInt(string(f), 10, 64) // 19 digits: within int64?
	return err == nil
}

// canonicalFloat reports whether f is a finite float64 written as
// strconv.FormatFloat(v, 'f', -1, 64) writes it: the shortest decimal that
// reads back as v, no exponent, no trailing zero, no '+'; an integer (no
// '.') only within 2^53, where a double holds every integer exactly
// (100000000000000000000000000000 prints back as itself, but the double is
// 99999999999999991433150857216).
func canonicalFloat(f []byte) bool {
	if len(f) == 0 || len(f) > 400 || !(f[0] == '-' || f[0] >= '0' && f[0] <= '9') {
		return false // also keeps out NaN, Inf and hex forms
	}
	v, err := strconv.ParseFloat(string(f), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return false
	}
	if !bytes.ContainsRune(f, '.') && math.Abs(v) > 1<<53 {
		return false
	}
	var buf [64]byte
	return string(strconv.AppendFloat(buf[:0], v, 'f', -1, 64)) == string(f)
}

// NewParquet returns a Sink that writes Parquet to w, typed by the values
// written (parquetSink), with Snappy compression; its spool goes in tempDir
// ("" for the system's temporary folder).
func NewParquet(w io.Writer, tempDir string) Sink {
	return &parquetSink{out: firstError{w: w}, tempDir: tempDir}
}

func (s *parquetSink) Begin(h join.Header) error {
	s.names = h.Names
	s.maybe = make([]columnTypes, len(h.Names))
	f, err := os.CreateTemp(s.tempDir, atomicfile.TempPrefix()+"parquet-*.spool")
	if err != nil {
		return fmt.Errorf("parquet: spool: %w", err)
	}
	s.spool, s.sw = f, bufio.NewWriterSize(f, 1<<20)
	return nil
}

// schema builds the file writer from the decided types.
func (s *parquetSink) begin() (err error) {
	defer recoverWrite(&err)
	n := len(s.names)
	fields := make(schema.FieldList, n)
	s.kinds = make([]columnType, n)
	s.texts = make([][]parquet.ByteArray, n)
	s.ints = make([][]int64, n)
	s.floats = make([][]float64, n)
	s.defs = make([][]int16, n)
	for i, name := range s.names {
		k := s.maybe[i].kind()
		s.kinds[i] = k
		var node schema.Node
		switch k {
		case columnInt64:
			node, err = schema.NewPrimitiveNodeLogical(name, parquet.Repetitions.Optional, schema.NewIntLogicalType(64, true), parquet.Types.Int64, -1, -1)
		case columnFloat64:
			node, err = schema.NewPrimitiveNode(name, parquet.Repetitions.Optional, parquet.Types.Double, -1, -1)
		case columnBytes:
			node, err = schema.NewPrimitiveNode(name, parquet.Repetitions.Optional, parquet.Types.ByteArray, -1, -1)
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
	s.fw = file.NewParquetWriter(&s.out, root, file.WithWriterProps(props))
	return nil
}

// firstError is a writer that remembers its first error: the Parquet
// writer reports a failed write as "failed to write magic number", without
// the cause (a full disk), which the sink returns instead.
type firstError struct {
	w   io.Writer
	err error
}

func (f *firstError) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n, err
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

// add checks the fields of lines (rows each ending in '\n') against their
// columns' possible types and spools them as one batch: its length, then
// its bytes.
func (s *parquetSink) add(lines []byte) error {
	if len(lines) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.eachRow(lines, func() error {
		for i, f := range s.fields {
			if len(f) > 0 {
				s.maybe[i].observe(f)
			}
		}
		return nil
	}); err != nil {
		return err
	}
	var n [binary.MaxVarintLen64]byte
	s.sw.Write(n[:binary.PutUvarint(n[:], uint64(len(lines)))])
	if _, err := s.sw.Write(lines); err != nil {
		return fmt.Errorf("parquet: spool: %w", err)
	}
	return nil
}

// eachRow splits each row of lines into s.fields and calls fn.
func (s *parquetSink) eachRow(lines []byte, fn func() error) error {
	for len(lines) > 0 {
		var n int
		var err error
		if s.fields, s.unq, n, err = splitLine(lines, s.fields[:0], s.unq[:0]); err != nil {
			return err
		}
		lines = lines[n:]
		if len(s.fields) != len(s.names) {
			return fmt.Errorf("parquet: an output row has %d fields, the header %d", len(s.fields), len(s.names))
		}
		if err := fn(); err != nil {
			return err
		}
	}
	return nil
}

// append adds the row in s.fields to the row group, writing the group when
// it is full. Called in Finish.
func (s *parquetSink) append() error {
	for i, f := range s.fields {
		if len(f) == 0 {
			s.defs[i] = append(s.defs[i], 0)
			continue
		}
		s.defs[i] = append(s.defs[i], 1)
		switch s.kinds[i] {
		case columnInt64:
			v, err := strconv.ParseInt(string(f), 10, 64)
			if err != nil { // checked when spooled: the spool is not what was written
				return fmt.Errorf("parquet: column %q: %q is not an integer", s.names[i], f)
			}
			s.ints[i] = append(s.ints[i], v)
		case columnFloat64:
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
		return s.flushGroup()
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

// Finish decides the columns' types, reads the spooled batches back and
// writes them as row groups.
func (s *parquetSink) Finish(ctx context.Context) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() { // the output's own error, which the writer's hides
		if err != nil && s.out.err != nil {
			err = s.out.err
		}
	}()
	defer recoverWrite(&err)
	if err := s.sw.Flush(); err != nil {
		return fmt.Errorf("parquet: spool: %w", err)
	}
	if _, err := s.spool.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("parquet: spool: %w", err)
	}
	if err := s.begin(); err != nil {
		return err
	}
	r := bufio.NewReaderSize(s.spool, 1<<20)
	for {
		n, err := binary.ReadUvarint(r)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("parquet: spool: %w", err)
		}
		if n > uint64(maxSpoolBatch) {
			return fmt.Errorf("parquet: spool: a batch of %d bytes", n)
		}
		s.batch = slices.Grow(s.batch[:0], int(n))[:n]
		if _, err := io.ReadFull(r, s.batch); err != nil {
			return fmt.Errorf("parquet: spool: %w", err)
		}
		if err := s.eachRow(s.batch, s.append); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if err := s.flushGroup(); err != nil {
		return err
	}
	if err := s.fw.Close(); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}

// maxSpoolBatch bounds a spooled batch read back: a writer's 256 KiB plus a
// row, which the engine bounds far below this.
const maxSpoolBatch = 1 << 34

// Close removes the spool.
func (s *parquetSink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spool != nil {
		s.spool.Close()
		os.Remove(s.spool.Name())
		s.spool = nil
	}
	return nil
}

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
