package local

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/join"
)

// Typed rows (issue 44): a Parquet or Arrow large side's rows go to a
// typed output (Parquet, and the Arrow and JSON lines outputs written
// through it) as typed cells (columnar.AppendCells) instead of CSV text:
// a number, date, timestamp or time of a column the output writes as its
// own type travels as the 8 bytes of its Parquet value, from the map phase
// through the shuffle, the reduce and the sort to the sink, which takes it
// as it is; no text is made of it and none parsed back. Text, bytes,
// decimals and a value of another type than the output's (a join column
// widened for a right or full join's keys) travel as text cells, read back
// as a CSV field is. The key side's part of a row stays CSV text.
//
// An output row is then framed, not a line: the large side's cells and
// the key side's CSV line, each after its length (appendCellRow). The
// sink splits it (eachCellRow) into the same fields a CSV line gives,
// with natives marking the fields that hold a native cell's 8 bytes.
//
// Off (the rows as CSV text, as before) for a CSV large side, a CSV
// output, Options.Columns (its projection splits CSV lines), a bank join
// and routed outputs; and with ACBFJOIN_TYPED_ROWS=off, to compare the two
// (the output is the same: TestTypedRowsSame).

// noTypedRows turns typed rows off (ACBFJOIN_TYPED_ROWS=off, read once).
var noTypedRows = os.Getenv("ACBFJOIN_TYPED_ROWS") == "off"

// typedRowSink is a Sink that can take its rows framed with typed cells
// (appendCellRow). takeCells switches it to them, before Begin and before
// any Writer; it reports false when it cannot (then nothing changed).
type typedRowSink interface {
	takeCells() bool
}

// chooseCells decides whether x's large side's rows travel as typed
// cells, and if so switches x.sink to them and sets x.cellTypes. Called
// once x.sink is set, before any writer is made.
func (x *execution) chooseCells() {
	if noTypedRows || x.input.Tab == nil || x.bank != nil || x.opt.Route != join.RouteNone || x.largeKeep != nil {
		return
	}
	s, ok := x.sink.(typedRowSink)
	if !ok {
		return
	}
	h := x.outputHeader()
	n := x.largeCols()
	if h.Types == nil || len(h.Types) < n {
		return
	}
	if !s.takeCells() {
		return
	}
	x.cellTypes = h.Types[:n:n]
}

// nativeColumns sets, for each of a chunk's columns cols (in the output's
// order), whether its values are carried natively: its type is the one
// the output writes the column as (types).
func nativeColumns(dst []bool, cols []*columnar.Column, types []columnar.Type) []bool {
	for j, c := range cols {
		dst = append(dst, c != nil && j < len(types) && c.Type == types[j])
	}
	return dst
}

// appendCellPadding is join.AppendLargePadding in typed cells: a text
// cell of the key field in each join column (a NULL for an empty one), a
// NULL in the others.
func appendCellPadding(dst []byte, largeCols int, joinCols []int, keyFields [][]byte) []byte {
	for i := range largeCols {
		var f []byte
		for j, c := range joinCols {
			if c == i {
				f = append(f, keyFields[j]...)
			}
		}
		dst = columnar.AppendTextBytes(dst, f)
	}
	return dst
}

// appendCellRow is join.AppendOutputRow of a typed output: the large
// side's cells after their length, then the key side's CSV fields (none:
// a semi or anti join's row) after theirs, with a line end.
func appendCellRow(dst, large, small []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(large)))
	dst = append(dst, large...)
	if len(small) == 0 {
		return append(dst, 0)
	}
	dst = binary.AppendUvarint(dst, uint64(len(small)+1))
	dst = append(dst, small...)
	return append(dst, '\n')
}

// errCellRow is the error of a framed row cut short.
var errCellRow = errors.New("parquet: an output row's frame is cut short")

// splitCellRow splits the first framed row of b (appendCellRow) into
// fields appended to fields, natives[j] true where field j is a native
// cell's 8 bytes (columnar.CellValue of tag tags[j]); the key side's
// quoted fields are unquoted into unq. It returns the bytes the row took.
func splitCellRow(b []byte, r *cellFields) (int, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return 0, errCellRow
	}
	cells, rest := b[k:k+int(n)], b[k+int(n):]
	for len(cells) > 0 {
		tag, v, more, err := columnar.NextCell(cells)
		if err != nil {
			return 0, fmt.Errorf("parquet: an output row: %w", err)
		}
		r.fields = append(r.fields, v)
		r.tags = append(r.tags, tag)
		cells = more
	}
	m, k2 := binary.Uvarint(rest)
	if k2 <= 0 || m > uint64(len(rest)-k2) {
		return 0, errCellRow
	}
	used := len(b) - len(rest) + k2 + int(m)
	if m == 0 {
		return used, nil
	}
	line := rest[k2 : k2+int(m)]
	var err error
	var took int
	before := len(r.fields)
	if r.fields, r.unq, took, err = splitLine(line, r.fields, r.unq); err != nil {
		return 0, err
	}
	if took != len(line) {
		return 0, errors.New("parquet: an output row's key-side part holds two lines")
	}
	for range len(r.fields) - before {
		r.tags = append(r.tags, columnar.CellText)
	}
	return used, nil
}

// cellFields are a row's fields as the sink reads them: each field's
// bytes, and with typed rows each one's cell tag (CellInt, CellFloat: the
// field is the value's 8 bytes; else text); tags nil for a CSV line.
type cellFields struct {
	fields [][]byte
	tags   []byte
	unq    []byte
}

// native reports whether field i holds a native cell's 8 bytes.
func (r *cellFields) native(i int) bool {
	return r.tags != nil && (r.tags[i] == columnar.CellInt || r.tags[i] == columnar.CellFloat)
}
