package source

import (
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// nestedError is a columnar.NestedError that is the options' matter
// (join.ErrOptions): the join would read or write a nested column.
type nestedError struct{ err error }

func (e *nestedError) Error() string { return e.err.Error() }

func (e *nestedError) Unwrap() []error { return []error{e.err, join.ErrOptions} }

// RefuseNested refuses a nested column (list, struct, map: columnar Kind
// Nested) of the table side s among cols (nil: all), key saying they are
// key columns; nil for CSV.
func (s *Side) RefuseNested(cols []int, key bool) error {
	if s.Tab == nil {
		return nil
	}
	if err := s.Tab.Refuse(cols, key); err != nil {
		return &nestedError{err}
	}
	return nil
}

// SkipNested lets the table side s read its nested columns as NULLs
// (columnar.Table.SkipNested), once the join checked that it neither
// compares nor writes one.
func (s *Side) SkipNested() {
	if s.Tab != nil {
		s.Tab.SkipNested()
	}
}

// OutputColumns are the columns of the large side and of the key side that
// the output of opt holds (nil: all but the key side's key columns): with
// Options.Columns those it picks (join.PickColumns, whose error it
// returns).
func OutputColumns(opt join.Options, large, keys []string, ks key.Spec) (largeOut, keyOut []int, err error) {
	if len(opt.Columns) == 0 {
		if opt.JoinType.LargeOnly() {
			return nil, []int{}, nil
		}
		keyOut = []int{}
		for i := range keys {
			if !ks.IsKeyCol(i) {
				keyOut = append(keyOut, i)
			}
		}
		return nil, keyOut, nil
	}
	picks, err := join.PickColumns(opt.Columns, large, keys, ks, opt.Suffix, opt.JoinType.LargeOnly())
	if err != nil {
		return nil, nil, err
	}
	largeOut, keyOut = []int{}, []int{}
	for _, p := range picks {
		if p.Key {
			keyOut = append(keyOut, p.Col)
		} else {
			largeOut = append(largeOut, p.Col)
		}
	}
	return largeOut, keyOut, nil
}
