package local

import (
	"slices"

	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// nestedError is a columnar.NestedError that is the options' matter
// (join.ErrOptions): the join would read or write a nested column.
type nestedError struct{ err error }

func (e *nestedError) Error() string   { return e.err.Error() }
func (e *nestedError) Unwrap() []error { return []error{e.err, join.ErrOptions} }

// refuseNested refuses a nested column (list, struct, map: columnar Kind
// Nested) of the table side s among cols (nil: all), key saying they are
// key columns; nil for CSV.
func (s *side) refuseNested(cols []int, key bool) error {
	if s.tab == nil {
		return nil
	}
	if err := s.tab.Refuse(cols, key); err != nil {
		return &nestedError{err}
	}
	return nil
}

// skipNested lets the table side s read its nested columns as NULLs
// (columnar.Table.SkipNested), once the join checked that it neither
// compares nor writes one.
func (s *side) skipNested() {
	if s.tab != nil {
		s.tab.SkipNested()
	}
}

// checkNested refuses a nested column the join would read or write: a key
// column of either side, or one the output holds (without Options.Columns
// every column of the large side and, but for semi and anti, of the key
// side; with it, the columns it names); then lets the sides read the others
// as NULLs, never decoded. A nested column that the join leaves out costs
// nothing.
func (x *execution) checkNested() error {
	if err := x.keys.refuseNested(x.keySpec.Cols, true); err != nil {
		return err
	}
	if err := x.input.refuseNested(x.joinSpec.Cols, true); err != nil {
		return err
	}
	largeOut, keyOut := outputColumns(x.opt, x.input.header, x.keys.header, x.keySpec)
	if err := x.input.refuseNested(largeOut, false); err != nil {
		return err
	}
	if err := x.keys.refuseNested(keyOut, false); err != nil {
		return err
	}
	x.input.skipNested()
	x.keys.skipNested()
	return nil
}

// outputColumns are the columns of the large side and of the key side that
// the output of opt holds (nil: all but the key side's key columns).
func outputColumns(opt join.Options, large, keys []string, ks key.Spec) (largeOut, keyOut []int) {
	if len(opt.Columns) == 0 {
		if opt.JoinType.LargeOnly() {
			return nil, []int{}
		}
		keyOut = []int{}
		for i := range keys {
			if !ks.IsKeyCol(i) {
				keyOut = append(keyOut, i)
			}
		}
		return nil, keyOut
	}
	largeOut, keyOut = []int{}, []int{}
	for _, n := range opt.Columns {
		if i := slices.Index(large, n); i >= 0 {
			largeOut = append(largeOut, i)
		}
		if i := slices.Index(keys, n); i >= 0 && !ks.IsKeyCol(i) && !opt.JoinType.LargeOnly() {
			keyOut = append(keyOut, i)
		}
	}
	return largeOut, keyOut
}
