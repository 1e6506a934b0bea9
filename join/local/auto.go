package local

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/filters/choose"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// The sample of auto: autoSampleParts pieces of autoSamplePartRows rows
// (16,384 rows: a selectivity within 0.4 points at 4 sd, and a tenth of the
// skew sampler's time). 16 pieces, not 8: the generated NBER citations are
// not in random order, and 8 pieces of 2,048 rows put the selectivity at
// 1.7% (1.9% in the file; the shuffle predicted 6.3% low), 16 at 2.0%.
//
// Each sized kind is built over at most autoCalibrationKeys of the keys at
// the least and the most bits a key it is weighed at (choose.Sized), the
// exact set over as many; their builds are timed, and their probes in
// passes over autoProbeKeys of the sampled rows' keys, each pass over keys
// of its own (a filter larger than a cache would have the lines an earlier
// pass touched in it: the exact set of 100,000 sparse integer keys, 2 MB,
// was timed at 12 ns a probe where it cost the map phase about 27), at
// least autoProbeReps passes and autoProbeTime in all, the fastest pass
// counting (one pass of 2,048 probes takes 20-80 us). Sizes between
// the two are interpolated: a Bloom or blocked filter's probes and build
// grow with its hash functions, which grow with its bits a key (a blocked
// filter's probe took 18 ns at 4 bits and 34 at 32, where one timing at
// 16 bits stood for every size).
const (
	autoSampleParts      = 16
	autoSamplePartRows   = 1024
	autoCalibrationKeys  = 1 << 11
	exactCalibrationKeys = autoCalibrationKeys
	autoProbeKeys        = 1 << 11 // a pass's probes, of the sampled rows' keys in random order
	autoProbeReps        = 2
	autoProbeTime        = 40 * time.Microsecond
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

// chooseFilter is Options.Filter auto, after the build. With the sample of
// the large side (its selectivity, row bytes and parse time: sample, read
// during the build), it builds each kind of choose.Kinds over at most
// autoCalibrationKeys of the keys (a stride through them) at the ends of
// its sizes, timing the builds; it then times each one's probes on the
// sampled rows (their members standing in for the sample's), and the
// encoding and decoding of one of them, ranks every kind and size with
// choose.Rank, and sets x.opt.Filter and x.opt.Sizing to the cheapest that
// fits the budget and the need for deletes. It returns the filter chosen
// when the calibration built it already over all the keys (else nil: build
// it). O(n + kinds x (autoCalibrationKeys + probes)); the kinds are built
// and timed one a core.
//
// Calibrating on a subset keeps the decision's cost near constant (a few
// ms on 2 cores at 100,000 keys, bench/results/auto.md, where building every
// kind over all of them cost 40-90 ms). What it misses: a filter over all
// the keys may not sit in the cache the subset's does, so at millions of
// keys the probe times are low for every kind (docs/auto.md).
func (x *execution) chooseFilter(ctx context.Context, keys [][]byte, index keyIndex, sample *autoSample) (*join.AutoReport, *filters.Built, error) {
	cons := choose.DefaultConstants
	rep := &join.AutoReport{Budget: x.opt.BroadcastBudget, NeedDeletes: x.opt.NeedDeletes,
		ShuffleNsPerRecord: cons.ShuffleNsPerRecord, MapNsPerRecord: cons.MapNsPerRecord}
	n := len(keys)
	sub := keys
	if n > autoCalibrationKeys {
		sub = make([][]byte, autoCalibrationKeys)
		for i := range sub {
			sub[i] = keys[i*n/autoCalibrationKeys]
		}
	}
	rep.CalibrationKeys = len(sub)

	var probes probeKeys
	w := choose.Workload{Mappers: x.opt.Mappers, Copies: x.opt.Mappers, Budget: x.opt.BroadcastBudget, NeedDeletes: x.opt.NeedDeletes,
		KeyBytes: float64(x.sh.AddedBytes())}
	ready := func() error {
		smp, err := sample.wait()
		if err != nil {
			return err
		}
		probes = x.autoProbes(rep, &w, smp, keys, sub, index)
		return nil
	}
	var once sync.Once
	var readyErr error
	// Each kind is built and timed by its own goroutine, at most one a core
	// (or a mapper) at a time, so that timings do not share a core; a kind
	// waiting for the sample gives its turn up meanwhile.
	sem := make(chan struct{}, max(1, min(x.opt.Mappers, runtime.NumCPU())))
	waitSample := func() error {
		<-sem
		once.Do(func() { readyErr = ready() })
		sem <- struct{}{}
		return readyErr
	}
	results := make([][]choose.Candidate, len(choose.Kinds))
	cals := make([][]calibration, len(choose.Kinds)) // each kind's filters as calibrated
	errs := make([]error, len(choose.Kinds))
	var wg sync.WaitGroup
	// The kinds see the workload as it is before the sample fills it in
	// (ready writes w while kinds run; calibrate reads only its budget and
	// need for deletes, set already).
	w0 := w
	for i, kind := range choose.Kinds {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i], cals[i], errs[i] = calibrate(ctx, kind, keys, sub, probeSample{wait: waitSample, keys: func() probeKeys { return probes }}, w0, x.opt.AutoTimings)
		})
	}
	wg.Wait()
	once.Do(func() { readyErr = ready() }) // if no kind waited for it
	if readyErr != nil {
		return nil, nil, readyErr
	}
	var cands []choose.Candidate
	for i := range results {
		if errs[i] != nil {
			return nil, nil, errs[i]
		}
		cands = append(cands, results[i]...)
	}
	for _, c := range cands {
		if c.Kind == filters.Exact {
			w.Copies = broadcastCopies(x.opt.Mappers, uint64(c.Bytes))
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
	for i := range cals {
		for _, c := range cals[i] {
			if c.all && choose.Kinds[i] == rep.Chosen.Kind && c.bits == rep.Chosen.BitsPerKey {
				return rep, filters.NewBuilt(c.sp, c.f, c.p, n, filters.KeysFingerprint(keys), c.bytes), nil
			}
		}
	}
	return rep, nil, nil
}

// probeKeys are the keys the kinds' probes are timed on: sampled rows'
// keys in random order, as they are (for a filter over all the keys) and
// with each that is a key replaced by one of the keys a filter over a
// subset was built over, so that its probes hit as often as the rows will.
type probeKeys struct{ asSampled, forSubset [][]byte }

// of returns the probes for a filter over all the keys or a subset.
func (p probeKeys) of(all bool) [][]byte {
	if all {
		return p.asSampled
	}
	return p.forSubset
}

// autoProbes fills rep and w from the sample (nil or empty: the large side
// is a stream or has no rows) and returns the keys to time probes on: up
// to autoProbeReps x autoProbeKeys of the sampled rows' keys in a shuffled
// order, each sampled key that is a key replaced by one of sub (the keys
// the kinds were built over) for the filters over sub. O(sample) (O(n)
// more without the build's key set, index).
func (x *execution) autoProbes(rep *join.AutoReport, w *choose.Workload, smp *skewSample, keys, sub [][]byte, index keyIndex) probeKeys {
	if smp == nil || smp.rows == 0 {
		rep.Note = fmt.Sprintf("no sample of the large side (a stream, or no rows): its rows taken as %d, none of them a key, and a row as 64 bytes", streamRows)
		w.Rows, w.RowBytes = streamRows, 64
		// Probes that miss: the keys lengthened by a byte.
		probes := make([][]byte, len(sub))
		for i, k := range sub {
			probes[i] = append(append(make([]byte, 0, len(k)+1), k...), 0xff)
		}
		return probeKeys{probes, probes}
	}
	rep.SampledRows, rep.EstimatedRows = smp.rows, smp.estRows
	// index: the build's set, a lookup a sampled key
	if index == nil {
		set := &keySet{}
		for _, k := range keys {
			set.add(k)
		}
		index = set
	}
	var hit int64
	keyBytes := int64(len(smp.keys))
	probes := make([][]byte, 0, len(smp.ends))
	member := make([]bool, 0, len(smp.ends))
	lo := 0
	for _, e := range smp.ends {
		p := smp.keys[lo:e:e]
		lo = e
		m := index.has(string(p))
		if m {
			hit++
		}
		probes, member = append(probes, p), append(member, m)
	}
	// The sample's rows come in the pieces' order, each piece's in the
	// file's (sorted, or grouped by key, in many files), and the map
	// phase reads the pieces at once: a random take of them, in random
	// order (a fixed seed: the probes are a function of the sample), by
	// the first steps of a Fisher-Yates shuffle.
	rng := rand.New(rand.NewPCG(1, 2))
	take := min(len(probes), autoProbeReps*autoProbeKeys)
	for i := range take {
		k := i + rng.IntN(len(probes)-i)
		probes[i], probes[k] = probes[k], probes[i]
		member[i], member[k] = member[k], member[i]
	}
	out := probeKeys{asSampled: probes[:take], forSubset: probes[:take]}
	if len(sub) < len(keys) {
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

// probeSample is the large side's sample the kinds are timed on: wait
// blocks until it is read (giving the caller's turn up meanwhile), then
// keys returns its keys.
type probeSample struct {
	wait func() error
	keys func() probeKeys
}

// calibration is a filter calibrate built and timed: over keys of the
// join's keys (all of them: all), at bits a key (0: the exact set).
type calibration struct {
	sp      *filters.Spec
	f       filters.Filter
	p       filters.Params
	bytes   int64   // serialized
	memBits uint64  // its memory (filters.Summary)
	bits    float64 // as sized
	all     bool
	buildNs float64 // its build, a key
	probeNs float64 // a probe (timeProbes)
}

// calibrate returns the candidates of one kind and the filters it built
// for them: none as it is; a sized kind built over sub at the least and
// the most bits a key of its sizes (choose.Sized) that w lets it choose
// (within the budget; a kind that deletes if deletes are needed), timed
// on the probes once
// probes.wait returns, each size's probe and build times interpolated
// between the two in bits a key, its bytes and decode time scaled by
// memory; the exact set over sub (for its build and decode times) and,
// for 8-byte keys, over all the keys (for its probes: see below). A kind
// that refuses the keys at a size is calibrated at the other; at both it
// gives no candidate. A candidate whose filter was built over all the keys
// (the exact set of integer keys; any filter of at most
// autoCalibrationKeys keys at a calibrated size) costs no build. What w
// does not let it choose is not measured: its candidates have their bytes
// (choose.Rank's reason to exclude them), no times. At a 64 KiB budget and
// 100,000 keys that leaves out the exact set, fuse and cuckoo filters.
func calibrate(ctx context.Context, kind filters.Kind, keys, sub [][]byte, probes probeSample, w choose.Workload, timings map[filters.Kind]join.AutoTiming) ([]choose.Candidate, []calibration, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	n := len(keys)
	sp, err := filters.Lookup(string(kind))
	if err != nil {
		return nil, nil, err
	}
	if kind == filters.None {
		return []choose.Candidate{{Kind: filters.None, FPP: 1, Deletes: true}}, nil, nil
	}
	mayChoose := func(bytes uint64) bool {
		return (!w.NeedDeletes || sp.Deletes) && (w.Budget <= 0 || bytes <= uint64(w.Budget))
	}
	if kind == filters.Exact {
		payload := exactPayload(keys)
		if !mayChoose(uint64(payload)) { // at least its keys' bytes
			return []choose.Candidate{{Kind: filters.Exact, Bytes: payload, Deletes: sp.Deletes}}, nil, nil
		}
		return calibrateExact(sp, keys, payload, probes, timings)
	}
	if n == 0 {
		return nil, nil, nil // a sized kind cannot be sized for no keys
	}
	ps, bpks, fpps, err := choose.Sized(kind, uint64(n))
	if err != nil || len(ps) == 0 {
		return nil, nil, err
	}
	var fit []int // the sizes it may choose (by memory: bytes add a header)
	for i, p := range ps {
		if mayChoose(p.Summary().MemoryBits / 8) {
			fit = append(fit, i)
		}
	}
	if len(fit) == 0 {
		var out []choose.Candidate
		for i, p := range ps {
			out = append(out, choose.Candidate{Kind: kind, BitsPerKey: bpks[i], FPP: fpps[i], Bytes: int64(p.Summary().MemoryBits / 8), Deletes: sp.Deletes})
		}
		return out, nil, nil
	}
	var cals []calibration
	for _, i := range []int{fit[0], fit[len(fit)-1]}[:min(2, len(fit))] {
		if c, ok := buildCalibration(sp, sub, bpks[i], len(sub) == n); ok {
			cals = append(cals, c)
		}
	}
	if len(cals) == 0 {
		return nil, nil, nil // the kind refuses this key set: not a candidate
	}
	if err := probes.wait(); err != nil {
		return nil, nil, err
	}
	t, timed := timings[kind]
	for i := range cals {
		if !timed {
			cals[i].probeNs = timeProbes(cals[i].f, probes.keys().of(cals[i].all))
			continue
		}
		cals[i].buildNs = t.BuildNsPerKey
		if len(probes.keys().asSampled) > 0 { // else nothing to probe: no probe cost
			cals[i].probeNs = t.ProbeNs
		}
	}
	ref := cals[len(cals)-1] // the largest: its bytes, encoding and decoding scale to the others
	coderNs, decodeNs := 0.0, t.DecodeNsPerByte*float64(ref.bytes)
	if !timed {
		if coderNs, decodeNs, err = timeCoding(ref); err != nil {
			return nil, nil, err
		}
	}
	var out []choose.Candidate
	for i, p := range ps {
		scale := float64(p.Summary().MemoryBits) / float64(max(1, ref.memBits))
		c := choose.Candidate{Kind: kind, BitsPerKey: bpks[i], FPP: fpps[i], Bytes: int64(float64(ref.bytes) * scale), Deletes: sp.Deletes,
			ProbeNs: interpolate(cals, bpks[i], func(c calibration) float64 { return c.probeNs }), DecodeNs: decodeNs * scale}
		c.BuildNs = interpolate(cals, bpks[i], func(c calibration) float64 { return c.buildNs })*float64(n) + coderNs*scale
		for _, cal := range cals {
			if cal.all && cal.bits == bpks[i] {
				c.BuildNs = coderNs * scale // built: its encoding is left
			}
		}
		out = append(out, c)
	}
	return out, cals, nil
}

// calibrateExact is calibrate of the exact set (payload: exactPayload of
// the keys): built over sub for its
// build and decode times, scaled to all the keys (linear in the keys), and
// for integer keys over all of them for its probes (a table or bitmap of
// all the keys: a table of 4,096 sits in a cache that one of 100,000 does
// not, and its probes were timed 2-3 times too fast); that one takes 8
// bytes a key and a few ms at 100,000 keys, and is the join's filter if
// chosen. A set of strings is timed over sub: its probes are timed low
// (a map of 100,000 strings sits in no cache), its build and encoding
// (which sorts the keys) about right.
func calibrateExact(sp *filters.Spec, keys [][]byte, payload int64, probes probeSample, timings map[filters.Kind]join.AutoTiming) ([]choose.Candidate, []calibration, error) {
	n := len(keys)
	sub := keys[:min(n, exactCalibrationKeys)] // the keys come in no order, from the build's table: a random sample
	small, ok := buildCalibration(sp, sub, 0, len(sub) == n)
	if !ok {
		return nil, nil, nil
	}
	cals := []calibration{small}
	probed := small
	if len(sub) < n && all8(keys) {
		if probed, ok = buildCalibration(sp, keys, 0, true); !ok {
			return nil, nil, nil
		}
		cals = append(cals, probed)
	}
	if err := probes.wait(); err != nil {
		return nil, nil, err
	}
	var probeNs, buildNs, coderNs, decodeNs float64
	if t, ok := timings[filters.Exact]; ok {
		buildNs, decodeNs = t.BuildNsPerKey, t.DecodeNsPerByte*float64(small.bytes)
		if len(probes.keys().asSampled) > 0 { // else nothing to probe: no probe cost
			probeNs = t.ProbeNs
		}
	} else {
		var err error
		if coderNs, decodeNs, err = timeCoding(small); err != nil {
			return nil, nil, err
		}
		probeNs, buildNs = timeProbes(probed.f, probes.keys().of(probed.all)), small.buildNs
	}
	// The exact set's bytes are its keys' (each after its length) plus a
	// header: the header from small, the keys counted.
	c := choose.Candidate{Kind: filters.Exact, Bytes: small.bytes - exactPayload(sub) + payload, ProbeNs: probeNs, Deletes: sp.Deletes}
	scale := float64(n) / float64(max(1, len(sub)))
	c.DecodeNs = decodeNs * scale
	c.BuildNs = (buildNs*float64(len(sub)) + coderNs) * scale
	if cals[len(cals)-1].all {
		c.BuildNs = coderNs * scale
	}
	return []choose.Candidate{c}, cals, nil
}

// buildCalibration builds kind sp over keys at bits a key (0: unsized),
// timing the build; false if the kind refuses them at that size. all says
// the keys are all the join's.
func buildCalibration(sp *filters.Spec, keys [][]byte, bits float64, all bool) (calibration, bool) {
	p, err := sp.Size(max(uint64(len(keys)), 1), filters.Sizing{BitsPerKey: bits})
	if err != nil {
		return calibration{}, false
	}
	now, unlock := lockCPUClock()
	start := now()
	f, p, size, err := sp.Build(p, keys)
	took := now() - start
	unlock()
	if err != nil {
		return calibration{}, false
	}
	c := calibration{sp: sp, f: f, p: p, bytes: size, bits: bits, all: all,
		buildNs: float64(took.Nanoseconds()) / float64(max(1, len(keys)))}
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

// timeProbes returns the ns a probe of f over probes (batches as the
// mappers test them): passes over autoProbeKeys of them, each over the
// next ones (from the first again at the end), at least autoProbeReps and
// autoProbeTime in all, the fastest counting (CPU time, lockCPUClock). 0
// for no probes.
func timeProbes(f filters.Filter, probes [][]byte) float64 {
	if len(probes) == 0 {
		return 0
	}
	bf, _ := f.(filters.BatchFilter)
	out := make([]bool, mapBatch)
	best := math.Inf(1)
	pass := min(len(probes), autoProbeKeys)
	now, unlock := lockCPUClock()
	defer unlock()
	start := now()
	for rep, at := 0, 0; rep < autoProbeReps || now()-start < autoProbeTime; rep++ {
		keys := probes[at : at+pass]
		if at += pass; at+pass > len(probes) {
			at = 0
		}
		t0 := now()
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
		best = min(best, float64((now() - t0).Nanoseconds()))
	}
	return best / float64(pass)
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

// all8 reports whether every key is 8 bytes (an integer key).
func all8(keys [][]byte) bool {
	for _, k := range keys {
		if len(k) != 8 {
			return false
		}
	}
	return true
}

// exactPayload is the bytes the exact set's format gives keys: each key
// after its uvarint length.
func exactPayload(keys [][]byte) int64 {
	var s int64
	for _, k := range keys {
		l := uint64(len(k))
		s += int64(len(k)) + 1
		for l >= 0x80 {
			s++
			l >>= 7
		}
	}
	return s
}
