package local

import (
	"context"
	"fmt"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/join"
)

// Run executes the join of opt on this machine and writes its rows to sink
// (through an external sort in a quarter of opt.MemBudget when opt.Sort):
// build, broadcast, map, shuffle, reduce, finish (see the package
// documentation). On error nothing more is written, the sink is closed
// without finishing, and every temporary file is removed. Its option errors
// name the field (option.Error) and wrap join.ErrOptions or
// filters.ErrSizing.
func Run(ctx context.Context, opt join.Options, sink Sink) (*join.Report, error) {
	opt, bp, err := withBank(ctx, opt)
	if err != nil {
		sink.Close()
		return nil, err
	}
	opt, err = opt.Resolve()
	if err != nil {
		sink.Close()
		return nil, err
	}
	rsink, routed := sink.(*routedSink)
	if routed != (opt.Route == join.RouteDir) {
		sink.Close()
		return nil, fmt.Errorf("%w: Route dir goes with a sink from NewRouted, and only it", join.ErrOptions)
	}
	if routed && len(rsink.sinks) != len(bp.classes) {
		sink.Close()
		return nil, fmt.Errorf("%w: %d routed sinks for %d classes", join.ErrOptions, len(rsink.sinks), len(bp.classes))
	}
	if opt.Sort {
		if routed {
			rsink.sortEach(opt.TempDir, opt.MemBudget/4, opt.Reducers)
		} else {
			sink = newSorted(sink, opt.TempDir, opt.MemBudget/4, opt.Reducers)
		}
	}
	defer sink.Close()
	x, err := start(ctx, opt)
	if err != nil {
		return nil, err
	}
	defer x.close()
	if bp != nil {
		x.bank = bp
		if bp.classIdx, err = x.keys.column("ClassCol", bp.b.ClassCol); err != nil {
			return nil, err
		}
	}

	if err := x.checkExclusions(); err != nil {
		return nil, err
	}
	var smp *skewSample
	if opt.Skew == join.SkewAuto {
		if smp, err = x.sample(ctx); err != nil {
			return nil, err
		}
		x.skew = planSkew(smp, opt.Reducers)
		x.lap("sample")
	}
	keys, bs, err := x.build(ctx)
	if err != nil {
		return nil, err
	}
	var auto *join.AutoReport
	var built *filters.Built
	if x.opt.Filter == join.FilterAuto {
		x.lap("build")
		if auto, built, err = x.chooseFilter(ctx, keys); err != nil {
			return nil, err
		}
		x.lap("auto")
	}
	if built == nil {
		if built, err = x.filter(ctx, keys); err != nil {
			return nil, err
		}
	}
	x.lap("build")
	var ex *exclusions
	if x.opt.HotExclusions > 0 {
		if ex, err = x.findExclusions(ctx, built.Filter, x.opt.HotExclusions); err != nil {
			return nil, err
		}
		x.lap("exclusions")
	}
	x.keyIndex = nil // its memory goes back before the map phase
	copies, cs, err := x.broadcast(ctx, built)
	if err != nil {
		return nil, err
	}
	if ex != nil && ex.found > 0 {
		copies = ex.wrap(copies)
	}
	x.lap("broadcast")
	ms, err := x.mapInput(ctx, copies)
	if err != nil {
		return nil, err
	}
	x.lap("map")
	est, bound, err := estimateJoin(bs.sketch, ms.sketch)
	if err != nil {
		return nil, err
	}
	ss, err := x.seal()
	if err != nil {
		return nil, err
	}
	x.lap("shuffle")
	rs, err := x.reduce(ctx, sink)
	if err != nil {
		return nil, err
	}
	x.lap("reduce")
	fs, err := x.finish(ctx, sink)
	if err != nil {
		return nil, err
	}
	x.lap("finish")
	rep := x.report(built, bs, cs, ms, ss, rs, fs)
	rep.Skew = x.skewReport(smp, bs, ms, rs)
	rep.Auto = auto
	if ex != nil {
		rep.HotExclusions = ex.report(x.opt.HotExclusions, rep)
	}
	rep.JoinRowsEstimate, rep.JoinRowsEstimateBound = est, bound
	rep.JoinRowsEstimateSource = "count-min: key side x survivors"
	return rep, nil
}
