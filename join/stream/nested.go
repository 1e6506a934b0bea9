package stream

import (
	"errors"
	"slices"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// nestedError is a columnar.NestedError that is the options' matter: the
// stream would read or write a nested column.
type nestedError struct{ err error }

func (e *nestedError) Error() string   { return e.err.Error() }
func (e *nestedError) Unwrap() []error { return []error{e.err, ErrOptions} }

// streamWrites is the way out of a nested column that a stream would
// write: it has no Columns, and writes every probe column and, but for
// semi and anti, every key side column.
const streamWrites = "a stream writes every column of the probe and, but for semi and anti, of the key side (it has no --columns): write the file without it"

// refuseNested refuses a nested column (list, struct, map) of the table
// side s among cols (nil: all): key columns (key), or columns the output
// holds; nil for CSV.
// why, if set, is the way out instead of the key's or streamWrites.
func (s *side) refuseNested(cols []int, isKey bool, why string) error {
	if s.tab == nil {
		return nil
	}
	err := s.tab.Refuse(cols, isKey)
	if ne := (*columnar.NestedError)(nil); errors.As(err, &ne) {
		switch {
		case why != "":
			ne.Why = why
		case !isKey:
			ne.Why = streamWrites
		}
		return &nestedError{ne}
	}
	return err
}

// timeFlat is the way out of a nested time column.
const timeFlat = "a time column is a flat integer, date, time or timestamp column: give another"

// checkNested refuses a nested column the stream would read (a key or
// time column) or write (every probe column; every key side column but
// for semi and anti), then lets the sides read the others as NULLs, never
// decoded (columnar.Table.SkipNested): a key side's nested column that a
// semi or anti join leaves out costs nothing. times are the time columns'
// names ("" none).
func (e *engine) checkNested(jt join.JoinType, keySpec, probeSpec key.Spec, keyTime, probeTime string) error {
	timeCol := func(s *side, name string) []int {
		if i := slices.Index(s.header, name); name != "" && i >= 0 {
			return []int{i}
		}
		return []int{}
	}
	for _, err := range []func() error{
		func() error { return e.ks.refuseNested(keySpec.Cols, true, "") },
		func() error { return e.ps.refuseNested(probeSpec.Cols, true, "") },
		func() error { return e.ks.refuseNested(timeCol(e.ks, keyTime), false, timeFlat) },
		func() error { return e.ps.refuseNested(timeCol(e.ps, probeTime), false, timeFlat) },
		func() error { return e.ps.refuseNested(nil, false, "") },
		func() error {
			if jt.LargeOnly() {
				return nil
			}
			return e.ks.refuseNested(nil, false, "")
		},
	} {
		if err := err(); err != nil {
			return err
		}
	}
	for _, s := range []*side{e.ks, e.ps} {
		if s.tab != nil {
			s.tab.SkipNested()
		}
	}
	return nil
}
