package local

import (
	"context"
	"runtime/debug"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/keylist"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// A phase is one step of a run: it runs on the execution (the options,
// the sides, the shuffle: what every phase reads and none changes), keeps
// what it makes and its typed metrics, and hands them to the report. What
// one phase makes for the next (the key set, the filter, its copies) is
// the maker's: a phase holds the phases it reads from (a filterPhase its
// keysPhase), so that each phase's inputs and outputs are typed and
// named, and a phase reads only what plan gave it. plan lists the phases
// the options ask for: a new optional phase is one type here or in its
// own file and one line in plan.
type phase interface {
	// name is its line in Report.TimingsMs (the laps of one name add up:
	// the key set and the filter are both "build").
	name() string
	run(ctx context.Context, x *execution) error
	// report puts its metrics in rep, in plan order, after every phase ran.
	report(x *execution, rep *join.Report)
}

// lateReporter is a phase whose report reads what the others reported
// (hot exclusions: the false positives without them); it reports after
// them.
type lateReporter interface {
	lateReport(x *execution, rep *join.Report)
}

// plan returns the phases of x's options, in order.
func (x *execution) plan() []phase {
	var ps []phase
	var smp *samplePhase
	if x.opt.Skew == join.SkewAuto {
		smp = &samplePhase{}
		ps = append(ps, smp)
	}
	b := &keysPhase{}
	f := &filterPhase{keys: b}
	if x.opt.Filter == join.FilterAuto {
		f.auto = &autoPhase{keys: b}
		ps = append(ps, &autoSamplePhase{auto: f.auto}, b, f.auto)
	} else {
		ps = append(ps, b)
	}
	ps = append(ps, f)
	var ex *exclusionsPhase
	if x.opt.HotExclusions > 0 {
		ex = &exclusionsPhase{keys: b, filter: f}
		ps = append(ps, ex)
	}
	bc := &broadcastPhase{keys: b, filter: f, ex: ex}
	m := &mapPhase{keys: b, broadcast: bc}
	r := &reducePhase{sample: smp, keys: b, mapped: m}
	return append(ps, bc, m, &estimatePhase{keys: b, mapped: m}, &sealPhase{}, r, &finishPhase{})
}

// assemble makes the report of a run whose phases ran: the run's own
// numbers, each phase's, then what follows from them.
func (x *execution) assemble(plan []phase) *join.Report {
	rep := x.newReport()
	for _, p := range plan {
		p.report(x, rep)
	}
	x.derive(rep)
	for _, p := range plan {
		if l, ok := p.(lateReporter); ok {
			l.lateReport(x, rep)
		}
	}
	return rep
}

// samplePhase samples the large side for its hot keys (Skew auto) and
// plans their spreading.
type samplePhase struct{ smp *skewSample }

func (*samplePhase) name() string { return "sample" }
func (p *samplePhase) run(ctx context.Context, x *execution) (err error) {
	if p.smp, err = x.sample(ctx); err == nil {
		x.skew = planSkew(p.smp, x.parts, x.opt.Reducers) // the partitioning every later phase follows
	}
	return err
}
func (*samplePhase) report(*execution, *join.Report) {} // the reduce phase's balance report says it

// keysPhase reads the key side into merged local tables: the distinct keys
// (list), and what the build measured and kept (stats: the key side's
// range, its rows a partition, the key set for auto and exclusions).
type keysPhase struct {
	list  keylist.List
	stats buildStats
}

func (*keysPhase) name() string { return "build" }
func (p *keysPhase) run(ctx context.Context, x *execution) (err error) {
	p.list, p.stats, err = x.build(ctx)
	if err == nil {
		err = checkKeyMemory(p.stats.parts, x.opt.Reducers, memAvailable(x.opt))
	}
	if err == nil {
		err = x.shrinkShuffle(p.stats.distinct)
	}
	return err
}

// shrinkShuffle gives back the shuffle's memory between the build and
// the map phase, when the filter is built: its buffers kept for reuse
// always (the map phase's writers make new ones), and its buffered
// key-side batches too (to disk) when the distinct keys' memory outside
// the budget (keyRowBytes a key: the filter, the list it is built from)
// is more than half the budget. At 10^7 keys under --mem 64MiB the
// shuffle held 37 MB there, beside the filter's build.
func (x *execution) shrinkShuffle(distinct int) error {
	x.largeKeys = largeKeySide(int64(distinct)*keyRowBytes, x.opt.MemBudget)
	err := x.sh.Shrink(x.largeKeys)
	x.returnMemory()
	return err
}

// returnMemory hands the memory a large key side's build let go back to
// the system now (debug.FreeOSMemory: a collection, then every free page
// released), after the build's collectors, once the distinct keys' list
// is let go and after the broadcast. The runtime's scavenger releases free pages slowly once
// nothing allocates: at 10^7 keys under --mem 64MiB the peak RSS came
// after the filter's build, 180 MiB of it free pages beside 90 MiB of
// objects. A no-op for a key side that fits the budget; O(live heap)
// otherwise, three times a run (after the build, before and after the
// broadcast).
func (x *execution) returnMemory() {
	if x.largeKeys {
		debug.FreeOSMemory()
	}
}
func (p *keysPhase) report(x *execution, rep *join.Report) {
	rep.KeysRecords, rep.KeysDistinct = p.stats.records, p.stats.distinct
	rep.SetKeysWhere(x.opt.KeysWhere, p.stats.whereDropped, p.stats.wherePruned.chunks, p.stats.wherePruned.rows)
	rep.Keys.Why = x.typing.Why
	rep.Keys.KeysNull, rep.Keys.KeysUnmatchable = p.stats.cannot.null, p.stats.cannot.unmatchable
}

// autoSamplePhase starts reading the large side's sample for Filter auto,
// which the build's reading of the key side hides (the sample needs no
// key); the autoPhase waits for it. Its lap is the build's: the first
// phase's lap holds the run's setup (opening the sides), which was the
// build's before this phase came first, and "auto" stays the decision's.
type autoSamplePhase struct{ auto *autoPhase }

func (*autoSamplePhase) name() string { return "build" }
func (p *autoSamplePhase) run(ctx context.Context, x *execution) error {
	p.auto.sample = x.startAutoSample(ctx)
	x.stops = append(x.stops, p.auto.sample.stop) // a failed build: no reader left behind
	return nil
}
func (*autoSamplePhase) report(*execution, *join.Report) {}

// autoPhase chooses the filter (Filter auto) and builds it.
type autoPhase struct {
	keys   *keysPhase
	sample *autoSample
	rep    *join.AutoReport
	built  *filters.Built
}

func (*autoPhase) name() string { return "auto" }
func (p *autoPhase) run(ctx context.Context, x *execution) (err error) {
	p.rep, p.built, err = x.chooseFilter(ctx, p.keys.list, p.keys.stats.index, p.sample)
	return err
}
func (p *autoPhase) report(_ *execution, rep *join.Report) { rep.Auto = p.rep }

// filterPhase builds the filter of the keys (built), unless auto built it.
type filterPhase struct {
	keys  *keysPhase
	auto  *autoPhase // nil without Filter auto
	built *filters.Built
}

func (*filterPhase) name() string { return "build" }
func (p *filterPhase) run(ctx context.Context, x *execution) (err error) {
	if p.auto != nil && p.auto.built != nil {
		p.built = p.auto.built
		return nil
	}
	p.built, err = x.filter(ctx, p.keys.list)
	return err
}
func (p *filterPhase) report(x *execution, rep *join.Report) {
	rep.Filter = join.NewFilterReport(p.built)
	rep.Filter.File = x.filterFile
}

// exclusionsPhase finds the frequent large-side keys that pass the filter
// and are not keys (HotExclusions).
type exclusionsPhase struct {
	keys   *keysPhase
	filter *filterPhase
	ex     *exclusions
}

func (*exclusionsPhase) name() string { return "exclusions" }
func (p *exclusionsPhase) run(ctx context.Context, x *execution) (err error) {
	p.ex, err = x.findExclusions(ctx, p.filter.built.Filter, x.opt.HotExclusions, p.keys.stats.index)
	return err
}
func (*exclusionsPhase) report(*execution, *join.Report) {}
func (p *exclusionsPhase) lateReport(x *execution, rep *join.Report) {
	rep.HotExclusions = p.ex.report(x.opt.HotExclusions, rep)
}

// broadcastPhase ships the filter to the mappers: its copies, each
// wrapped by the hot exclusions if any were found.
type broadcastPhase struct {
	keys   *keysPhase
	filter *filterPhase
	ex     *exclusionsPhase // nil without HotExclusions
	copies []filters.Filter
	bloom  *fileBloom // a Parquet side's Bloom skip, made here for the map phase (nil: none)
	points *keyPoints // a table side's statistics' test against every key, made here (nil: the range alone)
	stats  broadcastStats
}

func (*broadcastPhase) name() string { return "broadcast" }
func (p *broadcastPhase) run(ctx context.Context, x *execution) (err error) {
	p.keys.stats.index = nil // its memory goes back before the map phase
	// The distinct keys' list goes back before the broadcast (the filter
	// is built; a Parquet side's Bloom skip holds it until it has their
	// hashes): at 10^7 integer keys its 80 MB were live beside the
	// filter's serialized bytes and its copies, the peak of the heap
	// under --mem 64MiB (and at 2.9 million keys, as a [][]byte, 89 MB
	// through the map and the reduce).
	p.bloom = x.newFileBloom(p.keys.list)
	p.points = x.newKeyPoints(p.keys.list, p.keys.stats.lo, p.keys.stats.hi)
	p.keys.list = keylist.List{}
	// The list's memory back now, before the filter is serialized and
	// decoded into its copies: else those allocations take fresh pages
	// beside the freed list's, which no collection has reclaimed yet (the
	// exact set of 10^7 keys under --mem 64MiB peaked at 273 MB there, 80
	// MB of it the freed list).
	x.returnMemory()
	if p.copies, p.stats, err = x.broadcast(ctx, p.filter.built); err == nil && p.ex != nil && p.ex.ex.found > 0 {
		p.copies = p.ex.ex.wrap(p.copies)
	}
	x.returnMemory()
	return err
}
func (p *broadcastPhase) report(_ *execution, rep *join.Report) {
	rep.BroadcastBytes, rep.BroadcastCopies = p.stats.bytes, p.stats.copies
}

// mapPhase reads the large side through the filter's copies into the
// shuffle.
type mapPhase struct {
	keys      *keysPhase
	broadcast *broadcastPhase
	bloom     *fileBloom // a Parquet side's row groups skipped by its Bloom filters (nil: none)
	stats     mapStats
}

func (*mapPhase) name() string { return "map" }
func (p *mapPhase) run(ctx context.Context, x *execution) (err error) {
	p.bloom = p.broadcast.bloom
	p.stats, err = x.mapInput(ctx, mapInputs{copies: p.broadcast.copies, keyLo: p.keys.stats.lo, keyHi: p.keys.stats.hi, points: p.broadcast.points, bloom: p.bloom})
	// The filter's copies go back before the reduce, which does not probe:
	// at 10^7 keys the ACBF's were 58 MB of the reduce's heap under --mem
	// 64MiB (bench/cmd/profilejoin -heapsnap).
	p.broadcast.copies = nil
	return err
}
func (p *mapPhase) report(x *execution, rep *join.Report) {
	rep.InputRecords, rep.MapOutputRecords = p.stats.records, p.stats.output
	rep.SetWhere(x.opt.Where, p.stats.whereDropped, p.stats.wherePruned.chunks, p.stats.wherePruned.rows)
	rep.Keys.InputNull, rep.Keys.InputUnmatchable = p.stats.cannot.null, p.stats.cannot.unmatchable
	rep.FilteredOutRecords = p.stats.records - p.stats.output - p.stats.cannot.null - p.stats.cannot.unmatchable
	if t := p.stats.table; t != nil { // rows a chunk's statistics or Bloom filter skipped are not the filter's
		rep.FilteredOutRecords -= t.RowsSkipped - t.SkippedNulls + t.RowsSkippedBloom - t.SkippedNullsBloom + t.RowsScreenedBloom
	}
	rep.InputTable = p.stats.table
	if survival, off, byDict := p.bloom.report(); survival >= 0 && rep.InputTable != nil {
		rep.InputTable.BloomSurvival, rep.InputTable.BloomOff = survival, off
		rep.InputTable.ChunksSkippedDictProof = byDict
	}
	rep.BypassedRecords, rep.BypassedBytes = p.stats.bypassed, p.stats.bypassedBytes
	if g := p.stats.guard; g.mappersOff > 0 {
		rep.FilterOff = &join.FilterOffReport{Mappers: g.mappersOff, Unprobed: g.unprobed, AfterRows: g.firstOffAfter,
			PassRate: g.rate, ProbeNs: g.probeNs, ShuffleNsEach: g.shuffleNsEach}
	}
	rep.ShuffleBytesNoFilter = p.stats.droppedBytes // plus the shuffle's bytes (sealPhase)
}

// estimatePhase estimates the join's rows from the count-min sketches of
// the key side and the survivors, before the reduce.
type estimatePhase struct {
	keys       *keysPhase
	mapped     *mapPhase
	est, bound int64
}

func (*estimatePhase) name() string { return "shuffle" }
func (p *estimatePhase) run(context.Context, *execution) (err error) {
	p.est, p.bound, err = estimateJoin(p.keys.stats.sketch, p.mapped.stats.sketch)
	return err
}
func (p *estimatePhase) report(x *execution, rep *join.Report) {
	if !x.estimates() {
		return
	}
	rep.JoinRowsEstimate, rep.JoinRowsEstimateBound = p.est, p.bound
	rep.JoinRowsEstimateSource = "count-min: key side x survivors"
}

// sealPhase ends the shuffle's writes.
type sealPhase struct{ stats shuffle.Stats }

func (*sealPhase) name() string { return "shuffle" }
func (p *sealPhase) run(_ context.Context, x *execution) (err error) {
	p.stats, err = x.seal()
	return err
}
func (p *sealPhase) report(x *execution, rep *join.Report) {
	rep.ShuffleRecords, rep.ShuffleBytes, rep.SpilledBytes = p.stats.Records, p.stats.Bytes, p.stats.SpilledBytes
	rep.ShuffleBytesNoFilter += p.stats.Bytes
	rep.ShufflePeakBytes = x.sh.Stats().PeakBytes // the reduce included
}

// reducePhase joins each partition's survivors with its key rows into the
// sink; its report says how the rows fell on the partitions.
type reducePhase struct {
	sample *samplePhase // nil without Skew auto
	keys   *keysPhase
	mapped *mapPhase
	stats  reduceStats
}

func (*reducePhase) name() string { return "reduce" }
func (p *reducePhase) run(ctx context.Context, x *execution) (err error) {
	p.stats, err = x.reduce(ctx, x.sink, p.keys.stats.parts, p.mapped.stats.parts)
	return err
}
func (p *reducePhase) report(x *execution, rep *join.Report) {
	rep.FalsePositiveRecords, rep.JoinRows = p.stats.falsePositives, p.stats.joinRows
	// The output's rows written elsewhere: those the map phase wrote
	// without a shuffle, and a right or full join's key rows whose key
	// cannot match (written by the build).
	rep.JoinRows += p.mapped.stats.bypassed
	if x.opt.JoinType.KeepsUnmatchedKeys() {
		rep.JoinRows += p.keys.stats.cannot.null + p.keys.stats.cannot.unmatchable
	}
	var smp *skewSample
	if p.sample != nil {
		smp = p.sample.smp
	}
	rep.Skew = x.skewReport(smp, p.keys.stats, p.mapped.stats, p.stats)
}

// finishPhase finishes the sink: the sort's merge, the files' commit.
type finishPhase struct{ stats finishStats }

func (*finishPhase) name() string { return "finish" }
func (p *finishPhase) run(ctx context.Context, x *execution) (err error) {
	p.stats, err = x.finish(ctx, x.sink)
	return err
}
func (p *finishPhase) report(_ *execution, rep *join.Report) {
	rep.SortPeakBytes = p.stats.sortPeakBytes
}
