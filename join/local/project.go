package local

import (
	"context"
	"fmt"
	"github.com/acbfjoin/acbfjoin/key"
	"slices"
	"strings"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
)

// projected is a Sink that writes only the output columns asked
// (Options.Columns), in their order: each row, as every phase forms it, is
// split and its fields taken (splitLine), before the sort and the sink
// under it. Cost: a split of each output row. Safe as the sink under it is.
type projected struct {
	inner Sink
	names []string
	idx   []int // the output column of each asked, in order
}

func newProjected(inner Sink, names []string) *projected {
	return &projected{inner: inner, names: names}
}

// Begin finds the columns asked among the output's (resolve) and begins
// the sink under it with their header.
func (p *projected) Begin(h join.Header) error {
	if err := p.resolve(h); err != nil {
		return err
	}
	out := join.Header{Names: slices.Clone(p.names)}
	out.Line = append(csvscan.AppendNames(nil, p.names), '\n')
	if h.Types != nil {
		out.Types = make([]columnar.Type, len(p.idx))
		for j, i := range p.idx {
			if i < len(h.Types) {
				out.Types[j] = h.Types[i]
			}
		}
	}
	return p.inner.Begin(out)
}

// resolve finds the columns asked among the output's h: by name, each
// once, present once (a name both sides have, as two output columns, is
// refused: the output would not say which).
func (p *projected) resolve(h join.Header) error {
	refuse := func(format string, a ...any) error {
		return &option.Error{Pkg: "join", Name: "Columns", Value: strings.Join(p.names, ","), Reason: fmt.Sprintf(format, a...), Err: join.ErrOptions}
	}
	p.idx = p.idx[:0]
	for _, n := range p.names {
		i := slices.Index(h.Names, n)
		switch {
		case i < 0:
			return refuse("the output has no column %q (its columns: %s)", n, quoteList(h.Names))
		case slices.Index(h.Names[i+1:], n) >= 0:
			return refuse("two output columns are named %q (one of each side): the output could not say which", n)
		case slices.Contains(p.idx, i):
			return refuse("%q asked twice", n)
		}
		p.idx = append(p.idx, i)
	}
	return nil
}

// ProjectColumns returns the positions in an output header (names, as
// join.OutputHeader makes them) of the columns asked (Options.Columns), in
// their order, refused as run refuses them: a column the output has not,
// asked twice, or named by both sides. For an executor that writes whole
// rows and picks the columns after (beamjoin).
func ProjectColumns(columns, names []string) ([]int, error) {
	p := newProjected(nil, columns)
	if err := p.resolve(join.Header{Names: names}); err != nil {
		return nil, err
	}
	return p.idx, nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

func (p *projected) Writer() RowWriter                { return &projectWriter{p: p, inner: p.inner.Writer()} }
func (p *projected) Finish(ctx context.Context) error { return p.inner.Finish(ctx) }
func (p *projected) Close() error                     { return p.inner.Close() }

type projectWriter struct {
	p            *projected
	inner        RowWriter
	line, out    []byte
	fields, pick [][]byte
	unq          []byte
}

func (w *projectWriter) Write(key []byte, seq, small int64, largeRow, smallRow []byte) error {
	w.line = join.AppendOutputRow(w.line[:0], largeRow, smallRow)
	var err error
	if w.fields, w.unq, _, err = splitLine(w.line, w.fields[:0], w.unq[:0]); err != nil {
		return fmt.Errorf("join: an output row: %w", err)
	}
	w.pick = w.pick[:0]
	for _, i := range w.p.idx {
		if i >= len(w.fields) {
			return fmt.Errorf("join: internal error: an output row of %d fields", len(w.fields))
		}
		w.pick = append(w.pick, w.fields[i])
	}
	w.out = csvscan.AppendFields(w.out[:0], w.pick)
	if len(w.pick) == 1 && len(w.out) == 0 {
		w.out = append(w.out, '"', '"') // one empty field: a row, not an empty line
	}
	return w.inner.Write(key, seq, small, w.out, nil)
}

func (w *projectWriter) Flush() error { return w.inner.Flush() }

// keepKeyColumns sets x.keyKeep from Options.Columns: the key side's
// columns asked (not its key columns, which the output does not have: the
// large side's join columns hold the key). A name both sides have is
// refused: the output would not say which.
func (x *execution) keepKeyColumns() error {
	x.keyKeep, x.largeKeep = []int{}, []int{}
	for _, n := range x.opt.Columns {
		if li := slices.Index(x.input.header, n); li >= 0 && !slices.Contains(x.largeKeep, li) {
			x.largeKeep = append(x.largeKeep, li)
		}
		ki := slices.Index(x.keys.header, n)
		if ki < 0 || x.keySpec.IsKeyCol(ki) || x.opt.JoinType.LargeOnly() {
			continue
		}
		if slices.Contains(x.input.header, n) {
			return &option.Error{Pkg: "join", Name: "Columns", Value: strings.Join(x.opt.Columns, ","),
				Reason: fmt.Sprintf("two output columns are named %q (one of each side): the output could not say which", n), Err: join.ErrOptions}
		}
		if !slices.Contains(x.keyKeep, ki) {
			x.keyKeep = append(x.keyKeep, ki)
		}
	}
	slices.Sort(x.keyKeep)
	slices.Sort(x.largeKeep)
	return nil
}

// largePos is the place of the large side's column c in the rows the
// shuffle and the output carry (-1 when Options.Columns leaves it out).
func (x *execution) largePos(c int) int {
	if x.largeKeep == nil {
		return c
	}
	return slices.Index(x.largeKeep, c)
}

// largeCols is how many of the large side's columns the rows carry.
func (x *execution) largeCols() int {
	if x.largeKeep == nil {
		return len(x.input.header)
	}
	return len(x.largeKeep)
}

// paddingSpec is the large side's join key with its columns at their
// places in the rows carried (join.AppendLargePadding; -1: left out).
func (x *execution) paddingSpec() key.Spec {
	ks := x.joinSpec
	ks.Cols = make([]int, len(x.joinSpec.Cols))
	for j, c := range x.joinSpec.Cols {
		ks.Cols[j] = x.largePos(c)
	}
	return ks
}
