package local

import (
	"errors"

	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/where"
)

// compileWhere compiles Options.Where and KeysWhere over the large and the
// key side's columns (package where); an expression that does not compile
// is an option error naming the option (the command line's --where,
// --keys-where). Before any row is read.
func (x *execution) compileWhere() (err error) {
	if x.where, err = compileSide("Where", x.opt.Where, x.input); err != nil {
		return err
	}
	x.keysWhere, err = compileSide("KeysWhere", x.opt.KeysWhere, x.keys)
	return err
}

// compileSide compiles src ("": none) over side s, for the option name.
func compileSide(name, src string, s *source.Side) (*where.Pred, error) {
	if src == "" {
		return nil, nil
	}
	p, err := where.Compile(src, s.Name, s.Header, s.Types)
	var we *where.Error
	if errors.As(err, &we) {
		return nil, &option.Error{Pkg: "join", Name: name, Value: src, Reason: we.Msg, Err: join.ErrOptions}
	}
	return p, err
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
