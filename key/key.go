package key

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/tuple"
)

// Type says how join keys compare.
type Type string

const (
	Int    Type = "int"    // as integers: "0042" equals "42"
	String Type = "string" // as bytes
	// Auto is decided from the data before a join reads it: a typed
	// column's type (an integer column is Int, a string column String),
	// else, for text (CSV), Int when every key of the key side is a
	// canonical integer (CanonicalInt), String otherwise. Only a join's
	// options take it (ParseJoin); files record Int or String.
	Auto Type = "auto"
)

// CanonicalInt reports whether b is an integer in its one spelling: "0",
// or a digit 1-9 followed by digits, at most 9223372036854775807 (no sign,
// no leading zero, no space). Text keys that are all canonical compare as
// integers without changing which keys are equal: two distinct canonical
// spellings are two distinct integers. O(len(b)).
func CanonicalInt(b []byte) bool {
	if len(b) == 0 || len(b) > 19 || (b[0] == '0' && len(b) > 1) {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) < 19 || string(b) <= "9223372036854775807"
}

// MaxColumns bounds the columns of a composite key.
const MaxColumns = 16

// SplitColumns splits a column list "A,B,C" into names: a CSV record, so a
// name holding a comma is written quoted ("\"A,1\",B"). Errors name what is
// wrong (an empty name, a duplicate, more than MaxColumns).
func SplitColumns(list string) ([]string, error) {
	names, err := SplitList(list)
	if err != nil {
		return nil, fmt.Errorf("column list %w", err)
	}
	switch {
	case len(names) > MaxColumns:
		return nil, fmt.Errorf("column list %q: %d columns, at most %d", list, len(names), MaxColumns)
	case slices.Contains(names, ""):
		return nil, fmt.Errorf("column list %q: an empty name", list)
	}
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			return nil, fmt.Errorf("column list %q: %s twice", list, n)
		}
	}
	return names, nil
}

// SplitList splits a list "a,b,c" given as one CSV record (RFC 4180: a
// value holding a comma or a quote is written quoted, "\"a,b\",c"), as
// every list of names or values on the command line is read (columns,
// class labels). A line break or a malformed quote is an error quoting the
// list. So is a carriage return anywhere: encoding/csv drops one before a
// line feed even inside quotes, so a name holding "\r\n" would not read
// back as itself from JoinColumns' spelling (FuzzParseJoin found
// "\"\r\r\n\"", read as "\r\n", spelled back and read as "\n").
func SplitList(list string) ([]string, error) {
	if list == "" {
		return nil, errors.New(`"": empty`)
	}
	if strings.ContainsRune(list, '\r') {
		return nil, fmt.Errorf("%q: a carriage return", list)
	}
	r := csv.NewReader(strings.NewReader(list))
	r.FieldsPerRecord = -1
	r.LazyQuotes = false
	vals, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%q: %v", list, err)
	}
	if _, err := r.Read(); err == nil {
		return nil, fmt.Errorf("%q: a line break", list)
	}
	return vals, nil
}

// JoinColumns is SplitColumns' inverse: names as one CSV record.
func JoinColumns(names []string) string {
	var b []byte
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = csvscan.AppendField(b, []byte(n))
	}
	return string(b)
}

// SplitTypes parses a key type list ("int", "int,string") for n columns:
// one type applies to all, or one a column; empty is Int. Auto is
// refused: files and the commands that take no data record a type.
func SplitTypes(list Type, n int) ([]Type, error) {
	return splitTypes(list, n, false)
}

func splitTypes(list Type, n int, auto bool) ([]Type, error) {
	want := "want int or string"
	if auto {
		want = "want auto, int or string"
	}
	if list == "" {
		list = Int
	}
	parts := strings.Split(string(list), ",")
	if len(parts) != 1 && len(parts) != n {
		return nil, fmt.Errorf("%d types for %d key columns (one type applies to all)", len(parts), n)
	}
	ts := make([]Type, n)
	for i := range ts {
		t := Type(parts[min(i, len(parts)-1)])
		if t != Int && t != String && (t != Auto || !auto) {
			if len(parts) == 1 {
				return nil, errors.New(want)
			}
			return nil, fmt.Errorf("%q: %s", t, want)
		}
		ts[i] = t
	}
	return ts, nil
}

// JoinTypes writes types as a list, SplitTypes' inverse: one type for one
// column, one a column for several.
func JoinTypes(ts []Type) Type {
	if len(ts) == 1 {
		return ts[0]
	}
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return Type(strings.Join(s, ","))
}

// ErrKey is wrapped by the errors of Parse and Canonical.
var ErrKey = errors.New("key: invalid key")

// Parse parses a key column list and key type as a join takes them (its
// options KeyCol and KeyType): the columns and one type a column. Its
// errors are option.Errors naming KeyCol or KeyType.
func Parse(cols string, kt Type) ([]string, []Type, error) {
	names, err := SplitColumns(cols)
	if err != nil {
		return nil, nil, &option.Error{Pkg: "key", Name: "KeyCol", Value: cols, Reason: err.Error(), Err: ErrKey}
	}
	types, err := SplitTypes(kt, len(names))
	if err != nil {
		return nil, nil, &option.Error{Pkg: "key", Name: "KeyType", Value: fmt.Sprintf("%q", kt), Reason: err.Error(), Err: ErrKey}
	}
	return names, types, nil
}

// Canonical returns a key column list and key type written back as Parse
// reads them (JoinColumns; one type a column for a composite key), for
// files that record a join's key (filter files, banks) and for comparing
// them.
func Canonical(cols string, kt Type) (string, Type, error) {
	names, types, err := Parse(cols, kt)
	if err != nil {
		return "", "", err
	}
	return JoinColumns(names), JoinTypes(types), nil
}

// CheckHeader refuses a header that names a column twice (a key column
// could not say which it is): an error naming the file's line 1 and both
// columns. O(columns).
func CheckHeader(file string, names []string) error {
	seen := make(map[string]int, len(names)) // linear: a header may have tens of thousands of columns
	for i, h := range names {
		if j, ok := seen[h]; ok {
			return fmt.Errorf("%s:1: column %q appears twice (columns %d and %d)", file, h, j+1, i+1)
		}
		seen[h] = i
	}
	return nil
}

// Spec is how a side's rows make their join key: the key columns'
// positions in the row, their names and types. One column gives Of's key
// (the 8-byte integer or the field's bytes); several give a tuple (package
// tuple): typed, each component delimited, ordered as the tuples.
type Spec struct {
	Cols  []int
	Names []string
	Types []Type
	// EmptyOK lets a composite key's string component be empty: a Parquet
	// or Arrow side's, whose NULLs are known apart from its empty strings
	// (a CSV side's empty field is NULL: key.Spec.IsNull, checked first).
	EmptyOK bool
	// Wide, a key column each (nil: none), marks an Int column whose
	// values beyond int64 (a uint64's) the other side could hold too
	// (Decision.KeysWide, InputWide): Append refuses such a value
	// (ErrBeyond) rather than call it no key.
	Wide []bool
}

// ErrBeyond is wrapped by the error of an integer key beyond int64 in a
// column the other side could match it in (Spec.Wide): no int key holds
// it, and leaving it out would silently miss its match.
var ErrBeyond = errors.New("beyond int64, the integers an int key holds, and the other side could hold it too: give the key type string (--key-type string) to compare the keys as decimal text")

// Unmatchable reports whether a key that failed with err is left out as
// unmatchable (lenient typing), not an error: every failure but ErrBeyond.
func Unmatchable(err error, lenient bool) bool { return lenient && !errors.Is(err, ErrBeyond) }

// beyond reports whether field is an unsigned integer beyond int64 within
// uint64 (as a uint64 column renders its values: decimal digits).
func beyond(field []byte) bool {
	v, err := strconv.ParseUint(string(field), 10, 64)
	return err == nil && v > math.MaxInt64
}

// NewSpec finds names in a header.
func NewSpec(header []string, names []string, types []Type) (Spec, error) {
	ks := Spec{Names: names, Types: types}
	for _, n := range names {
		i := slices.Index(header, n)
		if i < 0 {
			return ks, fmt.Errorf("no column %q", n)
		}
		ks.Cols = append(ks.Cols, i)
	}
	return ks, nil
}

// Composite reports whether the key has several columns.
func (k Spec) Composite() bool { return len(k.Cols) > 1 }

// TupleTypes are the types of the tuple's components.
func (k Spec) TupleTypes() []tuple.Type {
	ts := make([]tuple.Type, len(k.Types))
	for i, t := range k.Types {
		if t == String {
			ts[i] = tuple.String
		}
	}
	return ts
}

// IsKeyCol reports whether column i of the row is a key column.
func (k Spec) IsKeyCol(i int) bool { return slices.Contains(k.Cols, i) }

// ErrEmptyComponent is wrapped by the error of an empty component of a
// composite key.
var ErrEmptyComponent = errors.New("empty (a component of a composite key must have a value)")

// Append appends the join key of a row's fields to dst: each column's
// bytes by Of, the one extraction of a key component (the map phase's
// batches call it on the join column directly), in a tuple for a
// composite key. Its errors start with the column's name ("CITED: ...").
// A composite key's components must not be empty. O(key bytes); no
// allocation when dst has room.
func (k *Spec) Append(dst []byte, fields [][]byte) ([]byte, error) {
	var buf [8]byte
	for i, c := range k.Cols {
		f := fields[c]
		if len(f) == 0 && k.Composite() && !(k.EmptyOK && k.Types[i] == String) {
			return dst, fmt.Errorf("%s: %w", k.Names[i], ErrEmptyComponent)
		}
		b, err := Of(k.Types[i], buf[:], f)
		switch {
		case err != nil && k.Types[i] == Int && i < len(k.Wide) && k.Wide[i] && beyond(f):
			return dst, fmt.Errorf("%s: %s is %w", k.Names[i], f, ErrBeyond)
		case err != nil:
			return dst, fmt.Errorf("%s: %w", k.Names[i], err)
		case !k.Composite():
			return append(dst, b...), nil
		case k.Types[i] == String:
			dst = tuple.AppendString(dst, b)
		default:
			dst = tuple.AppendIntKey(dst, b)
		}
	}
	return dst, nil
}

// Nulls says which columns of a row are NULL: a Parquet or Arrow side's
// rows (columnar.Rows, columnar.Reader).
type Nulls interface{ Null(col int) bool }

// NullsOf returns row's Nulls when its side knows its NULLs apart from
// its values (a Parquet or Arrow side), else nil (CSV, whose only NULL is
// the empty field). O(1).
func NullsOf(row any) Nulls {
	n, _ := row.(Nulls)
	return n
}

// IsNull reports whether a row's key holds a NULL, the one rule of every
// engine and format (docs/types.md, "NULL and empty"): where the side
// knows its NULLs (nulls not nil: Parquet, Arrow), a NULL in a key column,
// and an empty string there is a value; else (CSV, TSV) an empty key
// field, quoted or not, under every key type, as DuckDB and Polars read
// CSV. A NULL never matches. O(key columns).
func (k *Spec) IsNull(nulls Nulls, fields [][]byte) bool {
	if nulls != nil {
		for _, c := range k.Cols {
			if nulls.Null(c) {
				return true
			}
		}
		return false
	}
	for _, c := range k.Cols {
		if c < len(fields) && len(fields[c]) == 0 {
			return true
		}
	}
	return false
}

// Label is the key's columns as one name (JoinColumns).
func (k Spec) Label() string { return JoinColumns(k.Names) }

// Format writes a key for people: an integer's value, a string quoted when
// it needs to be, components joined by commas. For messages only.
func (k Spec) Format(key []byte) string {
	parts := [][]byte{key}
	if k.Composite() {
		var err error
		if parts, _, err = tuple.Split(key, k.TupleTypes(), nil, nil); err != nil {
			return fmt.Sprintf("% x", key)
		}
	}
	var b bytes.Buffer
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(',')
		}
		if k.Types[i] == Int && len(p) == tuple.IntBytes {
			fmt.Fprint(&b, tuple.DecodeInt(p))
			continue
		}
		b.Write(csvscan.AppendField(nil, p))
	}
	return b.String()
}

// Of returns the join key bytes of one field: intKey's 8 bytes for integer
// keys (dst must have room for them), the field itself for string keys.
func Of(kt Type, dst, field []byte) ([]byte, error) {
	if kt == String {
		return field, nil
	}
	return intKey(dst, field)
}

// intKey encodes an integer join key as the 8 bytes every filter hashes and
// the shuffle groups by: keys equal as integers ("0042" and "42") get the same
// bytes, and byte order is numeric order (big-endian with the sign bit
// flipped). dst must have room for 8 bytes.
func intKey(dst []byte, field []byte) ([]byte, error) {
	v, ok := csvscan.ParseDigits8(field) // inlined: the common case costs no call
	if !ok {
		var err error
		if v, err = csvscan.ParseInt(field); err != nil {
			return nil, err
		}
	}
	PutInt(dst, v)
	return dst[:8], nil
}

// PutInt writes v to dst[:8] as the 8 bytes of an integer join key (Of's
// encoding: big-endian with the sign bit flipped, so that byte order is
// numeric order). O(1), inlined.
func PutInt(dst []byte, v int64) {
	binary.BigEndian.PutUint64(dst[:8], uint64(v)^1<<63)
}
