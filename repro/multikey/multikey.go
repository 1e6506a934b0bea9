package multikey

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bits-and-blooms/bloom/v3"

	"github.com/acbfjoin/acbfjoin/datasets/triples"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/mdbf"
	"github.com/acbfjoin/acbfjoin/tuple"
)

// The experiments use the bloom kind's structure (a bits-and-blooms/bloom/v3
// filter) with exactly m bits and k hashes: the registry sizes a Bloom
// filter from bits per key or a rate (in multiples of 4 bits), so the
// experiments make it with bloom.New(m, k), what the kind builds, with the
// same probes (bloomColumn); Sequential, which needs each value's first
// probe alone (the printed contain), uses the library the same way.

// ctxEvery is the rows or queries between checks of the context.
const ctxEvery = 1 << 14

// maxBits bounds a column's bits in the experiments (filters.MaxFilterBytes).
const maxBits = 8 * filters.MaxFilterBytes

// bloomColumn is a Bloom filter of exactly m bits and k hashes over keys:
// bloom.New(m, k), what the bloom kind builds (its sizing takes bits in
// multiples of 4, the budget of a CBF's counters, which the experiments'
// sizes are not).
func bloomColumn(m uint64, k int, keys [][]byte) (filters.Filter, error) {
	f := bloom.New(uint(m), uint(k))
	for _, key := range keys {
		f.Add(key)
	}
	return bloomColumnFilter{f}, nil
}

// bloomColumnFilter adapts bits-and-blooms' Test to Contains.
type bloomColumnFilter struct{ f *bloom.BloomFilter }

func (b bloomColumnFilter) Contains(key []byte) bool { return b.f.Test(key) }

// fillFPP is the rate of a bloomColumn from its contents, (ones/m)^k (the
// bloom kind's).
func fillFPP(f filters.Filter) float64 {
	b := f.(bloomColumnFilter).f
	return math.Pow(float64(b.BitSet().Count())/float64(b.Cap()), float64(b.K()))
}

// checkShape checks the sizes shared by the experiments.
func checkShape(rows int, m uint64, k, dims int) error {
	switch {
	case rows < 1:
		return fmt.Errorf("mdbf: %d rows, want at least 1", rows)
	case m < 1 || m > maxBits:
		return fmt.Errorf("mdbf: %d bits a column, want 1 to %d", m, uint64(maxBits))
	case k < 1 || k > filters.MaxK:
		return fmt.Errorf("mdbf: k = %d, want 1 to %d", k, filters.MaxK)
	case dims < 1 || dims > mdbf.MaxColumns:
		return fmt.Errorf("mdbf: %d columns, want 1 to %d", dims, mdbf.MaxColumns)
	}
	return nil
}

// SequentialOptions configures Sequential. The seed's: Rows 10^6, Bits 10^7,
// K 3, Dims 3, Domain 0.
type SequentialOptions struct {
	Rows       int    // n: rows inserted
	Bits       uint64 // m: bits of each column's filter
	K          int    // hashes of each column
	Dims       int    // columns: each row is Dims consecutive values of the triples' stream (3: the file's A, B, C)
	Seed       uint64 // replicate r uses the values of triples.NewSource(Seed+r, Domain)
	Domain     int    // triples.Options.Domain: 0 the seed's decimals
	Replicates int    // independent data sets (0: 1)
}

// SequentialResult is Sequential's: one count a replicate.
type SequentialResult struct {
	// Counts[r] is replicate r's count of rows whose values all passed
	// their columns' filters (all k probes) before the row was inserted:
	// the seed's experiment as intended.
	Counts []int
	// FirstHash[r] is the same count with each value testing only its
	// first probe: the seed's contain as printed (its return True is
	// inside the loop), on the same filters.
	FirstHash []int
	// Expected and ExpectedFirstHash are ExpectedSequential and
	// ExpectedSequentialFirstHash of the options (for all-distinct values).
	Expected, ExpectedFirstHash float64
	Elapsed                     time.Duration
}

// Mean returns the mean of counts.
func Mean(counts []int) float64 {
	if len(counts) == 0 {
		return 0
	}
	s := 0
	for _, c := range counts {
		s += c
	}
	return float64(s) / float64(len(counts))
}

// Sequential runs seed 001's experiment opt.Replicates times: Dims columns,
// each a Bloom filter of exactly Bits bits and K hashes (the bloom kind's
// library, bits-and-blooms); Rows rows of values from package triples,
// inserted one by one, each first tested against the columns, and counted
// when every value passes (with all K probes: Counts; with the first
// only: FirstHash). Values repeated in the data (a Domain > 0) are counted
// when present, as the seed's code would: its count is then not only false
// positives. The replicates run in parallel on GOMAXPROCS goroutines, the
// result is the same for a seed whatever their number; ctx is checked every
// 16,384 rows. O(Replicates * Rows * Dims * K) time, Dims*Bits/8 bytes a
// running replicate.
func Sequential(ctx context.Context, opt SequentialOptions) (SequentialResult, error) {
	start := time.Now()
	if err := checkShape(opt.Rows, opt.Bits, opt.K, opt.Dims); err != nil {
		return SequentialResult{}, err
	}
	if opt.Domain < 0 || opt.Replicates < 0 {
		return SequentialResult{}, fmt.Errorf("mdbf: domain %d, replicates %d: want 0 or more", opt.Domain, opt.Replicates)
	}
	reps := max(1, opt.Replicates)
	res := SequentialResult{Counts: make([]int, reps), FirstHash: make([]int, reps),
		Expected:          ExpectedSequential(opt.Bits, opt.K, opt.Rows, opt.Dims),
		ExpectedFirstHash: ExpectedSequentialFirstHash(opt.Bits, opt.K, opt.Rows, opt.Dims)}
	err := parallel(ctx, reps, func(r int) error {
		var err error
		res.Counts[r], res.FirstHash[r], err = sequentialOnce(ctx, opt, opt.Seed+uint64(r))
		return err
	})
	if err != nil {
		return SequentialResult{}, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

func sequentialOnce(ctx context.Context, opt SequentialOptions, seed uint64) (all, first int, err error) {
	fs := make([]*bloom.BloomFilter, opt.Dims)
	for i := range fs {
		fs[i] = bloom.New(uint(opt.Bits), uint(opt.K))
	}
	src := triples.NewSource(seed, opt.Domain)
	var v []byte
	for i := range opt.Rows {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return 0, 0, fmt.Errorf("mdbf: %w", err)
			}
		}
		passAll, passFirst := true, true
		for _, f := range fs {
			v = src.Append(v[:0])
			locs := bloom.Locations(v, uint(opt.K)) // the probes Test and Add use
			passFirst = passFirst && f.TestLocations(locs[:1])
			passAll = passAll && f.TestLocations(locs)
			for _, l := range locs { // Add, without hashing again
				f.BitSet().Set(uint(l % uint64(opt.Bits)))
			}
		}
		if passAll {
			all++
		}
		if passFirst {
			first++
		}
	}
	return all, first, nil
}

// parallel runs do(0..n-1) on up to GOMAXPROCS goroutines and returns the
// first error; the others stop at their next check of ctx.
func parallel(ctx context.Context, n int, do func(i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := do(i); err != nil {
					once.Do(func() { first = err; cancel(err) })
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	if err := context.Cause(ctx); err != nil && ctx.Err() != nil {
		return fmt.Errorf("mdbf: %w", err)
	}
	return nil
}

// FreshOptions configures FreshFP. The seed's size: Rows 10^6, Bits 10^7,
// K 3, Dims 3.
type FreshOptions struct {
	Rows    int    // n: rows inserted
	Bits    uint64 // m: bits of each column's filter
	K       int    // hashes of each column
	Dims    int    // columns (3: the triples' A, B, C)
	Queries int64  // fresh rows asked
	Seed    uint64 // the inserted rows are triples.NewSource(Seed, Domain)'s; the fresh ones come from other seeds
	Domain  int    // triples.Options.Domain

	// CompositeBits is the composite filter's bits (0: Dims*Bits, the
	// per-column layout's total); CompositeK its hashes (0:
	// OptimalK(CompositeBits, distinct rows)).
	CompositeBits uint64
	CompositeK    int
}

// Layout is one filter layout's result in FreshFP.
type Layout struct {
	Name    string // "per-column", "per-column optimal k", "composite"
	Bits    uint64 // all its filters' bits
	K       []int  // each filter's hashes (one a column, or one)
	FP      int64  // false positives among the fresh rows asked
	Rate    float64
	Formula float64 // per-column: the product of the columns' (1-(1-1/m)^(k n_c))^k (SeedFPP with all-distinct values); composite: CompositeFPP
	Fill    float64 // the filters' own rate from their ones, (ones/m)^k (a product for the per-column layouts)
	Z       float64 // (FP - Queries*Formula) / binomial sd
	// Combos counts, for the per-column layouts, the false positives whose
	// values all occur in their columns (new combinations: they pass
	// with probability 1, whatever the formula). 0 with the seed's
	// decimals, which almost never repeat.
	Combos int64
}

// FreshResult is FreshFP's.
type FreshResult struct {
	Rows     int   // rows inserted
	Tuples   int   // distinct rows among them
	Distinct []int // distinct values of each column
	Queries  int64 // fresh rows asked that are not inserted rows
	Present  int64 // fresh rows that were inserted rows: not counted
	// PerColumn has K hashes a column; PerColumnOptK each column's
	// OptimalK(Bits, its distinct values); Composite one filter over the
	// rows.
	PerColumn, PerColumnOptK, Composite Layout
	Elapsed                             time.Duration
}

// freshChunk is the queries of one chunk of FreshFP, each chunk from its
// own source so that the result does not depend on the goroutines.
const freshChunk = 1 << 16

// freshSeed is the seed of chunk c's values: a splitmix64 mix of the
// experiment's seed and c, so unrelated to the inserted rows' seed.
func freshSeed(seed uint64, c int64) uint64 {
	z := (seed ^ 0x6672657368313031) + uint64(c+1)*0x9e3779b97f4a7c15 // "fresh101"
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// FreshFP builds, from opt.Rows rows of package triples' values, three
// layouts: per-column filters of Bits bits and K hashes (the seed's), the
// same with each column at its optimal k, and one composite filter of
// CompositeBits bits over the rows as tuples (package tuple, every
// component a string); then asks opt.Queries fresh rows, drawn from the
// same generator with other seeds, and counts each layout's false
// positives. A fresh row that is an inserted row (checked exactly, on the
// sorted rows, when a filter passes it) is not counted. With all-distinct
// values (Domain 0) the rates estimate SeedFPP and CompositeFPP. The
// queries run on GOMAXPROCS goroutines in chunks of 65,536, each chunk from
// its own seed: the result is the same for a seed whatever the number of
// goroutines. ctx is checked every 16,384 queries. Cost: building the
// filters (O(Rows)) and per query three values formatted, one tuple, and
// each layout's test, which stops at the first column that fails.
func FreshFP(ctx context.Context, opt FreshOptions) (FreshResult, error) {
	start := time.Now()
	if err := checkShape(opt.Rows, opt.Bits, opt.K, opt.Dims); err != nil {
		return FreshResult{}, err
	}
	switch {
	case opt.Queries < 0 || opt.Domain < 0:
		return FreshResult{}, fmt.Errorf("mdbf: %d queries, domain %d: want 0 or more", opt.Queries, opt.Domain)
	case opt.CompositeBits > maxBits || (opt.CompositeBits == 0 && uint64(opt.Dims)*opt.Bits > maxBits):
		return FreshResult{}, fmt.Errorf("mdbf: a composite filter of more than %d bits", uint64(maxBits))
	case opt.CompositeK < 0 || opt.CompositeK > filters.MaxK:
		return FreshResult{}, fmt.Errorf("mdbf: composite k = %d, want 1 to %d (0: the optimal)", opt.CompositeK, filters.MaxK)
	}
	d := opt.Dims
	types := make([]tuple.Type, d)
	for i := range types {
		types[i] = tuple.String
	}
	// The inserted rows as tuples: each value and its terminator 0x00 0x01
	// (tuple.AppendString of a value without 0x00).
	src := triples.NewSource(opt.Seed, opt.Domain)
	arena := make([]byte, 0, opt.Rows*d*22)
	ends := make([]int, 0, opt.Rows)
	for i := range opt.Rows {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return FreshResult{}, fmt.Errorf("mdbf: %w", err)
			}
		}
		for range d {
			arena = append(src.Append(arena), 0, 1)
		}
		ends = append(ends, len(arena))
	}
	// The rows as tuples, and each column's values (without their
	// terminators), sorted and deduplicated in parallel: the sorted lists
	// are also the exact sets that tell an inserted row, or a combination
	// of inserted values, from a false positive.
	keys := make([][]byte, len(ends))
	sorted := make([][][]byte, d)
	for i := range sorted {
		sorted[i] = make([][]byte, len(ends))
	}
	s := 0
	for i, e := range ends {
		keys[i] = arena[s:e:e]
		for c := range d {
			j := bytes.IndexByte(arena[s:e], 0)
			sorted[c][i] = arena[s : s+j : s+j]
			s += j + 2
		}
	}
	// Each goroutine reads and writes only its own list: the deduplicated
	// tuples go to uniq, not keys, which the others would read (the race
	// detector found keys read by every goroutine and written by one).
	var uniq [][]byte
	err := parallel(ctx, d+1, func(i int) error {
		if i < d {
			slices.SortFunc(sorted[i], bytes.Compare)
			sorted[i] = slices.CompactFunc(sorted[i], bytes.Equal)
		} else {
			slices.SortFunc(keys, bytes.Compare)
			uniq = slices.CompactFunc(keys, bytes.Equal)
		}
		return nil
	})
	if err != nil {
		return FreshResult{}, err
	}
	keys = uniq
	res := FreshResult{Rows: opt.Rows, Tuples: len(keys), Distinct: make([]int, d)}
	cBits := opt.CompositeBits
	if cBits == 0 {
		cBits = uint64(d) * opt.Bits
	}
	cK := opt.CompositeK
	if cK == 0 {
		cK = OptimalK(cBits, len(keys))
	}
	// The 2d+1 filters, built in parallel, the composite (the largest) first.
	pc, po := make([]filters.Filter, d), make([]filters.Filter, d)
	kOpt := make([]int, d)
	var comp filters.Filter
	err = parallel(ctx, 2*d+1, func(j int) error {
		var err error
		switch {
		case j == 0:
			comp, err = bloomColumn(cBits, cK, keys)
		case j <= d:
			pc[j-1], err = bloomColumn(opt.Bits, opt.K, sorted[j-1])
		default:
			i := j - d - 1
			kOpt[i] = OptimalK(opt.Bits, len(sorted[i]))
			po[i], err = bloomColumn(opt.Bits, kOpt[i], sorted[i])
		}
		return err
	})
	if err != nil {
		return FreshResult{}, err
	}
	res.PerColumn = Layout{Name: "per-column", Formula: 1, Fill: 1}
	res.PerColumnOptK = Layout{Name: "per-column optimal k", Formula: 1, Fill: 1}
	for i, c := range sorted {
		res.Distinct[i] = len(c)
		for _, l := range []struct {
			l *Layout
			k int
			f filters.Filter
		}{{&res.PerColumn, opt.K, pc[i]}, {&res.PerColumnOptK, kOpt[i], po[i]}} {
			l.l.Bits += opt.Bits
			l.l.K = append(l.l.K, l.k)
			l.l.Formula *= CompositeFPP(opt.Bits, l.k, len(c))
			l.l.Fill *= fillFPP(l.f)
		}
	}
	res.Composite = Layout{Name: "composite", Bits: cBits, K: []int{cK}, Formula: CompositeFPP(cBits, cK, len(keys)), Fill: fillFPP(comp)}

	isKey := func(key []byte) bool {
		_, ok := slices.BinarySearchFunc(keys, key, bytes.Compare)
		return ok
	}
	isCombo := func(key []byte) bool {
		parts, _, err := tuple.Split(key, types, nil, nil)
		if err != nil {
			return false
		}
		for i, p := range parts {
			if _, ok := slices.BinarySearchFunc(sorted[i], p, bytes.Compare); !ok {
				return false
			}
		}
		return true
	}
	type counts struct{ asked, present, fpC, fpO, fpX, comboC, comboO int64 }
	chunks := (opt.Queries + freshChunk - 1) / freshChunk
	var mu sync.Mutex
	var total counts
	err = parallel(ctx, int(chunks), func(c int) error {
		var n counts
		src := triples.NewSource(freshSeed(opt.Seed, int64(c)), opt.Domain)
		q := min(freshChunk, opt.Queries-int64(c)*freshChunk)
		var key []byte
		ends := make([]int, d+1) // component i is key[ends[i]:ends[i+1]-2]
		// test is Filter.Contains of the key, without splitting it again.
		test := func(fs []filters.Filter) bool {
			for i, f := range fs {
				if !f.Contains(key[ends[i] : ends[i+1]-2]) {
					return false
				}
			}
			return true
		}
		for j := range q {
			if j%ctxEvery == 0 {
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("mdbf: %w", err)
				}
			}
			key = key[:0]
			for i := range d {
				key = append(src.Append(key), 0, 1)
				ends[i+1] = len(key)
			}
			a, b, x := test(pc), test(po), comp.Contains(key)
			if !a && !b && !x {
				n.asked++
				continue
			}
			if isKey(key) {
				n.present++
				continue
			}
			n.asked++
			combo := (a || b) && isCombo(key)
			if a {
				n.fpC++
				if combo {
					n.comboC++
				}
			}
			if b {
				n.fpO++
				if combo {
					n.comboO++
				}
			}
			if x {
				n.fpX++
			}
		}
		mu.Lock()
		total.asked += n.asked
		total.present += n.present
		total.fpC += n.fpC
		total.fpO += n.fpO
		total.fpX += n.fpX
		total.comboC += n.comboC
		total.comboO += n.comboO
		mu.Unlock()
		return nil
	})
	if err != nil {
		return FreshResult{}, err
	}
	res.Queries, res.Present = total.asked, total.present
	res.PerColumn.FP, res.PerColumn.Combos = total.fpC, total.comboC
	res.PerColumnOptK.FP, res.PerColumnOptK.Combos = total.fpO, total.comboO
	res.Composite.FP = total.fpX
	for _, l := range []*Layout{&res.PerColumn, &res.PerColumnOptK, &res.Composite} {
		l.Rate, l.Z = rateZ(l.FP, res.Queries, l.Formula)
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// rateZ returns fp/trials and the binomial z-score of fp against rate p:
// (fp - trials p) / sqrt(trials p (1-p)); NaN without trials, and 0 for a
// rate of 0 or 1 met exactly (±Inf otherwise).
func rateZ(fp, trials int64, p float64) (rate, z float64) {
	if trials == 0 {
		return math.NaN(), math.NaN()
	}
	rate = float64(fp) / float64(trials)
	dev := float64(fp) - float64(trials)*p
	sd := math.Sqrt(float64(trials) * p * (1 - p))
	if sd == 0 {
		if dev == 0 {
			return rate, 0
		}
		return rate, math.Copysign(math.Inf(1), dev)
	}
	return rate, dev / sd
}

// DefaultMaxCombinations is Absent's bound on the combinations it asks.
const DefaultMaxCombinations = 50_000_000

// DefaultAbsentFPP is the false positive rate Absent's layouts are sized
// to when nothing else sizes them (AbsentSizing).
const DefaultAbsentFPP = 0.01

// AbsentSizing is sz with FPP DefaultAbsentFPP when it sets none of
// BitsPerKey, FPP and Budget (its kinds' options kept): Absent's default
// sizing, which join multikey absent uses and prints.
func AbsentSizing(sz filters.Sizing) filters.Sizing {
	if sz.BitsPerKey == 0 && sz.FPP == 0 && sz.Budget == 0 {
		sz.FPP = DefaultAbsentFPP
	}
	return sz
}

// AbsentOptions configures Absent.
type AbsentOptions struct {
	Types  []tuple.Type
	Keys   [][]byte // distinct tuples of Types
	Kind   filters.Kind
	Sizing filters.Sizing // of every filter: each column's for its distinct values, the composite's for the tuples
	// MaxCombinations refuses a product of the columns' distinct counts
	// above it (0: DefaultMaxCombinations).
	MaxCombinations int64
}

// AbsentLayout is one layout's result in Absent.
type AbsentLayout struct {
	Built *filters.Built // the filter (per-column: Columns(Built) gives the columns)
	FP    int64          // absent combinations it passes
	Rate  float64        // FP / absent combinations
}

// AbsentResult is Absent's.
type AbsentResult struct {
	Keys         int   // distinct tuples
	Distinct     []int // distinct values of each column
	Combinations int64 // the product of Distinct
	Absent       int64 // Combinations - Keys: the combinations asked
	PerColumn    AbsentLayout
	Composite    AbsentLayout
	Elapsed      time.Duration
}

// ErrTooMany is wrapped by Absent's error for a product of distinct counts
// above its bound.
var ErrTooMany = errors.New("mdbf: too many combinations")

// Absent builds the per-column (mdbf.Build) and the composite (filters.Build)
// filter of kind over opt.Keys, each sized by opt.Sizing, and asks both
// every combination of the columns' distinct values that is not a key:
// the cartesian product minus the keys, the tuples a join's other side can
// hold that the key side does not. Every component of such a combination
// is a value of its column, so the per-column layout, which has no false
// negatives, passes every one of them (rate 1, for any kind and size); the
// composite filter passes about its formula rate. A product above
// MaxCombinations is refused (ErrTooMany). The combinations run on
// GOMAXPROCS goroutines, split by the first column's values; ctx is checked
// every 16,384. Cost: the two builds plus O(product) tests and lookups in a
// set of the keys.
func Absent(ctx context.Context, opt AbsentOptions) (AbsentResult, error) {
	start := time.Now()
	if len(opt.Types) == 0 || len(opt.Types) > mdbf.MaxColumns {
		return AbsentResult{}, fmt.Errorf("%w: %d columns, want 1 to %d", mdbf.ErrKeys, len(opt.Types), mdbf.MaxColumns)
	}
	limit := opt.MaxCombinations
	if limit <= 0 {
		limit = DefaultMaxCombinations
	}
	comps, err := mdbf.DistinctColumns(opt.Types, opt.Keys)
	if err != nil {
		return AbsentResult{}, err
	}
	res := AbsentResult{Keys: len(opt.Keys), Distinct: make([]int, len(comps)), Combinations: 1}
	for i, c := range comps {
		res.Distinct[i] = len(c)
		if len(c) > 0 && res.Combinations > limit/int64(len(c)) {
			return AbsentResult{}, fmt.Errorf("%w: the %d columns' distinct values (%v) make more than %d combinations", ErrTooMany, len(comps), distinctText(comps), limit)
		}
		res.Combinations *= int64(len(c))
	}
	set := make(map[string]struct{}, len(opt.Keys))
	for _, k := range opt.Keys {
		set[string(k)] = struct{}{}
	}
	if len(set) != len(opt.Keys) {
		return AbsentResult{}, fmt.Errorf("%w: %d keys, %d distinct (want distinct tuples)", mdbf.ErrKeys, len(opt.Keys), len(set))
	}
	res.Absent = res.Combinations - int64(len(set))
	if res.PerColumn.Built, err = mdbf.Build(opt.Kind, opt.Types, opt.Keys, opt.Sizing); err != nil {
		return AbsentResult{}, err
	}
	if res.Composite.Built, err = filters.Build(opt.Kind, opt.Keys, opt.Sizing); err != nil {
		return AbsentResult{}, fmt.Errorf("mdbf: composite filter: %w", err)
	}
	perCol, comp := res.PerColumn.Built.Filter, res.Composite.Built.Filter
	var fpC, fpX atomic.Int64
	d := len(comps)
	if res.Combinations > 0 {
		err = parallel(ctx, len(comps[0]), func(first int) error {
			var a, x int64
			idx := make([]int, d)
			idx[0] = first
			ends := make([]int, d) // ends[i]: the key's length after component i
			var key []byte
			appendComp := func(i int) {
				if opt.Types[i] == tuple.Int {
					key = tuple.AppendIntKey(key, comps[i][idx[i]])
				} else {
					key = tuple.AppendString(key, comps[i][idx[i]])
				}
				ends[i] = len(key)
			}
			for i := range d {
				appendComp(i)
			}
			for n := 0; ; n++ {
				if n%ctxEvery == 0 {
					if err := ctx.Err(); err != nil {
						return fmt.Errorf("mdbf: %w", err)
					}
				}
				if _, ok := set[string(key)]; !ok {
					if perCol.Contains(key) {
						a++
					}
					if comp.Contains(key) {
						x++
					}
				}
				// The next combination: the odometer over columns 1..d-1,
				// re-encoding from the first column that changed.
				i := d - 1
				for ; i >= 1; i-- {
					if idx[i]++; idx[i] < len(comps[i]) {
						break
					}
					idx[i] = 0
				}
				if i < 1 {
					break
				}
				key = key[:ends[i-1]]
				for j := i; j < d; j++ {
					appendComp(j)
				}
			}
			fpC.Add(a)
			fpX.Add(x)
			return nil
		})
		if err != nil {
			return AbsentResult{}, err
		}
	}
	res.PerColumn.FP, res.Composite.FP = fpC.Load(), fpX.Load()
	if res.Absent > 0 {
		res.PerColumn.Rate = float64(res.PerColumn.FP) / float64(res.Absent)
		res.Composite.Rate = float64(res.Composite.FP) / float64(res.Absent)
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

func distinctText(comps [][][]byte) string {
	var b []byte
	for i, c := range comps {
		if i > 0 {
			b = append(b, " x "...)
		}
		b = fmt.Appendf(b, "%d", len(c))
	}
	return string(b)
}
