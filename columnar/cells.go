package columnar

import (
	"encoding/binary"
	"errors"
	"math"
)

// The tags of a typed row's cells (AppendCells): a row of a Parquet or
// Arrow side carried to a typed output (Parquet, Arrow, JSON lines)
// without its numbers, dates and times turned into text and parsed back.
const (
	// CellNull is a NULL: the tag alone.
	CellNull byte = iota
	// CellText is a value as AppendText writes it: a uvarint length, the
	// bytes. Text, bytes and every value not carried natively.
	CellText
	// CellInt is Value.I of Type.Value: 8 bytes, little-endian.
	CellInt
	// CellFloat is Value.F of Type.Value: its IEEE 754 bits, 8 bytes,
	// little-endian.
	CellFloat
)

// AppendCells appends row i of cols as typed cells: column j's value as
// CellInt or CellFloat where native[j] (its type is the one the output
// writes it as) and the value has such a form (NativeValue), else as
// CellText (AppendText's; nil native: every column as text), a NULL (or a
// nil column) as CellNull. A value read back from its cell (NextCell) is
// the Value that Type.Value reads from AppendText's text. O(the row's
// bytes).
func AppendCells(dst []byte, cols []*Column, i int, native []bool) []byte {
	for j, c := range cols {
		dst = appendCell(dst, c, i, native != nil && native[j])
	}
	return dst
}

// appendCell appends value i of c (nil: a NULL) as AppendCells does,
// natively where native and the value has such a form.
func appendCell(dst []byte, c *Column, i int, native bool) []byte {
	if c == nil || c.Null(i) {
		return append(dst, CellNull)
	}
	if native {
		if tag, bits, ok := c.NativeValue(i); ok {
			return binary.LittleEndian.AppendUint64(append(dst, tag), bits)
		}
	}
	return AppendTextCell(dst, c, i)
}

// AppendTextCell appends value i of c (not NULL) as a CellText. O(its
// text).
func AppendTextCell(dst []byte, c *Column, i int) []byte {
	switch c.Type.Kind {
	case String, Binary, Text:
		b := c.Bytes(i)
		dst = append(dst, CellText)
		dst = binary.AppendUvarint(dst, uint64(len(b)))
		return append(dst, b...)
	}
	var buf [64]byte // a fixed-width type's text fits (a 38-digit decimal's too)
	text := c.AppendText(buf[:0], i)
	dst = append(dst, CellText)
	dst = binary.AppendUvarint(dst, uint64(len(text)))
	return append(dst, text...)
}

// AppendTextBytes appends text as a CellText, an empty one as CellNull
// (an empty field of a row is a NULL). O(len(text)).
func AppendTextBytes(dst, text []byte) []byte {
	if len(text) == 0 {
		return append(dst, CellNull)
	}
	dst = append(dst, CellText)
	dst = binary.AppendUvarint(dst, uint64(len(text)))
	return append(dst, text...)
}

// NativeValue is value i of c (not NULL) as the cell it is carried in
// natively, with the bits of Value.I or Value.F that Type.Value reads from
// its text (c.Type's own: a column written as another type is carried as
// text), and false where the value goes as text: text, bytes and
// decimals; a NaN (Type.Value reads back one NaN); a date beyond 32 bits
// of days and a time beyond a day (Type.Value refuses their text); a
// timestamp or time of seconds (its Parquet column is of milliseconds).
// O(1).
func (c *Column) NativeValue(i int) (tag byte, bits uint64, ok bool) {
	t := c.Type
	switch t.Kind {
	case Int, Uint:
		return CellInt, uint64(c.ints[i]), true
	case Bool:
		if c.ints[i] != 0 {
			return CellInt, 1, true
		}
		return CellInt, 0, true
	case Float:
		v := c.floats[i]
		if math.IsNaN(v) {
			return 0, 0, false
		}
		return CellFloat, math.Float64bits(v), true
	case Date:
		if v := c.ints[i]; v >= math.MinInt32 && v <= math.MaxInt32 {
			return CellInt, uint64(v), true
		}
	case Timestamp:
		if t.Unit == t.parquetUnit() {
			return CellInt, uint64(c.ints[i]), true
		}
	case Time:
		if v := c.ints[i]; t.Unit == t.parquetUnit() && v >= 0 && v <= 86400*int64(math.Pow10(int(t.Unit))) { // 24:00:00 included
			return CellInt, uint64(v), true
		}
	}
	return 0, 0, false
}

// errCell is the error of a cell cut short or of an unknown tag.
var errCell = errors.New("a typed row's cell is cut short or unknown")

// NextCell reads the first cell of b: its tag, its bytes (the text of a
// CellText, the 8 bytes of a CellInt or CellFloat, nil for CellNull) and
// what follows it. A cell cut short or of an unknown tag is an error.
// O(1).
func NextCell(b []byte) (tag byte, v, rest []byte, err error) {
	if len(b) == 0 {
		return 0, nil, nil, errCell
	}
	tag = b[0]
	switch tag {
	case CellNull:
		return tag, nil, b[1:], nil
	case CellText:
		n, k := binary.Uvarint(b[1:])
		if k <= 0 || n > uint64(len(b)-1-k) {
			return 0, nil, nil, errCell
		}
		s := 1 + k
		return tag, b[s : s+int(n) : s+int(n)], b[s+int(n):], nil
	case CellInt, CellFloat:
		if len(b) < 9 {
			return 0, nil, nil, errCell
		}
		return tag, b[1:9:9], b[9:], nil
	}
	return 0, nil, nil, errCell
}

// CellValue is the Value of a CellInt's or CellFloat's 8 bytes v.
func CellValue(tag byte, v []byte) Value {
	bits := binary.LittleEndian.Uint64(v)
	if tag == CellFloat {
		return Value{F: math.Float64frombits(bits)}
	}
	return Value{I: int64(bits)}
}
