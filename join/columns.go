package join

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acbfjoin/acbfjoin/internal/option"
)

// ProjectColumns returns the positions in an output header (names, as
// OutputHeader makes them) of the columns asked (Options.Columns), in their
// order, by name, each once and present once: a column the output has
// not, one asked twice, or a name of two output columns (one of each
// side: the output could not say which) is refused, naming Columns. Every
// engine projects by it (join/local's projection, beamjoin). O(columns x
// names).
func ProjectColumns(columns, names []string) ([]int, error) {
	refuse := func(format string, a ...any) ([]int, error) {
		return nil, &option.Error{Pkg: "join", Name: "Columns", Value: strings.Join(columns, ","), Reason: fmt.Sprintf(format, a...), Err: ErrOptions}
	}
	idx := make([]int, 0, len(columns))
	for _, n := range columns {
		i := slices.Index(names, n)
		switch {
		case i < 0:
			return refuse("the output has no column %q (its columns: %s)", n, quoteList(names))
		case slices.Index(names[i+1:], n) >= 0:
			return refuse("two output columns are named %q (one of each side): the output could not say which", n)
		case slices.Contains(idx, i):
			return refuse("%q asked twice", n)
		}
		idx = append(idx, i)
	}
	return idx, nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
