package stream

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/where"
)

// timedChunk is how many timed key rows the key reader hands over at once.
const timedChunk = 8192

// Run runs the streaming join of opt and writes its output (a header, then
// the matches, batch by batch, in probe order) to out. It reads each side
// once, front to back; memory is the live key rows, their filter and
// sketches, and a few batches of rows, whatever the streams' length. Two
// reader goroutines parse the sides ahead of the batch being joined;
// Workers goroutines probe each batch. It stops at ctx's cancellation.
func Run(ctx context.Context, opt Options, out io.Writer) (*Report, error) {
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	e, err := open(ctx, opt, out)
	if err != nil {
		return nil, err
	}
	defer e.close()
	for batch := 0; ; batch++ {
		pb, ok := e.probes.next(ctx)
		if !ok {
			break
		}
		if err := e.joinBatch(ctx, batch, pb); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := e.drainKeys(ctx); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := e.w.Flush(); err != nil {
		return nil, err
	}
	return e.report(start), nil
}

// open resolves opt, opens both sides, finds their key columns (the batch
// join's rules, key.ParseJoin), makes the live filter and the sketches,
// writes the output's header and starts the readers, each a batch ahead.
func open(ctx context.Context, opt Options, out io.Writer) (_ *engine, err error) {
	opt, spec, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	e := &engine{opt: opt, timed: opt.Window > 0, tbl: newTable(), keyName: cmpOr(opt.KeyEventsName, opt.KeyEvents),
		rep: &Report{Mode: "events", Filter: spec.Kind, Window: opt.Window, Verified: opt.Verify}}
	probeName := cmpOr(opt.ProbeName, opt.Probe)
	defer func() {
		if err != nil {
			e.close()
		}
	}()
	if e.ks, err = openSide(ctx, sideFile{option: "KeyEvents", path: opt.KeyEvents, name: e.keyName, format: opt.KeyEventsFormat}, opt.TempDir, !e.timed); err != nil {
		return nil, err
	}
	if e.ps, err = openSide(ctx, sideFile{option: "Probe", path: opt.Probe, name: probeName, format: opt.ProbeFormat}, opt.TempDir, false); err != nil {
		return nil, err
	}
	// The key columns, as the batch join reads them, but for the
	// defaults: the key side's first column, and the same names.
	kj, err := key.ParseJoin(cmpOr(opt.KeyCol, key.JoinColumns(e.ks.header[:1])), opt.JoinCol, opt.KeyType)
	if err != nil {
		return nil, option.Within(err, "stream", ErrOptions)
	}
	var probeSpec key.Spec
	if e.keySpec, probeSpec, err = kj.Specs(e.keyName, e.ks.header, probeName, e.ps.header); err != nil {
		return nil, option.Within(err, "stream", ErrOptions)
	}
	keyTime, probeTime := "", ""
	if e.timed {
		keyTime, probeTime = opt.KeyTime, opt.ProbeTime
	}
	if err := e.checkNested(opt.JoinType, e.keySpec, probeSpec, keyTime, probeTime); err != nil {
		return nil, err
	}
	if e.typing, err = e.decideKeyTypes(ctx, kj.Types, probeSpec); err != nil {
		return nil, option.Within(err, "stream", ErrOptions)
	}
	e.keySpec.Types, probeSpec.Types = e.typing.Types, e.typing.Types
	// A table's empty string is a value, its NULL a NULL (key.Spec.IsNull).
	e.keySpec.EmptyOK, probeSpec.EmptyOK = key.NullsOf(e.ks.r) != nil, key.NullsOf(e.ps.r) != nil
	e.keySpec.Wide, probeSpec.Wide = e.typing.KeysWide, e.typing.InputWide
	e.rep.Keys.Why, e.rep.KeyType = e.typing.Why, key.JoinTypes(e.typing.Types)
	kr := newKeyReader(e.ks, e.keySpec, -1)
	kr.lenient = e.typing.Lenient
	// A row whose key cannot match is kept in its batch for every type (a
	// batch is Batch probe rows, counted whatever their keys: dropping them
	// shifted the later rows into other batches, against other key
	// states); anti writes it, the others do not.
	// Key events on a pipe, typed int unread (decideKeyTypes), make a key
	// that is no integer an error; a probe key that is none can then meet
	// no key and is left out, as a decided type's.
	if err := join.CheckSuffix(opt.Suffix); err != nil {
		return nil, option.Within(err, "stream", ErrOptions)
	}
	pr := &probeReader{s: e.ps, ks: probeSpec, tcol: -1, lenient: e.typing.Lenient || e.streamedInt, keepNull: true}
	if pr.where, err = where.CompileOption("stream", "Where", opt.Where, e.ps.name, e.ps.header, e.ps.types, ErrOptions); err != nil {
		return nil, err
	}
	e.kr, e.pr = kr, pr
	if e.timed {
		e.rep.Mode = "window"
		if kr.tcol, err = key.Column("KeyTime", e.keyName, e.ks.header, opt.KeyTime); err != nil {
			return nil, option.Within(err, "stream", ErrOptions)
		}
		if pr.tcol, err = key.Column("ProbeTime", probeName, e.ps.header, opt.ProbeTime); err != nil {
			return nil, option.Within(err, "stream", ErrOptions)
		}
	}
	if e.lf, err = newLiveFilter(spec, opt.Sizing, opt.Capacity); err != nil {
		return nil, err
	}
	if !opt.NoSketches {
		if e.sk, err = newSketches(opt, probeSpec); err != nil {
			return nil, err
		}
		e.rep.CMSWidth, e.rep.CMSDepth = e.sk.width(), e.sk.depth()
	}
	e.w = bufio.NewWriterSize(out, 1<<20)
	keyNames := e.ks.header
	if opt.JoinType.LargeOnly() {
		keyNames = nil // semi, anti: the probe's columns only
	}
	if _, err := e.w.Write(join.OutputHeader(e.ps.header, probeSpec, keyNames, e.keySpec, opt.Suffix).Line); err != nil {
		return nil, err
	}
	e.startReaders(ctx, kr, pr)
	return e, nil
}

// startReaders starts the two readers, each a batch ahead of the join.
func (e *engine) startReaders(ctx context.Context, kr *keyReader, pr *probeReader) {
	n := e.opt.KeyBatch
	if e.timed {
		n = timedChunk
	}
	e.keys = startFeed(ctx, func(b *keyBatch) bool { more := kr.read(b, n); b.finish(); return more }, (*keyBatch).reset,
		func(b *keyBatch) bool { return len(b.recs) > 0 || b.err != nil })
	e.probes = startFeed(ctx, func(b *probeBatch) bool {
		more := pr.read(b, e.opt.Batch)
		b.finish()
		if e.sk != nil && b.err == nil {
			e.sk.observe(b)
		}
		return more
	}, (*probeBatch).reset, func(b *probeBatch) bool { return len(b.recs) > 0 || b.err != nil })
}

// close stops the readers (cancels them, closes their files, which ends a
// read blocked on a pipe, and waits for them) and closes the sides.
func (e *engine) close() {
	if e.keys != nil { // the readers start together
		e.keys.cancel()
		e.probes.cancel()
	}
	for _, s := range []*side{e.ks, e.ps} {
		if s != nil {
			s.Close()
		}
	}
	if e.keys != nil {
		<-e.keys.done
		<-e.probes.done
	}
}

// joinBatch applies the key changes up to a probe batch, then probes it.
func (e *engine) joinBatch(ctx context.Context, batch int, pb *probeBatch) error {
	if pb.err != nil {
		return pb.err
	}
	br := BatchReport{Batch: batch, Rebuilds: e.lf.rebuilds}
	t0 := time.Now()
	var err error
	if e.timed {
		err = e.applyTimed(ctx, pb, &br)
	} else {
		err = e.applyEvents(ctx, &br)
	}
	if err != nil {
		return err
	}
	br.ApplyNanos = time.Since(t0).Nanoseconds()
	if testHookAfterApply != nil {
		testHookAfterApply(e)
	}
	br.LiveRows, br.LiveKeys, br.FPP, br.Rebuilds = e.tbl.rows, int64(e.tbl.keys()), e.lf.fpp(), e.lf.rebuilds
	if e.sk != nil {
		br.EstimatedRows = e.sk.estimate(pb)
		br.Hot = pb.hot
	}
	t1 := time.Now()
	if err := e.probe(ctx, pb, &br); err != nil {
		return err
	}
	br.ProbeNanos = time.Since(t1).Nanoseconds()
	if e.timed && len(pb.recs) > 0 {
		br.TimeFrom, br.TimeTo = pb.recs[0].t, pb.recs[len(pb.recs)-1].t
	}
	e.probes.release(pb)
	e.account(&br)
	if e.opt.OnBatch != nil {
		e.opt.OnBatch(br)
	}
	return nil
}

// drainKeys reads the key side after the last probe batch: its events are
// checked (a bad one is an error) and applied to nothing that is joined.
func (e *engine) drainKeys(ctx context.Context) error {
	if e.timed {
		// The batch under way first: its error (a row out of time
		// order past the last probe's time) is the stream's too (a
		// review found it never reported).
		if err := e.releaseCur(); err != nil {
			return err
		}
		for {
			kb, ok := e.keys.next(ctx)
			if !ok {
				return nil
			}
			if kb.err != nil {
				return kb.err
			}
			e.keys.release(kb)
		}
	}
	var br BatchReport
	t0 := time.Now()
	for !e.keysDone {
		if err := e.applyEvents(ctx, &br); err != nil {
			return err
		}
	}
	e.rep.Inserts += br.Inserts
	e.rep.Deletes += br.Deletes
	e.rep.ApplyNanos += time.Since(t0).Nanoseconds()
	return nil
}

// report completes the stream's report.
func (e *engine) report(start time.Time) *Report {
	r, lf := e.rep, e.lf
	r.Params, r.Shape = lf.spec.Spell(lf.p), lf.spec.Describe(lf.p)
	r.Capacity, r.Rebuilds, r.FilterBytes = lf.capacity, lf.rebuilds, lf.bytes
	r.FinalLiveKeys = int64(e.tbl.keys())
	if r.NegativeKeys > 0 {
		r.FPPMean = e.fppWeighted / float64(r.NegativeKeys)
	}
	if e.sk != nil {
		r.SketchBytes = e.sk.bytes()
		r.Hot = e.sk.hot()
	}
	r.WallNanos = time.Since(start).Nanoseconds()
	r.Keys.KeysNull, r.Keys.KeysUnmatchable = e.kr.cannot.null.Load(), e.kr.cannot.unmatchable.Load()
	r.Keys.InputNull, r.Keys.InputUnmatchable = e.pr.cannot.null.Load(), e.pr.cannot.unmatchable.Load()
	r.WhereDropped = e.pr.dropped.Load()
	return r
}

// testHookAfterApply, if set by a test, sees the engine after each batch's
// changes are applied.
var testHookAfterApply func(*engine)

// engine is the state of a run between batches.
type engine struct {
	opt Options
	// streamedInt: a key column of text key events on a pipe, typed int
	// without reading them (decideKeyTypes).
	streamedInt bool
	timed       bool
	tbl         *table
	lf          *liveFilter
	sk          *sketches
	w           *bufio.Writer
	keyName     string
	keySpec     key.Spec
	rep         *Report
	ks, ps      *side // the key side and the probe side
	kr          *keyReader
	pr          *probeReader
	typing      key.Decision
	keys        *feed[keyBatch]
	probes      *feed[probeBatch]
	keysDone    bool
	// timed mode: the key rows read but not applied (cur[curPos:]), and the
	// live rows in time order for expiry (queue[qHead:]).
	cur    *keyBatch
	curPos int
	queue  []timedRow
	qHead  int
	// the workers' output buffers and negative-key sets, reused; the
	// batch's set of distinct negative keys
	bufs        [][]byte
	negs        []hashSet
	batchNegs   hashSet
	fppWeighted float64
}

type timedRow struct {
	e *entry
	t int64
}

// applyEvents applies the next batch of key events (none when the key
// events have ended).
func (e *engine) applyEvents(ctx context.Context, br *BatchReport) error {
	if e.keysDone {
		return nil
	}
	kb, ok := e.keys.next(ctx)
	if !ok {
		e.keysDone = true
		return ctx.Err()
	}
	defer e.keys.release(kb)
	for i := range kb.recs {
		r := &kb.recs[i]
		if r.op == 0 { // a NULL or unmatchable key's event: its place, no change
			continue
		}
		if err := e.applyEvent(r); err != nil {
			return err
		}
		if r.op == '+' {
			br.Inserts++
		} else {
			br.Deletes++
		}
	}
	if e.sk != nil {
		if err := e.sk.endApply(); err != nil {
			return err
		}
	}
	return kb.err
}

func (e *engine) applyEvent(r *keyRec) error {
	if r.op == '+' {
		_, fresh := e.tbl.insert(r.key, r.row, r.t)
		if e.sk != nil {
			e.sk.insert(r.key)
		}
		if fresh {
			return e.lf.add(r.key, e.tbl)
		}
		return nil
	}
	gone, err := e.tbl.remove(r.key)
	if err != nil {
		return fmt.Errorf("%s:%d: delete of key %s: %w", e.keyName, r.line, e.keySpec.Format(r.key), err)
	}
	if e.sk != nil {
		e.sk.delete(r.key)
	}
	if gone {
		return e.lf.remove(r.key)
	}
	return nil
}

// applyTimed inserts the key rows with times up to the batch's last probe
// time and expires those that no probe row of the batch can see (time at
// most the first probe time minus the window).
func (e *engine) applyTimed(ctx context.Context, pb *probeBatch, br *BatchReport) error {
	if len(pb.recs) == 0 {
		return nil
	}
	tFirst, tLast := pb.recs[0].t, pb.recs[len(pb.recs)-1].t
	for !e.keysDone {
		if e.cur == nil || e.curPos == len(e.cur.recs) {
			if err := e.releaseCur(); err != nil {
				return err
			}
			kb, ok := e.keys.next(ctx)
			if !ok {
				e.keysDone = true
				if err := ctx.Err(); err != nil {
					return err
				}
				break
			}
			e.cur, e.curPos = kb, 0
			continue
		}
		r := &e.cur.recs[e.curPos]
		if r.t > tLast {
			break
		}
		e.curPos++
		if r.op == 0 { // a NULL or unmatchable key's row: in time order, never live
			continue
		}
		ent, fresh := e.tbl.insert(r.key, r.row, r.t)
		e.queue = append(e.queue, timedRow{ent, r.t})
		if e.sk != nil {
			e.sk.insert(r.key)
		}
		if fresh {
			if err := e.lf.add(r.key, e.tbl); err != nil {
				return err
			}
		}
		br.Inserts++
	}
	// Expire: rows with tFirst - t >= W (computed without overflow: t <=
	// tFirst is checked first, and the difference of two int64 fits a
	// uint64).
	for e.qHead < len(e.queue) {
		q := e.queue[e.qHead]
		if q.t > tFirst || uint64(tFirst)-uint64(q.t) < uint64(e.opt.Window) {
			break
		}
		e.qHead++
		if e.sk != nil {
			e.sk.delete(q.e.keyBytes())
		}
		if e.tbl.removeOldest(q.e) {
			if err := e.lf.remove(q.e.keyBytes()); err != nil {
				return err
			}
		}
		br.Deletes++
	}
	if e.qHead > 4096 && e.qHead*2 > len(e.queue) {
		n := copy(e.queue, e.queue[e.qHead:])
		clear(e.queue[n:])
		e.queue, e.qHead = e.queue[:n], 0
	}
	if e.sk != nil {
		return e.sk.endApply()
	}
	return nil
}

// inWindow reports t - W < tk <= t without overflow.
func inWindow(tk, t, w int64) bool {
	return tk <= t && uint64(t)-uint64(tk) < uint64(w)
}

// probe tests the batch's rows against the filter, joins the survivors with
// the live rows and writes the matches, in probe order.
func (e *engine) probe(ctx context.Context, pb *probeBatch, br *BatchReport) error {
	recs := pb.recs
	nw := max(1, min(e.opt.Workers, len(recs)/1024))
	if len(e.bufs) < nw {
		e.bufs = append(e.bufs, make([][]byte, nw-len(e.bufs))...)
		e.negs = append(e.negs, make([]hashSet, nw-len(e.negs))...)
	}
	counts := make([]probeCounts, nw)
	var wg sync.WaitGroup
	for i := range nw {
		lo, hi := i*len(recs)/nw, (i+1)*len(recs)/nw
		wg.Go(func() {
			e.negs[i].reset(1 << 22)
			e.bufs[i], counts[i] = e.probeRange(recs[lo:hi], e.bufs[i][:0], &e.negs[i])
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	// Distinct negative keys: the workers' sets merged (a key may be in
	// several chunks).
	e.batchNegs.reset(1 << 22)
	for i := range nw {
		e.negs[i].each(func(h uint64, passed bool) {
			if e.batchNegs.add(h, passed) {
				br.NegativeKeys++
				if passed {
					br.FalsePositiveKeys++
				}
			}
		})
	}
	for i := range nw {
		c := counts[i]
		br.ProbeRows += c.rows
		br.Passed += c.passed
		br.Negatives += c.neg
		br.FalsePositives += c.fp
		br.FalseNegatives += c.fn
		br.RowsOut += c.out
		if _, err := e.w.Write(e.bufs[i]); err != nil {
			return err
		}
		if cap(e.bufs[i]) > 64<<20 {
			e.bufs[i] = nil // one huge batch of matches: do not keep its buffer
		}
	}
	return nil
}

type probeCounts struct{ rows, passed, neg, fp, fn, out int64 }

func (e *engine) probeRange(recs []probeRec, buf []byte, negs *hashSet) ([]byte, probeCounts) {
	var c probeCounts
	f := e.lf.f
	c.rows = int64(len(recs))
	jt := e.opt.JoinType
	// A row that meets no key (of a NULL key, rejected by the filter, or a
	// false positive) is written alone or not at all (ForLarge(0): anti).
	unmatched := jt.ForLarge(0) == join.WriteAlone
	for i := range recs {
		r := &recs[i]
		if r.null { // a row of a NULL key: no key meets it
			if unmatched {
				buf = join.AppendOutputRow(buf, r.raw, nil)
				c.out++
			}
			continue
		}
		if !f.Contains(r.key) {
			if unmatched { // certainly no live key: no lookup
				buf = join.AppendOutputRow(buf, r.raw, nil)
				c.out++
			}
			c.neg++
			if e.opt.Verify && e.tbl.lookup(r.key) != nil {
				c.fn++
			} else {
				h, _ := hashing.Sum(r.key)
				negs.add(h, false)
			}
			continue
		}
		c.passed++
		rows := e.tbl.lookup(r.key)
		if rows == nil {
			c.neg++
			c.fp++
			h, _ := hashing.Sum(r.key)
			negs.add(h, true)
			if unmatched {
				buf = join.AppendOutputRow(buf, r.raw, nil)
				c.out++
			}
			continue
		}
		n := len(rows) // the live key rows it meets: those in its window
		if e.timed {
			n = 0
			for _, kr := range rows {
				if inWindow(kr.t, r.t, e.opt.Window) {
					n++
				}
			}
		}
		switch jt.ForLarge(n) { // the one definition (join/semantics.go); a stream has no padded rows
		case join.WriteAlone:
			buf = join.AppendOutputRow(buf, r.raw, nil)
			c.out++
		case join.WritePairs:
			for _, kr := range rows {
				if !e.timed || inWindow(kr.t, r.t, e.opt.Window) {
					buf = join.AppendOutputRow(buf, r.raw, kr.row)
					c.out++
				}
			}
		}
	}
	return buf, c
}

// account adds a batch to the run's totals.
func (e *engine) account(br *BatchReport) {
	r := e.rep
	r.Batches++
	r.Inserts += br.Inserts
	r.Deletes += br.Deletes
	r.ProbeRows += br.ProbeRows
	r.Passed += br.Passed
	r.Negatives += br.Negatives
	r.FalsePositives += br.FalsePositives
	r.FalseNegatives += br.FalseNegatives
	r.RowsOut += br.RowsOut
	r.EstimatedRows += br.EstimatedRows
	r.ApplyNanos += br.ApplyNanos
	r.ProbeNanos += br.ProbeNanos
	r.MaxLiveKeys = max(r.MaxLiveKeys, br.LiveKeys)
	r.MaxLiveRows = max(r.MaxLiveRows, br.LiveRows)
	r.MaxTableBytes = max(r.MaxTableBytes, e.tbl.bytes)
	r.NegativeKeys += br.NegativeKeys
	r.FalsePositiveKeys += br.FalsePositiveKeys
	e.fppWeighted += br.FPP * float64(br.NegativeKeys)
	if br.FPOutlier() {
		r.BatchesBeyond4SD++
	}
}

// feed runs a reader goroutine that fills batches ahead of their use: two
// buffers, one being filled while the other is used.
type feed[B any] struct {
	full   chan *B
	free   chan *B
	cancel context.CancelFunc
	done   chan struct{}
}

// startFeed starts a reader: fill reads into a batch and reports whether
// more may follow; send reports whether a batch holds anything.
func startFeed[B any](ctx context.Context, fill func(*B) bool, reset func(*B), send func(*B) bool) *feed[B] {
	ctx, cancel := context.WithCancel(ctx)
	f := &feed[B]{full: make(chan *B, 1), free: make(chan *B, 2), cancel: cancel, done: make(chan struct{})}
	f.free <- new(B)
	f.free <- new(B)
	go func() {
		defer close(f.done)
		defer close(f.full)
		for {
			var b *B
			select {
			case b = <-f.free:
			case <-ctx.Done():
				return
			}
			reset(b)
			more := fill(b)
			if send(b) {
				select {
				case f.full <- b:
				case <-ctx.Done():
					return
				}
			}
			if !more {
				return
			}
		}
	}()
	return f
}

// next returns the next batch, or false at the end (or ctx's end).
func (f *feed[B]) next(ctx context.Context) (*B, bool) {
	select {
	case b, ok := <-f.full:
		return b, ok
	case <-ctx.Done():
		return nil, false
	}
}

// release hands a batch back for refilling.
func (f *feed[B]) release(b *B) { f.free <- b }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// releaseCur hands the key batch under way (if any) back to the reader
// and returns its error: a row out of time order is the stream's error
// once its batch is done with.
func (e *engine) releaseCur() error {
	if e.cur == nil {
		return nil
	}
	err := e.cur.err
	e.keys.release(e.cur)
	e.cur = nil
	return err
}
