package local

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/filters/choose"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/keylist"
	"github.com/acbfjoin/acbfjoin/shuffle"
	"github.com/acbfjoin/acbfjoin/tuple"
)

// The sample of auto: autoSampleParts pieces of autoSamplePartRows rows
// (16,384 rows: a selectivity within 0.4 points at 4 sd, and a tenth of the
// skew sampler's time). 16 pieces, not 8: the generated NBER citations are
// not in random order, and 8 pieces of 2,048 rows put the selectivity at
// 1.7% (1.9% in the file; the shuffle predicted 6.3% low), 16 at 2.0%.
//
// Each sized kind is built over at most autoCalibrationKeys of the keys at
// the least and the most bits a key it is weighed at (choose.Sized), the
// exact set over as many; their builds are timed, and then the probes of
// all of them in autoProbeRounds rounds (timeAllProbes), a pass over
// autoProbeKeys of the sampled rows' keys each, each round over keys of its
// own (a filter larger than a cache would have the lines an earlier pass
// touched in it: the exact set of 100,000 sparse integer keys, 2 MB, was
// timed at 12 ns a probe where it cost the map phase about 27), the
// fastest pass counting (one pass of 2,048 probes takes 20-80 us). Sizes
// between the two are interpolated: a Bloom or blocked filter's probes and
// build grow with its hash functions, which grow with its bits a key (a
// blocked filter's probe took 18 ns at 4 bits and 34 at 32, where one
// timing at 16 bits stood for every size).
const (
	autoSampleParts      = 16
	autoSamplePartRows   = 1024
	autoCalibrationKeys  = 1 << 11
	exactCalibrationKeys = autoCalibrationKeys
	autoProbeKeys        = 1 << 11 // a pass's probes, of the sampled rows' keys in random order
	autoProbeRounds      = 3
)

// streamRows stands for the large side's rows when it is a stream and
// cannot be sampled.
const streamRows = 10_000_000

// autoSample is the large side's sample of Filter auto, read while the
// build reads the key side (it needs no key): startAutoSample starts it,
// wait returns it, stop abandons it.
type autoSample struct {
	done   chan struct{}
	cancel context.CancelFunc
	smp    *skewSample // nil: the large side is a stream
	err    error
}

// startAutoSample starts reading the sample of Filter auto: the first
// autoSamplePartRows rows of autoSampleParts evenly spaced pieces of the
// large side, their keys in order (nothing for a stream, which is read
// once).
func (x *execution) startAutoSample(ctx context.Context) *autoSample {
	ctx, cancel := context.WithCancel(ctx)
	s := &autoSample{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(s.done)
		if x.input.Regular() {
			s.smp, s.err = x.sampleSideN(ctx, x.input, x.joinSpec, "input sample", sampleShape{parts: autoSampleParts, partRows: autoSamplePartRows, inOrder: true})
		}
	}()
	return s
}

// wait returns the sample once it is read.
func (s *autoSample) wait() (*skewSample, error) {
	<-s.done
	return s.smp, s.err
}

// stop cancels the sample and waits for its reader to end (a run that
// failed before the choice). Safe to call more than once.
func (s *autoSample) stop() {
	s.cancel()
	<-s.done
}

// chooseFilter is Options.Filter auto, after the build. It builds each
// kind of choose.Kinds over at most autoCalibrationKeys of the keys (a
// stride through them) at the ends of its sizes, timing the builds and the
// encoding and decoding of one of them (prepareKind), while it takes the
// selectivity, row bytes and parse time from the sample of the large side
// (sample, read during the build); it then times every filter's probes on
// the sampled rows (their members standing in for the sample's) in rounds
// (timeAllProbes), ranks every kind and size with choose.Rank, and sets
// x.opt.Filter and x.opt.Sizing to the cheapest that fits the budget and
// the need for deletes. It returns the filter chosen when the calibration
// built it already over all the keys (else nil: build it). O(n + kinds x
// (autoCalibrationKeys + probes)); the kinds are built and timed one a
// core.
//
// Calibrating on a subset keeps the decision's cost near constant (a few
// ms on 2 cores at 100,000 keys, bench/results/auto.md, where building every
// kind over all of them cost 40-90 ms). What it misses: a filter over all
// the keys may not sit in the cache the subset's does, so at millions of
// keys the probe times are low for every kind (docs/auto.md).
func (x *execution) chooseFilter(ctx context.Context, keys keylist.List, index keyIndex, sample *autoSample) (*join.AutoReport, *filters.Built, error) {
	cons, speed := x.constants()
	rep := &join.AutoReport{Budget: x.opt.BroadcastBudget, NeedDeletes: x.opt.NeedDeletes,
		ShuffleNsPerRecord: cons.ShuffleNsPerRecord, MapNsPerRecord: cons.MapNsPerRecord, SpeedFactor: speed}
	n := keys.Len()
	var sub [][]byte
	if n > autoCalibrationKeys {
		sub = make([][]byte, autoCalibrationKeys)
		for i := range sub {
			sub[i] = keys.At(i * n / autoCalibrationKeys)
		}
	} else {
		sub = keys.Slices()
	}
	rep.CalibrationKeys = len(sub)

	w := choose.Workload{Mappers: x.opt.Mappers, Copies: x.opt.Mappers, Budget: x.opt.BroadcastBudget, NeedDeletes: x.opt.NeedDeletes,
		KeyBytes: float64(x.sh.AddedBytes()), FixedBytes: float64(x.sh.FixedBytes(2 * x.opt.Mappers))} // the build's workers and the mappers each end a batch in every partition
	// Each kind's filters are built by its own goroutine, at most one a
	// core (or a mapper) at a time, so that timings do not share a core;
	// meanwhile this one waits for the sample and makes the probes. Then
	// every filter's probes are timed, in rounds.
	par := max(1, min(x.opt.Mappers, runtime.NumCPU()))
	sem := make(chan struct{}, par)
	limits := w // what the kinds may choose; autoProbes fills w meanwhile
	kinds := choose.Kinds
	if why := bitmapDominates(keys, w); why != "" {
		kinds, rep.SizedSkipped = []filters.Kind{filters.None, filters.Exact}, why
	}
	ks := make([]*kindCalibration, len(kinds))
	errs := make([]error, len(kinds))
	var wg sync.WaitGroup
	for i, kind := range kinds {
		var timing *join.AutoTiming
		if t, ok := x.opt.AutoTimings[kind]; ok {
			timing = &t
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			ks[i], errs[i] = prepareKind(ctx, kind, keys, sub, limits, timing)
		})
	}
	smp, smpErr := sample.wait()
	var probes probeKeys
	if smpErr == nil {
		probes = x.autoProbes(rep, &w, smp, keys, sub, index)
		// The map phase probes integer keys as integers where the
		// filter can (filters.IntBatchFilter): so are they timed.
		probes.ints = !x.joinSpec.Composite() && x.joinSpec.Types[0] == key.Int
	}
	wg.Wait()
	if smpErr != nil {
		return nil, nil, smpErr
	}
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	timeAllProbes(ks, probes, par)
	var cands []choose.Candidate
	for _, k := range ks {
		cands = append(cands, k.candidates(len(probes.asSampled) > 0)...)
	}
	for _, c := range cands {
		if c.Kind == filters.Exact {
			w.Copies = broadcastCopies(x.opt.Mappers, uint64(c.Bytes), x.opt.MemBudget)
		}
	}
	ranked := choose.Rank(w, cons, cands)
	for _, ch := range ranked {
		rep.Candidates = append(rep.Candidates, join.AutoCandidate{Kind: ch.Kind, BitsPerKey: ch.BitsPerKey, BroadcastBytes: ch.Bytes, FPPFormula: ch.FPP,
			ProbeNs: ch.ProbeNs, PredictedShuffleBytes: ch.ShuffleBytes, PredictedBuildMs: ch.BuildNs / 1e6, PredictedProbeMs: ch.ProbeTotalNs / 1e6,
			PredictedMapMs: ch.MapNs / 1e6, PredictedCostMs: ch.CostNs / 1e6, Excluded: ch.Excluded})
	}
	if len(ranked) == 0 || ranked[0].Excluded != "" { // none always fits: a bug
		return nil, nil, fmt.Errorf("filter auto: every candidate was excluded (%d distinct keys)", n)
	}
	rep.Chosen = rep.Candidates[0]
	// The runner-up: the cheapest of another kind.
	for i := 1; i < len(rep.Candidates); i++ {
		if c := rep.Candidates[i]; c.Excluded == "" && c.Kind != rep.Chosen.Kind {
			rep.RunnerUp = &c
			break
		}
	}
	x.opt.Filter = rep.Chosen.Kind
	x.opt.Sizing = filters.Sizing{BitsPerKey: rep.Chosen.BitsPerKey}
	// The filter chosen may be one calibrated already over all the keys (the
	// exact set of integer keys, or any kind of at most
	// autoCalibrationKeys keys at a size it was calibrated at): it is that
	// filter, not built again.
	for _, k := range ks {
		for _, c := range k.cals {
			if c.all && k.kind == rep.Chosen.Kind && c.bits == rep.Chosen.BitsPerKey {
				return rep, filters.NewBuilt(c.sp, c.f, c.p, n, filters.ListFingerprint(keys), c.bytes), nil
			}
		}
	}
	return rep, nil, nil
}

// bitmapDominates returns why the sized kinds need not be built and timed,
// or "" when they must: the exact set of the keys is a bitmap (8-byte keys
// of a dense range: filters.ExactBitmapBits) that w lets auto choose and
// whose memory is at most the least of any sized kind (choose.BitsPerKey's
// least a key). Such a bitmap passes no false positive (the least
// shuffle), probes one word of memory no larger than theirs without a
// hash (the least probe: a sized kind hashes every key and reads at least
// as much), and is built, encoded and decoded in a pass over the keys
// each, where a sized kind hashes every key to build. On the grid's dense
// keys (1 bit a key; bench/results/auto.md's fixed runs) it was the
// fastest filter at every selectivity but 0.9, where it was within 1% of
// the fastest; calibrating the 6 other kinds took about 3 ms of the 2
// cores' CPU (2-4 ms of a 50 ms join) and their garbage brought a
// collection into the map phase. Auto then weighs the exact set against
// none alone. O(n): a pass over the keys.
func bitmapDominates(keys keylist.List, w choose.Workload) string {
	bits, bytes, ok := filters.ExactBitmapBits(keys)
	if !ok || w.NeedDeletes && !exactDeletes() {
		return ""
	}
	if float64(bits) > choose.BitsPerKey[0]*float64(keys.Len()) || w.Budget > 0 && bytes > w.Budget {
		return ""
	}
	return fmt.Sprintf("the exact set is a bitmap of %.2f bits a key, at most any sized filter's %g: it passes no false positive and probes a word without a hash, so the sized kinds were not built",
		float64(bits)/float64(keys.Len()), choose.BitsPerKey[0])
}

// exactDeletes reports whether the exact kind deletes keys.
func exactDeletes() bool {
	sp, err := filters.Lookup(string(filters.Exact))
	return err == nil && sp.Deletes
}

// probeKeys are the keys the kinds' probes are timed on: sampled rows'
// keys in random order, as they are (for a filter over all the keys) and
// with each that is a key replaced by one of the keys a filter over a
// subset was built over, so that its probes hit as often as the rows will.
type probeKeys struct {
	asSampled, forSubset [][]byte
	// ints: the keys are integers' key.Of bytes, which a filter that
	// tests integers (filters.IntBatchFilter) is timed on as integers,
	// as the map phase gives them.
	ints bool
}

// of returns the probes for a filter over all the keys or a subset.
func (p probeKeys) of(all bool) [][]byte {
	if all {
		return p.asSampled
	}
	return p.forSubset
}

// autoProbes fills rep and w from the sample (nil or empty: the large side
// is a stream or has no rows) and returns the keys to time probes on: up
// to autoProbeRounds x autoProbeKeys of the sampled rows' keys in a shuffled
// order, each sampled key that is a key replaced by one of sub (the keys
// the kinds were built over) for the filters over sub. O(sample) (O(n)
// more without the build's key set, index).
func (x *execution) autoProbes(rep *join.AutoReport, w *choose.Workload, smp *skewSample, keys keylist.List, sub [][]byte, index keyIndex) probeKeys {
	if smp == nil || smp.rows == 0 {
		rep.Note = fmt.Sprintf("no sample of the large side (a stream, or no rows): its rows taken as %d, none of them a key, and a row as 64 bytes", streamRows)
		w.Rows, w.RowBytes = streamRows, 64
		// Probes that miss: the keys lengthened by a byte.
		probes := make([][]byte, len(sub))
		for i, k := range sub {
			probes[i] = append(append(make([]byte, 0, len(k)+1), k...), 0xff)
		}
		return probeKeys{asSampled: probes, forSubset: probes}
	}
	rep.SampledRows, rep.EstimatedRows = smp.rows, smp.estRows
	// index: the build's set, a lookup a sampled key
	if index == nil {
		set := &keySet{}
		for i := range keys.Len() {
			set.add(keys.At(i))
		}
		index = set
	}
	var hit int64
	keyBytes := int64(len(smp.keys))
	probes := make([][]byte, 0, len(smp.ends))
	lo := 0
	for _, e := range smp.ends {
		probes = append(probes, smp.keys[lo:e:e])
		lo = e
	}
	member := make([]bool, len(probes))
	index.hashHasBatch(probes, member) // an estimate: a string's hash may be a key's (1 in about 2^64/n)
	for _, m := range member {
		if m {
			hit++
		}
	}
	// The sample's rows come in the pieces' order, each piece's in the
	// file's (sorted, or grouped by key, in many files), and the map
	// phase reads the pieces at once: a random take of them, in random
	// order (a fixed seed: the probes are a function of the sample), by
	// the first steps of a Fisher-Yates shuffle.
	rng := rand.New(rand.NewPCG(1, 2))
	take := min(len(probes), autoProbeRounds*autoProbeKeys)
	for i := range take {
		k := i + rng.IntN(len(probes)-i)
		probes[i], probes[k] = probes[k], probes[i]
		member[i], member[k] = member[k], member[i]
	}
	out := probeKeys{asSampled: probes[:take], forSubset: probes[:take]}
	if len(sub) < keys.Len() {
		out.forSubset = make([][]byte, take)
		for i, p := range out.asSampled {
			if member[i] {
				p = sub[i%len(sub)]
			}
			out.forSubset[i] = p
		}
	}
	rep.Selectivity = float64(hit) / float64(smp.rows)
	// shuffle.RecordBytes of a mean row: its raw bytes (the sample's bytes
	// count each line's end) and key, plus a record's fixed cost.
	w.RowBytes = float64(smp.bytes-smp.rows+keyBytes)/float64(smp.rows) + float64(shuffle.RecordBytes(shuffle.Record{}))
	w.Rows = smp.estRows
	w.Selectivity = rep.Selectivity
	if smp.parsedRows > 0 {
		w.ParseNs = float64(smp.parseNs) / float64(smp.parsedRows)
		rep.ParseNs = w.ParseNs
	}
	return out
}

// calibration is a filter prepareKind built and timed: over keys of the
// join's keys (all of them: all), at bits a key (0: the exact set).
type calibration struct {
	sp      *filters.Spec
	f       filters.Filter
	p       filters.Params
	bytes   int64   // serialized
	memBits uint64  // its memory (filters.Summary)
	bits    float64 // as sized
	keys    int     // it holds
	all     bool    // all the join's keys
	buildNs float64 // its build, a key
	probe   bool    // its probes are timed (timeAllProbes)
	probeNs float64 // a probe
	// standIn: the exact set's table for all the keys holding only keys of
	// them (filters.ExactStandIn); allocNs its memory's making, buildNs
	// an add.
	standIn bool
	allocNs float64
}

// kindCalibration is one kind's measuring: the filters it built (cals),
// whose probes timeAllProbes times, and what its candidates need besides;
// or, for what cannot be chosen, the candidates as they are (fixed).
type kindCalibration struct {
	kind              filters.Kind
	sp                *filters.Spec
	n                 int
	fixed             []choose.Candidate
	cals              []calibration
	ps                []filters.Params // a sized kind's sizes (choose.Sized)
	bpks, fpps        []float64
	payload, subBytes int64   // the exact set's: filters.ExactBytesBound of all the keys, of those of cals[0]
	coderNs, decodeNs float64 // encoding and decoding cals' reference filter: the exact set's first, a sized kind's last (the largest)
	timing            *join.AutoTiming
}

// prepareKind builds the filters that measure one kind and times their
// builds, encoding and decoding: none is as it is; a sized kind is built
// over sub at the least and the most bits a key of its sizes
// (choose.Sized) that w lets it choose (within the budget; a kind that
// deletes if deletes are needed); the exact set over sub (for its build
// and decode times) and, for 8-byte keys, for its probes at the size of
// all the keys (a table of a few thousand sits in a cache that one of
// 100,000 does not, and its probes were timed 2-3 times too fast): a
// bitmap over all the keys (cheap, and the join's filter if chosen), a
// table as filters.ExactStandIn's stand-in holding sub, whose memory's
// making and adds a key give the build's time. A set of strings is timed over sub: its probes
// are timed low (a map of 100,000 strings sits in no cache), its build and
// encoding (which sorts the keys) about right. A kind that refuses the
// keys at a size is calibrated at the other; at both it gives no
// candidate. What w does not let a kind choose is not measured: its
// candidates have their bytes (choose.Rank's reason to exclude them), no
// times. At a 64 KiB budget and 100,000 keys that leaves out the exact
// set, fuse and cuckoo filters. timing, if set, stands for the kind's
// timings (Options.AutoTimings).
func prepareKind(ctx context.Context, kind filters.Kind, keys keylist.List, sub [][]byte, w choose.Workload, timing *join.AutoTiming) (*kindCalibration, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := keys.Len()
	sp, err := filters.Lookup(string(kind))
	if err != nil {
		return nil, err
	}
	k := &kindCalibration{kind: kind, sp: sp, n: n, timing: timing}
	if kind == filters.None {
		k.fixed = []choose.Candidate{{Kind: filters.None, FPP: 1, Deletes: true}}
		return k, nil
	}
	mayChoose := func(bytes uint64) bool {
		return (!w.NeedDeletes || sp.Deletes) && (w.Budget <= 0 || bytes <= uint64(w.Budget))
	}
	if kind == filters.Exact {
		var table bool                              // the keys make a table, not a bitmap
		k.payload, table = filters.ExactBound(keys) // at least its encoding and a bitmap's memory
		if !mayChoose(uint64(k.payload)) {
			k.fixed = []choose.Candidate{{Kind: filters.Exact, Bytes: k.payload, Deletes: sp.Deletes}}
			return k, nil
		}
		sub := keys.Slice(0, min(n, exactCalibrationKeys)).Slices() // the keys come in no order, from the build's table: a random sample
		small, ok := buildCalibration(sp, keylist.Of(sub), 0, len(sub) == n)
		if !ok {
			return k, nil
		}
		k.cals, k.subBytes = []calibration{small}, filters.ExactBytesBound(keylist.Of(sub))
		if len(sub) < n && table {
			// A table of sparse integer keys: its probes timed on a
			// stand-in of its size holding sub, and its build taken as
			// the stand-in's memory and its adds a key for every key
			// (building the table of 100,000 sparse keys was 2-9 ms of
			// the decision's CPU, a waste where another kind wins). Its
			// probes are the sampled keys with each key among them
			// replaced by one of the calibration's strided keys
			// (probeKeys.forSubset), few of which are among these first
			// keys: nearly every probe misses, and each goes to a slot
			// of a table of all the keys' size, as the join's would.
			now, unlock := lockCPUClock()
			f, alloc, adds, ok := filters.ExactStandIn(keylist.Of(sub), n, now)
			unlock()
			if !ok {
				k.cals = nil
				return k, nil
			}
			k.cals = append(k.cals, calibration{sp: sp, f: f, p: small.p, bytes: small.bytes, memBits: f.(interface{ MemoryBits() uint64 }).MemoryBits(),
				keys: len(sub), allocNs: float64(alloc.Nanoseconds()), buildNs: float64(adds.Nanoseconds()) / float64(max(1, len(sub))), standIn: true})
		} else if len(sub) < n && keys.AllWidth(8) {
			full, ok := buildCalibration(sp, keys, 0, true)
			if !ok {
				k.cals = nil // no candidate
				return k, nil
			}
			k.cals = append(k.cals, full)
		}
		k.cals[len(k.cals)-1].probe = true
		return k, k.timeCoding(k.cals[0])
	}
	if n == 0 {
		return k, nil // a sized kind cannot be sized for no keys
	}
	if k.ps, k.bpks, k.fpps, err = choose.Sized(kind, uint64(n)); err != nil || len(k.ps) == 0 {
		return k, err
	}
	var fit []int // the sizes it may choose (by memory: bytes add a header)
	for i, p := range k.ps {
		if mayChoose(p.Summary().MemoryBits / 8) {
			fit = append(fit, i)
		}
	}
	if len(fit) == 0 {
		for i, p := range k.ps {
			k.fixed = append(k.fixed, choose.Candidate{Kind: kind, BitsPerKey: k.bpks[i], FPP: k.fpps[i], Bytes: int64(p.Summary().MemoryBits / 8), Deletes: sp.Deletes})
		}
		return k, nil
	}
	for _, i := range []int{fit[0], fit[len(fit)-1]}[:min(2, len(fit))] {
		if c, ok := buildCalibration(sp, keylist.Of(sub), k.bpks[i], len(sub) == n); ok {
			c.probe = true
			k.cals = append(k.cals, c)
		}
	}
	if len(k.cals) == 0 {
		return k, nil // the kind refuses this key set: not a candidate
	}
	return k, k.timeCoding(k.cals[len(k.cals)-1])
}

// timeCoding sets k's encoding and decoding times from c's filter (none
// with a timing: its build a key stands for both).
func (k *kindCalibration) timeCoding(c calibration) (err error) {
	if k.timing != nil {
		k.coderNs, k.decodeNs = 0, k.timing.DecodeNsPerByte*float64(c.bytes)
		return nil
	}
	k.coderNs, k.decodeNs, err = timeCoding(c)
	return err
}

// candidates returns k's candidates, its probes timed (timeAllProbes): a
// sized kind's every size, its probe and build times interpolated between
// the two calibrations in bits a key, its bytes and decode time scaled by
// memory from the largest; the exact set's one, scaled to all the keys. A
// candidate whose filter was built over all the keys (the exact set of
// integer keys; any filter of at most autoCalibrationKeys keys at a
// calibrated size) costs no build but its encoding. probed says there
// were probes to time (else no probe costs anything).
func (k *kindCalibration) candidates(probed bool) []choose.Candidate {
	if k.fixed != nil || len(k.cals) == 0 {
		return k.fixed
	}
	for i := range k.cals {
		if t := k.timing; t != nil {
			k.cals[i].buildNs, k.cals[i].probeNs, k.cals[i].allocNs = t.BuildNsPerKey, 0, 0
			if probed {
				k.cals[i].probeNs = t.ProbeNs
			}
		}
	}
	n := float64(k.n)
	if k.kind == filters.Exact {
		small, last := k.cals[0], k.cals[len(k.cals)-1]
		scale := n / float64(max(1, small.keys))
		// The exact set's bytes are its keys' (each after its length) plus
		// a header: the header from small, the keys counted.
		c := choose.Candidate{Kind: filters.Exact, Bytes: small.bytes - k.subBytes + k.payload, ProbeNs: last.probeNs, Deletes: k.sp.Deletes,
			DecodeNs: k.decodeNs * scale, BuildNs: (small.buildNs*float64(small.keys) + k.coderNs) * scale}
		if last.standIn {
			c.BuildNs = last.allocNs + last.buildNs*n + k.coderNs*scale
		}
		if last.all {
			c.BuildNs = k.coderNs * scale
			// Built over every key: its own bytes, and a bitmap's memory
			// beyond its compact form (what a copy takes).
			c.Bytes = last.bytes + filters.ExactCopyExtra(last.f)
		}
		return []choose.Candidate{c}
	}
	ref := k.cals[len(k.cals)-1]
	var out []choose.Candidate
	for i, p := range k.ps {
		scale := float64(p.Summary().MemoryBits) / float64(max(1, ref.memBits))
		c := choose.Candidate{Kind: k.kind, BitsPerKey: k.bpks[i], FPP: k.fpps[i], Bytes: int64(float64(ref.bytes) * scale), Deletes: k.sp.Deletes,
			ProbeNs: interpolate(k.cals, k.bpks[i], func(c calibration) float64 { return c.probeNs }), DecodeNs: k.decodeNs * scale}
		c.BuildNs = interpolate(k.cals, k.bpks[i], func(c calibration) float64 { return c.buildNs })*n + k.coderNs*scale
		for _, cal := range k.cals {
			if cal.all && cal.bits == k.bpks[i] {
				c.BuildNs = k.coderNs * scale // built: its encoding is left
			}
		}
		out = append(out, c)
	}
	return out
}

// timeAllProbes times the probes of every calibration of ks that asks for
// it (and whose kind has no timing) over probes, in rounds: each round a
// pass of autoProbeKeys probes over each filter in turn, autoProbeRounds
// rounds, the fastest pass of each counting (CPU time, lockCPUClock). In
// rounds, not filter after filter: on a machine shared with other work the
// cost of the same pass varied 2-3 times from one moment to the next (the
// other work's cache traffic), and the ranking compares the kinds, which
// the rounds time under the same conditions. par goroutines share the
// filters. 0 ns for no probes.
func timeAllProbes(ks []*kindCalibration, probes probeKeys, par int) {
	var cals []*calibration
	for _, k := range ks {
		if k == nil || k.timing != nil {
			continue
		}
		for i := range k.cals {
			if k.cals[i].probe {
				cals = append(cals, &k.cals[i])
			}
		}
	}
	if len(probes.asSampled) == 0 {
		return
	}
	var wg sync.WaitGroup
	for g := range max(1, par) {
		wg.Go(func() {
			now, unlock := lockCPUClock()
			defer unlock()
			var mine []*calibration
			for i := g; i < len(cals); i += max(1, par) {
				mine = append(mine, cals[i])
				mine[len(mine)-1].probeNs = math.Inf(1)
			}
			out := make([]bool, mapBatch)
			var vals []int64
			var sink byte // touchKeys's reads, kept (touchSink)
			defer func() { touchSink.Add(uint32(sink)) }()
			for r := range autoProbeRounds {
				for _, c := range mine {
					keys := probes.of(c.all)
					pass := min(len(keys), autoProbeKeys)
					at := r % (len(keys) / pass) * pass // each round its own keys, as there are
					// The keys in cache, as the map phase's are (it probes
					// the keys it has just read): a round's first filter
					// had their misses, and was timed slower than the rest
					// (a blocked filter of 4 bits a key at 16-36 ns a
					// string key, an ACBF after it at 10-12, and the same
					// in the map phase).
					sink ^= touchKeys(keys[at : at+pass])
					if ib, ok := c.f.(filters.IntBatchFilter); ok && probes.ints {
						if vals, ok = intsOf(keys[at:at+pass], vals[:0]); ok {
							c.probeNs = min(c.probeNs, probeIntsPass(ib, vals, out, now))
							continue
						}
					}
					c.probeNs = min(c.probeNs, probePass(c.f, keys[at:at+pass], out, now))
				}
			}
		})
	}
	wg.Wait()
}

// intsOf appends to vals the integers whose key.Of bytes keys are, false
// if one is not 8 bytes long.
func intsOf(keys [][]byte, vals []int64) ([]int64, bool) {
	for _, k := range keys {
		if len(k) != 8 {
			return vals, false
		}
		vals = append(vals, tuple.DecodeInt(k))
	}
	return vals, true
}

// probeIntsPass is probePass of integer keys given as integers
// (filters.IntBatchFilter), in the mappers' batches.
func probeIntsPass(ib filters.IntBatchFilter, vals []int64, out []bool, now func() time.Duration) float64 {
	start := now()
	for lo := 0; lo < len(vals); lo += mapBatch {
		batch := vals[lo:min(len(vals), lo+mapBatch)]
		ib.ContainsInts(batch, out[:len(batch)])
	}
	return float64((now() - start).Nanoseconds()) / float64(max(1, len(vals)))
}

// touchKeys reads a byte of every cache line of keys (each key's first,
// every 64th after it and its last), so that they are in cache, and
// returns their XOR, which the caller keeps (touchSink) so that the reads
// are not dropped. Reading every byte took 0.7-1.7 ms of each timing
// goroutine's 2-4 ms at 100,000 string keys of 17 bytes (18 passes of
// 2,048 keys), a tenth of the decision.
func touchKeys(keys [][]byte) byte {
	var x byte
	for _, k := range keys {
		for i := 0; i < len(k); i += 64 {
			x ^= k[i]
		}
		if len(k) > 0 {
			x ^= k[len(k)-1]
		}
	}
	return x
}

// touchSink keeps touchKeys' reads: each timing goroutine adds its XOR of
// them once, when it ends (atomically: timeAllProbes's goroutines run at
// once, and a plain variable both wrote was a data race).
var touchSink atomic.Uint32

// probePass returns the ns a probe of f over keys took, in the mappers'
// batches.
func probePass(f filters.Filter, keys [][]byte, out []bool, now func() time.Duration) float64 {
	bf, _ := f.(filters.BatchFilter)
	start := now()
	for lo := 0; lo < len(keys); lo += mapBatch {
		batch := keys[lo:min(len(keys), lo+mapBatch)]
		if bf != nil {
			bf.ContainsBatch(batch, out)
		} else {
			for i, k := range batch {
				out[i] = f.Contains(k)
			}
		}
	}
	return float64((now() - start).Nanoseconds()) / float64(max(1, len(keys)))
}

// calibrate is one kind's whole measuring (prepareKind, timeAllProbes,
// candidates): its candidates and the filters it built.
func calibrate(ctx context.Context, kind filters.Kind, keys keylist.List, sub [][]byte, probes probeKeys, w choose.Workload, timings map[filters.Kind]join.AutoTiming) ([]choose.Candidate, []calibration, error) {
	var timing *join.AutoTiming
	if t, ok := timings[kind]; ok {
		timing = &t
	}
	k, err := prepareKind(ctx, kind, keys, sub, w, timing)
	if err != nil {
		return nil, nil, err
	}
	timeAllProbes([]*kindCalibration{k}, probes, 1)
	return k.candidates(len(probes.asSampled) > 0), k.cals, nil
}

// buildCalibration builds kind sp over keys at bits a key (0: unsized),
// timing the build; false if the kind refuses them at that size. all says
// the keys are all the join's.
func buildCalibration(sp *filters.Spec, keys keylist.List, bits float64, all bool) (calibration, bool) {
	p, err := sp.Size(max(uint64(keys.Len()), 1), filters.Sizing{BitsPerKey: bits})
	if err != nil {
		return calibration{}, false
	}
	now, unlock := lockCPUClock()
	start := now()
	f, p, size, err := sp.BuildList(p, keys)
	took := now() - start
	unlock()
	if err != nil {
		return calibration{}, false
	}
	c := calibration{sp: sp, f: f, p: p, bytes: size, bits: bits, keys: keys.Len(), all: all,
		buildNs: float64(took.Nanoseconds()) / float64(max(1, keys.Len()))}
	if p != nil {
		c.memBits = p.Summary().MemoryBits
	}
	return c, true
}

// interpolate is get of the calibrations (one or two, at increasing bits a
// key) at bits, linear through two (beyond them for sizes not measured).
func interpolate(cals []calibration, bits float64, get func(calibration) float64) float64 {
	lo, hi := cals[0], cals[len(cals)-1]
	if hi.bits == lo.bits {
		return get(lo)
	}
	return get(lo) + (get(hi)-get(lo))*(bits-lo.bits)/(hi.bits-lo.bits)
}

// timeCoding returns the ns c's filter takes to encode (once, before the
// broadcast) and to decode (a copy), CPU time (lockCPUClock).
func timeCoding(c calibration) (encodeNs, decodeNs float64, err error) {
	var buf bytes.Buffer
	buf.Grow(int(c.bytes))
	now, unlock := lockCPUClock()
	defer unlock()
	start := now()
	if err := c.sp.Encode(c.f, &buf); err != nil {
		return 0, 0, err
	}
	encoded := now()
	if _, err := c.sp.Decode(buf.Bytes()); err != nil {
		return 0, 0, err
	}
	return float64((encoded - start).Nanoseconds()), float64((now() - encoded).Nanoseconds()), nil
}
