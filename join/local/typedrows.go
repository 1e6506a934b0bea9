package local

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
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
// as a CSV field is. The key side's part of a row is made CSV text by the
// build, as for any output, and turned into text cells there, once a
// key-side row (appendCSVCells), not split again for every output row it
// is in.
//
// An output row is then framed, not a line: the large side's cells and
// the key side's, each after its length (appendCellRow). The sink splits
// it (splitCellRow) into the same fields a CSV line gives, with the tags
// marking the fields that hold a native cell's 8 bytes.
//
// A CSV large side's rows travel as text cells (mapWorker.csvLine) when
// the key side is a table, so that the key side's half keeps its types
// and its empty strings (a review found them written through CSV text,
// "" as NULL). Off (the rows as CSV text, as before) when neither side is
// a table, for a CSV output, a bank join and routed outputs; and with
// ACBFJOIN_TYPED_ROWS=off,
// to compare the two (the output is the same: TestTypedRowsSame, but for
// a table side's empty texts, which CSV text writes as NULL). With
// Options.Columns the projection picks a row's cells as it picks a line's
// fields (projected.takeCells).

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
	if noTypedRows || x.bank != nil || x.opt.Route != join.RouteNone {
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
// cell of the key field in each join column (a NULL for an empty one,
// but for a table key side's empty string, which nulls, the side's NULLs
// by column, says is no NULL: keyCols are the key side's columns of the
// key fields), a NULL in the others.
func appendCellPadding(dst []byte, largeCols int, joinCols []int, keyFields [][]byte, keyCols []int, nulls key.Nulls) []byte {
	for i := range largeCols {
		j := slices.Index(joinCols, i) // a column is at most one key field's
		switch {
		case j < 0:
			dst = columnar.AppendTextBytes(dst, nil) // a NULL
		case len(keyFields[j]) == 0 && nulls != nil && !nulls.Null(keyCols[j]):
			dst = append(dst, columnar.CellText, 0) // an empty text that is a value ("": its length, 0)
		default:
			dst = columnar.AppendTextBytes(dst, keyFields[j])
		}
	}
	return dst
}

// appendCellRow is join.AppendOutputRow of a typed output: the large
// side's cells after their length, then the key side's cells (none: a semi
// or anti join's row) after theirs.
func appendCellRow(dst, large, small []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(large)))
	dst = append(dst, large...)
	dst = binary.AppendUvarint(dst, uint64(len(small)))
	return append(dst, small...)
}

// cellRowSlack is the most bytes appendCellRow adds to its halves': two
// lengths.
const cellRowSlack = 2 * binary.MaxVarintLen64

// appendCSVCells appends the fields of row, a key-side row's CSV fields
// (join.AppendKeyFields' bytes: none for an empty row, "" for one empty
// field), as text cells, an empty field as a NULL; sc is scratch.
func appendCSVCells(dst, row []byte, sc *cellFields) ([]byte, error) {
	if len(row) == 0 {
		return dst, nil
	}
	if bytes.IndexByte(row, '"') < 0 { // most rows: split in place, not copied
		sc.fields = splitCommas(row, sc.fields[:0])
	} else {
		sc.line = append(append(sc.line[:0], row...), '\n') // splitQuoted's line
		var err error
		if sc.fields, sc.unq, _, err = splitQuoted(sc.line, sc.fields[:0], sc.unq[:0]); err != nil {
			return dst, err
		}
	}
	for _, f := range sc.fields {
		dst = columnar.AppendTextBytes(dst, f)
	}
	return dst, nil
}

// nullCells is n NULL cells: a key-side part of a row without a match
// (join.KeyPadding's).
func nullCells(n int) []byte {
	return bytes.Repeat([]byte{columnar.CellNull}, n)
}

// skipCellRow returns the bytes of the first framed row of b
// (appendCellRow), unread.
func skipCellRow(b []byte) (int, error) {
	at := 0
	for range 2 {
		n, k := binary.Uvarint(b[at:])
		if k <= 0 || n > uint64(len(b)-at-k) {
			return 0, errCellRow
		}
		at += k + int(n)
	}
	return at, nil
}

// errCellRow is the error of a framed row cut short.
var errCellRow = errors.New("parquet: an output row's frame is cut short")

// splitCellRow splits the first framed row of b (appendCellRow) into
// fields and their tags, appended (a CellInt's or CellFloat's field is its
// 8 bytes: columnar.CellValue). It returns the bytes the row took.
func splitCellRow(b []byte, fields [][]byte, tags []byte) ([][]byte, []byte, int, error) {
	large, small, used, err := cellHalves(b)
	if err != nil {
		return fields, tags, 0, err
	}
	if fields, tags, err = splitCells(large, fields, tags); err != nil {
		return fields, tags, 0, err
	}
	if fields, tags, err = splitCells(small, fields, tags); err != nil {
		return fields, tags, 0, err
	}
	return fields, tags, used, nil
}

// cellHalves returns the two halves of the first framed row of b
// (appendCellRow: the large side's cells, the key side's) and the bytes
// the row took.
func cellHalves(b []byte) (large, small []byte, used int, err error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, nil, 0, errCellRow
	}
	large, rest := b[k:k+int(n)], b[k+int(n):]
	m, k2 := binary.Uvarint(rest)
	if k2 <= 0 || m > uint64(len(rest)-k2) {
		return nil, nil, 0, errCellRow
	}
	small = rest[k2 : k2+int(m)]
	return large, small, len(b) - len(rest) + k2 + int(m), nil
}

// cellSpans appends the bytes of each cell of half (a row's half: cells
// one after another), tag and value, to spans.
func cellSpans(half []byte, spans [][]byte) ([][]byte, error) {
	for len(half) > 0 {
		_, _, more, err := columnar.NextCell(half)
		if err != nil {
			return spans, err
		}
		spans = append(spans, half[:len(half)-len(more)])
		half = more
	}
	return spans, nil
}

// splitCells appends the cells of half (a row's half: cells one after
// another) to fields and their tags to tags.
func splitCells(half []byte, fields [][]byte, tags []byte) ([][]byte, []byte, error) {
	for len(half) > 0 {
		tag, v, more, err := columnar.NextCell(half)
		if err != nil {
			return fields, tags, fmt.Errorf("parquet: an output row: %w", err)
		}
		fields = append(fields, v)
		tags = append(tags, tag)
		half = more
	}
	return fields, tags, nil
}

// cellFields are the sink's scratch for a row's fields: each field's
// bytes, each one's cell tag with typed rows, the unquoted text of CSV
// fields; line is appendCSVCells' row with its line end.
type cellFields struct {
	fields [][]byte
	tags   []byte
	unq    []byte
	line   []byte
}

// native reports whether a field of cell tag t holds a native cell's 8
// bytes (CellInt, CellFloat).
func native(t byte) bool { return t >= columnar.CellInt }
