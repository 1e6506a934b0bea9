package stream

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/acbfjoin/acbfjoin/join"
)

// BatchHeader is the header of the lines of BatchReport.Line, with a time
// range with timed (a window).
func BatchHeader(timed bool) string {
	first := "batch"
	if timed {
		first = fmt.Sprintf("batch  %-*s", timeWidth, "time")
	}
	return fmt.Sprintf("%s  %9s %9s %9s %9s %9s %9s %9s %6s %9s %9s %10s  %s\n",
		first, "+keys", "-keys", "live keys", "probe", "neg keys", "FP keys", "FP rate", "z", "FP rows", "rows out", "est. bound", "hot keys")
}

// timeWidth is the width of a timed batch's time range (FROM..TO), padded
// so that the columns after it stay aligned.
const timeWidth = 21

// BatchLegend explains the columns of BatchHeader whose meaning is not
// their name, printed under the table.
const BatchLegend = "est. bound: the count-min sketch's estimate of rows out, an upper bound (never fewer);\n" +
	"FP: the filter's false positives among the batch's probe keys that are not live\n"

// Line is the batch as a line of a table under BatchHeader: its changes,
// live keys, probes, false positives (rate and z), rows out and their
// estimate, and its hottest three keys.
func (b BatchReport) Line(timed bool) string {
	first := fmt.Sprintf("%5d", b.Batch)
	if timed {
		first = fmt.Sprintf("%5d  %-*s", b.Batch, timeWidth, fmt.Sprintf("%d..%d", b.TimeFrom, b.TimeTo))
	}
	var hot []string
	for i, h := range b.Hot {
		if i == 3 {
			break
		}
		hot = append(hot, fmt.Sprintf("%s:%d", h.Key, h.Count))
	}
	return fmt.Sprintf("%s  %9d %9d %9d %9d %9d %9d %9.2e %+6.1f %9d %9d %10d  %s\n",
		first, b.Inserts, b.Deletes, b.LiveKeys, b.ProbeRows, b.NegativeKeys, b.FalsePositiveKeys, b.FPRate(), b.FPZ(), b.FalsePositives, b.RowsOut, b.EstimatedRows, strings.Join(hot, " "))
}

// WriteText writes the stream's report as a few readable lines, as join
// stream prints it. Write errors are w's to keep.
func (r *Report) WriteText(w io.Writer) {
	if r.Batches > 0 {
		fmt.Fprint(w, BatchLegend)
	}
	fmt.Fprintf(w, "\nstream (%s): %d batches, %d probe rows, %d rows out (count-min estimate %d), in %v\n",
		r.Mode, r.Batches, r.ProbeRows, r.RowsOut, r.EstimatedRows, time.Duration(r.WallNanos).Round(time.Millisecond))
	fmt.Fprintf(w, "key side: %d inserts, %d %s; live keys at most %d (%d rows), %d at the end\n",
		r.Inserts, r.Deletes, map[bool]string{true: "expired", false: "deletes"}[r.Mode == "window"], r.MaxLiveKeys, r.MaxLiveRows, r.FinalLiveKeys)
	r.Keys.WriteText(w, r.KeyType, "probe")
	if r.WhereDropped > 0 {
		fmt.Fprintf(w, "where: dropped %d probe rows before the filter\n", r.WhereDropped)
	}
	fmt.Fprintf(w, "filter %s, sized for %d live keys, %s, rebuilt %d times\n",
		r.Params, r.Capacity, join.SizeText(r.FilterBytes), r.Rebuilds)
	fn := "not counted (a verified run counts them)"
	if r.Verified {
		fn = fmt.Sprint(r.FalseNegatives)
	}
	fmt.Fprintf(w, "false positives: %d of %d distinct negative keys a batch (%.3g; formula at the live keys %.3g), batches beyond 4 sd: %d; %d of %d negative rows (%.3g); false negatives: %s\n",
		r.FalsePositiveKeys, r.NegativeKeys, r.FPRate(), r.FPPMean, r.BatchesBeyond4SD, r.FalsePositives, r.Negatives, r.RowFPRate(), fn)
	fmt.Fprintf(w, "speed: %.0f key updates/s (apply time), %.0f probe rows/s (wall)\n", r.UpdatesPerSecond(), r.ProbeRowsPerSecond())
	if len(r.Hot) > 0 {
		var hot []string
		for _, h := range r.Hot {
			hot = append(hot, fmt.Sprintf("%s:%d", h.Key, h.Count))
		}
		fmt.Fprintf(w, "hot probe keys (count-min %dx%d, HeavyKeeper): %s\n", r.CMSWidth, r.CMSDepth, strings.Join(hot, " "))
	}
}
