package join

import (
	"slices"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// The steps of the join as plain functions over records, for any executor:
// MapKeyRow and MapInputRow make the map phase's shuffle records,
// Partition routes them, JoinRow joins a large-side record with the key-side
// records of its key, and AppendOutputRow forms the output line.

// Tags of shuffled records: the source of a row.
const (
	TagKeys  uint8 = 0 // the small side (key file)
	TagInput uint8 = 1 // the large side
)

// Partition returns the reduce partition of a join key: a murmur3 hash of the
// key reduced to [0, r).
func Partition(key []byte, r int) int {
	h1, _ := hashing.Sum(key)
	return int(hashing.Reduce(h1, uint64(r)))
}

// KeyOf returns the join key bytes of a field: intKey's 8 bytes for integer
// keys (dst must have room for them), the field itself for string keys.
func KeyOf(kt KeyType, dst, field []byte) ([]byte, error) {
	if kt == StringKeys {
		return field, nil
	}
	return intKey(dst, field)
}

// MapKeyRow turns a key-side row into its shuffle record: the key, and the
// row's other fields (CSV-encoded) to append to matching large-side rows. The
// record's bytes are appended to buf, which is returned.
func MapKeyRow(kt KeyType, fields [][]byte, keyIdx int, seq int64, buf []byte) (shuffle.Record, []byte, error) {
	var kb [8]byte
	key, err := KeyOf(kt, kb[:], fields[keyIdx])
	if err != nil {
		return shuffle.Record{}, buf, err
	}
	start := len(buf)
	buf = append(buf, key...)
	keyEnd := len(buf)
	first := true
	for i, f := range fields {
		if i == keyIdx {
			continue
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = AppendCSVField(buf, f)
	}
	return shuffle.Record{Key: buf[start:keyEnd], Tag: TagKeys, Seq: seq, Row: buf[keyEnd:]}, buf, nil
}

// MapInputRow tests a large-side row's join key field against the filter:
// it returns the key (IntKey's 8 bytes, written to kb, or the field itself)
// and whether the row survives. A survivor's shuffle record is
// InputRecord(key, seq, raw). The results fit in registers: the record
// returned by value cost the map phase a copy through memory per row.
func MapInputRow(f filters.Filter, kt KeyType, field []byte, kb []byte) (key []byte, ok bool, err error) {
	key, err = KeyOf(kt, kb, field)
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

// JoinRow joins one large-side record with the key-side records of its key:
// it emits one output row per match and reports whether there was any (a
// large-side record without a match is a false positive of the filter).
func JoinRow(large shuffle.Record, smalls []shuffle.Record, emit func(large, small shuffle.Record) error) (bool, error) {
	for _, s := range smalls {
		if err := emit(large, s); err != nil {
			return false, err
		}
	}
	return len(smalls) > 0, nil
}

// AppendOutputRow appends the output line of a match: the large-side row as it
// is in its file, a comma, the key-side record's fields (MapKeyRow's CSV), a
// line break. The one place the output row is formed.
func AppendOutputRow(buf, large, small []byte) []byte {
	buf = append(append(buf, large...), ',')
	return append(append(buf, small...), '\n')
}

// AppendCSVField appends f as a CSV field, quoted only if it must be (it holds
// a comma, quote or line break), with quotes doubled.
func AppendCSVField(buf, f []byte) []byte {
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

// Header describes the output's columns.
type Header struct {
	// Line is the header line: the large side's header as it is in its file,
	// then the key side's columns but the key, with a line break.
	Line []byte
	// Names are the column names, in order.
	Names []string
	// JoinCol is the index in Names of the large side's join column, whose
	// values are keys (integers with IntKeys).
	JoinCol int
	KeyType KeyType
}

// OutputHeader returns the output's Header from the large side's header (its
// raw line and names, and the join column's index) and the key side's names
// and key column's index.
func OutputHeader(largeRaw []byte, largeNames []string, joinIdx int, keyNames []string, keyIdx int, kt KeyType) Header {
	line := slices.Clone(largeRaw)
	names := slices.Clone(largeNames)
	for i, h := range keyNames {
		if i == keyIdx {
			continue
		}
		line = append(line, ',')
		line = AppendCSVField(line, []byte(h))
		names = append(names, h)
	}
	return Header{Line: append(line, '\n'), Names: names, JoinCol: joinIdx, KeyType: kt}
}
