package join

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/tuple"
)

// Layout says how the filter of a composite key is made.
type Layout string

const (
	// LayoutComposite is one filter over the key tuples (the default).
	LayoutComposite Layout = "composite"
	// LayoutPerColumn is seed 001's design (package mdbf): one filter per key
	// column over that column's distinct values; a row passes when every
	// column's filter passes its value. It accepts a tuple whose values each
	// occur in some key but not together: for comparison, not for speed.
	LayoutPerColumn Layout = "per-column"
)

// MaxKeyColumns bounds the columns of a composite key.
const MaxKeyColumns = 16

// SplitColumns splits a column list "A,B,C" into names: a CSV record, so a
// name holding a comma is written quoted ("\"A,1\",B"). Errors name what is
// wrong (an empty name, a duplicate, more than MaxKeyColumns).
func SplitColumns(list string) ([]string, error) {
	names, err := SplitList(list)
	if err != nil {
		return nil, fmt.Errorf("column list %w", err)
	}
	switch {
	case len(names) > MaxKeyColumns:
		return nil, fmt.Errorf("column list %q: %d columns, at most %d", list, len(names), MaxKeyColumns)
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
// list.
func SplitList(list string) ([]string, error) {
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
		b = AppendCSVField(b, []byte(n))
	}
	return string(b)
}

// splitTypes parses a key type list ("int", "int,string"): one type applies
// to all n columns.
func splitTypes(list KeyType, n int) ([]KeyType, error) {
	if list == "" {
		list = IntKeys
	}
	parts := strings.Split(string(list), ",")
	if len(parts) != 1 && len(parts) != n {
		return nil, fmt.Errorf("%d types for %d key columns (one type applies to all)", len(parts), n)
	}
	ts := make([]KeyType, n)
	for i := range ts {
		t := KeyType(parts[min(i, len(parts)-1)])
		if t != IntKeys && t != StringKeys {
			if len(parts) == 1 {
				return nil, errors.New("want int or string")
			}
			return nil, fmt.Errorf("%q: want int or string", t)
		}
		ts[i] = t
	}
	return ts, nil
}

func joinTypes(ts []KeyType) KeyType {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return KeyType(strings.Join(s, ","))
}

// KeySpec is how a side's rows make their join key: the key columns'
// positions in the row, their names and types. One column gives KeyOf's
// key (the 8-byte integer or the field's bytes); several give a tuple
// (package tuple): typed, each component delimited, ordered as the tuples.
type KeySpec struct {
	Cols  []int
	Names []string
	Types []KeyType
}

// NewKeySpec finds names in a header.
func NewKeySpec(header []string, names []string, types []KeyType) (KeySpec, error) {
	ks := KeySpec{Names: names, Types: types}
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
func (k KeySpec) Composite() bool { return len(k.Cols) > 1 }

// TupleTypes are the types of the tuple's components.
func (k KeySpec) TupleTypes() []tuple.Type {
	ts := make([]tuple.Type, len(k.Types))
	for i, t := range k.Types {
		if t == StringKeys {
			ts[i] = tuple.String
		}
	}
	return ts
}

// IsKeyCol reports whether column i of the row is a key column.
func (k KeySpec) IsKeyCol(i int) bool { return slices.Contains(k.Cols, i) }

// ErrEmptyComponent is wrapped by the error of an empty component of a
// composite key.
var ErrEmptyComponent = errors.New("empty (a component of a composite key must have a value)")

// AppendKey appends the join key of a row's fields to dst. Its errors start
// with the column's name ("CITED: ..."). A composite key's components must
// not be empty. O(key bytes); no allocation when dst has room.
func (k KeySpec) AppendKey(dst []byte, fields [][]byte) ([]byte, error) {
	if !k.Composite() {
		f := fields[k.Cols[0]]
		if k.Types[0] == StringKeys {
			return append(dst, f...), nil
		}
		v, err := csvscan.ParseInt(f)
		if err != nil {
			return dst, fmt.Errorf("%s: %w", k.Names[0], err)
		}
		return tuple.AppendInt(dst, v), nil
	}
	for i, c := range k.Cols {
		f := fields[c]
		if len(f) == 0 {
			return dst, fmt.Errorf("%s: %w", k.Names[i], ErrEmptyComponent)
		}
		if k.Types[i] == StringKeys {
			dst = tuple.AppendString(dst, f)
			continue
		}
		v, err := csvscan.ParseInt(f)
		if err != nil {
			return dst, fmt.Errorf("%s: %w", k.Names[i], err)
		}
		dst = tuple.AppendInt(dst, v)
	}
	return dst, nil
}

// Label is the key's columns as one name (JoinColumns).
func (k KeySpec) Label() string { return JoinColumns(k.Names) }

// FormatKey writes a key for people: an integer's value, a string quoted
// when it needs to be, components joined by commas. For messages only.
func (k KeySpec) FormatKey(key []byte) string {
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
		if k.Types[i] == IntKeys && len(p) == tuple.IntBytes {
			fmt.Fprint(&b, tuple.DecodeInt(p))
			continue
		}
		b.Write(AppendCSVField(nil, p))
	}
	return b.String()
}

// ParseKey parses a key column list and key type as Options.KeyCol and
// KeyType take them: the columns and one type a column. Errors are
// Resolve's.
func ParseKey(keyCol string, kt KeyType) ([]string, []KeyType, error) {
	o := Options{KeyCol: keyCol, JoinCol: keyCol, KeyType: kt}
	if err := o.resolveKey(); err != nil {
		return nil, nil, err
	}
	return o.KeyCols, o.KeyTypes, nil
}

// CanonicalKey returns a key column list and key type as Resolve writes
// them back (JoinColumns; one type a column for a composite key), for
// files that record a join's key (filter files, banks) and for comparing
// them. Errors are Resolve's.
func CanonicalKey(keyCol string, kt KeyType) (string, KeyType, error) {
	o := Options{KeyCol: keyCol, JoinCol: keyCol, KeyType: kt}
	if err := o.resolveKey(); err != nil {
		return "", "", err
	}
	return o.KeyCol, o.KeyType, nil
}

// CheckHeader refuses a header that names a column twice (a key column
// could not say which it is): an error naming the file's line 1 and both
// columns. O(columns^2), for headers of at most a few hundred names.
func CheckHeader(file string, names []string) error {
	for i, h := range names {
		if j := slices.Index(names[:i], h); j >= 0 {
			return fmt.Errorf("%s:1: column %q appears twice (columns %d and %d)", file, h, j+1, i+1)
		}
	}
	return nil
}
