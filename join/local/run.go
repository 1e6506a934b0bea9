package local

import (
	"context"
	"fmt"

	"github.com/acbfjoin/acbfjoin/join"
)

// Run executes the join of opt on this machine and writes its rows to sink
// (through an external sort in a quarter of opt.MemBudget when opt.Sort):
// the phases of its plan, then its report (see the package documentation
// and phases.go). On error nothing more is written, the sink is closed
// without finishing, and every temporary file is removed. Its option errors
// name the field (option.Error) and wrap join.ErrOptions or
// filters.ErrSizing.
func Run(ctx context.Context, opt join.Options, sink Sink) (*join.Report, error) {
	x, err := prepare(ctx, opt, sink)
	if err != nil {
		return nil, err
	}
	defer x.sink.Close()
	defer x.close()
	plan := x.plan()
	for _, p := range plan {
		if err := p.run(ctx, x); err != nil {
			return nil, err
		}
		x.lap(p.name())
	}
	return x.assemble(plan), nil
}

// prepare resolves opt (a bank's settings first), checks the sink against
// it, puts the external sort in front of the sink with Sort, and opens the
// execution. On error it closes the sink.
func prepare(ctx context.Context, opt join.Options, sink Sink) (_ *execution, err error) {
	defer func() {
		if err != nil {
			sink.Close()
		}
	}()
	opt, bp, err := withBank(ctx, opt)
	if err != nil {
		return nil, err
	}
	if opt, err = opt.Resolve(); err != nil {
		return nil, err
	}
	var rsink *routedSink
	switch s := sink.(type) {
	case *routedSink:
		rsink = s
	case interface{ routed() *routedSink }:
		rsink = s.routed()
	}
	routed := rsink != nil
	if routed != (opt.Route == join.RouteDir) {
		return nil, fmt.Errorf("%w: Route dir goes with a sink from NewRouted, and only it", join.ErrOptions)
	}
	if routed && len(rsink.sinks) != len(bp.classes) {
		return nil, fmt.Errorf("%w: %d routed sinks for %d classes", join.ErrOptions, len(rsink.sinks), len(bp.classes))
	}
	if opt.Sort && routed {
		rsink.sortEach(opt.TempDir, opt.MemBudget/4, opt.Reducers)
	} else if opt.Sort {
		writers := opt.Reducers
		if opt.JoinType != join.JoinInner { // the build's and the mappers' writers too
			writers += 2 * opt.Mappers
		}
		sink = newSorted(sink, opt.TempDir, opt.MemBudget/4, writers)
	}
	if len(opt.Columns) > 0 {
		sink = newProjected(sink, opt.Columns)
	}
	x, err := start(ctx, opt)
	if err != nil {
		return nil, err
	}
	x.sink = sink
	if bp != nil {
		x.bank = bp
		if bp.classIdx, err = x.keys.Column("ClassCol", bp.b.ClassCol); err != nil {
			x.close()
			return nil, err
		}
		if err := x.keys.RefuseNested([]int{bp.classIdx}, true); err != nil {
			x.close()
			return nil, err // a class column is compared as a key is
		}
	}
	if err := x.checkExclusions(); err != nil {
		x.close()
		return nil, err
	}
	if p, ok := x.sink.(*projected); ok { // the columns asked, before any work
		if err := p.pick(x); err != nil {
			x.close()
			return nil, err
		}
		x.keepKeyColumns(p.picks)
		if err := p.resolve(x.outputHeader()); err != nil {
			x.close()
			return nil, err
		}
	}
	x.chooseCells()
	if x.opt.JoinType != join.JoinInner {
		if err := x.beginSink(); err != nil {
			x.close()
			return nil, err
		}
	}
	return x, nil
}
