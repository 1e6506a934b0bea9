package local

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/shuffle"
	"github.com/acbfjoin/acbfjoin/where"
)

// execution is one run of a plan: what every phase reads (the resolved
// options, the opened sides and their key columns, the shuffle between
// the phases, the partitioning, the sink) and the clock. What a phase
// makes for the next is not here but in the phase (phases.go: a phase
// holds the phases it reads from); each phase's work is a method in its
// own file that takes its inputs and returns its outputs and typed stats.
type execution struct {
	opt               join.Options // resolved
	keys, input       *source.Side
	keySpec, joinSpec key.Spec // the key columns of each side
	typing            keyTyping
	pair              *source.Pair // the sides, opened; closed at close
	sh                *shuffle.Shuffle
	// parts are the shuffle's partitions (partitionsFor): a few a
	// reducer, or more for a key side too large for the reducers to hold
	// at once (grace), each reducer joining its partitions one after
	// another (a grace hash join).
	parts      int
	grace      bool
	bad        *source.BadRows        // with SkipBadRows
	bank       *bankPlan              // a bank join (Options.Bank)
	filterFile *join.FilterFileReport // the filter file read (Options.FilterFile)
	skew       *skewPlan              // the hot keys (Options.Skew); nil: plain partitioning
	help       *helpBoard             // a table side's map phase: its chunks' survivors shared with idle mappers
	sink       Sink
	begun      bool // sink.Begin called (beginSink)
	// keyKeep, with Options.Columns, are the key side's columns the output
	// asks for (in the key side's order): the only ones its rows carry
	// through the shuffle. nil: every column but the key.
	keyKeep []int
	// largeKeep, likewise, are the large side's columns asked: its rows are
	// cut to them in the map phase. nil: every column.
	largeKeep []int
	// cellTypes, when the large side's rows travel as typed cells to a
	// typed output (typedrows.go), are the types the output writes its
	// columns as; nil: its rows travel as CSV text.
	cellTypes []columnar.Type
	// where and keysWhere select the large side's and the key side's rows
	// (Options.Where, KeysWhere; nil: all); each goroutine clones its own.
	where, keysWhere *where.Pred

	start, phase time.Time
	timings      map[string]float64
	stopHeap     func()
	peakHeap     uint64
	largeKeys    bool // the key side's memory outside the budget is more than half of it (shrinkShuffle)
	// stops end what a phase left running (Filter auto's sample), at close.
	stops []func()
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
	open := source.OpenPair
	if deferring(opt) { // the build decides an inferred key type (buildtype.go)
		open = source.OpenPairDeferred
	}
	if x.pair, err = open(ctx, opt); err != nil {
		return nil, err
	}
	x.keys, x.input = x.pair.Keys, x.pair.Input
	x.takeTypes()
	if err := x.compileWhere(); err != nil {
		return nil, err
	}
	if opt.Route == join.RouteColumn && (slices.Contains(x.input.Header, "class") || slices.Contains(x.keys.Header, "class")) {
		return nil, fmt.Errorf("%w: Route column: the output has a column \"class\" already (route to one file a class instead)", join.ErrOptions)
	}
	if opt.SkipBadRows {
		x.bad = &source.BadRows{}
		x.keys.Bad, x.input.Bad = x.bad, x.bad
	}
	x.parts, x.grace = partitionsFor(opt, x.keys.Size)
	x.sh, err = x.newShuffle()
	return x, err
}

// newShuffle is the shuffle of x's partitions and options.
func (x *execution) newShuffle() (*shuffle.Shuffle, error) {
	return shuffle.New(shuffle.Options{Partitions: x.parts, Writers: x.opt.Mappers, MemBudget: x.opt.MemBudget, TempDir: x.opt.TempDir})
}

// takeTypes takes the key's columns and types as the pair decided them.
func (x *execution) takeTypes() {
	x.keySpec, x.joinSpec, x.typing = x.pair.KeySpec, x.pair.JoinSpec, x.pair.Typing
	x.opt.KeyTypes, x.opt.KeyType = x.typing.Types, key.JoinTypes(x.typing.Types)
}

// close ends what the phases left running (stops), and releases the
// inputs and the shuffle's memory and spill files.
func (x *execution) close() {
	for _, stop := range x.stops {
		stop()
	}
	x.stopHeap()
	if x.pair != nil {
		x.pair.Close()
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
func (x *execution) keyError(r source.RowReader, err error) error {
	if x.bad == nil || errors.Is(err, key.ErrBeyond) { // no bad row: the way out is a key type
		return r.Errorf("%w", err)
	}
	x.bad.Add(rowParseError(r, err))
	return nil
}

// rowParseError is a ParseError of r's current row (a table's says row N).
func rowParseError(r source.RowReader, err error) *csvscan.ParseError {
	_, row := r.(*columnar.Rows)
	return &csvscan.ParseError{File: r.Name(), Line: r.Line(), Offset: r.Offset(), Msg: err.Error(), Row: row}
}

// batchKeyError is keyError for record i of a batch of r (NextBatch).
func (x *execution) batchKeyError(r *csvscan.Reader, b *csvscan.Batch, i int, err error) error {
	pe := &csvscan.ParseError{File: r.Name(), Line: b.Line(i), Offset: b.Offset(i), Msg: err.Error(), Err: err}
	if x.bad == nil {
		return pe
	}
	x.bad.Add(pe)
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
