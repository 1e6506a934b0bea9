package join

import (
	"runtime/debug"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/key"
)

// Report is what a run measured, with the settings it ran with. Its JSON
// names follow one pattern: snake case, a unit or _records/_bytes suffix,
// fpp_formula and fpp_measured for the two false positive rates (fpp_tested
// the rows the measured rate is of).
type Report struct {
	Settings           Settings     `json:"settings"`
	Filter             FilterReport `json:"filter"`
	KeysRecords        int64        `json:"keys_records"`
	KeysDistinct       int          `json:"keys_distinct"`
	InputRecords       int64        `json:"input_records"`
	MapOutputRecords   int64        `json:"map_output_records"`
	FilteredOutRecords int64        `json:"filtered_out_records"`
	// BypassedRecords are the large-side rows an anti, left or full join
	// wrote straight to the output, without a shuffle: those the filter
	// rejected and those of a NULL key; BypassedBytes their bytes.
	BypassedRecords int64 `json:"bypassed_records,omitempty"`
	BypassedBytes   int64 `json:"bypassed_bytes,omitempty"`
	// FilterOff, if set, says which mappers stopped probing the filter
	// (it passed so much that probing cost more than the shuffle it
	// saved: Options.KeepFilter) and what they shuffled unprobed.
	FilterOff            *FilterOffReport `json:"filter_off,omitempty"`
	FalsePositiveRecords int64            `json:"false_positive_records"`
	// FPPMeasured is the false positive rows over the large-side rows whose
	// key is not a key and that the filter tested (rows of a NULL or
	// unmatchable key, and rows a table's statistics or Bloom filters
	// skipped or screened, are never tested): FPPTested, 0 where the rate
	// is none (TestedNonMembers).
	FPPMeasured    float64 `json:"fpp_measured"`
	FPPTested      int64   `json:"fpp_tested"`
	ShuffleRecords int64   `json:"shuffle_records"`
	ShuffleBytes   int64   `json:"shuffle_bytes"`
	// ShuffleBytesNoFilter is what the shuffle would have held without a
	// filter: its bytes plus the dropped rows at the shuffle's own cost of a
	// record (shuffle.RecordBytes) and their batches' framing.
	ShuffleBytesNoFilter int64   `json:"shuffle_bytes_no_filter"`
	ShuffleReduction     float64 `json:"shuffle_reduction"`
	SpilledBytes         int64   `json:"spilled_bytes"`
	// ShufflePeakBytes is the most Arrow memory the shuffle held at once, map
	// and reduce phases included; it stays within shuffle.PeakBound: MemBudget,
	// unless a record outgrows a builder's share of it or, with one mapper,
	// the reduce reads batches larger than a power of two below the share.
	ShufflePeakBytes int64 `json:"shuffle_peak_bytes"`
	// Partitions are the shuffle's partitions, each reducer joining its
	// partitions one after another, holding one partition's key rows at
	// a time: a few a reducer (so that a large partition is evened out
	// by the others), or more when the key side is too large for the
	// reducers to hold at once (Grace).
	Partitions int `json:"partitions"`
	// Grace says that the key side was too large for the reducers'
	// tables at once (half the memory budget): it was partitioned
	// further for that (a grace hash join).
	Grace bool `json:"grace,omitempty"`
	// SortPeakBytes is the most memory the Sort buffers held at once: at
	// most an eighth of MemBudget (plus one row bigger than a buffer).
	SortPeakBytes  int64 `json:"sort_peak_bytes,omitempty"`
	BroadcastBytes int64 `json:"broadcast_bytes"`
	// BroadcastCopies is how many copies of the filter the mappers decoded:
	// one each while they fit in the executor's bound, fewer (shared) beyond.
	BroadcastCopies int                `json:"broadcast_copies"`
	JoinRows        int64              `json:"join_rows"`
	TimingsMs       map[string]float64 `json:"timings_ms"`
	// NsPerRowCore is each phase's time a row and a core: its wall time
	// times its goroutines over its rows (build: key rows and mappers; map:
	// large-side rows and mappers; reduce: shuffled records and reducers;
	// total: large-side rows and the larger of mappers and reducers).
	NsPerRowCore map[string]float64 `json:"ns_per_row_core"`
	// PeakHeapBytes is the most Go heap in use during the run, sampled;
	// PeakRSSBytes the process's peak resident memory so far (the kernel's
	// VmHWM, which includes what came before the run; 0 where unknown).
	PeakHeapBytes uint64 `json:"peak_heap_bytes"`
	PeakRSSBytes  uint64 `json:"peak_rss_bytes"`
	// Where is what Options.Where and KeysWhere dropped (nil without
	// either): rows neither InputRecords nor KeysRecords count.
	Where *WhereReport `json:"where,omitempty"`
	// BadRows counts the rows skipped with SkipBadRows; BadRowExamples names
	// the first few (file:line: what is wrong).
	BadRows        int64    `json:"bad_rows"`
	BadRowExamples []string `json:"bad_row_examples,omitempty"`
	// Keys is how the join's keys compared and which rows had none that
	// could match.
	Keys KeysReport `json:"keys"`
	// InputTable is what reading the large side as a table (Parquet,
	// Arrow) skipped and decoded; nil for CSV.
	InputTable *TableReport `json:"input_table,omitempty"`
	// Skew is what Options.Skew found and did, and, for every run, how the
	// shuffle's records fell on the partitions.
	Skew SkewReport `json:"skew"`
	// HotExclusions is what Options.HotExclusions found and dropped (nil
	// without it).
	HotExclusions *ExclusionsReport `json:"hot_exclusions,omitempty"`
	// Auto is what Options.Filter auto chose and predicted (nil otherwise).
	Auto *AutoReport `json:"auto,omitempty"`
	// JoinRowsEstimate is the join's size as sketches estimated it before
	// the shuffle, JoinRowsEstimateSource how (the true size is JoinRows);
	// JoinRowsEstimateBound is the count-min bound, never below JoinRows.
	JoinRowsEstimate       int64  `json:"join_rows_estimate"`
	JoinRowsEstimateBound  int64  `json:"join_rows_estimate_bound"`
	JoinRowsEstimateSource string `json:"join_rows_estimate_source,omitempty"`
}

// KeysReport is how a join's keys compared (Options.KeyType, decided from
// the data when auto) and the rows whose key could not match: a NULL (a
// table's NULL; a CSV side's empty field, under every key type:
// key.Spec.IsNull) never matches, as in SQL, and with an inferred type a
// key that is no value of it (a CSV field that is no integer, when keys
// compare as integers) cannot. Those rows are counted and left out, never
// an error; with a type given, a key that does not parse is an error (or a
// bad row).
type KeysReport struct {
	// Why says where each key column's type came from: "given", "from the
	// data: column ... is int64", "inferred: ...".
	Why             []string `json:"why"`
	KeysNull        int64    `json:"keys_null"`
	KeysUnmatchable int64    `json:"keys_unmatchable"`
	// InputNull and InputUnmatchable count the large side's.
	InputNull        int64 `json:"input_null"`
	InputUnmatchable int64 `json:"input_unmatchable"`
}

// TestedNonMembers is the large-side rows whose key is not a key and
// that the filter tested, the measured false positive rate's
// denominator: the rows but the members (the survivors that matched) and
// the rows the filter never saw (a NULL or unmatchable key; a chunk
// skipped by its statistics or its Bloom filter; a row screened by it).
func (r *Report) TestedNonMembers() int64 {
	members := r.MapOutputRecords - r.FalsePositiveRecords
	untested := r.Keys.InputNull + r.Keys.InputUnmatchable
	if t := r.InputTable; t != nil { // its skipped NULLs are in InputNull already
		untested += t.RowsSkipped - t.SkippedNulls + t.RowsSkippedBloom - t.SkippedNullsBloom + t.RowsScreenedBloom
	}
	return r.InputRecords - members - untested
}

// TableReport is what the map phase did with a large side that is a table
// (Parquet, Arrow). It reads a chunk's (row group's, record batch's) key
// columns first; a chunk whose statistics say no key of it falls within
// the key side's least and greatest (an integer key) is skipped unread, so
// is a Parquet row group whose own Bloom filter of the join column holds
// none of the keys, and a chunk's other columns are decoded only when some
// row passed the filter.
type TableReport struct {
	Format        string `json:"format"`
	Chunks        int64  `json:"chunks"`
	ChunksSkipped int64  `json:"chunks_skipped"` // by their statistics
	RowsSkipped   int64  `json:"rows_skipped"`
	// SkippedNulls are the rows of a NULL key among RowsSkipped (counted in
	// KeysReport.InputNull too).
	SkippedNulls int64 `json:"skipped_nulls"`
	// BytesSkipped is the skipped chunks' uncompressed bytes.
	BytesSkipped int64 `json:"bytes_skipped"`
	// ChunksSkippedBloom, RowsSkippedBloom, SkippedNullsBloom and
	// BytesSkippedBloom are the same of the row groups the statistics did
	// not skip and whose Bloom filter of the join column (the Parquet
	// file's own) holds none of the keys; BloomChecked counts the row
	// groups whose filter was read and probed. BloomSurvival is the share
	// of row groups holding no key that the first filter read would pass
	// (1-(1-p)^K, p its false positive rate, K the keys probed): above 0.9
	// no more filters are read (BloomOff). Omitted without filters.
	ChunksSkippedBloom int64   `json:"chunks_skipped_bloom,omitempty"`
	RowsSkippedBloom   int64   `json:"rows_skipped_bloom,omitempty"`
	SkippedNullsBloom  int64   `json:"skipped_nulls_bloom,omitempty"`
	BytesSkippedBloom  int64   `json:"bytes_skipped_bloom,omitempty"`
	BloomChecked       int64   `json:"bloom_checked,omitempty"`
	BloomSurvival      float64 `json:"bloom_survival,omitempty"`
	BloomOff           bool    `json:"bloom_off,omitempty"`
	// ChunksSkippedDictProof counts the row groups of ChunksSkippedBloom
	// whose filter passed a key and whose dictionary proved that they
	// hold none (every data page dictionary-encoded, no entry a key).
	ChunksSkippedDictProof int64 `json:"chunks_skipped_dict_proof,omitempty"`
	// RowsScreenedBloom counts the rows of the row groups read whose
	// Bloom filter passed a few keys (a one-column key) and whose value is
	// none of them: dropped without a probe of the join's filter, as no
	// key (not in FilteredOutRecords, nor in the measured false positive
	// rate's denominator).
	RowsScreenedBloom int64 `json:"rows_screened_bloom,omitempty"`
	// ChunksDict counts the chunks whose one string key column the file
	// keeps dictionary-encoded, and DictEntries their dictionaries'
	// entries: the filter tested each entry once, not each row. Omitted
	// without them.
	ChunksDict  int64 `json:"chunks_dict,omitempty"`
	DictEntries int64 `json:"dict_entries,omitempty"`
	// ChunksMaterialized counts the chunks whose other columns were
	// decoded (some row passed).
	ChunksMaterialized int64 `json:"chunks_materialized"`
	// DecodedBytes is the uncompressed bytes of the column chunks decoded,
	// of Bytes, the whole table's: what late materialization and the
	// statistics left undecoded is the difference.
	DecodedBytes int64 `json:"decoded_bytes"`
	Bytes        int64 `json:"bytes"`
}

// FilterOffReport is what the mappers' filter guards did: how many turned
// the filter off, the rows they shuffled unprobed since (joined exactly;
// none is counted a false positive), and the first to stop: after how many
// rows, at what pass rate and probe cost, against the shuffle a dropped
// row saves, in one mapper's time (the cost model's constant, a wall time,
// times the mappers).
type FilterOffReport struct {
	Mappers       int     `json:"mappers"`
	Unprobed      int64   `json:"unprobed_records"`
	AfterRows     int64   `json:"after_rows"`
	PassRate      float64 `json:"pass_rate"`
	ProbeNs       float64 `json:"probe_ns"`
	ShuffleNsEach float64 `json:"shuffle_ns_per_record"`
}

// AutoReport is what FilterAuto saw, chose and predicted; the measured
// values are the report's own (ShuffleBytes, TimingsMs["map"]).
type AutoReport struct {
	SampledRows   int64   `json:"sampled_rows"`   // large-side rows read for the selectivity
	EstimatedRows float64 `json:"estimated_rows"` // the large side's rows, from its size and the sample
	Selectivity   float64 `json:"selectivity"`    // sampled rows whose key is a key
	Note          string  `json:"note,omitempty"` // how the inputs were found, when not by a sample
	// SizedSkipped says why the sized kinds were not candidates (the
	// exact set dominates them); "" when they were.
	SizedSkipped string          `json:"sized_skipped,omitempty"`
	Budget       int64           `json:"broadcast_budget"`
	NeedDeletes  bool            `json:"need_deletes"`
	Chosen       AutoCandidate   `json:"chosen"`
	RunnerUp     *AutoCandidate  `json:"runner_up,omitempty"`
	Candidates   []AutoCandidate `json:"candidates"` // cheapest first, excluded last
	// ParseNs is a large-side row's parse time, one core, from the sample.
	ParseNs float64 `json:"parse_ns"`
	// CalibrationKeys is how many of the keys each kind was built over to
	// time its probes and decoding (all of them up to 16,384).
	CalibrationKeys int `json:"calibration_keys"`
	// ShuffleNsPerRecord and MapNsPerRecord are the model's constants
	// (choose.Constants) on this machine: choose.DefaultConstants times
	// SpeedFactor, how many times slower than their reference machine
	// this one hashes a key (choose.SpeedFactor; 1 with AutoTimings).
	ShuffleNsPerRecord float64 `json:"shuffle_ns_per_record"`
	MapNsPerRecord     float64 `json:"map_ns_per_record"`
	SpeedFactor        float64 `json:"speed_factor"`
}

// ExclusionsReport is what Options.HotExclusions did. The false positive
// rates are row-weighted, as Report.FPPMeasured: the rows that passed the
// filter and joined nothing over the rows whose key is not a key.
type ExclusionsReport struct {
	Asked          int   `json:"asked"`
	Found          int   `json:"found"`           // frequent keys that pass the filter and are not keys
	BroadcastBytes int64 `json:"broadcast_bytes"` // the exact set of them, shipped with the filter
	// ExcludedRecords are the rows the map phase dropped for them.
	ExcludedRecords int64 `json:"excluded_records"`
	// FPPMeasuredWithout is the row-weighted rate the filter alone gave:
	// (false positives + excluded rows) over the rows whose key is not a
	// key; Report.FPPMeasured is the rate with the exclusions.
	FPPMeasuredWithout float64 `json:"fpp_measured_without"`
}

// AutoCandidate is one filter FilterAuto weighed, with its predicted costs.
type AutoCandidate struct {
	Kind                  filters.Kind `json:"kind"`
	BitsPerKey            float64      `json:"bits_per_key,omitempty"`
	BroadcastBytes        int64        `json:"broadcast_bytes"`
	FPPFormula            float64      `json:"fpp_formula"`
	ProbeNs               float64      `json:"probe_ns"`
	PredictedShuffleBytes float64      `json:"predicted_shuffle_bytes"`
	PredictedBuildMs      float64      `json:"predicted_build_ms"` // building it over all the keys and encoding it, one core (0: built)
	PredictedProbeMs      float64      `json:"predicted_probe_ms"` // the map phase's probes, wall
	PredictedMapMs        float64      `json:"predicted_map_ms"`   // the whole map phase, wall
	PredictedCostMs       float64      `json:"predicted_cost_ms"`
	Excluded              string       `json:"excluded,omitempty"`
}

// SkewReport is what Options.Skew found and did.
type SkewReport struct {
	Mode Skew `json:"mode"`
	// Source is what the hot keys were looked for in ("input sample", or
	// "key side sample" when the input is a stream); Note says why no
	// sample was taken or no key was hot.
	Source string `json:"source,omitempty"`
	Note   string `json:"note,omitempty"`
	// SampledRecords rows were read, SampledFraction of the sampled side's
	// rows (estimated).
	SampledRecords  int64   `json:"sampled_records,omitempty"`
	SampledFraction float64 `json:"sampled_fraction,omitempty"`
	// InputRecordsEstimate is N, the large side's rows as the sample
	// estimates them; ThresholdRecords is N/Reducers, the rows above which
	// a key is hot (0 when the key side stood in for a stream).
	InputRecordsEstimate int64    `json:"input_records_estimate,omitempty"`
	ThresholdRecords     int64    `json:"threshold_records,omitempty"`
	HotKeys              []HotKey `json:"hot_keys,omitempty"`
	// Before is how the shuffle's records (key-side and large-side) would
	// have fallen on the partitions with plain hash partitioning
	// (Partition), After how they fell; JoinRows is the output rows each
	// partition made.
	Before   PartitionBalance `json:"before"`
	After    PartitionBalance `json:"after"`
	JoinRows PartitionBalance `json:"join_rows"`
}

// HotKey is a key Options.Skew spread over several partitions.
type HotKey struct {
	Key string `json:"key"` // as key.Spec.FormatKey writes it
	// Share is its share of the sampled rows; RecordsEstimate its rows
	// in the large side, scaled from the sample (0 when N is unknown).
	Share           float64 `json:"share"`
	RecordsEstimate int64   `json:"records_estimate,omitempty"`
	Partitions      []int   `json:"partitions"`
}

// PartitionBalance says how evenly records fell on partitions.
type PartitionBalance struct {
	Partitions     int   `json:"partitions"`
	LargestRecords int64 `json:"largest_records"`
	TotalRecords   int64 `json:"total_records"`
	// LargestShare is LargestRecords over TotalRecords; LargestOverMean
	// is the same times Partitions (1: perfectly even).
	LargestShare    float64 `json:"largest_share"`
	LargestOverMean float64 `json:"largest_over_mean"`
}

// NewPartitionBalance describes the records of each partition, counts[p].
func NewPartitionBalance(counts []int64) PartitionBalance {
	b := PartitionBalance{Partitions: len(counts)}
	for _, c := range counts {
		b.TotalRecords += c
		b.LargestRecords = max(b.LargestRecords, c)
	}
	if b.TotalRecords > 0 {
		b.LargestShare = float64(b.LargestRecords) / float64(b.TotalRecords)
		b.LargestOverMean = b.LargestShare * float64(b.Partitions)
	}
	return b
}

// FilterReport describes the filter of a run.
type FilterReport struct {
	Kind filters.Kind `json:"kind"`
	// Params is the filter's parameters spelled in its kind's own terms
	// (filters.Params.String: "cuckoo(b=4,f=12,slots=69632)"); Shape
	// is the same in a few words (filters.Params.Shape: "b=4 f=12").
	Params string `json:"params"`
	Shape  string `json:"shape,omitempty"`
	filters.Summary
	SerializedBytes int64   `json:"serialized_bytes"`
	FPPFormula      float64 `json:"fpp_formula"`
	// File is where a filter read from a filter file (Options.FilterFile)
	// came from; nil for a filter built by the run.
	File *FilterFileReport `json:"file,omitempty"`
}

// FilterFileReport is a filter file a run used: its name and what it was
// built for (join build-filter), which the run checked against its key
// side (FilterFile.Check: the same key column and type, and the same
// distinct keys by count and fingerprint).
type FilterFileReport struct {
	Name    string   `json:"name"`
	KeyCol  string   `json:"key_col"`
	KeyType key.Type `json:"key_type"`
	Keys    int      `json:"keys"` // the distinct keys it was built for
}

// Report describes ff, read from the file named name.
func (ff *FilterFile) Report(name string) *FilterFileReport {
	return &FilterFileReport{Name: name, KeyCol: ff.KeyCol, KeyType: ff.KeyType, Keys: ff.Built.N}
}

// NewFilterReport describes b.
func NewFilterReport(b *filters.Built) FilterReport {
	r := FilterReport{Kind: b.Kind(), Params: b.Spell(), Summary: b.Summary, SerializedBytes: b.SerializedBytes, FPPFormula: b.FPP}
	if b.Params != nil {
		r.Shape = b.Params.Shape()
	}
	return r
}

// Settings are the options a run used, defaults resolved.
type Settings struct {
	Keys       string       `json:"keys"`
	Input      string       `json:"input"`
	KeyCol     string       `json:"key_col"`
	JoinCol    string       `json:"join_col"`
	KeyType    key.Type     `json:"key_type"`
	JoinType   JoinType     `json:"join_type,omitempty"`
	Layout     Layout       `json:"filter_layout,omitempty"` // with a composite key
	Filter     filters.Kind `json:"filter"`
	FilterFile string       `json:"filter_file,omitempty"`
	BitsPerKey float64      `json:"bits_per_key,omitempty"` // as asked (0 with FPP or a filter file)
	// Options are the kinds' own options as asked (filters.Sizing.Options:
	// "k", "bucket-size"); absent, each kind's defaults.
	Options     filters.Options `json:"options,omitempty"`
	FPP         float64         `json:"fpp,omitempty"`
	Budget      int64           `json:"filter_budget,omitempty"` // bytes, as asked
	Mappers     int             `json:"mappers"`
	Reducers    int             `json:"reducers"`
	MemBytes    int64           `json:"mem_bytes"`
	Sort        bool            `json:"sort"`
	SkipBadRows bool            `json:"skip_bad_rows"`
	Skew        Skew            `json:"skew,omitempty"`
	// Format is the output's format ("csv", "parquet"), set by the caller
	// that chose the sink.
	Format string `json:"format,omitempty"`
	// HugePages is what the command put of the process's heap on huge
	// pages ("64 MiB", or "none: " and why; cmd/join's hugeheap), set by
	// the caller: a process's setting, not the run's.
	HugePages string `json:"huge_pages,omitempty"`
	Version   string `json:"version"`
	// Scanner is the code that scanned CSV (csvscan.CPUPath: "avx2" or
	// "portable", ACBFJOIN_CPU's choice).
	Scanner string `json:"scanner"`
	// IntHash is the code that hashed integer keys for the ACBF's and the
	// blocked filter's probes (hashing.IntsPath: "avx512", "avx2" or "portable",
	// ACBFJOIN_CPU's choice).
	IntHash string `json:"int_hash"`
}

// NewSettings records resolved options (Options.Resolve).
func NewSettings(opt Options) Settings {
	s := Settings{Keys: opt.Keys, Input: opt.Input, KeyCol: opt.KeyCol, JoinCol: opt.JoinCol, KeyType: opt.KeyType, JoinType: opt.JoinType,
		Filter: opt.Filter, FilterFile: opt.FilterFile, BitsPerKey: opt.Sizing.BitsPerKey, FPP: opt.Sizing.FPP, Budget: opt.Sizing.Budget, Options: opt.Sizing.Options,
		Mappers: opt.Mappers, Reducers: opt.Reducers, MemBytes: opt.MemBudget, Sort: opt.Sort, SkipBadRows: opt.SkipBadRows, Skew: opt.Skew, Version: Version(), Scanner: csvscan.CPUPath(), IntHash: hashing.IntsPath()}
	if len(opt.KeyCols) > 1 {
		s.Layout = opt.Layout
	}
	if s.BitsPerKey == 0 && s.FPP == 0 && s.Budget == 0 && s.FilterFile == "" {
		s.BitsPerKey = filters.DefaultBitsPerKey
	}
	return s
}

// Version names the build: the module's version and, where the build
// recorded it, the commit ("devel+1a2b3c4d5e6f", "+dirty" if it had
// uncommitted changes).
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += "+" + rev
	}
	return v + dirty
}

// WhereReport is what the predicates on the sides (Options.Where,
// KeysWhere) did: each expression and the rows it dropped before the join.
// Of those, ChunksSkipped and RowsSkipped are the chunks (Parquet row
// groups) skipped unread, their statistics showing that no row of them
// satisfies the predicate (where.Pred.Refutes), and their rows.
type WhereReport struct {
	Input              string `json:"input,omitempty"`
	InputDropped       int64  `json:"input_dropped"`
	InputChunksSkipped int64  `json:"input_chunks_skipped,omitempty"`
	InputRowsSkipped   int64  `json:"input_rows_skipped,omitempty"`
	Keys               string `json:"keys,omitempty"`
	KeysDropped        int64  `json:"keys_dropped"`
	KeysChunksSkipped  int64  `json:"keys_chunks_skipped,omitempty"`
	KeysRowsSkipped    int64  `json:"keys_rows_skipped,omitempty"`
}

// where is rep.Where, made when first asked for.
func (rep *Report) where() *WhereReport {
	if rep.Where == nil {
		rep.Where = &WhereReport{}
	}
	return rep.Where
}

// SetKeysWhere records Options.KeysWhere (src), the key-side rows it
// dropped, and of them the chunks skipped unread and their rows.
func (rep *Report) SetKeysWhere(src string, dropped, chunksSkipped, rowsSkipped int64) {
	if src != "" {
		w := rep.where()
		w.Keys, w.KeysDropped, w.KeysChunksSkipped, w.KeysRowsSkipped = src, dropped, chunksSkipped, rowsSkipped
	}
}

// SetWhere records Options.Where (src), the large-side rows it dropped,
// and of them the chunks skipped unread and their rows.
func (rep *Report) SetWhere(src string, dropped, chunksSkipped, rowsSkipped int64) {
	if src != "" {
		w := rep.where()
		w.Input, w.InputDropped, w.InputChunksSkipped, w.InputRowsSkipped = src, dropped, chunksSkipped, rowsSkipped
	}
}
