package source

import (
	"context"
	"fmt"
	"os"
	"slices"

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
	// Deferred, after OpenPairDeferred, are the key columns (indexes into
	// KeySpec.Cols) whose type the key side's text decides, taken as Int
	// until Settle; nil otherwise.
	Deferred []int
	spooled  string // the key side saved from a stream to infer its type, removed by Close
	// stopInput ends the context the large side was opened with (Close).
	stopInput context.CancelFunc
	opt       join.Options // as opened, for Settle
	keyOpts   Options      // the key side's, for ReopenKeys
}

// OpenPair opens the sides of the resolved join opt (join.Options.Resolve)
// and decides its key types. Cost: both sides' headers (or schemas); the
// key side's key columns read once more when their type is inferred from
// text (a key side on a stream saved to a file in TempDir first: SpoolToInfer),
// with opt.Mappers goroutines. Close releases it; its sides are read by
// one engine at a time.
func OpenPair(ctx context.Context, opt join.Options) (*Pair, error) {
	return openPair(ctx, opt, false)
}

// OpenPairDeferred is OpenPair without the read of a CSV key side that
// infers its key columns' types from their text: those columns are taken
// as Int and listed in Deferred, for the caller's own read of the key side
// to check (key.CanonicalInt on every non-empty value: inferText's rule)
// and end with Settle, before anything depends on the types but that
// read. A join that reads the key side once anyway saves a pass over it.
func OpenPairDeferred(ctx context.Context, opt join.Options) (*Pair, error) {
	return openPair(ctx, opt, true)
}

func openPair(ctx context.Context, opt join.Options, deferring bool) (_ *Pair, err error) {
	p := &Pair{opt: opt}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	if err := CheckSides(opt.Keys, opt.Input, opt.FilterFile); err != nil {
		return nil, err
	}
	// A large side that is a regular file is opened while the key side
	// is: each open cuts its file into parts, proving each cut a record
	// boundary by reading the MiB before it (csvscan.OpenInput), and the
	// key side's quoted text has its quotes counted up to each cut: 8-10
	// ms and 13-16 ms one after the other before the NBER join's first row
	// was read (Intel Xeon). Nothing of one open depends on the other; the
	// key side's errors are still said first, and a failed key side
	// cancels the large side's open, waits for it (a regular file's open
	// does not block) and closes what it opened. Any other large side (a
	// FIFO, standard input, a device, a URL, a folder) is opened after the
	// key side, as it always was: a table format's open of a FIFO waits
	// for its writer whatever its context says, and a key side that
	// failed would have waited with it.
	inputOpts := Options{Option: "Input", Path: opt.Input, Name: opt.InputName, Parts: 4 * opt.Mappers, Taper: true, SkipBad: opt.SkipBadRows,
		Sep: join.SideSep(opt.InputSep, opt.Sep), Format: opt.InputFormat, TempDir: opt.TempDir}
	type opened struct {
		s   *Side
		err error
	}
	var inputDone chan opened
	if st, serr := os.Stat(opt.Input); opt.Input != "-" && serr == nil && st.Mode().IsRegular() {
		// ictx lives as long as the pair (Close ends it).
		ictx, cancelInput := context.WithCancel(ctx)
		p.stopInput = cancelInput
		inputDone = make(chan opened, 1)
		go func() {
			s, err := Open(ictx, inputOpts)
			inputDone <- opened{s, err}
		}()
		defer func() {
			if inputDone != nil { // not taken: a key-side error
				cancelInput()
				if o := <-inputDone; o.s != nil {
					o.s.Close()
				}
			}
		}()
	}
	// Four parts a mapper, as the large side's: a mapper slowed by other
	// work on a shared machine leaves its last part to the others, where
	// with one part a mapper the build waited for it.
	ko := Options{Option: "Keys", Path: opt.Keys, Name: opt.KeysName, Parts: 4 * opt.Mappers, Taper: true, SkipBad: opt.SkipBadRows,
		Sep: join.SideSep(opt.KeysSep, opt.Sep), Format: opt.KeysFormat, TempDir: opt.TempDir}
	if p.spooled, err = SpoolToInfer(ctx, &ko, opt.KeyTypes); err != nil {
		return nil, err
	}
	p.keyOpts = ko
	if p.Keys, err = Open(ctx, ko); err != nil {
		return nil, err
	}
	var kerr error
	p.KeySpec, kerr = p.Keys.KeySpec("KeyCol", opt.KeyCols, opt.KeyTypes)
	nber := slices.Equal(opt.KeyCols, []string{join.DefaultKeyCol}) && slices.Equal(opt.JoinCols, []string{join.DefaultJoinCol})
	if kerr != nil && !nber {
		return nil, kerr
	}
	if inputDone != nil {
		o := <-inputDone
		inputDone = nil // taken
		p.Input, err = o.s, o.err
	} else {
		p.Input, err = Open(ctx, inputOpts)
	}
	if err != nil {
		return nil, err
	}
	p.JoinSpec, err = p.Input.KeySpec("JoinCol", opt.JoinCols, opt.KeyTypes)
	if nber && (kerr != nil || err != nil) && !slices.Contains(p.Keys.Header, join.DefaultKeyCol) && !slices.Contains(p.Input.Header, join.DefaultJoinCol) {
		// Neither side is an NBER file: say what each has instead.
		return nil, join.NewDefaultColumnsError(p.Keys.Name, p.Keys.Header, p.Input.Name, p.Input.Header)
	}
	if kerr != nil {
		return nil, kerr
	}
	if err != nil {
		return nil, err
	}
	if err := p.checkNested(opt); err != nil {
		return nil, err
	}
	if err := p.decide(ctx, deferring && p.Keys.Tab == nil && p.Keys.Reopenable(), nil); err != nil {
		return nil, err
	}
	return p, nil
}

// decide decides the key types (DecideTypes) and types the specs by them.
// A text column's type comes from ev, the evidence of the Deferred
// columns, when given; else, deferring, it is taken as Int and its column
// listed in Deferred; else from a pass over the key side (inferText).
func (p *Pair) decide(ctx context.Context, deferring bool, ev []key.Evidence) error {
	infer := func(cols []int) ([]key.Evidence, error) {
		switch {
		case ev != nil:
			if !slices.Equal(cols, p.Deferred) {
				return nil, fmt.Errorf("join: internal error: evidence of key columns %v, asked for %v", p.Deferred, cols)
			}
			return ev, nil
		case deferring:
			p.Deferred = slices.Clone(cols)
			return make([]key.Evidence, len(cols)), nil // none Found: Int
		}
		return inferText(ctx, p.Keys, p.KeySpec, cols, p.opt.Mappers)
	}
	d, err := decideTypes(p.opt.KeyTypes, Keyed{Side: p.Keys, Spec: p.KeySpec}, Keyed{Side: p.Input, Spec: p.JoinSpec}, infer)
	if err != nil {
		return err
	}
	p.Typing = d
	p.KeySpec.Types, p.JoinSpec.Types = p.Typing.Types, p.Typing.Types
	p.KeySpec.Wide, p.JoinSpec.Wide = p.Typing.KeysWide, p.Typing.InputWide
	return nil
}

// Settle ends a deferral (OpenPairDeferred). ev is what the caller's read
// of the whole key side found of each Deferred column: its non-empty
// values counted (Keys), every one a canonical integer (none Found); the
// types are then decided from it as inference would have from its own
// read, and Typing's reasons say so. ev nil says the read met a value that
// is no canonical integer (and stopped): the types are inferred by the
// pass OpenPair makes, and the key side is opened anew (ReopenKeys) for
// the caller to read it again with them. Either way Typing, KeySpec and
// JoinSpec are set anew and Deferred is nil.
func (p *Pair) Settle(ctx context.Context, ev []key.Evidence) error {
	if p.Deferred == nil {
		return nil
	}
	if ev != nil && len(ev) != len(p.Deferred) {
		return fmt.Errorf("join: internal error: evidence of %d key columns, %d deferred", len(ev), len(p.Deferred))
	}
	err := p.decide(ctx, false, ev)
	p.Deferred = nil
	if err != nil || ev != nil {
		return err
	}
	return p.ReopenKeys(ctx)
}

// ReopenKeys opens the key side anew (its file, or the copy of a stream),
// its parts to be handed out again, and closes the one read.
func (p *Pair) ReopenKeys(ctx context.Context) error {
	s, err := Open(ctx, p.keyOpts)
	if err != nil {
		return err
	}
	s.SkipNested()
	p.Keys.Close()
	p.Keys = s
	return nil
}

// Close releases the sides and removes the key side's copy, if any.
func (p *Pair) Close() {
	for _, s := range []*Side{p.Keys, p.Input} {
		if s != nil {
			s.Close()
		}
	}
	if p.stopInput != nil {
		p.stopInput()
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
	largeOut, keyOut, err := OutputColumns(opt, p.Input.Header, p.Keys.Header, p.KeySpec)
	if err != nil {
		return err
	}
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
