package columnar

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/acbfjoin/acbfjoin/csvscan"
)

// Rows reads the rows of a chunk's columns as CSV fields, as csvscan's
// Reader reads a CSV file's records: Fields renders the row's values as
// canonical text (Column.AppendText; a NULL is an empty field, Null says
// which), Raw the row as a CSV line, Offset is its index in the table and
// Line its number. For the paths that read rows one by one (a key side, a
// sample); a join's map phase reads a large side's key columns directly.
type Rows struct {
	name   string
	cols   []*Column
	first  int64
	i, n   int
	fields [][]byte
	buf    []byte
	raw    []byte
	// rawMade: raw is the current row's (Raw makes it on demand).
	rawMade bool
	// partial: the row was read by NextField, fields not made yet
	// (Fields makes them on demand); fcol is NextField's column (-1
	// after Next) and field its text, in a buffer of its own so that
	// making the other fields leaves it be.
	partial bool
	fcol    int
	field   []byte
	// seqBase orders the rows of a table of many files (SeqBase).
	seqBase int64
	// touched keeps touchAhead's reads.
	touched uint64
}

// TouchBlock is the rows a row-by-row reader of every column reads ahead
// with TouchRows: 64 rows of 23 columns' values and validity take 13 KB,
// within the first-level cache.
const TouchBlock = 64

// TouchRows reads one value a cache line of rows lo to hi (clipped to
// each column) of cols' values, validity, offsets and dictionary indices,
// and returns their bits XORed, for the caller to keep (so that the reads
// stay): a reader that renders a block of rows after it finds their lines
// in the cache. A row read across 22 columns, each its own stream of
// memory, waited on about three cache misses (the NBER key side's render:
// the loads of the values took half of BenchmarkRowText's time); reading
// ahead a block at a time, the loads of a column's lines go out together.
// O(columns * (hi-lo) / 8); no allocation. Safe for concurrent use.
func TouchRows(cols []*Column, lo, hi int) uint64 {
	var x uint64
	for _, c := range cols {
		if c == nil || lo < 0 || lo >= c.n {
			continue
		}
		h := min(hi, c.n)
		if h <= lo {
			continue
		}
		switch {
		case len(c.ints) >= h:
			for i := lo; i < h; i += 8 {
				x ^= uint64(c.ints[i])
			}
		case len(c.floats) >= h:
			for i := lo; i < h; i += 8 {
				x ^= math.Float64bits(c.floats[i])
			}
		case len(c.offs) > h:
			for i := lo; i < h; i += 8 {
				x ^= uint64(c.offs[i])
			}
		case len(c.idx) >= h:
			for i := lo; i < h; i += 16 {
				x ^= uint64(c.idx[i])
			}
		}
		if len(c.valid) >= h {
			for i := lo; i < h; i += 64 {
				if c.valid[i] {
					x++
				}
			}
		}
	}
	return x
}

// SeqBase is what orders the rows of a table of many files, whose Rows
// number a row in its own file: the rows of the files before it (0 for a
// table of one file). A row's place in the table is SeqBase + Offset.
func (r *Rows) SeqBase() int64 { return r.seqBase }

// WithSeqBase sets SeqBase and returns r.
func (r *Rows) WithSeqBase(b int64) *Rows {
	r.seqBase = b
	return r
}

// NewRows returns the rows of cols (a chunk's columns, all of the same
// length), the first being row first of the table named name. A nil
// column is one not read (a predicate's reader asks for its columns only):
// its field is empty and NULL.
func NewRows(name string, cols []*Column, first int64) *Rows {
	n := 0
	for _, c := range cols {
		if c != nil {
			n = c.Len()
			break
		}
	}
	return &Rows{name: name, cols: cols, first: first, i: -1, n: n, fields: make([][]byte, len(cols)), fcol: -1}
}

// Range makes r the rows lo to hi-1 of its columns (a share of a chunk
// that readers split), numbered as r numbers them, and returns r. Call it
// before the first Next.
func (r *Rows) Range(lo, hi int) *Rows {
	r.i, r.n = lo-1, min(hi, r.n)
	return r
}

// NewRowsOf is NewRows of n rows: for columns that may all be nil (a
// predicate that reads no column, `true`), whose length cannot tell them.
func NewRowsOf(name string, cols []*Column, first int64, n int) *Rows {
	r := NewRows(name, cols, first)
	r.n = n
	return r
}

// Next advances to the next row and reports whether there is one.
// O(the row's text), its CSV line made only if Raw asks for it.
func (r *Rows) Next() bool {
	r.i++
	if r.i >= r.n {
		return false
	}
	r.raw, r.rawMade, r.partial, r.fcol = r.raw[:0], false, false, -1
	r.makeFields()
	return true
}

// makeFields renders the current row's values into fields.
func (r *Rows) makeFields() {
	r.buf = r.buf[:0]
	for j, c := range r.cols {
		start := len(r.buf)
		if c != nil {
			r.buf = c.AppendText(r.buf, r.i)
		}
		r.fields[j] = r.buf[start:len(r.buf):len(r.buf)]
	}
	// The fields point into buf, which AppendText may have moved: set them
	// again from their lengths.
	at := 0
	for j := range r.fields {
		l := len(r.fields[j])
		r.fields[j] = r.buf[at : at+l : at+l]
		at += l
	}
}

// NextField is Next that renders only column col's value (Field); the
// others are rendered if Fields asks for them, and AppendOthers writes
// them as CSV straight from their columns: what a key side's build reads
// of a row (the key's text, the rest as the row that travels), without
// rendering each value twice. col must be a column of r. O(the key's
// text).
func (r *Rows) NextField(col int) bool {
	r.i++
	if r.i >= r.n {
		return false
	}
	r.raw, r.rawMade, r.partial, r.fcol = r.raw[:0], false, true, col
	r.field = r.field[:0]
	if c := r.cols[col]; c != nil {
		r.field = c.AppendText(r.field, r.i)
	}
	return true
}

// Field is the text of NextField's column, valid until the next Next or
// NextField.
func (r *Rows) Field() []byte { return r.field }

// AppendOthers appends the row's values but NextField's column as CSV
// fields (join.AppendKeyFields' bytes for a one-column key: one other
// field, empty, is written ""), numbers, dates and times written in place
// and text quoted where it must be; false, with dst unchanged, for a row
// read by Next. O(the row's text).
func (r *Rows) AppendOthers(dst []byte) ([]byte, bool) {
	if r.fcol < 0 {
		return dst, false
	}
	r.touchAhead()
	return appendRowExcept(dst, r.cols, r.i, r.fcol), true
}

// touchAhead reads the next block of rows (TouchRows) when the row is a
// block's first: for the readers of every column, row after row.
func (r *Rows) touchAhead() {
	if r.i%TouchBlock == 0 {
		r.touched ^= TouchRows(r.cols, r.i+TouchBlock, min(r.i+2*TouchBlock, r.n))
	}
}

// AppendCellsOf appends the row's values of columns cols (indexes of r's
// columns, in that order) as typed cells (AppendCells), each carried
// natively where its column's type is want's for it (want indexed by
// column), for a row read by Next or NextField: a key side's row as the
// output carries it, its empty texts apart from its NULLs (a CSV line
// cannot tell them). O(the values' bytes).
func (r *Rows) AppendCellsOf(dst []byte, cols []int, want []Type) []byte {
	r.touchAhead()
	for _, j := range cols {
		c := r.cols[j]
		dst = appendCell(dst, c, r.i, c != nil && j < len(want) && c.Type == want[j])
	}
	return dst
}

// Fields are the row's values as text, valid until the next Next.
func (r *Rows) Fields() [][]byte {
	if r.partial {
		r.partial = false
		r.makeFields()
	}
	return r.fields
}

// Raw is the row as a CSV line (without its line break), made on the
// first call for the row (AppendRow).
func (r *Rows) Raw() []byte {
	if !r.rawMade {
		r.rawMade = true
		r.raw = appendRowExcept(r.raw[:0], r.cols, r.i, -1)
	}
	return r.raw
}

// Null reports whether the row's value of column j is NULL (a column not
// read is).
func (r *Rows) Null(j int) bool { return r.cols[j] == nil || r.cols[j].Null(r.i) }

// Offset is the row's index in the table.
func (r *Rows) Offset() int64 { return r.first + int64(r.i) }

// Line is the row's number in the table (1-based).
func (r *Rows) Line() int64 { return r.first + int64(r.i) + 1 }

// Name names the table in messages.
func (r *Rows) Name() string { return r.name }

// Err is nil: the columns were decoded before.
func (r *Rows) Err() error { return nil }

// Errorf returns an error about the current row: "file: row N: ...".
func (r *Rows) Errorf(format string, a ...any) error {
	e := fmt.Errorf(format, a...) // %w wraps, as fmt.Errorf does
	pe := &csvscan.ParseError{File: r.name, Line: r.Line(), Offset: r.Offset(), Msg: e.Error(), Row: true}
	if _, many := e.(interface{ Unwrap() []error }); many || errors.Unwrap(e) != nil {
		pe.Err = e
	}
	return pe
}

// AppendRow appends row i of cols (a chunk's columns) as a CSV line, as
// Rows' Raw renders it, without its line break: numbers, dates and times
// written in place (their text never needs quotes), text quoted where it
// must be (csvscan.AppendField). O(the row's bytes).
func AppendRow(dst []byte, cols []*Column, i int) []byte {
	return appendRowExcept(dst, cols, i, -1)
}

// appendRowExcept is AppendRow of every column but skip (-1: none); when
// one column is written and its field is empty it is written "", so that
// the row is not a blank line.
func appendRowExcept(dst []byte, cols []*Column, i, skip int) []byte {
	start, n := len(dst), 0
	for j, c := range cols {
		if j == skip {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		if c == nil || c.Null(i) {
			continue
		}
		// The common kinds here, not through AppendText, which would look
		// at the value's NULL and its kind again.
		switch c.Type.Kind {
		case Int:
			dst = appendInt(dst, c.ints[i])
		case Float:
			dst = AppendFloat(dst, c.floats[i], c.Type.Width)
		case String, Binary, Text:
			dst = csvscan.AppendField(dst, c.Bytes(i))
		default:
			dst = c.AppendText(dst, i)
		}
	}
	if n == 1 && len(dst) == start {
		dst = append(dst, '"', '"') // not a blank line
	}
	return dst
}

// Reader reads a table's rows in order, chunk after chunk, as Rows reads
// one chunk's: for the readers that take a side row by row, in order (a
// stream's probe). One goroutine.
type Reader struct {
	t    *Table
	next int   // the next chunk (not a stream)
	at   int64 // the rows before the current chunk
	rows *Rows
	err  error
}

// NewReader reads t's rows from its first.
func NewReader(t *Table) *Reader { return &Reader{t: t} }

// Next advances to the next row and reports whether there is one; at the
// end or on an error (Err) it reports false.
func (r *Reader) Next() bool {
	for r.rows == nil || !r.rows.Next() {
		if r.err != nil {
			return false
		}
		if r.rows != nil {
			r.at += int64(r.rows.n)
		}
		var cols []*Column
		if r.t.Stream() {
			c, err := r.t.Next(nil)
			if err == io.EOF {
				return false
			}
			cols, r.err = c, err
		} else {
			if r.next >= r.t.Chunks() {
				return false
			}
			cols, r.err = r.t.Read(r.next, nil)
			r.next++
		}
		if r.err != nil {
			return false
		}
		r.rows = NewRows(r.t.Name, cols, r.at)
	}
	return true
}

// Rows is the current chunk's rows, positioned at the current row.
func (r *Reader) Rows() *Rows { return r.rows }

// Err is the error that ended the read, if any.
func (r *Reader) Err() error { return r.err }

// Fields, Raw, Null, Line, Offset and Errorf are the current row's, as
// Rows has them.
func (r *Reader) Fields() [][]byte { return r.rows.Fields() }
func (r *Reader) Raw() []byte      { return r.rows.Raw() }
func (r *Reader) Null(j int) bool  { return r.rows.Null(j) }
func (r *Reader) Line() int64      { return r.rows.Line() }
func (r *Reader) Offset() int64    { return r.rows.Offset() }
func (r *Reader) Name() string     { return r.t.Name }
func (r *Reader) Errorf(format string, a ...any) error {
	return r.rows.Errorf(format, a...)
}
