package local

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/acbfjoin/acbfjoin/join"

	"github.com/acbfjoin/acbfjoin/sketch/cms"
)

// The join-size estimate (Report.JoinRowsEstimate): a count-min sketch of
// the key side's keys, filled in the build phase, and one of the keys of
// the large-side rows that survive the filter, filled by each mapper and
// merged, meet before the shuffle. For key frequencies f (key side) and g
// (survivors) the join has f·g rows; each sketch row's dot product d_j is
// at least f·g, and above it by the colliding mass: E[d_j] = f·g +
// (|f||g| - f·g)/W for width W (CM05, "An Improved Data Stream Summary",
// Theorem 3, whose min over rows is the bound reported). The bound is
// loose when |f||g|/W is near f·g (a self-join: 826,122 rows a side and W =
// 2^16 add about 10^7 to 1.2*10^7), so the estimate reported is each row's
// d_j with its expected excess taken out, (W*d_j - |f||g|)/(W-1) (the
// correction of Count-Mean-Min, Deng and Rafiei 2007), median over the
// rows. The rows are kept as sketches of one row each with their own seed
// (cms.Sketch's InnerProduct returns only the min over rows), all fed from
// one hashing.Sum of the key.

// joinSketchDepth is the rows of a join sketch; joinSketchBytes bounds the
// memory of all of a run's sketches (the mappers' and the key side's).
const (
	joinSketchDepth = 4
	joinSketchBytes = 32 << 20
	maxSketchWidth  = 1 << 16
)

// joinSketchWidth is the width for workers sketches alive at once (one a
// mapper plus the merged key side's): 2^16, or the power of two that keeps
// them within joinSketchBytes.
func joinSketchWidth(workers int) int {
	w := joinSketchBytes / (8 * joinSketchDepth * max(workers, 1))
	if w >= maxSketchWidth {
		return maxSketchWidth
	}
	return 1 << (bits.Len(uint(max(w, 2))) - 1)
}

// joinSketch is a count-min sketch of a stream of keys kept as
// joinSketchDepth one-row sketches. Not safe for concurrent use.
type joinSketch struct {
	rows []*cms.Sketch
}

func newJoinSketch(width int) (*joinSketch, error) {
	s := &joinSketch{rows: make([]*cms.Sketch, joinSketchDepth)}
	for j := range s.rows {
		var err error
		if s.rows[j], err = cms.New(cms.Config{Width: width, Depth: 1, Seed: uint64(j + 1)}); err != nil {
			return nil, fmt.Errorf("join sketch: %w", err)
		}
	}
	return s, nil
}

// add counts one occurrence of key: one hash, joinSketchDepth counters.
// add counts a key whose hashing.Sum is (h1, h2): the caller hashed it
// once for the sketch and its partition (join.PartitionOf).
func (s *joinSketch) add(h1, h2 uint64) {
	if s == nil { // no estimate asked (Options.EstimateJoinSize)
		return
	}
	for _, r := range s.rows {
		r.AddHash(h1, h2, 1)
	}
}

// merge adds o's counts to s (both of one width).
func (s *joinSketch) merge(o *joinSketch) error {
	for j, r := range s.rows {
		if err := r.Merge(o.rows[j]); err != nil {
			return err
		}
	}
	return nil
}

// estimateJoin returns the size of the join of the streams of a and b: the
// bias-corrected median of the rows' dot products (est) and the count-min
// bound, their min (never below the true size).
func estimateJoin(a, b *joinSketch) (est, bound int64, err error) {
	if a == nil || b == nil {
		return 0, 0, nil
	}
	w := float64(a.rows[0].Config().Width)
	fg := float64(a.rows[0].Total()) * float64(b.rows[0].Total())
	ests := make([]float64, len(a.rows))
	bound = math.MaxInt64
	for j := range a.rows {
		d, err := a.rows[j].InnerProduct(b.rows[j])
		if err != nil {
			return 0, 0, err
		}
		df := float64(d)
		bound = min(bound, int64(min(d, math.MaxInt64)))
		ests[j] = df
		if w > 1 {
			ests[j] = min(df, max(0, (w*df-fg)/(w-1)))
		}
	}
	slices.Sort(ests)
	n := len(ests)
	med := (ests[(n-1)/2] + ests[n/2]) / 2
	return int64(math.Round(med)), bound, nil
}

// newJoinSketches makes one sketch a worker of a phase, of the width for
// the run's mappers (joinSketchWidth).
func (x *execution) newJoinSketches() ([]*joinSketch, error) {
	out := make([]*joinSketch, x.opt.Mappers)
	if !x.estimates() {
		return out, nil // nil sketches: add does nothing
	}
	for i := range out {
		var err error
		if out[i], err = newJoinSketch(joinSketchWidth(x.opt.Mappers + 1)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// estimates reports whether the run estimates the join's size: asked
// (Options.EstimateJoinSize), or for Skew auto's report.
func (x *execution) estimates() bool {
	return x.opt.EstimateJoinSize || x.opt.Skew == join.SkewAuto
}

// mergeSketches merges the workers' sketches into the first (nil when
// there are none).
func mergeSketches(sks []*joinSketch) (*joinSketch, error) {
	if len(sks) == 0 || sks[0] == nil {
		return nil, nil
	}
	for _, s := range sks[1:] {
		if err := sks[0].merge(s); err != nil {
			return nil, err
		}
	}
	return sks[0], nil
}
