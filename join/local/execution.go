package local

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// execution is one run of a plan: the opened inputs, their join columns, the
// shuffle between the phases, what each phase hands the next, and the
// clock. Each phase's work is a method in its own file that returns its
// typed stats; phases.go makes them the plan's phases.
type execution struct {
	opt               join.Options // resolved
	keys, input       *side
	keySpec, joinSpec key.Spec // the key columns of each side
	sh                *shuffle.Shuffle
	bad               *badRows  // with SkipBadRows
	bank              *bankPlan // a bank join (Options.Bank)
	skew              *skewPlan // the hot keys (Options.Skew); nil: plain partitioning
	// keyIndex is the build's key set, kept for the membership tests of
	// Filter auto (and hot exclusions) and dropped after them; nil otherwise.
	keyIndex *keySet

	// What one phase makes for the next (phases.go): the sample of the
	// large side (Skew auto), the distinct keys, the filter, the hot
	// exclusions, the mappers' copies of the filter, and the sink.
	smp     *skewSample
	keyList [][]byte
	built   *filters.Built
	ex      *exclusions
	copies  []filters.Filter
	sink    Sink

	start, phase time.Time
	timings      map[string]float64
	stopHeap     func()
	peakHeap     uint64
}

// start opens both sides, finds their join columns and makes the shuffle.
func start(ctx context.Context, opt join.Options) (_ *execution, err error) {
	x := &execution{opt: opt, start: time.Now(), timings: map[string]float64{}}
	x.phase = x.start
	x.stopHeap = watchHeap(&x.peakHeap)
	defer func() {
		if err != nil {
			x.close()
		}
	}()
	if err := CheckSides(opt.Keys, opt.Input, opt.FilterFile); err != nil {
		return nil, err
	}
	if x.keys, err = openSide(ctx, "Keys", opt.Keys, opt.KeysName, opt.Mappers, opt.SkipBadRows, opt.Sep); err != nil {
		return nil, err
	}
	if x.keySpec, err = x.keys.keySpec("KeyCol", opt.KeyCols, opt.KeyTypes); err != nil {
		return nil, err
	}
	if x.input, err = openSide(ctx, "Input", opt.Input, opt.InputName, 4*opt.Mappers, opt.SkipBadRows, opt.Sep); err != nil {
		return nil, err
	}
	if x.joinSpec, err = x.input.keySpec("JoinCol", opt.JoinCols, opt.KeyTypes); err != nil {
		return nil, err
	}
	if opt.Route == join.RouteColumn && (slices.Contains(x.input.header, "class") || slices.Contains(x.keys.header, "class")) {
		return nil, fmt.Errorf("%w: Route column: the output has a column \"class\" already (route to one file a class instead)", join.ErrOptions)
	}
	if opt.SkipBadRows {
		x.bad = &badRows{}
		x.keys.bad, x.input.bad = x.bad, x.bad
	}
	x.sh, err = shuffle.New(shuffle.Options{Partitions: opt.Reducers, Writers: opt.Mappers, MemBudget: opt.MemBudget, TempDir: opt.TempDir})
	return x, err
}

// close releases the inputs and the shuffle's memory and spill files.
func (x *execution) close() {
	x.stopHeap()
	for _, s := range []*side{x.keys, x.input} {
		if s != nil {
			s.close()
		}
	}
	if x.sh != nil {
		x.sh.Close()
	}
}

// lap adds the time since the last lap to phase name's.
func (x *execution) lap(name string) {
	now := time.Now()
	x.timings[name] += float64(now.Sub(x.phase).Microseconds()) / 1000
	x.phase = now
}

// keyError handles a join key that does not parse in r's current record
// (err names the column: key.Spec.AppendKey): an error, or with
// SkipBadRows a counted bad row.
func (x *execution) keyError(r *csvscan.Reader, err error) error {
	if x.bad == nil {
		return r.Errorf("%w", err)
	}
	x.bad.add(&csvscan.ParseError{File: r.Name(), Line: r.Line(), Offset: r.Offset(), Msg: err.Error()})
	return nil
}

// batchKeyError is keyError for record i of a batch of r (NextBatch).
func (x *execution) batchKeyError(r *csvscan.Reader, b *csvscan.Batch, i int, err error) error {
	pe := &csvscan.ParseError{File: r.Name(), Line: b.Line(i), Offset: b.Offset(i), Msg: err.Error(), Err: err}
	if x.bad == nil {
		return pe
	}
	x.bad.add(pe)
	return nil
}

// progress reports phase's progress through Options.Progress every 100 ms
// until the returned function is called (it reports once more then).
func (x *execution) progress(phase string, done func() int64, total int64) func() {
	if x.opt.Progress == nil {
		return func() {}
	}
	x.opt.Progress(phase, 0, total)
	return ticker(func() { x.opt.Progress(phase, done(), total) })
}

// checkEvery is how many rows a loop handles between looks at its context:
// about a millisecond of work.
const checkEvery = 1 << 14
