package local

import (
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/where"
)

// compileWhere compiles Options.Where and KeysWhere over the large and the
// key side's columns (where.CompileOption: an expression that does not
// compile is an option error naming the option). Before any row is read.
func (x *execution) compileWhere() (err error) {
	if x.where, err = where.CompileOption("join", "Where", x.opt.Where, x.input.Name, x.input.Header, x.input.Types, join.ErrOptions); err != nil {
		return err
	}
	if x.keysWhere, err = where.CompileOption("join", "KeysWhere", x.opt.KeysWhere, x.keys.Name, x.keys.Header, x.keys.Types, join.ErrOptions); err != nil {
		return err
	}
	pruneWhere(x.input, x.where)
	pruneWhere(x.keys, x.keysWhere)
	return nil
}

// pruneWhere makes the scans of a table side s pass over the chunks whose
// statistics refute p (where.Pred.Refutes: no row of them satisfies it),
// unread; nothing for a CSV side or a nil p. Their rows count as p's
// drops (pruned).
func pruneWhere(s *source.Side, p *where.Pred) {
	if p != nil && s.Tab != nil {
		s.Prune(func(c *source.Chunk) bool { return p.Refutes(c.Stats) })
	}
}

// pruned is what a scan of s skipped by pruneWhere: the chunks and rows
// counted since before (s.Pruned's then).
type pruned struct{ chunks, rows int64 }

func prunedSince(s *source.Side, before pruned) pruned {
	c, r := s.Pruned()
	return pruned{c - before.chunks, r - before.rows}
}

func prunedNow(s *source.Side) pruned {
	c, r := s.Pruned()
	return pruned{c, r}
}

// selected reports whether r's current row passes p (nil: every row). A
// row p cannot be evaluated on (an ordering of text against a number) is
// a row error: x.keyError's, which fails the run naming the row, or with
// SkipBadRows counts it as a bad row, not selected.
func (x *execution) selected(p *where.Pred, r source.RowReader) (bool, error) {
	if p == nil {
		return true, nil
	}
	ok, err := p.Match(r.Fields(), key.NullsOf(r))
	if err != nil {
		return false, x.keyError(r, err)
	}
	return ok, nil
}

// clonePred is p's copy for one goroutine (nil for nil).
func clonePred(p *where.Pred) *where.Pred {
	if p == nil {
		return nil
	}
	return p.Clone()
}
