// Package choose is the cost model behind `join run --filter auto`: given a
// join's workload (the large side's rows and selectivity, the bytes a shipped
// row costs, the mappers, a broadcast budget, whether deletes are needed) and
// candidate filters measured on this machine (their broadcast bytes, formula
// false positive rate, build, probe and decode times), it ranks the
// candidates, "none" included, by the join time they are predicted to cost.
//
// The model, per candidate, in wall nanoseconds on the machine the constants
// were measured on:
//
//	build     = building it over all the keys, one core (0 if built already)
//	broadcast = decode ns of one copy * copies / mappers
//	probe     = rows * probe ns / mappers
//	shuffle   = passed rows * Constants.ShuffleNsPerRecord
//	passed rows   = rows * (s + (1 - s) * FP)
//	shuffle bytes = key-side bytes + passed rows * bytes a row
//
// where s is the share of large-side rows whose key is a key (they pass every
// filter) and FP the candidate's formula false positive rate. The reading and
// parsing of both sides cost the same for every candidate and are left out
// of the ranking; the map phase's time is predicted beside it:
//
//	map = rows * (parse ns + probe ns) / mappers + passed rows * Constants.MapNsPerRecord
//
// Pure functions, safe for concurrent use.
package choose

import (
	"fmt"
	"math"
	"sort"

	"github.com/acbfjoin/acbfjoin/filters"
)

// Workload is what the join's data says.
type Workload struct {
	Rows        float64 // large-side rows (estimated from a sample when the file is large)
	Selectivity float64 // share of large-side rows whose key is a key, 0..1
	RowBytes    float64 // shuffle bytes of one large-side row (shuffle.RecordBytes, mean)
	ParseNs     float64 // parsing and keying one large-side row, one core (from the sample)
	KeyBytes    float64 // shuffle bytes of the key side's rows, which every candidate ships
	FixedBytes  float64 // shuffle bytes beyond the records' (its streams' and batches' own: shuffle.FixedBytes), the same for every candidate
	Mappers     int
	Copies      int   // filter copies the mappers decode (one each, or fewer shared)
	Budget      int64 // most broadcast bytes a copy may take; 0: no bound
	NeedDeletes bool  // only kinds that delete keys (filters.Spec.Deletes)
}

// Constants are the machine's costs the candidates do not measure.
type Constants struct {
	// ShuffleNsPerRecord is the wall time a large-side row that passes the
	// filter costs, on all cores, from the map phase's write to the
	// reducers' join (see DefaultConstants). A cost per row, not per byte:
	// over rows of 40 to 75 bytes the measured cost a row stays within a
	// quarter while the cost a byte varies by half (bench/results/auto.md,
	// "the constants").
	ShuffleNsPerRecord float64
	// MapNsPerRecord is the part of ShuffleNsPerRecord spent in the map
	// phase (encoding and writing the row), for the map time's prediction.
	MapNsPerRecord float64
}

// DefaultConstants are measured on the 2-core machine of this repository,
// from bench/results/intel-xeon/auto.md's constants (no filter against the
// exact set, the difference of their times over the rows only the first
// passes, the median over the grid's shapes and selectivities up to 0.2;
// commit df00f04, Intel Xeon): 51.9 ns a row of the whole join, 32.9 of
// the map phase. The NBER join agrees: with no filter and the exact set,
// 3 alternated runs each (`join run --filter none` and `exact`, 65,771
// keys, issue 43's session), (total none - total exact) / 16,209,947 rows
// = 48, 55 and 60 ns, and 28, 33 and 38 on the map phase. Until issue 43
// they were 102.5 (docs/results/table1.md's runs, before issues 43-45 made
// the shuffle and the map twice as fast) and 95: auto chose a filter at
// selectivity 0.9 where no filter was 2-5% faster, and predicted the map
// phase 1.3-2.3 times too long.
//
// They are the reference machine's: Scaled makes them another's, by how
// much slower than the reference it hashes (SpeedFactor).
var DefaultConstants = Constants{ShuffleNsPerRecord: 52, MapNsPerRecord: 33}

// ReferenceHashNs is what one integer key's MurmurHash3 in portable Go
// (hashing.Sum8 of 256 keys in a row, as BenchmarkSum8Ints/portable times
// it) took on the machine DefaultConstants were measured on: 2.67-2.89 ns
// on the Intel Xeon (model 167) in the bench runs of issue 43
// (bench/join-tried.md, bench/results/cpu-paths.md), 2.8 taken.
const ReferenceHashNs = 2.8

// SpeedFactor is how many times slower than the reference machine this
// one is, from the time hashNs it takes for what ReferenceHashNs timed,
// within 0.5 and 4 (a measurement disturbed by other work must not make
// the model absurd). A row that passes the filter costs encoding, copying
// and a hash join, all the processor's work as the hash is: on an AMD EPYC
// (family 25, model 1) the hash took 5.0-6.6 ns, 2.1x the reference
// (bench/results/cpu-paths.md), and a passed row 110 ns of the whole join
// and 64 of the map phase, 2.1x and 1.9x DefaultConstants
// (bench/results/auto.md, its constants table, before Scaled). O(1).
func SpeedFactor(hashNs float64) float64 {
	if !(hashNs > 0) { // NaN too
		return 1
	}
	return min(4, max(0.5, hashNs/ReferenceHashNs))
}

// Scaled is c on a machine f times slower than the reference (SpeedFactor).
func (c Constants) Scaled(f float64) Constants {
	return Constants{ShuffleNsPerRecord: c.ShuffleNsPerRecord * f, MapNsPerRecord: c.MapNsPerRecord * f}
}

// Candidate is one filter, sized and measured.
type Candidate struct {
	Kind       filters.Kind
	BitsPerKey float64 // as sized (0 for none and exact)
	Bytes      int64   // broadcast bytes of one copy
	FPP        float64 // formula false positive rate (0 exact, 1 none)
	ProbeNs    float64 // one probe, measured on the join's sampled keys
	DecodeNs   float64 // decoding one copy
	// BuildNs is building the filter over all the keys, on one core
	// before the broadcast: 0 for a filter the measuring built already.
	// From 3 ms (a Bloom filter of 100,000 keys) to 20 (a cuckoo
	// filter), against joins of 100 ms and more, it decides between
	// kinds whose probes differ by a few ns.
	BuildNs float64
	Deletes bool
}

// Choice is a candidate with its predicted costs; Excluded says why it cannot
// be chosen ("" if it can).
type Choice struct {
	Candidate
	ShuffleBytes float64 // predicted, both sides
	PassedRows   float64 // predicted large-side rows through the filter
	BroadcastNs  float64
	ProbeTotalNs float64 // the map phase's probes, wall
	ShuffleNs    float64
	CostNs       float64 // build + broadcast + probes + shuffle: what Rank orders by
	MapNs        float64 // the map phase, wall: parse, probes and writing the rows passed
	Excluded     string
}

// Rank returns the candidates' choices, cheapest first, the excluded ones
// (over the budget, or not deleting when deletes are needed) last. O(c log c).
func Rank(w Workload, c Constants, cands []Candidate) []Choice {
	mappers := float64(max(1, w.Mappers))
	copies := float64(max(1, w.Copies))
	s := min(1, max(0, w.Selectivity))
	out := make([]Choice, 0, len(cands))
	for _, cd := range cands {
		ch := Choice{Candidate: cd}
		fp := min(1, max(0, cd.FPP))
		ch.PassedRows = w.Rows * (s + (1-s)*fp)
		ch.ShuffleBytes = w.KeyBytes + w.FixedBytes + ch.PassedRows*w.RowBytes
		ch.BroadcastNs = cd.DecodeNs * copies / mappers
		ch.ProbeTotalNs = w.Rows * cd.ProbeNs / mappers
		ch.ShuffleNs = ch.PassedRows * c.ShuffleNsPerRecord
		ch.CostNs = cd.BuildNs + ch.BroadcastNs + ch.ProbeTotalNs + ch.ShuffleNs
		ch.MapNs = w.Rows*w.ParseNs/mappers + ch.ProbeTotalNs + ch.PassedRows*c.MapNsPerRecord
		switch {
		case w.Budget > 0 && cd.Bytes > w.Budget:
			ch.Excluded = fmt.Sprintf("%d bytes, over the broadcast budget of %d", cd.Bytes, w.Budget)
		case w.NeedDeletes && !cd.Deletes && cd.Kind != filters.None:
			ch.Excluded = "cannot delete keys"
		}
		out = append(out, ch)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i].Excluded == "") != (out[j].Excluded == "") {
			return out[i].Excluded == ""
		}
		return out[i].CostNs < out[j].CostNs || out[i].CostNs == out[j].CostNs && out[i].Bytes < out[j].Bytes
	})
	return out
}

// BitsPerKey are the memories Candidates sizes each sized kind at.
var BitsPerKey = []float64{4, 6, 8, 10, 12, 16, 20, 24, 32}

// Kinds are the kinds auto considers: none, the exact set, and the filters
// worth their memory for a key set known in advance (scalable grows for an
// unknown one; acbf1..3 are ACBF layouts the optimal one beats at equal
// memory).
var Kinds = []filters.Kind{filters.None, filters.Exact, filters.Bloom, filters.Blocked, filters.CBF, filters.ACBF, filters.Cuckoo, filters.Fuse}

// Sized returns, for a sized kind and n keys, the sizings of BitsPerKey that
// the kind accepts, with their parameters and formula rates (no filter is
// built). Sizes a kind refuses (a cuckoo filter below its least bits, an
// ACBF whose counters do not fit) are left out, and so are those it takes
// more than their bits for (a fuse filter below its least, 9 bits a key at
// 8-bit fingerprints: it takes the least) or the same parameters as a
// smaller size (a fuse filter has three sizes): each candidate is a
// distinct filter within its bits a key. The blocked filter's rates
// come from blocked.FPPWhole (a table within 1% of its formula, which costs
// a millisecond a size) where it holds; the others' formulas take
// microseconds.
func Sized(kind filters.Kind, n uint64) (ps []filters.Params, bpks, fpps []float64, err error) {
	sp, err := filters.Lookup(string(kind))
	if err != nil {
		return nil, nil, nil, err
	}
	for _, b := range BitsPerKey {
		p, err := sp.Size(n, filters.Sizing{BitsPerKey: b})
		// (a blocked filter rounds up to whole 512-bit blocks)
		if err != nil || float64(p.Summary().MemoryBits) > b*float64(n)+512 || len(ps) > 0 && p.String() == ps[len(ps)-1].String() {
			continue
		}
		f := sp.EstimateFPP(p, n) // the blocked kind's table: its formula costs a millisecond a size
		if math.IsNaN(f) {
			continue
		}
		ps, bpks, fpps = append(ps, p), append(bpks, b), append(fpps, f)
	}
	return ps, bpks, fpps, nil
}
