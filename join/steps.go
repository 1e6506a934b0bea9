package join

import (
	"bytes"
	"encoding/binary"
	"maps"
	"slices"
	"strings"
	"unsafe"

	"github.com/acbfjoin/acbfjoin/columnar"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// The steps of the join as plain functions over records, for any executor:
// MapKeyRow and MapInputRow make the map phase's shuffle records,
// Partition routes them, JoinType.ForLarge (semantics.go) says what a
// large-side row with its key's key-side records writes, and
// AppendOutputRow forms the output line.

// Tags of shuffled records: the source of a row.
const (
	TagKeys  uint8 = 0 // the small side (key file)
	TagInput uint8 = 1 // the large side
	// TagUnprobed is a large-side row its mapper shuffled without probing
	// the filter (the filter turned off: join/local's filterGuard): joined
	// as any, but one that meets no key is no false positive.
	TagUnprobed uint8 = 2
)

// Partition returns the reduce partition of a join key: a murmur3 hash of the
// key reduced to [0, r).
func Partition(key []byte, r int) int {
	h1, _ := hashing.Sum(key)
	return PartitionOf(h1, r)
}

// PartitionOf is Partition of a key whose hashing.Sum is (h1, _), for
// callers that hash the key for something else too (a sketch).
func PartitionOf(h1 uint64, r int) int { return int(hashing.Reduce(h1, uint64(r))) }

// MapKeyRow turns a key-side row into its shuffle record: the key
// (ks.AppendKey), and the row's other fields (CSV-encoded) to append to
// matching large-side rows. The record's bytes are appended to buf, which is
// returned.
func MapKeyRow(ks *key.Spec, fields [][]byte, seq int64, buf []byte) (shuffle.Record, []byte, error) {
	return MapKeyRowRaw(ks, fields, nil, seq, buf)
}

// MapKeyRowRaw is MapKeyRow of a record of a comma-separated CSV key side
// whose raw line is raw (nil: none): the row's part by AppendKeyFieldsRaw
// where the record and a one-column key allow, else by AppendKeyFields;
// the same bytes either way.
func MapKeyRowRaw(ks *key.Spec, fields [][]byte, raw []byte, seq int64, buf []byte) (shuffle.Record, []byte, error) {
	rec, buf, ok, err := MapKeyLine(ks, fields, len(fields), raw, seq, buf, nil)
	if ok || err != nil {
		return rec, buf, err
	}
	rec, buf = AppendKeyRow(rec, buf, ks, fields)
	return rec, buf, nil
}

// OthersAppender appends the fields of its current record but the one
// column it was asked for (the key's), as AppendKeyFields writes them, or
// reports false with dst as it was (csvscan.Reader.AppendOthers).
type OthersAppender interface {
	AppendOthers(dst []byte) ([]byte, bool)
}

// AppendKeyRow completes a record MapKeyLine made without its row (ok
// false): the row's fields but the key's (AppendKeyFields), appended to
// buf after rec.Key, from every field of the record.
func AppendKeyRow(rec shuffle.Record, buf []byte, ks *key.Spec, fields [][]byte) (shuffle.Record, []byte) {
	keyEnd := len(buf)
	start := keyEnd - len(rec.Key)
	buf = AppendKeyFields(buf, *ks, fields)
	rec.Key, rec.Row = buf[start:keyEnd], buf[keyEnd:]
	return rec, buf
}

// MapKeyLine is MapKeyRowRaw's raw path alone, for a reader that split
// only the key's column (csvscan.Reader.NextField): keys holds the
// record's key fields at their columns (what ks.Append reads; other
// entries may be nil), nfields is the record's field count and raw its
// line. Where a one-column key and AppendKeyFieldsRaw do not apply it
// reports ok = false with the record's key alone appended to buf
// (rec.Key, no Row): AppendKeyRow then writes the row from every field,
// without parsing the key again. others, if not nil, is the reader of
// the record, which may append its fields but the key's itself
// (csvscan.Reader.AppendOthers, from the quotes it found in the line),
// tried before AppendKeyFieldsRaw.
func MapKeyLine(ks *key.Spec, keys [][]byte, nfields int, raw []byte, seq int64, buf []byte, others OthersAppender) (rec shuffle.Record, out []byte, ok bool, err error) {
	start := len(buf)
	buf, err = ks.Append(buf, keys)
	if err != nil {
		return shuffle.Record{}, buf[:start], false, err
	}
	keyEnd := len(buf)
	if len(ks.Cols) == 1 {
		if others != nil {
			buf, ok = others.AppendOthers(buf)
		}
		if !ok {
			buf, ok = AppendKeyFieldsRaw(buf, raw, keys[ks.Cols[0]], nfields)
		}
	}
	if !ok {
		return shuffle.Record{Key: buf[start:keyEnd], Tag: TagKeys, Seq: seq}, buf, false, nil
	}
	return shuffle.Record{Key: buf[start:keyEnd], Tag: TagKeys, Seq: seq, Row: buf[keyEnd:]}, buf, true, nil
}

// AppendKeyFields appends a key-side row's fields but its key columns
// (CSV-encoded: the part of an output row after the large side's): one
// other field, empty, is written "" so that the row is not the empty row of
// a key side with no other field (AppendOutputRow).
func AppendKeyFields(buf []byte, ks key.Spec, fields [][]byte) []byte {
	start := len(buf)
	one := -1 // a one-column key's column, found without a search a field
	if len(ks.Cols) == 1 {
		one = ks.Cols[0]
	}
	size := len(fields) + 8
	for _, f := range fields {
		size += len(f)
	}
	// The row unquoted, and 8 bytes: one growth at most, and room for a
	// short field's word.
	buf = slices.Grow(buf, size)
	n := 0
	for i, f := range fields {
		if i == one || one < 0 && ks.IsKeyCol(i) {
			continue
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		n++
		if w := len(buf); len(f) <= 8 && cap(f) >= 8 && cap(buf)-w >= 8 && !csvscan.NeedsQuotes(f) {
			// A short field (most are), as one 8-byte word: its slice
			// has room for 8 bytes (a reader's buffer), buf too; the
			// bytes past it are written over or cut off.
			binary.LittleEndian.PutUint64(buf[w:w+8], binary.LittleEndian.Uint64(f[:8]))
			buf = buf[:w+len(f)]
			continue
		}
		buf = csvscan.AppendField(buf, f)
	}
	if n == 1 && len(buf) == start {
		buf = append(buf, '"', '"')
	}
	return buf
}

// AppendPicked appends the fields cols of a row, CSV-encoded, as
// AppendKeyFields does (one empty field written ""): a key-side row's part
// of an output row when only some of its columns are written
// (Options.Columns).
func AppendPicked(buf []byte, fields [][]byte, cols []int) []byte {
	start := len(buf)
	for n, c := range cols {
		if n > 0 {
			buf = append(buf, ',')
		}
		buf = csvscan.AppendField(buf, fields[c])
	}
	if len(cols) == 1 && len(buf) == start {
		buf = append(buf, '"', '"')
	}
	return buf
}

// KeyPadding is the key-side part of an output row for a large-side row
// without a match (a left or full join): n empty fields, the key side's
// columns but its key ("" for one, as AppendKeyFields writes it; nothing
// for none).
func KeyPadding(n int) []byte {
	switch n {
	case 0:
		return nil
	case 1:
		return []byte(`""`)
	}
	return []byte(strings.Repeat(",", n-1))
}

// AppendLargePadding appends the large-side part of an output row for a
// key-side row without a match (a right or full join): largeCols empty
// fields but the join columns js.Cols, which hold the key-side row's key
// fields keyFields (in js's order: SQL's USING). A large side of one
// column, empty, is written "" (a row of one empty field).
func AppendLargePadding(buf []byte, largeCols int, js key.Spec, keyFields [][]byte) []byte {
	start := len(buf)
	for i := range largeCols {
		if i > 0 {
			buf = append(buf, ',')
		}
		for j, c := range js.Cols {
			if c == i {
				buf = csvscan.AppendField(buf, keyFields[j])
			}
		}
	}
	if largeCols == 1 && len(buf) == start {
		buf = append(buf, '"', '"')
	}
	return buf
}

// WithLargePadding makes a key-side record's row carry the large-side
// padding written for it when it has no match (right and full joins): the
// padding's length as a uvarint, the padding, then the row. SplitKeyRow
// takes them apart.
func WithLargePadding(dst, padding, row []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(padding)))
	return append(append(dst, padding...), row...)
}

// SplitKeyRow takes a row of WithLargePadding apart.
func SplitKeyRow(row []byte) (padding, fields []byte) {
	n, w := binary.Uvarint(row)
	if w <= 0 || uint64(len(row)-w) < n {
		return nil, row // not made by WithLargePadding: cannot happen within a run
	}
	return row[w : w+int(n)], row[w+int(n):]
}

// MapInputRow tests a large-side row's join key against the filter: it
// returns the key (ks.AppendKey, appended to kb[:0]) and whether the row
// survives. A survivor's shuffle record is InputRecord(key, seq, raw).
func MapInputRow(f filters.Filter, ks key.Spec, fields [][]byte, kb []byte) (key []byte, ok bool, err error) {
	key, err = ks.Append(kb[:0], fields)
	if err != nil {
		return nil, false, err
	}
	return key, f.Contains(key), nil
}

// InputRecord is the shuffle record of a large-side row that survived the
// filter: its key, its position (seq) and the row as it is in its file.
func InputRecord(key []byte, seq int64, raw []byte) shuffle.Record {
	return shuffle.Record{Key: key, Tag: TagInput, Seq: seq, Row: raw}
}

// AppendOutputRow appends the output line of a match: the large-side row as it
// is in its file, a comma, the key-side record's fields (MapKeyRow's CSV), a
// line break; no comma when the key side has no field but its key (small is
// empty: MapKeyRow writes one empty field as "", which is written here as
// the empty field it is). The one place the output row is formed.
func AppendOutputRow(buf, large, small []byte) []byte {
	if len(large) == 0 {
		// No large-side column (Options.Columns asked for key-side ones
		// only): the key side's fields alone, "" kept for one empty field
		// (a row, not a blank line).
		return append(append(buf, small...), '\n')
	}
	buf = append(buf, large...)
	if len(small) > 0 {
		buf = append(buf, ',')
		if string(small) != `""` { // one empty field: written empty, as every CSV writer writes it
			buf = append(buf, small...)
		}
	}
	return append(buf, '\n')
}

// Header describes the output's columns.
type Header struct {
	// Line is the header line: the large side's header as it is in its file,
	// then the key side's columns but the key, with a line break.
	Line []byte
	// Names are the column names, in order.
	Names []string
	// Join is the large side's key: its columns' indexes in Names (the
	// large side's columns come first) and their types.
	Join key.Spec
	// Types are the columns' types where the data declares them (a Parquet
	// or Arrow side's columns), columnar.Type{} (Text) for a CSV side's; nil
	// when neither side is typed. A Parquet output writes a typed column as
	// its type and types a Text column by its values.
	Types []columnar.Type
}

// SetTypes sets h.Types from the large side's column types and the key
// side's (nil for a CSV side), in the order OutputHeader puts the columns:
// the large side's largeCols columns, then the key side's but its key; a
// column h has beyond them (a route's "class") is Text.
func (h *Header) SetTypes(largeCols int, large, keySide []columnar.Type, keys key.Spec) {
	if large == nil && keySide == nil {
		h.Types = nil
		return
	}
	h.Types = make([]columnar.Type, len(h.Names))
	copy(h.Types, large)
	j := largeCols
	for i, t := range keySide {
		if !keys.IsKeyCol(i) && j < len(h.Types) {
			h.Types[j] = t
			j++
		}
	}
}

// OutputHeader returns the output's Header from the large side's names
// and key and the key side's names and key: the large side's names, then
// the key side's but its key columns, a name the large side has too
// suffixed (KeyOutputNames; suffix "" is DefaultSuffix), written as a CSV
// line whose fields are quoted only where they must be (AppendNames),
// whatever the inputs' quoting. Every engine's output header.
func OutputHeader(largeNames []string, join key.Spec, keyNames []string, keys key.Spec, suffix string) Header {
	names := slices.Clone(largeNames)
	for i, n := range KeyOutputNames(largeNames, keyNames, keys, suffix) {
		if !keys.IsKeyCol(i) {
			names = append(names, n)
		}
	}
	return Header{Line: append(csvscan.AppendNames(nil, names), '\n'), Names: names, Join: join}
}

// DefaultSuffix is what a key-side column's output name gets when the
// large side has a column of its name (Output.Suffix unset): the side it
// comes from, as Polars suffixes a join's right side with "_right".
const DefaultSuffix = "_keys"

// KeyOutputNames returns the output name of each key-side column
// (keyNames[i]'s at i; "" for a key column, which the output does not
// have): its own name, or where the large side has a column of that name,
// the name with suffix ("" is DefaultSuffix) appended, again as many
// times as it takes to be no other output column's name (a large side
// with columns lat and lat_keys: the key side's lat is lat_keys_keys).
// So the output's names are distinct when each side's are, and an output
// is an input again; Options.Columns and every engine's header go by
// them. O(names) with a map.
func KeyOutputNames(largeNames, keyNames []string, keys key.Spec, suffix string) []string {
	if suffix == "" {
		suffix = DefaultSuffix
	}
	large := make(map[string]bool, len(largeNames))
	for _, n := range largeNames {
		large[n] = true
	}
	taken := maps.Clone(large)
	for i, n := range keyNames {
		if !keys.IsKeyCol(i) {
			taken[n] = true
		}
	}
	out := make([]string, len(keyNames))
	for i, n := range keyNames {
		if keys.IsKeyCol(i) {
			continue
		}
		if large[n] {
			for n += suffix; taken[n]; n += suffix {
			}
			taken[n] = true
		}
		out[i] = n
	}
	return out
}

// AppendKeyFieldsRaw is AppendKeyFields of a one-column key, whose field
// is kf, of a record of nfields fields, made from the record's raw line
// instead of a field at a time, when the record allows: raw is a
// comma-separated line (no line break, no CR) and kf is one of its fields,
// a slice of it, quoted there or not, with no doubled quote (csvscan's
// fast paths and NextField read such records). The line but
// the key field is copied in runs between its quotes: a quoted field whose
// value needs no quotes loses them, one that does keeps them (no quote
// inside it, so they are what AppendField writes). It reports false, with
// buf unchanged, for any other record (a record of 2 fields or fewer, a CR
// or doubled quote, a field not in raw), which AppendKeyFields then
// writes; the bytes are AppendKeyFields' whenever it reports true
// (FuzzKeyFieldsRaw). O(len(raw)), a few copies a line where
// AppendKeyFields tests and copies each field (at 23 fields a row it took
// 250-320 ns a key-side row).
func AppendKeyFieldsRaw(buf, raw, kf []byte, nfields int) ([]byte, bool) {
	if nfields <= 2 {
		return buf, false // AppendKeyFields writes a lone empty field ""
	}
	if len(raw) == 0 {
		return buf, false
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	off := int(uintptr(unsafe.Pointer(unsafe.SliceData(kf))) - base)
	if off < 0 || off > len(raw) || off+len(kf) > len(raw) || bytes.IndexByte(raw, '\r') >= 0 || bytes.IndexByte(raw, '\n') >= 0 {
		return buf, false
	}
	// The key field's extent in raw, with its quotes.
	ks, ke := off, off+len(kf)
	if ks > 0 && raw[ks-1] == '"' {
		if ke >= len(raw) || raw[ke] != '"' {
			return buf, false
		}
		ks, ke = ks-1, ke+1
	}
	if ks > 0 && raw[ks-1] != ',' || ke < len(raw) && raw[ke] != ',' {
		return buf, false
	}
	start := len(buf)
	var ok bool
	switch {
	case ks == 0:
		buf, ok = appendCanonical(buf, raw[ke+1:])
	case ke == len(raw):
		buf, ok = appendCanonical(buf, raw[:ks-1])
	default:
		if buf, ok = appendCanonical(buf, raw[:ks-1]); ok {
			buf = append(buf, ',')
			buf, ok = appendCanonical(buf, raw[ke+1:])
		}
	}
	if !ok {
		return buf[:start], false
	}
	return buf, true
}

// appendCanonical appends seg, whole fields of a comma-separated line
// without CR or line break, as AppendField writes each field, or reports
// false (a doubled quote, a quote inside a field or after one's closing
// quote, a field quoted to its end without a closing quote).
func appendCanonical(buf, seg []byte) ([]byte, bool) {
	p := 0
	for {
		q := bytes.IndexByte(seg[p:], '"')
		if q < 0 {
			return append(buf, seg[p:]...), true
		}
		q += p
		if q > 0 && seg[q-1] != ',' {
			return buf, false // a quote inside an unquoted field
		}
		e := bytes.IndexByte(seg[q+1:], '"')
		if e < 0 {
			return buf, false
		}
		e += q + 1
		if e+1 < len(seg) && seg[e+1] != ',' {
			return buf, false // a doubled quote, or bytes after the closing one
		}
		buf = append(buf, seg[p:q]...)
		if v := seg[q+1 : e]; csvscan.NeedsQuotes(v) {
			buf = append(buf, seg[q:e+1]...)
		} else {
			buf = append(buf, v...)
		}
		p = e + 1
	}
}
