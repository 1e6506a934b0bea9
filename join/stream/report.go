package stream

import (
	"math"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// BatchReport is what one batch did.
type BatchReport struct {
	Batch int `json:"batch"`
	// The key side's changes applied before the batch: key events (inserts
	// and deletes) or timed rows inserted and expired.
	Inserts int64 `json:"inserts"`
	Deletes int64 `json:"deletes"` // deletes, or expired rows with a window
	// The live key set the batch was probed against.
	LiveRows int64 `json:"live_rows"`
	LiveKeys int64 `json:"live_keys"`
	// The probe rows and what the filter did with them. Negatives are the
	// rows whose key has no live row; FalsePositives those of them the
	// filter passed (the rows a false positive costs); FalseNegatives
	// (counted with Options.Verify only) rows with a live key the filter
	// rejected: always 0. NegativeKeys and FalsePositiveKeys count the
	// distinct keys of those rows: the filter's false positive rate, the
	// formula's quantity, is FalsePositiveKeys/NegativeKeys (a hot absent
	// key repeated in many rows is one trial).
	ProbeRows         int64   `json:"probe_rows"`
	Passed            int64   `json:"passed"`
	Negatives         int64   `json:"negatives"`
	FalsePositives    int64   `json:"false_positives"`
	FalseNegatives    int64   `json:"false_negatives"`
	NegativeKeys      int64   `json:"negative_keys"`
	FalsePositiveKeys int64   `json:"false_positive_keys"`
	FPP               float64 `json:"fpp_formula"` // the kind's formula at LiveKeys
	// RowsOut are the output rows; EstimatedRows the count-min estimate of
	// them made before the batch was joined (the inner product of the live
	// key rows' sketch and the batch's probe keys' sketch; 0 without
	// sketches).
	RowsOut       int64  `json:"rows_out"`
	EstimatedRows uint64 `json:"estimated_rows"`
	// Hot are the most frequent probe keys so far (the top-k sketch).
	Hot []HotKey `json:"hot,omitempty"`
	// Rebuilds counts the filter's rebuilds so far (the live keys outgrew
	// its capacity).
	Rebuilds int `json:"rebuilds"`
	// TimeFrom and TimeTo are the batch's first and last probe time (timed
	// mode).
	TimeFrom int64 `json:"time_from,omitempty"`
	TimeTo   int64 `json:"time_to,omitempty"`
	// ApplyNanos is the time spent applying the key side's changes to the
	// filter and the table, ProbeNanos probing and joining the batch.
	ApplyNanos int64 `json:"apply_ns"`
	ProbeNanos int64 `json:"probe_ns"`
}

// HotKey is a frequent probe key, formatted for people, with its estimated
// count.
type HotKey struct {
	Key   string `json:"key"`
	Count uint64 `json:"count"`
}

// FPRate is the measured false positive rate: the distinct negative keys
// the filter passed, among the distinct negative keys (0 without any).
func (b BatchReport) FPRate() float64 { return rate(b.FalsePositiveKeys, b.NegativeKeys) }

// RowFPRate is the share of negative rows the filter passed: what false
// positives cost in rows.
func (b BatchReport) RowFPRate() float64 { return rate(b.FalsePositives, b.Negatives) }

func rate(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// FPZ is how many binomial standard deviations the distinct false positive
// keys are from the formula's expectation: (F - D*p) / sqrt(D*p*(1-p)) for
// D distinct negative keys, each a trial of the filter. 0 when the
// expectation has no spread (no negatives, p = 0 or 1).
func (b BatchReport) FPZ() float64 { return zScore(b.FalsePositiveKeys, b.NegativeKeys, b.FPP) }

// tail4SD is the one-sided tail of 4 standard deviations of a
// normal distribution: P(Z >= 4).
const tail4SD = 3.167e-5

// FPOutlier reports whether the batch's distinct false positive keys are
// farther from the formula than 4 standard deviations would allow: by the
// z-score when the expectation D*p is at least 30 (the normal
// approximation holds), else by the exact Poisson tail (a single false
// positive at D*p = 0.001 is a z of 30 but happens one batch in 1,000:
// flagged only if its tail probability is below P(Z >= 4)).
func (b BatchReport) FPOutlier() bool {
	return fpOutlier(b.FalsePositiveKeys, b.NegativeKeys, b.FPP)
}

func fpOutlier(f, d int64, p float64) bool { return fpTail(f, d, p) < tail4SD }

// fpTail is the probability of a count of f false positives of d negatives
// at rate p or one further from the mean on its side: the one-sided tail,
// from the normal approximation when d*p >= 30, else Poisson(d*p)'s.
func fpTail(f, d int64, p float64) float64 {
	lambda := float64(d) * p
	if lambda >= 30 {
		return math.Erfc(math.Abs(zScore(f, d, p))/math.Sqrt2) / 2
	}
	// Poisson(lambda): P(X >= f) and P(X <= f).
	var below float64 // P(X < f)
	term := math.Exp(-lambda)
	for i := int64(0); i < f; i++ {
		below += term
		term *= lambda / float64(i+1)
	}
	atMost := below + term // P(X <= f)
	return min(1-below, atMost)
}

func zScore(fp, neg int64, p float64) float64 {
	v := float64(neg) * p * (1 - p)
	if v <= 0 {
		return 0
	}
	return (float64(fp) - float64(neg)*p) / math.Sqrt(v)
}

// Report is what the whole stream did.
type Report struct {
	Mode   string       `json:"mode"` // "events" or "window"
	Filter filters.Kind `json:"filter"`
	// Params are the filter's parameters at the end (its last capacity),
	// spelled (filters.Params.String); Shape in a few words.
	Params   string `json:"params"`
	Shape    string `json:"shape"`
	Capacity uint64 `json:"capacity"`
	Rebuilds int    `json:"rebuilds"`
	Batches  int    `json:"batches"`
	Window   int64  `json:"window,omitempty"`

	Inserts   int64 `json:"inserts"`
	Deletes   int64 `json:"deletes"` // deletes, or expired rows with a window
	ProbeRows int64 `json:"probe_rows"`
	// WhereDropped are the probe rows Options.Where dropped (not in
	// ProbeRows).
	WhereDropped   int64 `json:"where_dropped,omitempty"`
	Passed         int64 `json:"passed"`
	Negatives      int64 `json:"negatives"`
	FalsePositives int64 `json:"false_positives"`
	FalseNegatives int64 `json:"false_negatives"`
	// NegativeKeys and FalsePositiveKeys sum the batches' distinct counts
	// (a key absent from several batches counts in each).
	NegativeKeys      int64  `json:"negative_keys"`
	FalsePositiveKeys int64  `json:"false_positive_keys"`
	Verified          bool   `json:"verified"` // false negatives were counted (Options.Verify)
	RowsOut           int64  `json:"rows_out"`
	EstimatedRows     uint64 `json:"estimated_rows"`
	// FPPMean is the formula averaged over the batches, weighted by their
	// distinct negative keys; BatchesBeyond4SD counts batches whose |FPZ| > 4.
	FPPMean          float64 `json:"fpp_formula_mean"`
	BatchesBeyond4SD int     `json:"batches_beyond_4sd"`

	MaxLiveKeys   int64 `json:"max_live_keys"`
	MaxLiveRows   int64 `json:"max_live_rows"`
	FinalLiveKeys int64 `json:"final_live_keys"`
	FilterBytes   int64 `json:"filter_bytes"`    // the filter's serialized size at the end
	MaxTableBytes int64 `json:"max_table_bytes"` // the live rows' and keys' bytes at most (payload, without the map's overhead)
	SketchBytes   int64 `json:"sketch_bytes"`
	CMSWidth      int   `json:"cms_width"`
	CMSDepth      int   `json:"cms_depth"`

	ApplyNanos int64 `json:"apply_ns"`
	ProbeNanos int64 `json:"probe_ns"`
	WallNanos  int64 `json:"wall_ns"`

	Hot []HotKey `json:"hot,omitempty"`

	// KeyType is the key's type, one a key column (as given, or decided).
	KeyType key.Type `json:"key_type"`
	// Keys is how the keys compared (the type of each key column, why)
	// and the rows left out for a key that cannot match: the key side's
	// (KeysNull, KeysUnmatchable) and the probe's (InputNull,
	// InputUnmatchable).
	Keys join.KeysReport `json:"keys"`
}

// UpdatesPerSecond is the key side's changes applied a second of apply
// time.
func (r *Report) UpdatesPerSecond() float64 {
	if r.ApplyNanos == 0 {
		return 0
	}
	return float64(r.Inserts+r.Deletes) / (float64(r.ApplyNanos) / 1e9)
}

// ProbeRowsPerSecond is the probe rows a second of wall time.
func (r *Report) ProbeRowsPerSecond() float64 {
	if r.WallNanos == 0 {
		return 0
	}
	return float64(r.ProbeRows) / (float64(r.WallNanos) / 1e9)
}

// FPRate is the measured false positive rate over the whole stream, by
// distinct key a batch.
func (r *Report) FPRate() float64 { return rate(r.FalsePositiveKeys, r.NegativeKeys) }

// RowFPRate is the share of negative rows the filter passed.
func (r *Report) RowFPRate() float64 { return rate(r.FalsePositives, r.Negatives) }
