package local

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/filters/choose"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// calibrationBitsPerKey is the memory every sized kind is built at once to
// measure its probe and decode times; its other sizes scale the bytes.
const calibrationBitsPerKey = 16

// The sample of auto: autoSampleParts pieces of autoSamplePartRows rows
// (16,384 rows: a selectivity within 0.4 points at 4 sd, and a tenth of the
// skew sampler's time). 16 pieces, not 8: the generated NBER citations are
// not in random order, and 8 pieces of 2,048 rows put the selectivity at
// 1.7% (1.9% in the file; the shuffle predicted 6.3% low), 16 at 2.0%.
// Each kind is built over at most autoCalibrationKeys of the keys (the
// exact set over exactCalibrationKeys) and its probes timed for at least
// autoProbeTime over autoProbeKeys of the sampled rows. At 8,192 keys
// against 16,384 the decision took 12 ms against 14 (2 cores, 100,000 keys).
const (
	autoSampleParts      = 16
	autoSamplePartRows   = 1024
	autoCalibrationKeys  = 1 << 13
	autoProbeTime        = 150 * time.Microsecond
	exactCalibrationKeys = 1 << 12
	autoProbeKeys        = 1 << 12 // of the sampled rows' keys, the first in the shuffled order
)

// streamRows stands for the large side's rows when it is a stream and
// cannot be sampled.
const streamRows = 10_000_000

// chooseFilter is Options.Filter auto, after the build. While it reads a
// sample of the large side (its selectivity, row bytes and parse time), it
// builds each kind of choose.Kinds over at most autoCalibrationKeys of the
// keys (a stride through them); it then times each kind's probes on the
// sampled rows (their members standing in for the sample's) and its
// decoding, ranks every kind and size with choose.Rank, and sets
// x.opt.Filter and x.opt.Sizing to the cheapest that fits the budget and the
// need for deletes. It returns the filter chosen when the calibration built
// it already over all the keys (else nil: build it). O(n + kinds x
// (autoCalibrationKeys + sample)); the kinds are built and timed one a core.
//
// Calibrating on a subset keeps the decision's cost near constant (13-21
// ms on 2 cores at 100,000 keys, bench/results/auto.md, where building every
// kind over all of them cost 40-90 ms). What it misses: a filter over all the keys may not sit in
// the cache the subset's does, so at millions of keys the probe times are
// low for every kind (docs/auto.md).
func (x *execution) chooseFilter(ctx context.Context, keys [][]byte, index *keySet) (*join.AutoReport, *filters.Built, error) {
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

	// The sample, read while the kinds are built.
	var smp *skewSample
	var smpErr error
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		if x.input.Regular() {
			smp, smpErr = x.sampleSideN(ctx, x.input, x.joinSpec, "input sample", sampleShape{parts: autoSampleParts, partRows: autoSamplePartRows, inOrder: true})
		}
	}()
	var probes [][]byte
	w := choose.Workload{Mappers: x.opt.Mappers, Copies: x.opt.Mappers, Budget: x.opt.BroadcastBudget, NeedDeletes: x.opt.NeedDeletes,
		KeyBytes: float64(x.sh.AddedBytes())}
	ready := func() error {
		<-sampled
		if smpErr != nil {
			return smpErr
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
	builts := make([]*filters.Built, len(choose.Kinds)) // each kind as calibrated
	errs := make([]error, len(choose.Kinds))
	var wg sync.WaitGroup
	for i, kind := range choose.Kinds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i], builts[i], errs[i] = calibrate(ctx, kind, keys, sub, probeSample{wait: waitSample, keys: func() [][]byte { return probes }}, x.opt.AutoTimings)
		}()
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
			ProbeNs: ch.ProbeNs, PredictedShuffleBytes: ch.ShuffleBytes, PredictedProbeMs: ch.ProbeTotalNs / 1e6, PredictedMapMs: ch.MapNs / 1e6,
			PredictedCostMs: ch.CostNs / 1e6, Excluded: ch.Excluded})
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
	// exact set, or a kind at the calibration's size): it is that filter,
	// not built again.
	for i, b := range builts {
		if b != nil && choose.Kinds[i] == rep.Chosen.Kind && b.N == n && (b.Kind() == filters.Exact || rep.Chosen.BitsPerKey == calibrationBitsPerKey) {
			return rep, b, nil
		}
	}
	return rep, nil, nil
}

// autoProbes fills rep and w from the sample (nil or empty: the large side
// is a stream or has no rows) and returns the keys to time probes on: the
// sampled rows' keys in a shuffled order, each sampled key that is a key
// replaced by one of sub (the keys the kinds were built over) so that the
// probes hit as often as the rows will. O(sample) (O(n) more without the
// build's key set, index).
func (x *execution) autoProbes(rep *join.AutoReport, w *choose.Workload, smp *skewSample, keys, sub [][]byte, index *keySet) [][]byte {
	if smp == nil || smp.rows == 0 {
		rep.Note = fmt.Sprintf("no sample of the large side (a stream, or no rows): its rows taken as %d, none of them a key, and a row as 64 bytes", streamRows)
		w.Rows, w.RowBytes = streamRows, 64
		// Probes that miss: the keys lengthened by a byte.
		probes := make([][]byte, len(sub))
		for i, k := range sub {
			probes[i] = append(append(make([]byte, 0, len(k)+1), k...), 0xff)
		}
		return probes
	}
	rep.SampledRows, rep.EstimatedRows = smp.rows, smp.estRows
	// index: the build's set, a lookup a sampled key
	if index == nil {
		index = &keySet{}
		for _, k := range keys {
			index.add(k)
		}
	}
	var hit int64
	keyBytes := int64(len(smp.keys))
	probes := make([][]byte, 0, len(smp.ends))
	j, lo := 0, 0
	for _, e := range smp.ends {
		p := smp.keys[lo:e:e]
		lo = e
		if index.has(string(p)) {
			hit++
			if len(sub) < len(keys) {
				p = sub[j%len(sub)]
				j++
			}
		}
		probes = append(probes, p)
	}
	// The sample's rows come in the pieces' order, each piece's in the
	// file's (sorted, or grouped by key, in many files), and the map
	// phase reads the pieces at once: a random autoProbeKeys of them, in
	// random order (a fixed seed: the probes are a function of the
	// sample), by the first steps of a Fisher-Yates shuffle.
	rng := rand.New(rand.NewPCG(1, 2))
	take := min(len(probes), autoProbeKeys)
	for i := range take {
		k := i + rng.IntN(len(probes)-i)
		probes[i], probes[k] = probes[k], probes[i]
	}
	probes = probes[:take]
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
	return probes
}

// probeSample is the large side's sample the kinds are timed on: wait
// blocks until it is read (giving the caller's turn up meanwhile), then
// keys returns its keys.
type probeSample struct {
	wait func() error
	keys func() [][]byte
}

// calibrate returns the candidates of one kind: none as it is, the others
// built over sub (the exact set of 8-byte keys over all the keys: its form,
// bitmap or table, depends on all of them, and it is cheap), timed on the
// probes once probes.wait returns, their bytes and decode time scaled to all
// the keys; a sized kind is built at calibrationBitsPerKey and its other
// sizes scaled by memory (choose.Sized). A kind that refuses the keys at
// that size gives no candidate. It returns the filter it built.
func calibrate(ctx context.Context, kind filters.Kind, keys, sub [][]byte, probes probeSample, timings map[filters.Kind]join.AutoTiming) ([]choose.Candidate, *filters.Built, error) {
	measure := func(b *filters.Built, probes [][]byte, decode bool) (choose.Candidate, error) {
		return measure(b, probes, decode, timings)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	n := uint64(len(keys))
	if kind == filters.None {
		return []choose.Candidate{{Kind: filters.None, FPP: 1, Deletes: true}}, nil, nil
	}
	if kind == filters.Exact {
		// The set of at most exactCalibrationKeys of the keys (they come in
		// no order, from the build's map: a random sample) times the
		// decoding, scaled to all of them (linear in the keys; encoding a
		// set of strings sorts them), and a string key's probes.
		sub := keys[:min(len(keys), exactCalibrationKeys)]
		b, err := filters.Build(filters.Exact, sub, filters.Sizing{})
		if err != nil {
			return nil, nil, err
		}
		// Integer keys' set is built over all of them for its probes (a
		// table or bitmap of all the keys: a table of 4,096 sits in a cache
		// that one of 100,000 does not, and its probes were timed 2-3 times
		// too fast); it takes 8 bytes a key and a few ms at 100,000 keys.
		probed := b
		if len(sub) < len(keys) && all8(keys) {
			if probed, err = filters.Build(filters.Exact, keys, filters.Sizing{}); err != nil {
				return nil, nil, err
			}
		}
		if err := probes.wait(); err != nil {
			return nil, nil, err
		}
		c, err := measure(b, probes.keys(), true)
		if err != nil {
			return nil, nil, err
		}
		if probed != b {
			pc, err := measure(probed, probes.keys(), false)
			if err != nil {
				return nil, nil, err
			}
			c.ProbeNs = pc.ProbeNs
		}
		// The exact set's bytes are its keys' (each after its length)
		// plus a header: the header from b, the keys counted.
		c.Bytes = b.SerializedBytes - exactPayload(sub) + exactPayload(keys)
		c.DecodeNs *= float64(len(keys)) / float64(max(1, len(sub)))
		return []choose.Candidate{c}, probed, nil
	}
	if n == 0 {
		return nil, nil, nil // a sized kind cannot be sized for no keys
	}
	b, err := filters.Build(kind, sub, filters.Sizing{BitsPerKey: calibrationBitsPerKey})
	if err != nil {
		return nil, nil, nil // the kind refuses this key set at that size: not a candidate
	}
	ps, bpks, fpps, err := choose.Sized(kind, n) // while the sample is read
	if err != nil {
		return nil, nil, err
	}
	if err := probes.wait(); err != nil {
		return nil, nil, err
	}
	base, err := measure(b, probes.keys(), true)
	if err != nil {
		return nil, nil, err
	}
	var out []choose.Candidate
	for i, p := range ps {
		c := base
		scale := float64(p.Summary().MemoryBits) / float64(max(1, b.MemoryBits))
		c.BitsPerKey, c.FPP = bpks[i], fpps[i]
		c.Bytes = int64(float64(base.Bytes) * scale)
		c.DecodeNs = base.DecodeNs * scale
		out = append(out, c)
	}
	return out, b, nil
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

// measure times b's probes over the probe keys (batches as the mappers
// test them, repeated to at least autoProbeTime) and, if decode, one decode
// of its broadcast bytes; its bytes are b's serialized size. The times of a
// kind in timings are taken from there instead (Options.AutoTimings).
func measure(b *filters.Built, probes [][]byte, decode bool, timings map[filters.Kind]join.AutoTiming) (choose.Candidate, error) {
	if t, ok := timings[b.Kind()]; ok {
		c := choose.Candidate{Kind: b.Kind(), Bytes: b.SerializedBytes, FPP: b.FPP, Deletes: b.Spec.Deletes}
		if len(probes) > 0 {
			c.ProbeNs = t.ProbeNs
		}
		if decode {
			c.DecodeNs = t.DecodeNsPerByte * float64(b.SerializedBytes)
		}
		return c, nil
	}
	var decodeNs float64
	if decode {
		wire, err := b.Marshal()
		if err != nil {
			return choose.Candidate{}, err
		}
		start := time.Now()
		if _, err := b.Spec.Decode(wire); err != nil {
			return choose.Candidate{}, err
		}
		decodeNs = float64(time.Since(start).Nanoseconds())
	}
	if len(probes) == 0 { // nothing to time: no probe cost
		return choose.Candidate{Kind: b.Kind(), Bytes: b.SerializedBytes, FPP: b.FPP, DecodeNs: decodeNs, Deletes: b.Spec.Deletes}, nil
	}
	bf, _ := b.Filter.(filters.BatchFilter)
	out := make([]bool, mapBatch)
	var done int64
	start := time.Now()
	for done == 0 || time.Since(start) < autoProbeTime {
		for lo := 0; lo < len(probes); lo += mapBatch {
			batch := probes[lo:min(len(probes), lo+mapBatch)]
			if bf != nil {
				bf.ContainsBatch(batch, out)
			} else {
				for i, k := range batch {
					out[i] = b.Filter.Contains(k)
				}
			}
		}
		done += int64(len(probes))
	}
	probe := float64(time.Since(start).Nanoseconds()) / float64(max(1, done))
	return choose.Candidate{Kind: b.Kind(), Bytes: b.SerializedBytes, FPP: b.FPP, ProbeNs: probe, DecodeNs: decodeNs, Deletes: b.Spec.Deletes}, nil
}
