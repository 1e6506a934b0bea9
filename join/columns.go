package join

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/key"
)

// Pick is one output column asked (Options.Columns), resolved: the side
// and column it is, its name in the whole output (OutputHeader's) and the
// name it is written under.
type Pick struct {
	Key  bool   // the key side's column; else the large side's
	Col  int    // its column in its side
	Name string // its name in the whole output (KeyOutputNames for the key side's)
	As   string // the name the output writes: Name, or the one after AS
}

// Qualifiers of a column asked: keys.NAME is the key side's column NAME,
// input.NAME the large side's (each side's own names, before any suffix).
const (
	KeysQualifier  = "keys."
	InputQualifier = "input."
)

// PickColumns resolves the output columns asked (Options.Columns) of a
// join of a large side named largeNames and a key side named keyNames with
// key keys (largeOnly: a semi or anti join, whose output holds the large
// side's columns only; suffix as OutputHeader takes it). Each is
//
//   - an output column's name (OutputHeader's: a key-side column whose
//     name the large side has too is suffixed, KeyOutputNames), which
//     wins over the forms below when a column is so named;
//   - keys.NAME or input.NAME: the key side's or the large side's column
//     of that name (the key side's key columns are not in the output: the
//     large side's join columns hold the key);
//   - either of these, then " AS " (any case) and the name to write it
//     under (keys.latitude AS airport_lat).
//
// Refused, naming Columns: a column the output has not (the message lists
// the output's names), one asked twice, two asked under one name, an
// empty name after AS. Every engine projects by it (join/local, beamjoin).
// O(columns x names).
func PickColumns(columns, largeNames, keyNames []string, keys key.Spec, suffix string, largeOnly bool) ([]Pick, error) {
	refuse := func(format string, a ...any) ([]Pick, error) {
		return nil, &option.Error{Pkg: "join", Name: "Columns", Value: strings.Join(columns, ","), Reason: fmt.Sprintf(format, a...), Err: ErrOptions}
	}
	var keyOut []string
	if !largeOnly {
		keyOut = KeyOutputNames(largeNames, keyNames, keys, suffix)
	}
	all := slices.Clone(largeNames) // the output's names, for messages
	for i, n := range keyOut {
		if !keys.IsKeyCol(i) {
			all = append(all, n)
		}
	}
	// byName finds an output column by its output name.
	byName := func(n string) (Pick, bool) {
		if i := slices.Index(largeNames, n); i >= 0 {
			return Pick{Col: i, Name: n}, true
		}
		if i := slices.Index(keyOut, n); i >= 0 && n != "" {
			return Pick{Key: true, Col: i, Name: n}, true
		}
		return Pick{}, false
	}
	// resolve finds the column of spec (no AS), or says why not.
	resolve := func(spec string) (Pick, string) {
		if p, ok := byName(spec); ok {
			return p, ""
		}
		if n, ok := strings.CutPrefix(spec, InputQualifier); ok {
			if i := slices.Index(largeNames, n); i >= 0 {
				return Pick{Col: i, Name: n}, ""
			}
			return Pick{}, fmt.Sprintf("the large side has no column %q (its columns: %s)", n, quoteList(largeNames))
		}
		if n, ok := strings.CutPrefix(spec, KeysQualifier); ok {
			i := slices.Index(keyNames, n)
			switch {
			case i < 0:
				return Pick{}, fmt.Sprintf("the key side has no column %q (its columns: %s)", n, quoteList(keyNames))
			case largeOnly:
				return Pick{}, fmt.Sprintf("a semi or anti join writes the large side's columns only, not the key side's %q", n)
			case keys.IsKeyCol(i):
				return Pick{}, fmt.Sprintf("the key side's key column %q is not in the output: the large side's join column holds its value", n)
			}
			return Pick{Key: true, Col: i, Name: keyOut[i]}, ""
		}
		return Pick{}, fmt.Sprintf("the output has no column %q (its columns: %s)", spec, quoteList(all))
	}
	picks := make([]Pick, 0, len(columns))
	for _, c := range columns {
		p, why := resolve(c)
		if why != "" {
			if left, as, ok := cutAs(c); ok {
				if p, why = resolve(left); why == "" {
					if as == "" {
						return refuse("%q: no name after AS", c)
					}
					p.As = as
				}
			}
		}
		if why != "" {
			return refuse("%s", why)
		}
		if p.As == "" {
			p.As = p.Name
		}
		for _, q := range picks {
			switch {
			case q.Key == p.Key && q.Col == p.Col:
				return refuse("%q asked twice", p.Name)
			case q.As == p.As:
				return refuse("two output columns would be named %q", p.As)
			}
		}
		picks = append(picks, p)
	}
	return picks, nil
}

// cutAs splits a column asked at its last " AS " (any case): the column,
// and the name to write it under.
func cutAs(c string) (left, as string, ok bool) {
	i := strings.LastIndex(strings.ToLower(c), " as ")
	if i < 0 {
		return c, "", false
	}
	return strings.TrimSpace(c[:i]), strings.TrimSpace(c[i+len(" as "):]), true
}

// Index returns the positions of picks in a whole output header's names
// (OutputHeader's, every column of the output), or an error naming a
// column it lacks (not reached when both come from the same sides).
func Index(picks []Pick, names []string) ([]int, error) {
	idx := make([]int, len(picks))
	for j, p := range picks {
		if idx[j] = slices.Index(names, p.Name); idx[j] < 0 {
			return nil, fmt.Errorf("join: internal error: the output column %q is not in the header %s", p.Name, quoteList(names))
		}
	}
	return idx, nil
}

// Names returns the names picks are written under.
func Names(picks []Pick) []string {
	out := make([]string, len(picks))
	for i, p := range picks {
		out[i] = p.As
	}
	return out
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// DefaultColumnsError is a join of the default key columns (KeyCol
// DefaultKeyCol, JoinCol DefaultJoinCol: the NBER files') on sides that
// lack them: the columns of each side and those both have, for a message
// that says which to name. It is an ErrOptions.
type DefaultColumnsError struct {
	Keys, Input          string   // the sides' names
	KeyNames, InputNames []string // their columns
	Shared               []string // the columns both have, in the key side's order
}

func (e *DefaultColumnsError) Error() string {
	msg := fmt.Sprintf("join: the key columns are the NBER files' by default (KeyCol %s, JoinCol %s), which these files lack: %s has %s; %s has %s; ",
		DefaultKeyCol, DefaultJoinCol, e.Keys, quoteList(e.KeyNames), e.Input, quoteList(e.InputNames))
	if len(e.Shared) == 0 {
		return msg + "they have no column of one name: name the join column of each (KeyCol and JoinCol)"
	}
	return msg + fmt.Sprintf("both have %s: name the join column of each (KeyCol and JoinCol), or one both have", quoteList(e.Shared))
}

func (e *DefaultColumnsError) Is(target error) bool { return target == ErrOptions }

// NewDefaultColumnsError is the DefaultColumnsError of sides named keys
// and input with columns keyNames and inputNames.
func NewDefaultColumnsError(keys string, keyNames []string, input string, inputNames []string) *DefaultColumnsError {
	e := &DefaultColumnsError{Keys: keys, Input: input, KeyNames: keyNames, InputNames: inputNames}
	for _, n := range keyNames {
		if slices.Contains(inputNames, n) {
			e.Shared = append(e.Shared, n)
		}
	}
	return e
}
