package csvscan

import (
	"bytes"
	"strings"
)

// AppendFields appends fields to buf as a CSV line's fields, comma
// separated, each quoted where it must be (AppendField), without the line
// end: a row or header of another separator, re-encoded for CSV output.
// One empty field is written "": a row, not an empty line, which every
// reader skips (a review found a one-column TSV row of a NULL key written
// as a blank line by all three engines, or as no field at all).
func AppendFields(buf []byte, fields [][]byte) []byte {
	if len(fields) == 1 && len(fields[0]) == 0 {
		return append(buf, '"', '"')
	}
	for i, f := range fields {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = AppendField(buf, f)
	}
	return buf
}

// PassRaw reports whether raw, a record as a Reader of separator sep gave
// it (Reader.Raw: quotes as in the file, no line end), is a CSV output
// line as it is: comma-separated and without a CR. The Reader keeps a bare
// CR inside an unquoted field as part of the field (RFC 4180 asks for it
// quoted), which another reader would take for a line break: such a row,
// and one of another separator, is re-encoded (AppendFields of its
// fields). The one rule for every engine that writes input rows as they
// are (join/local's map phase, join/stream, beam). O(len(raw)).
func PassRaw(raw []byte, sep byte) bool {
	return sep == ',' && bytes.IndexByte(raw, '\r') < 0
}

// AppendNames appends names (a header's) as a CSV line's fields, as
// AppendFields does, without the line end; a first name that begins with
// U+FEFF is quoted, so that the file does not begin with the byte order
// mark every reader (this one too) takes away (HeaderNeedsQuotes).
func AppendNames(buf []byte, names []string) []byte {
	for i, n := range names {
		if i > 0 {
			buf = append(buf, ',')
		}
		if i == 0 && HeaderNeedsQuotes(n) {
			buf = append(buf, '"')
			buf = append(buf, strings.ReplaceAll(n, `"`, `""`)...)
			buf = append(buf, '"')
			continue
		}
		buf = AppendField(buf, []byte(n))
	}
	return buf
}

// HeaderNeedsQuotes reports whether name, a header's first, must be
// quoted beyond AppendField's rule: it begins with U+FEFF, which at the
// start of a file readers take for a byte order mark and drop (a review
// found a column so named read back without it).
func HeaderNeedsQuotes(name string) bool { return strings.HasPrefix(name, bom) }

// AppendField appends f as a CSV field, quoted only if it must be (it holds
// a comma, quote or line break), with quotes doubled (RFC 4180): what this
// package reads back as f. O(len(f)), no allocation beyond buf's growth.
func AppendField(buf, f []byte) []byte {
	if !needsQuotes(f) {
		return append(buf, f...)
	}
	buf = append(buf, '"')
	for _, c := range f {
		if c == '"' {
			buf = append(buf, '"')
		}
		buf = append(buf, c)
	}
	return append(buf, '"')
}

// csvSpecial marks the bytes that make a field need quotes.
var csvSpecial = [256]bool{',': true, '"': true, '\r': true, '\n': true}

// NeedsQuotes reports whether AppendField quotes f: whether f holds a
// comma, quote or line break.
func NeedsQuotes(f []byte) bool { return needsQuotes(f) }

// needsQuotes reports whether f holds a comma, quote or line break: a table
// lookup a byte (bytes.IndexAny with four bytes took a quarter of the build
// phase, called for every field of the key side).
func needsQuotes(f []byte) bool {
	for _, c := range f {
		if csvSpecial[c] {
			return true
		}
	}
	return false
}
