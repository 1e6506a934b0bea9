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
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/csvscan"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/internal/tmpspace"
	"github.com/acbfjoin/acbfjoin/join"
)

// A Parquet row group is written at 64K rows or when its values take 8 MiB,
// so a wide output does not hold tens of megabytes per group.
const (
	parquetRowGroup      = 65536
	parquetRowGroupBytes = 8 << 20
)

// maxRowGroupBytes ends a row group of a given row count
// (ParquetOptions.RowGroup) too: the sink holds a row group in memory, and
// --row-group 100000000 held a whole output beyond --mem. A variable so
// that a test sets it small.
var maxRowGroupBytes = 256 << 20

// parquetSink writes the output rows as a Parquet file. A column of a
// Parquet or Arrow side is written as its own type (join.Header.Types;
// columnar.ParquetNode says how each type is stored), its canonical text
// read back (columnar.Type.Value). A column of a CSV side has no type; it
// takes one from the values written, never from names or a sample: it is
// INT64 when every value written to it is an integer that prints back as
// the same text (canonicalInt: 7, -7, 0; not 007, +7, -0 or beyond int64),
// else DOUBLE when every value is a finite number that prints back as the
// same text (canonicalFloat: 0.5, -2, 3.25; not NaN, or an integer beyond
// 2^53) or a decimal with a point or exponent as DuckDB types it
// (decimalFloat: .097, -.5, 1., 7.0, 1e3, whose doubles print back as
// 0.097, -0.5, 1, 7, 1000; issue 46), else UTF-8, or BYTE_ARRAY without the String
// annotation when a value is not valid UTF-8 (readers refuse a String
// column holding one); so no integer or text written changes, and two
// values the join kept apart (007 and 7 as string keys) stay apart; two
// decimals of one value (.5 and 0.5) become one double. An empty field is NULL;
// a column of NULLs only, and every column of an output with no rows, is
// UTF-8.
//
// The types are known only when every row is in, so the rows are spooled
// first: each writer's batch of lines (256 KiB, lineBuffer) goes to a
// temporary file in the sink's folder as it is. Finish reads the batches
// back twice: once to split them and check each untyped column's values
// against the types still possible for it (observeSpool: two goroutines,
// any order), then, the schema decided, to parse the rows into row groups
// in one goroutine while another writes the group before (two groups in
// flight; one that holds more than twice the default groups' 8 MiB, with
// a large RowGroup, is written before the next is begun, so that no more
// than one such group is held, as before). Cost: the
// output written once more and split twice (the output of a filtered join
// is a small part of its input); memory: two row groups and a few
// batches. Against the spool's split in the reducers and one goroutine
// for Finish: a join of flights-3m.parquet to 205 airports written as
// Parquet 0.63x the wall time, the NBER join 0.73x (farm-bench, 8
// pairs, Intel Xeon), peak RSS 11-16 MB more, the files byte-identical
// with Sort. The spool is named with
// atomicfile.TempPrefix (for `join clean` after a kill) and removed by Close
// on every path. Writers are safe for concurrent use (the batches are taken
// under a lock).
//
// It writes through Apache Arrow's parquet/file package rather than pqarrow:
// pqarrow pulls in Arrow Flight and gRPC, whose initialisation adds to the
// resident memory of every run, a cost --mem cannot bound (docs/design.md).
type parquetSink struct {
	out      firstError // the output, remembering its first write error
	tempDir  string
	rowGroup int // rows a row group; 0 for parquetRowGroup or 8 MiB of values
	opt      ParquetOptions
	joinCols []string // the header's join columns (join.Header.Join), by name
	spooled  int      // rows spooled
	spoolLen int64    // their bytes as lines

	mu    sync.Mutex
	names []string
	given []columnar.Type // the header's: a typed column is written as its type
	spool *os.File
	sw    *bufio.Writer
	maybe []columnTypes // per column: the types its values so far allow

	// Finish's: the decided types, the file writer (its writing
	// goroutine's), and the reading goroutine's scratch.
	types []columnar.Type
	phys  []columnar.Physical // types' physical types (a Type is 64 bytes: copied a value, it was a fifth of appendRow's time)
	fw    *file.Writer
	row   cellFields
	// cells: the rows come framed with the large side's typed cells
	// (typedrows.go), not as CSV lines.
	cells bool
}

// pqGroup is a row group's values: filled by Finish's reading goroutine
// from the spool while the writing goroutine writes the one before
// (pqGroups alternate between them).
type pqGroup struct {
	cols  []columnValues
	rows  int
	arena []byte // the chunk the row group's text bytes are being kept in
	text  int    // the text bytes kept
}

// arenaChunk is the bytes of a pqGroup's arena chunk.
const arenaChunk = 1 << 20

// noBytes is an empty value that is not nil.
var noBytes = []byte{}

// keep returns a copy of b in g's arena: chunks of arenaChunk (or of b's
// size), a full one left to the values in it and a new one begun, never
// grown: an arena grown by append was copied over and over (a memmove the
// collector waits for: a column of 100 KB texts took 2.5x as long) and
// each copy left garbage behind. An empty b is kept as an empty slice,
// never nil: arrow-go's statistics take a nil value for no value, and a
// row group whose first text was "" got the next one as its minimum (a
// reader skipping by statistics, ours among them, lost its "" rows).
func (g *pqGroup) keep(b []byte) []byte {
	if len(b) == 0 {
		return noBytes
	}
	if cap(g.arena)-len(g.arena) < len(b) {
		g.arena = make([]byte, 0, max(arenaChunk, len(b)))
	}
	start := len(g.arena)
	g.arena = append(g.arena, b...)
	g.text += len(b)
	return g.arena[start:len(g.arena):len(g.arena)]
}

// columnValues are a column's values in the row group being filled, in the
// slice of its physical type.
type columnValues struct {
	i32   []int32
	i64   []int64
	f32   []float32
	f64   []float64
	bools []bool
	bytes []parquet.ByteArray
	fixed []parquet.FixedLenByteArray
	defs  []int16 // definition levels: 1 present, 0 NULL
}

// add appends v, a value of physical type p, to c (a text's or a fixed
// value's bytes as they are: the caller keeps them).
func (c *columnValues) add(p columnar.Physical, v columnar.Value) {
	switch p {
	case columnar.PhysInt32:
		c.i32 = append(c.i32, int32(v.I))
	case columnar.PhysInt64:
		c.i64 = append(c.i64, v.I)
	case columnar.PhysFloat:
		c.f32 = append(c.f32, float32(v.F))
	case columnar.PhysDouble:
		c.f64 = append(c.f64, v.F)
	case columnar.PhysBool:
		c.bools = append(c.bools, v.I != 0)
	case columnar.PhysBytes:
		c.bytes = append(c.bytes, parquet.ByteArray(v.B))
	case columnar.PhysFixed:
		c.fixed = append(c.fixed, parquet.FixedLenByteArray(v.B))
	}
}

// last is the value add appended last to c, of physical type p.
func (c *columnValues) last(p columnar.Physical) (v columnar.Value) {
	switch p {
	case columnar.PhysInt32:
		v.I = int64(c.i32[len(c.i32)-1])
	case columnar.PhysInt64:
		v.I = c.i64[len(c.i64)-1]
	case columnar.PhysFloat:
		v.F = float64(c.f32[len(c.f32)-1])
	case columnar.PhysDouble:
		v.F = c.f64[len(c.f64)-1]
	case columnar.PhysBool:
		if c.bools[len(c.bools)-1] {
			v.I = 1
		}
	case columnar.PhysBytes:
		v.B = c.bytes[len(c.bytes)-1]
	case columnar.PhysFixed:
		v.B = c.fixed[len(c.fixed)-1]
	}
	return v
}

func (c *columnValues) reset() {
	c.i32, c.i64, c.f32, c.f64, c.bools, c.bytes, c.fixed, c.defs = c.i32[:0], c.i64[:0], c.f32[:0], c.f64[:0], c.bools[:0], c.bytes[:0], c.fixed[:0], c.defs[:0]
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
		if !c.notFloat && !canonicalFloat(f) && !decimalFloat(f) {
			c.notFloat = true
		}
	}
}

// merge adds what o's values ruled out to c's: the flags a column's
// values set do not depend on their order.
func (c *columnTypes) merge(o columnTypes) {
	c.seen, c.notInt, c.notFloat, c.notUTF8 = c.seen || o.seen, c.notInt || o.notInt, c.notFloat || o.notFloat, c.notUTF8 || o.notUTF8
}

// decimalFloat reports whether f is a decimal DuckDB types DOUBLE
// (columnar.ParseDecimal: .097, -.5, 1., 1.50, 2e3; issue 46).
func decimalFloat(f []byte) bool { _, ok := columnar.ParseDecimal(f); return ok }

// typ is the type a column of text takes from its values.
func (c columnTypes) typ() columnar.Type {
	switch {
	case !c.seen:
		return columnar.Type{Kind: columnar.String}
	case c.notInt && c.notFloat && c.notUTF8:
		return columnar.Type{Kind: columnar.Binary}
	case !c.notInt:
		return columnar.Type{Kind: columnar.Int, Width: 64}
	case !c.notFloat:
		return columnar.Type{Kind: columnar.Float, Width: 64}
	}
	return columnar.Type{Kind: columnar.String}
}

// canonicalInt reports whether f is an int64 written as strconv.FormatInt
// writes it (columnar.CanonicalInt).
func canonicalInt(f []byte) bool { _, ok := columnar.CanonicalInt(f); return ok }

// canonicalFloat reports whether f is a finite float64 written as
// columnar.AppendFloat writes it (the form a Parquet or Arrow side's double
// is rendered in, so a column read back prints as the same text): the
// shortest decimal that reads back as v, plain between 1e-7 and 1e21, with
// an exponent beyond, no trailing zero, no '+' before the number; an
// integer (no '.' or exponent) only within 2^53, where a double holds every
// integer exactly (100000000000000000000 prints back as itself, but the
// double above 2^53 may be another integer than the text).
func canonicalFloat(f []byte) bool {
	if len(f) == 0 || len(f) > 400 || !(f[0] == '-' || f[0] >= '0' && f[0] <= '9') {
		return false // also keeps out NaN, Inf and hex forms
	}
	v, err := strconv.ParseFloat(string(f), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return false
	}
	if !bytes.ContainsAny(f, ".e") && math.Abs(v) > 1<<53 {
		return false
	}
	var buf [64]byte
	return string(columnar.AppendFloat(buf[:0], v, 64)) == string(f)
}

// DefaultParquetBloomFPP is the false-positive rate of the split-block
// Bloom filters a Parquet output carries for its join columns unless
// ParquetOptions.BloomFPP says otherwise: DuckDB's default
// (BLOOM_FILTER_FALSE_POSITIVE_RATIO) and arrow-go's.
const DefaultParquetBloomFPP = 0.01

// ParquetOptions are a Parquet output's settings.
type ParquetOptions struct {
	// RowGroup is the rows of a row group (the last one may hold fewer),
	// or fewer where they take 256 MiB of values (the sink holds a row
	// group in memory); 0 for 65,536 rows or 8 MiB of values.
	RowGroup int
	// BloomFPP is the false-positive rate of the split-block Bloom filter
	// (parquet-format's BloomFilter.md) written in every row group for each
	// join column of the output (join.Header.Join) and each of
	// BloomColumns, so that a reader of the file (this tool's own filtered
	// join, DuckDB, Spark, DataFusion) skips the row groups that hold none
	// of its keys: 0 for DefaultParquetBloomFPP, negative for no filters,
	// else from MinParquetBloomFPP to below 1. A filter is sized for the
	// row group's distinct values at that rate (arrow-go's adaptive
	// filter: the least of five candidate sizes that holds them), at most
	// for its rows; for row groups of a few thousand rows, for its rows.
	BloomFPP float64
	// BloomColumns are columns given Bloom filters besides the join
	// columns, by name; a name the output does not have is an error at
	// Finish.
	BloomColumns []string
}

// NewParquet returns a Sink that writes Parquet to w, typed by the values
// written (parquetSink), with Snappy compression and Bloom filters of the
// join columns (ParquetOptions' defaults); its spool goes in tempDir ("" for
// the system's temporary folder).
func NewParquet(w io.Writer, tempDir string) Sink {
	return NewParquetWith(w, tempDir, ParquetOptions{})
}

// NewParquetRowGroups is NewParquet with rowGroup rows a row group (the
// last one may hold fewer, and one of 256 MiB of values ends there); 0 for
// NewParquet's.
func NewParquetRowGroups(w io.Writer, tempDir string, rowGroup int) Sink {
	return NewParquetWith(w, tempDir, ParquetOptions{RowGroup: rowGroup})
}

// NewParquetWith is NewParquet with the settings of opt.
func NewParquetWith(w io.Writer, tempDir string, opt ParquetOptions) Sink {
	return &parquetSink{out: firstError{w: w}, tempDir: tempDir, rowGroup: opt.RowGroup, opt: opt}
}

// MinParquetBloomFPP is the least false-positive rate a Parquet output's
// Bloom filters take: 41 bits a value, 512 KiB for a row group of 65,536
// distinct values. Below it a filter costs more than it can save, and
// arrow-go's adaptive filter finds no candidate size (it steps by 500
// values) and writes 32 bytes.
const MinParquetBloomFPP = 1e-6

// CheckParquetBloomFPP returns an error unless fpp is a BloomFPP
// ParquetOptions takes: 0, negative, or from MinParquetBloomFPP to below 1.
func CheckParquetBloomFPP(fpp float64) error {
	if math.IsNaN(fpp) || fpp >= 1 || fpp > 0 && fpp < MinParquetBloomFPP {
		return fmt.Errorf("a Bloom filter false-positive rate of %v: want one from %v to below 1", fpp, MinParquetBloomFPP)
	}
	return nil
}

// bloomProps returns the writer properties that give a Bloom filter to
// each join column the output has and each of opt.BloomColumns (nil for
// none); called once, in Finish. The largest a filter may be is what the spec's sizing takes for the
// rows of a row group at the rate (m = -8 n / ln(1 - p^(1/8)) bits,
// parquet-format's BloomFilter.md, "Sizing"), within the spec's 32 bytes
// to 128 MiB; the adaptive filter keeps the least of its candidates that
// holds the distinct values written at the rate.
func (s *parquetSink) bloomProps() ([]parquet.WriterProperty, error) {
	fpp := s.opt.BloomFPP
	if fpp < 0 {
		return nil, nil
	}
	if fpp == 0 {
		fpp = DefaultParquetBloomFPP
	}
	if err := CheckParquetBloomFPP(fpp); err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	var cols []string
	for _, c := range s.joinCols {
		if slices.Contains(s.names, c) && !slices.Contains(cols, c) { // a join column not picked has none
			cols = append(cols, c)
		}
	}
	for _, c := range s.opt.BloomColumns {
		if !slices.Contains(s.names, c) {
			return nil, fmt.Errorf("parquet: a Bloom filter for column %q, which the output does not have (its columns: %s)", c, strings.Join(s.names, ", "))
		}
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		return nil, nil
	}
	rows := s.groupRows()
	bits := -8 * float64(rows) / math.Log(1-math.Pow(fpp, 1.0/8))
	maxBytes := int64(32)
	for maxBytes < 128<<20 && float64(maxBytes)*8 < bits {
		maxBytes <<= 1
	}
	props := []parquet.WriterProperty{parquet.WithMaxBloomFilterBytes(maxBytes)}
	for _, c := range cols {
		props = append(props, parquet.WithBloomFilterEnabledFor(c, true), parquet.WithBloomFilterFPPFor(c, fpp))
		// The adaptive filter's candidates hold multiples of 500 values
		// less one step: a largest candidate of 4 KiB or less (at 1%, row
		// groups of about 3,000 rows) gets none, and arrow-go then writes
		// a filter of 32 bytes, full after a few dozen values (a test's
		// row groups of 500 rows passed every key). There the filter is
		// sized for the rows.
		if maxBytes <= 4096 {
			props = append(props, parquet.WithBloomFilterNDVFor(c, int64(rows)))
		} else {
			props = append(props, parquet.WithAdaptiveBloomFilterEnabledFor(c, true))
		}
	}
	return props, nil
}

// CSVInput is a CSV text that ConvertCSV reads: its fields separated by
// Sep, Name naming it in messages.
type CSVInput struct {
	Text io.Reader
	Name string
	Sep  byte
}

// ConvertCSV writes the CSV text of src to dst as Parquet, each column typed
// by its values as the Parquet sink types a CSV side's (INT64, DOUBLE,
// UTF-8; an empty field is NULL), rowGroup rows a row group (0: the
// sink's default). It returns the rows written. Cost: src read once, its
// rows spooled once to tempDir; memory one row group. Not safe for
// concurrent use of dst.
func ConvertCSV(ctx context.Context, src CSVInput, dst io.Writer, rowGroup int, tempDir string) (rows int64, err error) {
	r := csvscan.NewReader(src.Text, src.Name)
	if err := r.SetSep(src.Sep); err != nil {
		return 0, err
	}
	names, err := r.ReadHeader()
	if err != nil {
		return 0, err
	}
	sink := NewParquetRowGroups(dst, tempDir, rowGroup)
	defer sink.Close()
	if err := sink.Begin(join.Header{Names: names}); err != nil {
		return 0, err
	}
	w := sink.Writer().(*lineBuffer)
	var line []byte
	for r.Next() {
		line = append(csvscan.AppendFields(line[:0], r.Fields()), '\n')
		if err := w.WriteLine(line); err != nil {
			return rows, err
		}
		if rows++; rows%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return rows, err
			}
		}
	}
	if err := r.Err(); err != nil {
		return rows, err
	}
	if err := w.Flush(); err != nil {
		return rows, err
	}
	return rows, sink.Finish(ctx)
}

func (s *parquetSink) Begin(h join.Header) error {
	// Parquet, Arrow and JSON lines (whose sinks spool through this one)
	// name columns in UTF-8: a name of other bytes became U+FFFD in JSON
	// lines (two such names one key) and raw bytes DuckDB refuses in
	// Parquet (a review).
	for _, n := range h.Names {
		if !utf8.ValidString(n) {
			return fmt.Errorf("the output's column %q is no UTF-8 text, which a Parquet, Arrow or JSON lines output needs for its names: rename it (--columns '... AS name') or write CSV", n)
		}
	}
	s.names = h.Names
	// By name: a header whose columns were picked (Options.Columns) keeps
	// the large side's Join, whose positions are in the whole row.
	s.joinCols = h.Join.Names
	if len(s.joinCols) == 0 {
		for _, c := range h.Join.Cols {
			if c >= 0 && c < len(h.Names) {
				s.joinCols = append(s.joinCols, h.Names[c])
			}
		}
	}
	s.given = h.Types
	s.maybe = make([]columnTypes, len(h.Names))
	f, err := os.CreateTemp(s.tempDir, atomicfile.TempPrefix()+"parquet-*.spool")
	if err != nil {
		return fmt.Errorf("parquet: spool: %w", err)
	}
	// The rows wait for their types here: an input without end must not
	// fill the disk (tmpspace: it stops at the folder's reserve).
	s.spool, s.sw = f, bufio.NewWriterSize(tmpspace.NewWriter(f, filepath.Dir(f.Name())), 1<<20)
	return nil
}

// schema builds the file writer from the decided types.
func (s *parquetSink) begin() (err error) {
	defer recoverWrite(&err)
	n := len(s.names)
	fields := make(schema.FieldList, n)
	s.types = make([]columnar.Type, n)
	s.phys = make([]columnar.Physical, n)
	for i, name := range s.names {
		t := s.maybe[i].typ()
		if i < len(s.given) && s.given[i].Typed() {
			t = s.given[i]
		}
		s.types[i] = t
		s.phys[i], _ = t.Physical()
		if fields[i], err = columnar.ParquetNode(name, t); err != nil {
			return fmt.Errorf("parquet: column %q: %w", name, err)
		}
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	bloom, err := s.bloomProps()
	if err != nil {
		return err
	}
	props := parquet.NewWriterProperties(append([]parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy)}, bloom...)...)
	// The file writer closes a sink that is an io.Closer; the caller owns w.
	s.fw = file.NewParquetWriter(&s.out, root, file.WithWriterProps(props))
	return nil
}

// groupRows is about the rows a row group will hold, from the rows
// spooled and their mean bytes held (what add counts against the byte
// bounds): a wide output's row groups end at 8 MiB long before 65,536
// rows (the generated NBER left join's at about 14,500). At least 1.
func (s *parquetSink) groupRows() int {
	rows, limit := parquetRowGroup, parquetRowGroupBytes
	if s.rowGroup > 0 {
		rows, limit = s.rowGroup, maxRowGroupBytes
	}
	if s.spooled > 0 {
		perRow := int(s.spoolLen/int64(s.spooled)) + 24*len(s.names)
		rows = min(rows, limit/perRow+1)
	}
	return max(1, min(rows, s.spooled))
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

func (s *parquetSink) Writer() RowWriter {
	if s.cells {
		return &lineBuffer{flush: s.add, join: appendCellRow}
	}
	return &lineBuffer{flush: s.add}
}

// takeCells switches the sink to rows framed with typed cells
// (typedRowSink).
func (s *parquetSink) takeCells() bool {
	s.cells = true
	return true
}

// add checks the fields of lines (rows each ending in '\n') against their
// columns' possible types and spools them as one batch: its length, then
// its bytes.
func (s *parquetSink) add(lines []byte) error {
	if len(lines) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spoolLen += int64(len(lines))
	var b [binary.MaxVarintLen64]byte
	s.sw.Write(b[:binary.PutUvarint(b[:], uint64(len(lines)))])
	if _, err := s.sw.Write(lines); err != nil {
		return fmt.Errorf("parquet: spool: %w", err)
	}
	return nil
}

// observeSpool is Finish's first pass over the spool: each batch's rows
// split and their untyped columns' values looked at (columnTypes) by
// spoolWorkers goroutines at once (what values allow does not depend on
// their order), the rows counted. The reducers only spool their lines:
// split there, two reducers of a join whose partitions are uneven (a
// flights join's largest held 87% of the rows) did it on one core, and
// waited on each other for the sink.
func (s *parquetSink) observeSpool(ctx context.Context) error {
	n := len(s.names)
	untyped := false
	for i := range n {
		untyped = untyped || !(i < len(s.given) && s.given[i].Typed())
	}
	type result struct {
		maybe []columnTypes
		rows  int
		err   error
	}
	workers := max(1, min(spoolWorkers, runtime.GOMAXPROCS(0)))
	batches, free := make(chan []byte, workers), make(chan []byte, 2*workers)
	for range 2 * workers {
		free <- nil
	}
	results := make([]result, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := &results[w]
			r.maybe = make([]columnTypes, n)
			// A value the column had before is not looked at again
			// where looking costs a float's parse (a column that may
			// still be DOUBLE, past the integers): a key-side row's
			// fields repeat in every row it joins (the first memoSize
			// values of each column of at most memoBytes are
			// remembered, and none once the column can only be text:
			// a column of long distinct texts held 2 x 4096 copies of
			// them). The others' values are looked at each time.
			memo := make([]map[string]struct{}, n)
			var row cellFields
			halves := newKeyHalves()
			for b := range batches {
				if r.err == nil && !untyped && s.cells {
					// Every column typed: the rows are only counted, by
					// their frames' lengths.
					var k int
					for len(b[k:]) > 0 && r.err == nil {
						var used int
						used, r.err = skipCellRow(b[k:])
						k += used
						r.rows++
					}
				} else if r.err == nil {
					r.err = eachRow(b, n, s.cells, &row, halves, func(fields [][]byte, tags []byte, _ halfRef) error {
						r.rows++
						if !untyped {
							return nil
						}
						// A key-side half seen before is not in fields:
						// its values were looked at then, and what they
						// allow does not change.
						for i, f := range fields {
							// A NULL tells nothing, nor does a typed column,
							// whose type is given; an empty text cell is a
							// value, "", which only text holds (a review found
							// a right join's unmatched "" key typed INT64 by the
							// other values of its column, and the write refused).
							if len(f) == 0 && (tags == nil || tags[i] != columnar.CellText) || i < len(s.given) && s.given[i].Typed() || tags != nil && native(tags[i]) {
								continue
							}
							if m := &r.maybe[i]; m.notFloat || !m.notInt && len(f) <= 15 {
								// Its observe is a UTF-8 check and at most an
								// integer's parse: cheaper than the memo's
								// lookup (a CSV side's left join of 4.1M rows
								// spent 0.22 s of 4.3 in it).
								m.observe(f)
								continue
							}
							if _, ok := memo[i][string(f)]; ok {
								continue
							}
							r.maybe[i].observe(f)
							if memo[i] == nil {
								memo[i] = map[string]struct{}{}
							}
							if len(f) <= memoBytes && len(memo[i]) < memoSize && !(r.maybe[i].notInt && r.maybe[i].notFloat) {
								memo[i][string(f)] = struct{}{}
							}
						}
						return nil
					})
				}
				free <- b
			}
		})
	}
	err := s.eachSpooled(ctx, free, batches)
	close(batches)
	wg.Wait()
	for _, r := range results {
		if err == nil {
			err = r.err
		}
		for i := range r.maybe {
			s.maybe[i].merge(r.maybe[i])
		}
		s.spooled += r.rows
	}
	return err
}

// spoolWorkers is the goroutines of observeSpool's pass; memoSize the
// values of a column each remembers, of at most memoBytes each (at most
// 2 x 1024 x 32 bytes, 64 KiB, a column).
const (
	spoolWorkers = 2
	memoSize     = 1024
	memoBytes    = 32
)

// eachSpooled reads the spooled batches in order, each into a buffer taken
// from free (nil: a new one), and sends it to out.
func (s *parquetSink) eachSpooled(ctx context.Context, free <-chan []byte, out chan<- []byte) error {
	if _, err := s.spool.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("parquet: spool: %w", err)
	}
	r := bufio.NewReaderSize(s.spool, 1<<20)
	for {
		n, err := binary.ReadUvarint(r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("parquet: spool: %w", err)
		}
		if n > uint64(maxSpoolBatch) {
			return fmt.Errorf("parquet: spool: a batch of %d bytes", n)
		}
		var b []byte
		select {
		case b = <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
		b = slices.Grow(b[:0], int(n))[:n]
		if _, err := io.ReadFull(r, b); err != nil {
			return fmt.Errorf("parquet: spool: %w", err)
		}
		select {
		case out <- b:
		case <-ctx.Done(): // a reader that stopped (its error, or a panic) cancels
			return ctx.Err()
		}
	}
}

// eachRow splits each row of lines (n fields each: CSV lines, or with
// cells framed rows of typed cells, splitCellRow) into fields, quoted
// fields unquoted, and calls fn with them and, with cells, their tags
// (nil for CSV lines); sc's slices are the scratch, reused. The row's
// slices are locals, stored back once: stored into sc a row, they cost
// write barriers (a CSV side's left join to Parquet, 4.1M rows, was 1.06x
// the time so).
func eachRow(lines []byte, n int, cells bool, sc *cellFields, halves *keyHalves, fn func(fields [][]byte, tags []byte, half halfRef) error) error {
	fields, tags, unq := sc.fields, sc.tags, sc.unq
	defer func() { sc.fields, sc.tags, sc.unq = fields, tags, unq }()
	for len(lines) > 0 {
		var k int
		var err error
		half := halfRef{id: -1}
		switch {
		case cells && halves.on():
			// The key-side half looked up first: a half seen before is
			// not split again (fn has its fields from that row).
			var large, small []byte
			if large, small, k, err = cellHalves(lines); err != nil {
				return err
			}
			if fields, tags, err = splitCells(large, fields[:0], tags[:0]); err != nil {
				return err
			}
			half.large = len(fields)
			if id, ok := halves.seen(small); ok {
				half.id, half.seen = id, true
				break
			}
			if fields, tags, err = splitCells(small, fields, tags); err != nil {
				return err
			}
			half.id = halves.add(small, len(fields)-half.large)
		case cells:
			fields, tags, k, err = splitCellRow(lines, fields[:0], tags[:0])
		default:
			fields, unq, k, err = splitLine(lines, fields[:0], unq[:0])
		}
		if err != nil {
			return err
		}
		lines = lines[k:]
		got := len(fields)
		if half.seen {
			got = half.large + halves.counts[half.id] // the half's fields, seen before
		}
		if got != n {
			return fmt.Errorf("parquet: an output row has %d fields, the header %d", got, n)
		}
		t := tags
		if !cells {
			t = nil
		}
		if err := fn(fields, t, half); err != nil {
			return err
		}
	}
	return nil
}

// appendFields adds fields, the first of a row's (all of them, or its
// large-side half), to g's columns. Called by Finish's reading goroutine.
func (s *parquetSink) appendFields(g *pqGroup, fields [][]byte, tags []byte) (err error) {
	for i, f := range fields {
		c := &g.cols[i]
		// NULL: an empty CSV field, or a typed row's CellNull. A typed
		// row's empty CellText is a value, a Parquet or Arrow side's ""
		// (it was written as NULL, by the JSON lines and Arrow outputs
		// too, which spool through this sink: a review found it).
		if len(f) == 0 && (tags == nil || tags[i] == columnar.CellNull) {
			c.defs = append(c.defs, 0)
			continue
		}
		c.defs = append(c.defs, 1)
		p := s.phys[i]
		var v columnar.Value
		switch {
		case tags != nil && native(tags[i]):
			// A typed cell: the value Type.Value reads from its text
			// (columnar.NativeValue), of a column of this type.
			if p == columnar.PhysBytes || p == columnar.PhysFixed {
				return fmt.Errorf("parquet: internal error: column %q (%s) given a native value", s.names[i], s.types[i])
			}
			v = columnar.CellValue(tags[i], f)
		case p == columnar.PhysBytes:
			c.bytes = append(c.bytes, parquet.ByteArray(g.keep(f)))
			continue
		default:
			if v, err = s.types[i].Value(f); err != nil { // checked when spooled (a CSV column) or written from the type (a table's)
				return fmt.Errorf("parquet: column %q: %w", s.names[i], err)
			}
		}
		if p == columnar.PhysFixed {
			v.B = g.keep(v.B)
		}
		c.add(p, v)
	}
	return nil
}

// endRow ends the row appendFields (and keyHalves.apply) added to g and
// reports whether g is full.
func (s *parquetSink) endRow(g *pqGroup) (full bool) {
	g.rows++
	held := g.text + 24*len(s.names)*g.rows
	return s.rowGroup > 0 && (g.rows == s.rowGroup || held >= maxRowGroupBytes) || s.rowGroup == 0 && (g.rows == parquetRowGroup || held >= parquetRowGroupBytes)
}

// flushGroup writes g's rows as a row group and empties g. Called by
// Finish's writing goroutine; a panic of the writer (arrow-go's on some
// write errors) is returned as an error. The columns are encoded on
// writeWorkers goroutines at once, each taking the next column not yet
// taken, into a buffered row group (each column chunk writer has its own
// encoder, statistics, Bloom filter and page buffer). A column chunk is
// closed (its dictionary page encoded and compressed, its pages written to
// the file) by the goroutine that encoded it once the column before it is
// closed: the file's bytes are written in the columns' order, as one
// goroutine writes them (TestParquetParallelColumns), while the other
// goroutine encodes a later column.
func (s *parquetSink) flushGroup(g *pqGroup) (err error) {
	defer recoverWrite(&err)
	if g.rows == 0 {
		return nil
	}
	defer func() {
		for i := range g.cols {
			g.cols[i].reset()
		}
		g.rows, g.arena, g.text = 0, nil, 0 // the written values may still be referenced: start afresh
	}()
	if g.text+24*len(s.names)*g.rows > bigGroupBytes {
		return s.flushSerial(g)
	}
	rg, err := s.fw.AppendBufferedRowGroupChecked()
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	n := len(s.names)
	errs := make([]error, n)
	closed := make([]chan struct{}, n) // closed[i]: column i is closed, or failed (errs[i])
	for i := range closed {
		closed[i] = make(chan struct{})
	}
	var failed atomic.Bool
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(writeWorkers, runtime.GOMAXPROCS(0), n)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				// Columns are taken in order: column i-1's goroutine waits
				// on columns before it only, so this cannot wait forever.
				errs[i] = writeColumn(rg, i, &g.cols[i])
				if i > 0 {
					<-closed[i-1]
				}
				if errs[i] == nil && !failed.Load() {
					errs[i] = closeColumn(rg, i)
				}
				if errs[i] != nil {
					failed.Store(true)
				}
				close(closed[i])
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if err := rg.Close(); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}

// flushSerial is flushGroup of a group over bigGroupBytes (a large
// RowGroup): one column encoded and written after another, so that one
// column's encoder and pages are held at a time, not every column's (a
// buffered row group of 256 MiB of values held 435 MB at its peak
// against 297).
func (s *parquetSink) flushSerial(g *pqGroup) error {
	rg, err := s.fw.AppendRowGroupChecked()
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	for i := range s.names {
		cw, err := rg.NextColumn()
		if err == nil {
			err = writeValues(cw, &g.cols[i])
		}
		if err == nil {
			err = cw.Close()
		}
		if err != nil {
			return fmt.Errorf("parquet: %w", err)
		}
	}
	if err := rg.Close(); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}

// closeColumn closes column i of the buffered row group rg: its last
// pages and its dictionary page encoded, and its chunk written to the
// file. A panic of the writer is returned as an error.
func closeColumn(rg file.BufferedRowGroupWriter, i int) (err error) {
	defer recoverWrite(&err)
	cw, err := rg.Column(i)
	if err == nil {
		err = cw.Close()
	}
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}

// writeWorkers is the goroutines that encode a row group's columns.
var writeWorkers = 2

// writeColumn writes the values c of column i of the buffered row group
// rg; a panic of the writer is returned as an error.
func writeColumn(rg file.BufferedRowGroupWriter, i int, c *columnValues) (err error) {
	defer recoverWrite(&err)
	cw, err := rg.Column(i)
	if err == nil {
		err = writeValues(cw, c)
	}
	if err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}

// writeValues writes the values c to the column chunk writer cw.
func writeValues(cw file.ColumnChunkWriter, c *columnValues) (err error) {
	switch w := cw.(type) {
	case *file.Int32ColumnChunkWriter:
		if done, err := writeIntChunk(w, c.i32, c.defs, arrow.PrimitiveTypes.Int32); done || err != nil {
			return err
		}
		_, err = w.WriteBatch(c.i32, c.defs, nil)
	case *file.Int64ColumnChunkWriter:
		if done, err := writeIntChunk(w, c.i64, c.defs, arrow.PrimitiveTypes.Int64); done || err != nil {
			return err
		}
		_, err = w.WriteBatch(c.i64, c.defs, nil)
	case *file.Float32ColumnChunkWriter:
		_, err = w.WriteBatch(c.f32, c.defs, nil)
	case *file.Float64ColumnChunkWriter:
		_, err = w.WriteBatch(c.f64, c.defs, nil)
	case *file.BooleanColumnChunkWriter:
		_, err = w.WriteBatch(c.bools, c.defs, nil)
	case *file.ByteArrayColumnChunkWriter:
		if done, err := writeBytesChunk(w, c); done || err != nil {
			return err
		}
		_, err = w.WriteBatch(c.bytes, c.defs, nil)
	case *file.FixedLenByteArrayColumnChunkWriter:
		_, err = w.WriteBatch(c.fixed, c.defs, nil)
	default:
		err = errors.New("unexpected column writer")
	}
	return err
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
	if err := s.observeSpool(ctx); err != nil {
		return err
	}
	if err := s.begin(); err != nil {
		return err
	}
	// One goroutine reads the spool back and parses its rows into a row
	// group while this one writes the group before (encoding and
	// compressing): two groups go round between them. The file is written
	// here alone, in the rows' order.
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	full, free := make(chan *pqGroup, 1), make(chan *pqGroup, 2)
	for range 2 {
		free <- &pqGroup{cols: make([]columnValues, len(s.names))}
	}
	var rerr error
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(full)
		defer recoverWrite(&rerr)
		rerr = s.readSpool(rctx, full, free)
	}()
	var werr error
	for g := range full {
		if werr == nil {
			if werr = s.flushGroup(g); werr != nil {
				cancel() // the reader stops at its next batch or group
			}
		}
		g.rows, g.arena, g.text = 0, nil, 0
		for i := range g.cols {
			g.cols[i].reset()
		}
		free <- g // never blocks: two groups, room for two
	}
	<-read
	if werr != nil {
		return werr
	}
	if rerr != nil {
		return rerr
	}
	if err := s.fw.Close(); err != nil {
		return fmt.Errorf("parquet: %w", err)
	}
	return nil
}

// readSpool reads the spooled batches back in order, parses their rows
// into groups taken from free and sends each full one, and the last, to
// full. Finish's reading goroutine.
func (s *parquetSink) readSpool(ctx context.Context, full, free chan *pqGroup) error {
	g := <-free
	halves := newKeyHalves()
	// The spool is read a batch ahead of the parsing, in two buffers.
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	buf, batches := make(chan []byte, 2), make(chan []byte)
	buf <- nil
	buf <- nil
	var err error
	go func() {
		defer close(batches)
		err = s.eachSpooled(rctx, buf, batches)
	}()
	for b := range batches {
		var perr error
		perr = eachRow(b, len(s.names), s.cells, &s.row, halves, func(fields [][]byte, tags []byte, half halfRef) error {
			var err error
			if half.seen {
				err = s.appendFields(g, fields, tags)
				if err == nil {
					halves.apply(g, s.phys, half)
				}
			} else {
				err = s.appendFields(g, fields, tags)
				if err == nil && half.id >= 0 {
					halves.keep(g, s.phys, half)
				}
			}
			if err != nil || !s.endRow(g) {
				return err
			}
			// A group over twice the default groups' bytes (a large
			// --row-group) is written before the next is begun: one
			// such group held at a time, as before the pipeline.
			wait := 1 // the other group
			if g.text+24*len(s.names)*g.rows > bigGroupBytes {
				wait = 2 // both: this one written too
			}
			full <- g
			var back [2]*pqGroup
			for k := range wait {
				select {
				case back[k] = <-free:
				case <-ctx.Done():
					g = nil
					return ctx.Err()
				}
			}
			g = back[0]
			if back[1] != nil {
				free <- back[1]
			}
			return nil
		})
		buf <- b
		if perr != nil {
			cancel()
			for range batches { // the reader stops at its next batch
				buf <- nil
			}
			return perr
		}
	}
	if err != nil {
		return err
	}
	if g.rows > 0 {
		full <- g
	}
	return nil
}

// bigGroupBytes is the bytes over which a row group is written before the
// next is begun (readSpool): twice the default groups' bound (they end
// when they reach it, a row over), so that those always overlap. A
// variable so that a test sets it small.
var bigGroupBytes = 2 * parquetRowGroupBytes

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
	// A line without a quote (most rows: a field holding a comma, quote
	// or line break is quoted) ends at the first line break and splits at
	// every comma: found 8 bytes at a time (splitCommas).
	if end := bytes.IndexByte(b, '\n'); end >= 0 && bytes.IndexByte(b[:end], '"') < 0 {
		return splitCommas(b[:end], fields), unq, end + 1, nil
	}
	return splitQuoted(b, fields, unq)
}

// splitCommas appends the fields of line, split at every comma, to
// fields. The commas are found a word at a time: the high bit of each
// byte of line ^ ',' that is zero, exactly (no borrow runs between
// bytes: "Bit Twiddling Hacks", determining if a word has a zero byte).
// A 4.1M-row left join's rows of 24 fields took 6.9 ns a field in the
// byte loop of splitQuoted.
func splitCommas(line []byte, fields [][]byte) [][]byte {
	const commas, low7 = 0x2c2c2c2c2c2c2c2c, 0x7f7f7f7f7f7f7f7f
	start, i := 0, 0
	for ; i+8 <= len(line); i += 8 {
		x := binary.LittleEndian.Uint64(line[i:]) ^ commas
		m := ^(((x & low7) + low7) | x | low7)
		for m != 0 {
			at := i + bits.TrailingZeros64(m)>>3
			fields = append(fields, line[start:at])
			start = at + 1
			m &= m - 1
		}
	}
	for ; i < len(line); i++ {
		if line[i] == ',' {
			fields = append(fields, line[start:i])
			start = i + 1
		}
	}
	return append(fields, line[start:])
}

// splitQuoted is splitLine of any line, quoted fields and line breaks in
// quotes included: a byte at a time.
func splitQuoted(b []byte, fields [][]byte, unq []byte) ([][]byte, []byte, int, error) {
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

// CSVProducer is CSV text that Write writes (ConvertWritten): its fields
// separated by Sep, Name naming it in messages.
type CSVProducer struct {
	Write func(w io.Writer) error
	Name  string
	Sep   byte
}

// ConvertWritten is ConvertCSV of the text src.Write writes, run in a
// goroutine of its own through a pipe: a CSV producer's output (a key
// sample, say) typed as Parquet on its way, never whole in memory. The
// producer's error comes first. Cost: ConvertCSV's.
func ConvertWritten(ctx context.Context, src CSVProducer, dst io.Writer, rowGroup int, tempDir string) (int64, error) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := src.Write(pw)
		pw.CloseWithError(err)
		done <- err
	}()
	rows, err := ConvertCSV(ctx, CSVInput{Text: pr, Name: src.Name, Sep: src.Sep}, dst, rowGroup, tempDir)
	pr.CloseWithError(io.ErrClosedPipe) // a producer still writing stops
	perr := <-done
	if err != nil && errors.Is(perr, io.ErrClosedPipe) {
		return rows, err // the producer stopped because the conversion failed: its cause
	}
	if perr != nil {
		return rows, perr
	}
	return rows, err
}

// ConvertCSVFile writes the CSV file src (plain, .gz or .zip; its
// separator by its name, csvscan.SepFor) as the Parquet file dst
// (ConvertCSV), created under a temporary name beside it and renamed into
// place only when whole (atomicfile): a failure leaves no dst. It returns
// the rows written.
func ConvertCSVFile(ctx context.Context, src, dst string, rowGroup int, tempDir string) (rows int64, err error) {
	in, name, err := csvscan.OpenContext(ctx, src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	f, err := atomicfile.Create(ctx, dst, atomicfile.Options{})
	if err != nil {
		return 0, err
	}
	defer f.Abort() // a committed file stays
	if rows, err = ConvertCSV(ctx, CSVInput{Text: bufio.NewReaderSize(in, 1<<20), Name: name, Sep: csvscan.SepFor(src)}, f, rowGroup, tempDir); err != nil {
		return 0, err
	}
	return rows, f.Commit()
}
