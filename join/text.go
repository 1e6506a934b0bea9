package join

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/key"
)

// WriteText writes the report as a few readable lines, as join run prints
// it (what auto chose, the filter, the keys, the input, the shuffle, the
// partitions, the join's timings). Write errors are w's to keep (a
// bytes.Buffer or a writer that records them).
func (r *Report) WriteText(w io.Writer) {
	if a := r.Auto; a != nil {
		r.writeAuto(w, a)
	}
	f := r.Filter
	fmt.Fprintf(w, "filter %s, memory %d bits, broadcast %d bytes, formula FP %.3g\n",
		cmp.Or(f.Params, string(f.Kind)), f.MemoryBits, r.BroadcastBytes, f.FPPFormula)
	if ff := f.File; ff != nil {
		fmt.Fprintf(w, "filter: from the filter file %s (%s, built for %d distinct keys of column %s, key type %s; the key file's keys are the same, by count and fingerprint)\n",
			ff.Name, f.Kind, ff.Keys, ff.KeyCol, ff.KeyType)
	}
	if r.BroadcastCopies < r.Settings.Mappers {
		copies := fmt.Sprintf("%d copies", r.BroadcastCopies)
		if r.BroadcastCopies == 1 {
			copies = "one copy"
		}
		fmt.Fprintf(w, "broadcast: %d mappers share %s of the filter (one each would take more than %s: half the memory budget, at most %s)\n",
			r.Settings.Mappers, copies, SizeText(BroadcastLimit(r.Settings.MemBytes)), SizeText(MaxBroadcastBytes))
	}
	fmt.Fprintf(w, "keys: %d rows, %d distinct\n", r.KeysRecords, r.KeysDistinct)
	r.Keys.WriteText(w, r.Settings.KeyType, "input")
	fmt.Fprintf(w, "input: %d rows; map output %d, filtered out %d, false positives %d (%s)\n",
		r.InputRecords, r.MapOutputRecords, r.FilteredOutRecords, r.FalsePositiveRecords, r.MeasuredFPText())
	if t := r.InputTable; t != nil {
		chunks := "row groups"
		if t.Format == "arrow" {
			chunks = "record batches"
		}
		fmt.Fprintf(w, "input %s: %d %s, %d skipped by their statistics (%d rows); the other columns decoded in %d (where a row passed): %s of %s decoded (%.0f%%)\n",
			t.Format, t.Chunks, chunks, t.ChunksSkipped, t.RowsSkipped, t.ChunksMaterialized,
			mib(t.DecodedBytes), mib(t.Bytes), 100*float64(t.DecodedBytes)/float64(max(t.Bytes, 1)))
		if t.ChunksDict > 0 {
			fmt.Fprintf(w, "input %s: the join column's dictionary probed in %d %s (%d entries, each tested once for its rows)\n", t.Format, t.ChunksDict, chunks, t.DictEntries)
		}
		if t.BloomChecked > 0 {
			fmt.Fprintf(w, "input %s: %d %s skipped by the file's Bloom filters of the join column (%d rows, %s), of %d whose filter was read",
				t.Format, t.ChunksSkippedBloom, chunks, t.RowsSkippedBloom, mib(t.BytesSkippedBloom), t.BloomChecked)
			if t.ChunksSkippedDictProof > 0 {
				fmt.Fprintf(w, "; %d of them passed a key that their dictionary then proved absent", t.ChunksSkippedDictProof)
			}
			if t.RowsScreenedBloom > 0 {
				fmt.Fprintf(w, "; in those read, %d rows dropped without a probe of the join's filter, their values none of the few keys the row group's filter passed", t.RowsScreenedBloom)
			}
			if t.BloomOff {
				fmt.Fprintf(w, "; the first would pass %.0f%% of the row groups holding no key (its false positive rate, the keys probed), so no more were read", 100*t.BloomSurvival)
			}
			fmt.Fprintln(w)
		}
	}
	if f := r.FilterOff; f != nil {
		fmt.Fprintf(w, "filter off: %d of %d mappers stopped probing, the first after %d rows: %.1f%% passed, and a probe took %.1f ns (the median batch) where it saved %.1f ns of shuffle on average (%.1f ns of a mapper's time a dropped row); %d rows shuffled unprobed and joined exactly\n",
			f.Mappers, r.Settings.Mappers, f.AfterRows, 100*f.PassRate, f.ProbeNs, (1-f.PassRate)*f.ShuffleNsEach, f.ShuffleNsEach, f.Unprobed)
	}
	if r.BypassedRecords > 0 {
		fmt.Fprintf(w, "bypass: %d rows (%s) written without the shuffle: the filter said no, or the key is NULL (%s join)\n",
			r.BypassedRecords, mib(r.BypassedBytes), r.Settings.JoinType)
	}
	if h := r.HotExclusions; h != nil {
		fmt.Fprintf(w, "hot exclusions: %d asked, %d found (frequent keys that pass the filter and are not keys), %d bytes with the filter; they dropped %d rows: row-weighted FP %.3g without them, %.3g with",
			h.Asked, h.Found, h.BroadcastBytes, h.ExcludedRecords, h.FPPMeasuredWithout, r.FPPMeasured)
		if r.FPPMeasured > 0 {
			fmt.Fprintf(w, " (%.1fx less)", h.FPPMeasuredWithout/r.FPPMeasured)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "shuffle: %d records, %d bytes (Arrow IPC), %.1f%% less than the %d without a filter, %d bytes spilled, %.1f MiB held at most\n",
		r.ShuffleRecords, r.ShuffleBytes, 100*r.ShuffleReduction, r.ShuffleBytesNoFilter, r.SpilledBytes, float64(r.ShufflePeakBytes)/(1<<20))
	if r.Grace {
		fmt.Fprintf(w, "reduce: %d partitions for %d reducers, one partition's key rows held at a time: the key side would not fit in half of the memory budget at once (a grace hash join)\n",
			r.Partitions, r.Settings.Reducers)
	}
	r.writeSkew(w)
	if wr := r.Where; wr != nil {
		if wr.Keys != "" {
			fmt.Fprintf(w, "keys where %s: dropped %d of %d key rows%s\n", strconv.Quote(wr.Keys), wr.KeysDropped, wr.KeysDropped+r.KeysRecords, skippedUnread(wr.KeysChunksSkipped, wr.KeysRowsSkipped))
		}
		if wr.Input != "" {
			fmt.Fprintf(w, "where %s: dropped %d of %d large rows before the filter%s\n", strconv.Quote(wr.Input), wr.InputDropped, wr.InputDropped+r.InputRecords, skippedUnread(wr.InputChunksSkipped, wr.InputRowsSkipped))
		}
	}
	if r.BadRows > 0 {
		fmt.Fprintf(w, "bad rows: %d skipped; the first: %s\n", r.BadRows, strings.Join(r.BadRowExamples, "; "))
	}
	// The phases some runs have: the skew sample, auto's decision.
	var optional string
	for _, ph := range []string{"sample", "auto", "exclusions"} {
		if v, ok := r.TimingsMs[ph]; ok {
			optional += fmt.Sprintf(", %s %.0f ms", ph, v)
		}
	}
	// Each phase's ns a row a core: the build's a key row, the map's an
	// input row, the reduce's a shuffle record, the total's an input row.
	per := func(ph string) string {
		if v, ok := r.NsPerRowCore[ph]; ok {
			return fmt.Sprintf(" (%.1f ns a row a core)", v)
		}
		return ""
	}
	fmt.Fprintf(w, "join: %d rows; time build %.0f ms%s%s, broadcast %.0f ms, map %.0f ms%s, shuffle %.0f ms, reduce %.0f ms%s, finish %.0f ms, total %.0f ms%s; peak heap %.1f MiB, peak RSS %.1f MiB\n",
		r.JoinRows, r.TimingsMs["build"], per("build"), optional, r.TimingsMs["broadcast"], r.TimingsMs["map"], per("map"), r.TimingsMs["shuffle"], r.TimingsMs["reduce"], per("reduce"),
		r.TimingsMs["finish"], r.TimingsMs["total"], per("total"), float64(r.PeakHeapBytes)/(1<<20), float64(r.PeakRSSBytes)/(1<<20))
}

// WriteText writes how the keys compared and the rows left out for a key
// that cannot match (if any), as the reports print them; keyType is the
// key's type, other the other side's name ("input", "probe").
func (k KeysReport) WriteText(w io.Writer, keyType key.Type, other string) {
	if len(k.Why) == 0 {
		return
	}
	why := k.Why[0]
	for i, y := range k.Why[1:] {
		why += fmt.Sprintf("; column %d: %s", i+2, y)
	}
	fmt.Fprintf(w, "key type %s: %s\n", keyType, why)
	if k.KeysNull+k.KeysUnmatchable+k.InputNull+k.InputUnmatchable > 0 {
		fmt.Fprintf(w, "left out (no key that can match): keys %d NULL, %d no %s; %s %d NULL, %d no %s\n",
			k.KeysNull, k.KeysUnmatchable, keyType, other, k.InputNull, k.InputUnmatchable, keyType)
	}
}

// writeSkew writes what --skew did, the partitions' balance and the
// join-size estimate.
func (r *Report) writeSkew(w io.Writer) {
	s := r.Skew
	if s.Mode == SkewAuto {
		fmt.Fprintf(w, "skew auto: ")
		if s.SampledRecords > 0 {
			fmt.Fprintf(w, "%s of %d rows (%.3g%% of the side)", s.Source, s.SampledRecords, 100*s.SampledFraction)
			if s.ThresholdRecords > 0 {
				fmt.Fprintf(w, ", input ~%d rows, hot above %d a reducer", s.InputRecordsEstimate, s.ThresholdRecords)
			}
			fmt.Fprintf(w, "; ")
		}
		if len(s.HotKeys) == 0 {
			fmt.Fprintf(w, "%s\n", cmp.Or(s.Note, "no hot key"))
		} else {
			if s.Note != "" {
				fmt.Fprintf(w, "%s; ", s.Note)
			}
			fmt.Fprintf(w, "%d hot key(s):", len(s.HotKeys))
			for i, h := range s.HotKeys {
				if i == 5 {
					fmt.Fprintf(w, " ... (%d more)", len(s.HotKeys)-5)
					break
				}
				fmt.Fprintf(w, " %s (%.1f%% of the rows, %d partitions)", h.Key, 100*h.Share, len(h.Partitions))
			}
			fmt.Fprintln(w)
		}
	}
	b, a := s.Before, s.After
	if b.Partitions > 1 {
		if s.Mode == SkewAuto {
			fmt.Fprintf(w, "partitions: the largest holds %.1f%% of %d shuffle records (%.2fx the mean) with plain hashing, %.1f%% of %d (%.2fx) as run; join rows %.2fx the mean\n",
				100*b.LargestShare, b.TotalRecords, b.LargestOverMean, 100*a.LargestShare, a.TotalRecords, a.LargestOverMean, s.JoinRows.LargestOverMean)
		} else {
			fmt.Fprintf(w, "partitions: the largest holds %.1f%% of %d shuffle records (%.2fx the mean); join rows %.2fx the mean\n",
				100*a.LargestShare, a.TotalRecords, a.LargestOverMean, s.JoinRows.LargestOverMean)
		}
	}
	if jt := r.Settings.JoinType; r.JoinRowsEstimateSource != "" && jt != "" && jt != JoinInner {
		// The estimate is of the inner join's pairs; this join writes
		// other rows, so there is no true count to set it against.
		fmt.Fprintf(w, "join size: the inner join's estimated %d before the shuffle (%s; count-min bound %d); this %s join wrote %d rows\n",
			r.JoinRowsEstimate, r.JoinRowsEstimateSource, r.JoinRowsEstimateBound, jt, r.JoinRows)
	} else if r.JoinRowsEstimateSource != "" {
		ratio := ""
		if r.JoinRows > 0 {
			ratio = fmt.Sprintf(" (%.4fx)", float64(r.JoinRowsEstimate)/float64(r.JoinRows))
		}
		fmt.Fprintf(w, "join size: estimated %d before the shuffle (%s; count-min bound %d), %d true%s\n",
			r.JoinRowsEstimate, r.JoinRowsEstimateSource, r.JoinRowsEstimateBound, r.JoinRows, ratio)
	}
}

// autoChoice names a candidate of --filter auto: "bloom at 10 bits a key".
func autoChoice(c AutoCandidate) string {
	if c.BitsPerKey == 0 {
		return string(c.Kind)
	}
	return fmt.Sprintf("%s within %g bits a key", c.Kind, c.BitsPerKey) // a budget: the filter line says what it took
}

// writeAuto writes what --filter auto saw and chose, and its prediction
// beside the run's measurement.
func (r *Report) writeAuto(w io.Writer, a *AutoReport) {
	seen := fmt.Sprintf("%.1f%% of %d sampled rows have a key (about %.0f rows)", 100*a.Selectivity, a.SampledRows, a.EstimatedRows)
	if a.Note != "" {
		seen = a.Note
	}
	fmt.Fprintf(w, "auto: %s; chose %s", seen, autoChoice(a.Chosen))
	if a.RunnerUp != nil {
		fmt.Fprintf(w, " (predicted cost %.1f ms: build, broadcast, probes, shuffle) over %s (%.1f ms)", a.Chosen.PredictedCostMs, autoChoice(*a.RunnerUp), a.RunnerUp.PredictedCostMs)
	}
	if a.SizedSkipped != "" {
		fmt.Fprintf(w, "\nauto: %s", a.SizedSkipped)
	}
	fmt.Fprintf(w, "\nauto: predicted shuffle %.0f bytes, measured %d (%+.1f%%); predicted map phase %.1f ms (probes %.1f), measured %.1f ms; a passed row costs %.0f ns (%.0f in the map phase), this machine's speed %.2fx the model's reference\n",
		a.Chosen.PredictedShuffleBytes, r.ShuffleBytes, 100*(a.Chosen.PredictedShuffleBytes/float64(max(1, r.ShuffleBytes))-1), a.Chosen.PredictedMapMs, a.Chosen.PredictedProbeMs, r.TimingsMs["map"],
		a.ShuffleNsPerRecord, a.MapNsPerRecord, 1/max(a.SpeedFactor, 1e-9))
}

// writeCompare prints compare's table and, with cbf and acbf among the
// kinds, the paper's Table 1 comparison.
// filterLabel names a report's filter: its kind, and "per-column" for that
// layout of a composite key.
func filterLabel(r *Report) string {
	if r.Settings.Layout == LayoutPerColumn {
		return string(r.Filter.Kind) + " per-column"
	}
	return string(r.Filter.Kind)
}

// WriteComparison writes the table of a comparison of filters (one report
// each, local.Compare's; times the medians of repeat runs), as join
// compare prints it.
func WriteComparison(w io.Writer, reps []*Report, repeat int) {
	r0 := reps[0]
	rows := "join rows"
	bypass := r0.Settings.JoinType.KeepsUnmatchedLarge()
	if jt := r0.Settings.JoinType; jt != "" && jt != JoinInner {
		rows = fmt.Sprintf("rows of the %s join", jt)
	}
	fmt.Fprintf(w, "%d input rows, %d key rows (%d distinct), %d %s; times are medians of %d run(s)\n\n",
		r0.InputRecords, r0.KeysRecords, r0.KeysDistinct, r0.JoinRows, rows, repeat)
	// Two tables, each within 100 columns: the filters, then what each did
	// to the join.
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "filter\tparameters\tmemory KiB\tFP formula\tFP measured\t")
	for _, r := range reps {
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.3g\t%.3g\t\n", filterLabel(r), cmp.Or(r.Filter.Shape, "-"), float64(r.Filter.MemoryBits)/8192,
			r.Filter.FPPFormula, r.FPPMeasured)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "filter\tmap output rows\tfalse positives\tshuffle MiB\t"
	if bypass { // anti, left, full: the rows the filter sent past the shuffle
		head += "bypassed rows\t"
	}
	fmt.Fprintln(tw, head+"build ms\ttotal ms\t")
	for _, r := range reps {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t", filterLabel(r), r.MapOutputRecords, r.FalsePositiveRecords, float64(r.ShuffleBytes)/(1<<20))
		if bypass {
			fmt.Fprintf(tw, "%d\t", r.BypassedRecords)
		}
		fmt.Fprintf(tw, "%.1f\t%.0f\t\n", r.TimingsMs["build"], r.TimingsMs["total"])
	}
	tw.Flush()
}

// mib is n bytes in MiB with one decimal.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// FormatOptionError names the option behind a columnar.FormatOf error of
// the side opt ("Keys", "Input", "Probe"): the side's format, opt+"Format",
// when one was given and is none it knows; else the side itself, whose
// name says the format (x.parquet.gz). pkg and sentinel are the caller's
// (option.Error's).
func FormatOptionError(pkg, opt, path string, err, sentinel error) error {
	var fe *columnar.FormatError
	if !errors.As(err, &fe) {
		return &option.Error{Pkg: pkg, Name: opt, Value: path, Reason: err.Error(), Err: sentinel}
	}
	if fe.Given == "" {
		return &option.Error{Pkg: pkg, Name: opt, Value: path, Reason: fe.Reason, Err: sentinel}
	}
	return &option.Error{Pkg: pkg, Name: opt + "Format", Value: fe.Given, Reason: fe.Reason, Err: sentinel}
}

// skippedUnread says how many of the rows a predicate dropped were in
// chunks skipped unread by their statistics ("" for none).
func skippedUnread(chunks, rows int64) string {
	if chunks == 0 {
		return ""
	}
	unit := "row groups"
	if chunks == 1 {
		unit = "row group"
	}
	return fmt.Sprintf(" (%d of them in %d %s skipped unread: their statistics rule the predicate out)", rows, chunks, unit)
}

// MeasuredFPText is the report's measured false positive rate as its text
// says it (join run's and beamjoin's): "measured FP none: ..." where the
// filter tested no row whose key is not a key (TestedNonMembers). O(1).
func (r *Report) MeasuredFPText() string {
	if r.TestedNonMembers() <= 0 { // no row tested (none read, or every key NULL or a member)
		return "measured FP none: the filter tested no row whose key is not a key"
	}
	return fmt.Sprintf("measured FP %.3g, row-weighted", r.FPPMeasured)
}
