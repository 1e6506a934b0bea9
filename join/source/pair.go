package source

import (
	"context"
	"os"

	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// Pair is a join's two sides opened (Open), their key columns found, the
// columns the join reads or writes checked (no nested one), and the key's
// types decided (DecideTypes): what every engine needs before it reads a
// row. join/local runs the join on it; beam reads only its decision.
type Pair struct {
	Keys, Input       *Side
	KeySpec, JoinSpec key.Spec     // the key's columns, typed by Typing
	Typing            key.Decision // how the keys compare
	spooled           string       // the key side saved from a stream to infer its type, removed by Close
}

// OpenPair opens the sides of the resolved join opt (join.Options.Resolve)
// and decides its key types. Cost: both sides' headers (or schemas); the
// key side's key columns read once more when their type is inferred from
// text (a key side on a stream saved to a file in TempDir first: SpoolToInfer),
// with opt.Mappers goroutines. Close releases it; its sides are read by
// one engine at a time.
func OpenPair(ctx context.Context, opt join.Options) (_ *Pair, err error) {
	p := &Pair{}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	if err := CheckSides(opt.Keys, opt.Input, opt.FilterFile); err != nil {
		return nil, err
	}
	// Four parts a mapper, as the large side's: a mapper slowed by other
	// work on a shared machine leaves its last part to the others, where
	// with one part a mapper the build waited for it.
	ko := Options{Option: "Keys", Path: opt.Keys, Name: opt.KeysName, Parts: 4 * opt.Mappers, SkipBad: opt.SkipBadRows,
		Sep: join.SideSep(opt.KeysSep, opt.Sep), Format: opt.KeysFormat, TempDir: opt.TempDir}
	if p.spooled, err = SpoolToInfer(ctx, &ko, opt.KeyTypes); err != nil {
		return nil, err
	}
	if p.Keys, err = Open(ctx, ko); err != nil {
		return nil, err
	}
	if p.KeySpec, err = p.Keys.KeySpec("KeyCol", opt.KeyCols, opt.KeyTypes); err != nil {
		return nil, err
	}
	if p.Input, err = Open(ctx, Options{Option: "Input", Path: opt.Input, Name: opt.InputName, Parts: 4 * opt.Mappers, SkipBad: opt.SkipBadRows,
		Sep: join.SideSep(opt.InputSep, opt.Sep), Format: opt.InputFormat, TempDir: opt.TempDir}); err != nil {
		return nil, err
	}
	if p.JoinSpec, err = p.Input.KeySpec("JoinCol", opt.JoinCols, opt.KeyTypes); err != nil {
		return nil, err
	}
	if err := p.checkNested(opt); err != nil {
		return nil, err
	}
	if p.Typing, err = DecideTypes(ctx, opt.KeyTypes, Keyed{Side: p.Keys, Spec: p.KeySpec}, Keyed{Side: p.Input, Spec: p.JoinSpec}, opt.Mappers); err != nil {
		return nil, err
	}
	p.KeySpec.Types, p.JoinSpec.Types = p.Typing.Types, p.Typing.Types
	p.KeySpec.Wide, p.JoinSpec.Wide = p.Typing.KeysWide, p.Typing.InputWide
	return p, nil
}

// Close releases the sides and removes the key side's copy, if any.
func (p *Pair) Close() {
	for _, s := range []*Side{p.Keys, p.Input} {
		if s != nil {
			s.Close()
		}
	}
	if p.spooled != "" {
		os.Remove(p.spooled)
		p.spooled = ""
	}
}

// checkNested refuses a nested column the join opt would read or write: a
// key column of either side, or one the output holds (without
// Options.Columns every column of the large side and, but for semi and
// anti, of the key side; with it, the columns it names); then lets the
// sides read the others as NULLs, never decoded. A nested column that the
// join leaves out costs nothing.
func (p *Pair) checkNested(opt join.Options) error {
	if err := p.Keys.RefuseNested(p.KeySpec.Cols, true); err != nil {
		return err
	}
	if err := p.Input.RefuseNested(p.JoinSpec.Cols, true); err != nil {
		return err
	}
	largeOut, keyOut := OutputColumns(opt, p.Input.Header, p.Keys.Header, p.KeySpec)
	if err := p.Input.RefuseNested(largeOut, false); err != nil {
		return err
	}
	if err := p.Keys.RefuseNested(keyOut, false); err != nil {
		return err
	}
	p.Input.SkipNested()
	p.Keys.SkipNested()
	return nil
}

// DecideKeyTypes decides how the keys of the join opt compare, as the
// local join decides (Options.KeyType; auto: a Parquet or Arrow column's
// type, else the key side's text, read for it), without running the join:
// for an executor that reads the sides itself (beam). Cost: OpenPair's.
func DecideKeyTypes(ctx context.Context, opt join.Options) (key.Decision, error) {
	opt, err := opt.Resolve()
	if err != nil {
		return key.Decision{}, err
	}
	p, err := OpenPair(ctx, opt)
	if err != nil {
		return key.Decision{}, err
	}
	defer p.Close()
	return p.Typing, nil
}
