package local

import (
	"context"
	"fmt"
	"time"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/filters/choose"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// calibrationBitsPerKey is the memory every sized kind is built at once to
// measure its probe and decode times; its other sizes scale the bytes.
const calibrationBitsPerKey = 16

// streamRows stands for the large side's rows when it is a stream and
// cannot be sampled.
const streamRows = 10_000_000

// chooseFilter is Options.Filter auto, after the build: it samples the large
// side for its selectivity and row bytes (sampleSide), builds each kind of
// choose.Kinds once over the keys to time its probes on the sampled keys and
// its decoding, ranks every kind and size with choose.Rank, and sets
// x.opt.Filter and x.opt.Sizing to the cheapest that fits the budget and the
// need for deletes. O(kinds x (n + sample)).
func (x *execution) chooseFilter(ctx context.Context, keys [][]byte) (*join.AutoReport, error) {
	rep := &join.AutoReport{Budget: x.opt.BroadcastBudget, NeedDeletes: x.opt.NeedDeletes, ShuffleNsPerByte: choose.DefaultConstants.ShuffleNsPerByte}
	n := uint64(len(keys))
	exact, err := filters.Build(filters.Exact, keys, filters.Sizing{})
	if err != nil {
		return nil, err
	}
	// The sample: the large side's keys and their rows.
	w := choose.Workload{Mappers: x.opt.Mappers, Copies: x.opt.Mappers, Budget: x.opt.BroadcastBudget, NeedDeletes: x.opt.NeedDeletes,
		KeyBytes: float64(x.sh.AddedBytes())}
	var probes [][]byte
	if x.input.in.Regular {
		smp, err := sampleSide(ctx, x.input, x.joinSpec, "input sample")
		if err != nil {
			return nil, err
		}
		rep.SampledRows, rep.EstimatedRows = smp.rows, smp.estRows
		var hit, keyBytes int64
		for k, c := range smp.counts {
			if exact.Filter.Contains([]byte(k)) {
				hit += c
			}
			keyBytes += c * int64(len(k))
			if len(probes) < 1<<16 {
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
		probes = keys[:min(len(keys), 1<<16)]
	}
	w.Selectivity = rep.Selectivity
	if w.Copies = broadcastCopies(x.opt.Mappers, exact.ResidentBytes()); w.Copies < 1 {
		w.Copies = 1
	}

	var cands []choose.Candidate
	for _, kind := range choose.Kinds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch kind {
		case filters.None:
			cands = append(cands, choose.Candidate{Kind: filters.None, FPP: 1, Deletes: true})
			continue
		case filters.Exact:
			c, err := measure(exact, probes)
			if err != nil {
				return nil, err
			}
			cands = append(cands, c)
			continue
		}
		if n == 0 {
			continue // a sized kind cannot be sized for no keys
		}
		b, err := filters.Build(kind, keys, filters.Sizing{BitsPerKey: calibrationBitsPerKey})
		if err != nil {
			continue // the kind refuses this key set at that size: not a candidate
		}
		base, err := measure(b, probes)
		if err != nil {
			return nil, err
		}
		ps, bpks, err := choose.Sized(kind, n)
		if err != nil {
			return nil, err
		}
		for i, p := range ps {
			c := base
			scale := float64(p.MemoryBits) / float64(max(1, b.MemoryBits))
			c.BitsPerKey, c.FPP = bpks[i], b.Spec.FPP(p, n)
			c.Bytes = int64(float64(base.Bytes) * scale)
			c.DecodeNs = base.DecodeNs * scale
			cands = append(cands, c)
		}
	}
	ranked := choose.Rank(w, choose.DefaultConstants, cands)
	for _, ch := range ranked {
		rep.Candidates = append(rep.Candidates, join.AutoCandidate{Kind: ch.Kind, BitsPerKey: ch.BitsPerKey, BroadcastBytes: ch.Bytes, FPPFormula: ch.FPP,
			ProbeNs: ch.ProbeNs, PredictedShuffleBytes: ch.ShuffleBytes, PredictedProbeMs: ch.ProbeTotalNs / 1e6, PredictedCostMs: ch.CostNs / 1e6, Excluded: ch.Excluded})
	}
	if len(ranked) == 0 || ranked[0].Excluded != "" {
		return nil, fmt.Errorf("%w: filter auto: no kind fits a broadcast budget of %d bytes with these keys (%d distinct)%s", join.ErrOptions, x.opt.BroadcastBudget, n, map[bool]string{true: " and deletes", false: ""}[x.opt.NeedDeletes])
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
	return rep, nil
}

// measure builds nothing: it times b's probes over the probe keys (batches
// as the mappers test them, repeated to at least 2 ms) and one decode of its
// broadcast bytes.
func measure(b *filters.Built, probes [][]byte) (choose.Candidate, error) {
	wire, err := b.Marshal()
	if err != nil {
		return choose.Candidate{}, err
	}
	start := time.Now()
	if _, err := b.Spec.Decode(wire); err != nil {
		return choose.Candidate{}, err
	}
	decode := time.Since(start)
	bf, _ := b.Filter.(filters.BatchFilter)
	out := make([]bool, mapBatch)
	var done int64
	start = time.Now()
	for done == 0 || time.Since(start) < 2*time.Millisecond {
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
	return choose.Candidate{Kind: b.Kind(), Bytes: int64(len(wire)), FPP: b.FPP, ProbeNs: probe, DecodeNs: float64(decode.Nanoseconds()), Deletes: b.Spec.Deletes}, nil
}
