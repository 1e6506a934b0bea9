package local

import (
	"context"
	"fmt"
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
// skew sampler's time), and at most autoProbes of its distinct keys probed
// for at least autoProbeTime a kind.
const (
	autoSampleParts    = 16
	autoSamplePartRows = 1024
	autoProbes         = 1 << 14
	autoProbeTime      = 500 * time.Microsecond
)

// streamRows stands for the large side's rows when it is a stream and
// cannot be sampled.
const streamRows = 10_000_000

// chooseFilter is Options.Filter auto, after the build: it samples the large
// side for its selectivity and row bytes (sampleSide), builds each kind of
// choose.Kinds once over the keys to time its probes on the sampled keys and
// its decoding, ranks every kind and size with choose.Rank, and sets
// x.opt.Filter and x.opt.Sizing to the cheapest that fits the budget and the
// need for deletes. It returns the filter chosen when it was built already
// by the calibration (else nil: build it). O(kinds x (n + sample)).
func (x *execution) chooseFilter(ctx context.Context, keys [][]byte) (*join.AutoReport, *filters.Built, error) {
	rep := &join.AutoReport{Budget: x.opt.BroadcastBudget, NeedDeletes: x.opt.NeedDeletes, ShuffleNsPerByte: choose.DefaultConstants.ShuffleNsPerByte}
	n := uint64(len(keys))
	exact, err := filters.Build(filters.Exact, keys, filters.Sizing{})
	if err != nil {
		return nil, nil, err
	}
	// The exact set's decode time, from a set of at most autoProbes of the
	// keys, scaled by the key count (encoding the whole set sorts its keys,
	// which would cost more than the rest of the calibration; decoding is
	// linear in the keys).
	exactNs, err := exactDecodeNs(keys)
	if err != nil {
		return nil, nil, err
	}
	// The sample: the large side's keys and their rows.
	w := choose.Workload{Mappers: x.opt.Mappers, Copies: x.opt.Mappers, Budget: x.opt.BroadcastBudget, NeedDeletes: x.opt.NeedDeletes,
		KeyBytes: float64(x.sh.AddedBytes())}
	var probes [][]byte
	if x.input.in.Regular {
		smp, err := sampleSideN(ctx, x.input, x.joinSpec, "input sample", autoSampleParts, autoSamplePartRows)
		if err != nil {
			return nil, nil, err
		}
		rep.SampledRows, rep.EstimatedRows = smp.rows, smp.estRows
		var hit, keyBytes int64
		for k, c := range smp.counts {
			if exact.Filter.Contains([]byte(k)) {
				hit += c
			}
			keyBytes += c * int64(len(k))
			if len(probes) < autoProbes {
				probes = append(probes, []byte(k))
			}
		}
		if smp.rows > 0 {
			rep.Selectivity = float64(hit) / float64(smp.rows)
			// shuffle.RecordBytes of a mean row: its raw bytes (the
			// sample's bytes count each line's end) and key, plus a
			// record's fixed cost.
			w.RowBytes = float64(smp.bytes-smp.rows+keyBytes)/float64(smp.rows) + float64(shuffle.RecordBytes(shuffle.Record{}))
		}
		w.Rows = smp.estRows
	}
	if len(probes) == 0 {
		rep.Note = fmt.Sprintf("no sample of the large side (a stream, or no rows): its rows taken as %d, none of them a key, and a row as 64 bytes", streamRows)
		w.Rows, w.RowBytes = streamRows, 64
		probes = keys[:min(len(keys), autoProbes)]
	}
	w.Selectivity = rep.Selectivity
	w.Copies = broadcastCopies(x.opt.Mappers, exact.ResidentBytes())

	// Each kind is built and timed by its own goroutine, at most one a core
	// (or a mapper) at a time, so that timings do not share a core.
	results := make([][]choose.Candidate, len(choose.Kinds))
	builts := make([]*filters.Built, len(choose.Kinds)) // each kind as calibrated
	errs := make([]error, len(choose.Kinds))
	sem := make(chan struct{}, max(1, min(x.opt.Mappers, runtime.NumCPU())))
	var wg sync.WaitGroup
	for i, kind := range choose.Kinds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i], builts[i], errs[i] = calibrate(ctx, kind, keys, exact, exactNs, probes)
		}()
	}
	wg.Wait()
	var cands []choose.Candidate
	for i := range results {
		if errs[i] != nil {
			return nil, nil, errs[i]
		}
		cands = append(cands, results[i]...)
	}
	ranked := choose.Rank(w, choose.DefaultConstants, cands)
	for _, ch := range ranked {
		rep.Candidates = append(rep.Candidates, join.AutoCandidate{Kind: ch.Kind, BitsPerKey: ch.BitsPerKey, BroadcastBytes: ch.Bytes, FPPFormula: ch.FPP,
			ProbeNs: ch.ProbeNs, PredictedShuffleBytes: ch.ShuffleBytes, PredictedProbeMs: ch.ProbeTotalNs / 1e6, PredictedCostMs: ch.CostNs / 1e6, Excluded: ch.Excluded})
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
	// The filter chosen may be one calibrated already (the exact set, or a
	// kind at the calibration's size): it is that filter, not built again.
	for i, b := range builts {
		if b != nil && choose.Kinds[i] == rep.Chosen.Kind && (b.Kind() == filters.Exact || rep.Chosen.BitsPerKey == calibrationBitsPerKey) {
			return rep, b, nil
		}
	}
	return rep, nil, nil
}

// exactDecodeNs times decoding an exact set of at most autoProbes of keys
// and scales it to all of them.
func exactDecodeNs(keys [][]byte) (float64, error) {
	sub := keys[:min(len(keys), autoProbes)]
	if len(sub) == 0 {
		return 0, nil
	}
	b, err := filters.Build(filters.Exact, sub, filters.Sizing{})
	if err != nil {
		return 0, err
	}
	wire, err := b.Marshal()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if _, err := b.Spec.Decode(wire); err != nil {
		return 0, err
	}
	return float64(time.Since(start).Nanoseconds()) * float64(len(keys)) / float64(len(sub)), nil
}

// calibrate returns the candidates of one kind: none as it is, the exact
// set as built, a sized kind built once at calibrationBitsPerKey and timed,
// its other sizes scaled (choose.Sized). A kind that refuses the key set at
// that size gives none.
func calibrate(ctx context.Context, kind filters.Kind, keys [][]byte, exact *filters.Built, exactNs float64, probes [][]byte) ([]choose.Candidate, *filters.Built, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	n := uint64(len(keys))
	switch kind {
	case filters.None:
		return []choose.Candidate{{Kind: filters.None, FPP: 1, Deletes: true}}, nil, nil
	case filters.Exact:
		c, err := measure(exact, probes, exactNs)
		return []choose.Candidate{c}, exact, err
	}
	if n == 0 {
		return nil, nil, nil // a sized kind cannot be sized for no keys
	}
	b, err := filters.Build(kind, keys, filters.Sizing{BitsPerKey: calibrationBitsPerKey})
	if err != nil {
		return nil, nil, nil // the kind refuses this key set at that size: not a candidate
	}
	base, err := measure(b, probes, -1)
	if err != nil {
		return nil, nil, err
	}
	ps, bpks, err := choose.Sized(kind, n)
	if err != nil {
		return nil, nil, err
	}
	var out []choose.Candidate
	for i, p := range ps {
		c := base
		scale := float64(p.MemoryBits) / float64(max(1, b.MemoryBits))
		c.BitsPerKey, c.FPP = bpks[i], b.Spec.FPP(p, n)
		c.Bytes = int64(float64(base.Bytes) * scale)
		c.DecodeNs = base.DecodeNs * scale
		out = append(out, c)
	}
	return out, b, nil
}

// measure builds nothing: it times b's probes over the probe keys (batches
// as the mappers test them, repeated to at least autoProbeTime) and, when
// decodeNs < 0, one decode of its broadcast bytes (else decodeNs is the
// decode time). Its bytes are b's serialized size.
func measure(b *filters.Built, probes [][]byte, decodeNs float64) (choose.Candidate, error) {
	if decodeNs < 0 {
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
