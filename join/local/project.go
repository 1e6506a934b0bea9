package local

import (
	"context"
	"fmt"
	"slices"

	"github.com/acbfjoin/acbfjoin/key"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/join"
)

// projected is a Sink that writes only the output columns asked
// (Options.Columns), in their order, under the names asked: each row, as
// every phase forms it, is split and its fields taken (splitLine), before
// the sort and the sink under it. Cost: a split of each output row. Safe
// as the sink under it is.
type projected struct {
	inner Sink
	asked []string    // Options.Columns
	picks []join.Pick // resolved (pick), before Begin
	idx   []int       // the output column of each asked, in order
	cells bool        // the rows come as typed cells (takeCells)
}

// takeCells switches p, and the sink under it, to rows of typed cells
// (typedRowSink): a row's cells are picked as its fields are, and framed
// again as one half (appendCellRow's, with an empty key-side half).
func (p *projected) takeCells() bool {
	t, ok := p.inner.(typedRowSink)
	p.cells = ok && t.takeCells()
	return p.cells
}

func newProjected(inner Sink, asked []string) *projected {
	return &projected{inner: inner, asked: asked}
}

// pick resolves the columns asked against x's sides
// (join.PickColumns), before any work.
func (p *projected) pick(x *execution) (err error) {
	p.picks, err = join.PickColumns(p.asked, x.input.Header, x.keys.Header, x.keySpec, x.opt.Suffix, x.opt.JoinType.LargeOnly())
	return err
}

// Begin finds the columns asked among the output's (resolve) and begins
// the sink under it with their header.
func (p *projected) Begin(h join.Header) error {
	if err := p.resolve(h); err != nil {
		return err
	}
	names := join.Names(p.picks)
	out := join.Header{Names: names, Join: h.Join} // Join: a sink finds its columns by name
	out.Line = append(csvscan.AppendNames(nil, names), '\n')
	if h.Types != nil {
		out.Types = make([]columnar.Type, len(p.idx))
		for j, i := range p.idx {
			if i < len(h.Types) {
				out.Types[j] = h.Types[i]
			}
		}
	}
	// The join columns by the names written (a Parquet sink writes their
	// Bloom filters): one picked under another name (AS) goes by it.
	out.Join.Names = make([]string, len(h.Join.Names))
	for i, n := range h.Join.Names {
		out.Join.Names[i] = n
		for _, pk := range p.picks {
			if !pk.Key && pk.Name == n {
				out.Join.Names[i] = pk.As
			}
		}
	}
	return p.inner.Begin(out)
}

// resolve finds the columns picked among the output's h (join.Index).
func (p *projected) resolve(h join.Header) (err error) {
	p.idx, err = join.Index(p.picks, h.Names)
	return err
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

// writeCells is Write of a row of typed cells: each half's cells found
// (their bytes, tag and value: cellSpans), those asked taken in order and
// written as the row's one half.
func (w *projectWriter) writeCells(key []byte, seq, small int64, largeRow, smallRow []byte) error {
	var err error
	if w.fields, err = cellSpans(largeRow, w.fields[:0]); err != nil {
		return fmt.Errorf("join: an output row: %w", err)
	}
	if w.fields, err = cellSpans(smallRow, w.fields); err != nil {
		return fmt.Errorf("join: an output row: %w", err)
	}
	w.out = w.out[:0]
	for _, i := range w.p.idx {
		if i >= len(w.fields) {
			return fmt.Errorf("join: internal error: an output row of %d fields", len(w.fields))
		}
		w.out = append(w.out, w.fields[i]...)
	}
	return w.inner.Write(key, seq, small, w.out, nil)
}

func (w *projectWriter) Write(key []byte, seq, small int64, largeRow, smallRow []byte) error {
	if w.p.cells {
		return w.writeCells(key, seq, small, largeRow, smallRow)
	}
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
	w.out = csvscan.AppendFields(w.out[:0], w.pick) // one empty field: "", a row
	return w.inner.Write(key, seq, small, w.out, nil)
}

func (w *projectWriter) Flush() error { return w.inner.Flush() }

// keepKeyColumns sets x.keyKeep and x.largeKeep from the columns picked
// (Options.Columns, join.PickColumns): the key side's columns asked (never
// its key columns, which the output does not have: the large side's join
// columns hold the key) and the large side's, each in its side's order.
func (x *execution) keepKeyColumns(picks []join.Pick) {
	x.keyKeep, x.largeKeep = []int{}, []int{}
	for _, p := range picks {
		switch {
		case !p.Key:
			if !slices.Contains(x.largeKeep, p.Col) {
				x.largeKeep = append(x.largeKeep, p.Col)
			}
		case !x.keySpec.IsKeyCol(p.Col) && !x.opt.JoinType.LargeOnly():
			if !slices.Contains(x.keyKeep, p.Col) {
				x.keyKeep = append(x.keyKeep, p.Col)
			}
		}
	}
	slices.Sort(x.keyKeep)
	slices.Sort(x.largeKeep)
}

// keyOutputNames is the output name of each key-side column
// (join.KeyOutputNames: suffixed where the large side has its name; ""
// for a key column).
func (x *execution) keyOutputNames() []string {
	return join.KeyOutputNames(x.input.Header, x.keys.Header, x.keySpec, x.opt.Suffix)
}

// keyCellCols is the key side's columns the rows carry, in order:
// Options.Columns' asked, or every one but the key's (join.AppendKeyFields').
func (x *execution) keyCellCols() []int {
	if x.keyKeep != nil {
		return x.keyKeep
	}
	var cols []int
	for c := range x.keys.Header {
		if !x.keySpec.IsKeyCol(c) {
			cols = append(cols, c)
		}
	}
	return cols
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
		return len(x.input.Header)
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
