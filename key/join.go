package key

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/acbfjoin/acbfjoin/internal/option"
)

// Join is the key of a join: the key side's columns, the other side's (as
// many, matched in order), and a type a column. Every executor (the local
// join, the stream, Beam) reads its options through ParseJoin and finds
// the columns through Specs: one set of rules and messages.
type Join struct {
	KeyCols, JoinCols []string
	Types             []Type
}

// ParseJoin reads a join's key options: keyCol and joinCol, a CSV record
// of column names each ("A,B" for a composite key; joinCol "" is keyCol's
// names), and kt, one type for all columns or one a column ("int,string";
// Auto decides a column's type from the data, the default for "").
// Errors are option.Errors naming KeyCol, JoinCol or KeyType and wrapping
// ErrKey (option.Within makes them a package's own). O(len).
func ParseJoin(keyCol, joinCol string, kt Type) (Join, error) {
	var j Join
	var err error
	if j.KeyCols, err = SplitColumns(keyCol); err != nil {
		return j, keyError("KeyCol", keyCol, "%v", err)
	}
	j.JoinCols = j.KeyCols
	if joinCol != "" {
		if j.JoinCols, err = SplitColumns(joinCol); err != nil {
			return j, keyError("JoinCol", joinCol, "%v", err)
		}
	}
	if n := len(j.KeyCols); len(j.JoinCols) != n {
		return j, keyError("JoinCol", joinCol, "%d columns for the %d key columns %s (the same count, matched in order)", len(j.JoinCols), n, JoinColumns(j.KeyCols))
	}
	if kt == "" {
		kt = Auto
	}
	if j.Types, err = splitTypes(kt, len(j.KeyCols), true); err != nil {
		return j, keyError("KeyType", fmt.Sprintf("%q", kt), "%v", err)
	}
	return j, nil
}

func keyError(name string, value any, format string, a ...any) error {
	return &option.Error{Pkg: "key", Name: name, Value: value, Reason: fmt.Sprintf(format, a...), Err: ErrKey}
}

// KeyCol is the key side's columns as ParseJoin reads them (JoinColumns).
func (j Join) KeyCol() string { return JoinColumns(j.KeyCols) }

// JoinCol is the other side's columns as ParseJoin reads them.
func (j Join) JoinCol() string { return JoinColumns(j.JoinCols) }

// Type is the key's type as ParseJoin reads it: one type, or one a column
// for a composite key.
func (j Join) Type() Type {
	if len(j.Types) == 1 {
		return j.Types[0]
	}
	return JoinTypes(j.Types)
}

// Specs finds the key in the key side's header (the file keyFile) and in
// the other side's (joinFile). Errors name KeyCol or JoinCol, the file and
// its columns (Find).
func (j Join) Specs(keyFile string, keyHeader []string, joinFile string, joinHeader []string) (keys, joined Spec, err error) {
	if keys, err = Find("KeyCol", keyFile, keyHeader, j.KeyCols, j.Types); err != nil {
		return keys, joined, err
	}
	joined, err = Find("JoinCol", joinFile, joinHeader, j.JoinCols, j.Types)
	return keys, joined, err
}

// Find returns the Spec of the columns names, of types, in a file's header:
// an error naming the option that named them (KeyCol, JoinCol, ClassCol)
// says the file has no such column and lists its columns. O(columns).
func Find(opt, file string, header, names []string, types []Type) (Spec, error) {
	s := Spec{Names: names, Types: types}
	for _, n := range names {
		i, err := Column(opt, file, header, n)
		if err != nil {
			return s, err
		}
		s.Cols = append(s.Cols, i)
	}
	return s, nil
}

// Column returns the index of the column name in a file's header, or an
// option.Error naming opt: "file has no column "X" (columns: "a", "b")".
func Column(opt, file string, header []string, name string) (int, error) {
	if i := slices.Index(header, name); i >= 0 {
		return i, nil
	}
	err := keyError(opt, name, "%s has no column %q (columns: %s)", file, name, quoteList(header))
	// A header read with the wrong separator: name is one of the pieces
	// of a column split at a tab, a semicolon or a bar.
	for _, sep := range []byte{'\t', ';', '|', ','} {
		for _, h := range header {
			if slices.Contains(strings.Split(h, string(sep)), name) {
				oe := err.(*option.Error)
				oe.Reason += fmt.Sprintf("; its header holds %q: is the file separated by it?", sep)
				oe.Cause = &SepHint{Option: opt, Sep: sep}
				return 0, oe
			}
		}
	}
	return 0, err
}

// SepHint is the cause of a missing column whose name is in the header
// once split at Sep: the file was likely read with another separator.
// Option is the column's option (KeyCol: the key side; JoinCol: the other).
type SepHint struct {
	Option string
	Sep    byte
}

func (h *SepHint) Error() string {
	return fmt.Sprintf("the header holds %q: is the file separated by it?", h.Sep)
}

// quoteList prints names quoted and comma-separated: a header may hold
// anything, escape sequences included.
func quoteList(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(n))
	}
	return b.String()
}
