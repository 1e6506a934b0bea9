package app

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/repro"
)

// writeCompare prints compare's table and, with cbf and acbf among the
// kinds, the paper's Table 1 comparison.
func writeCompare(w io.Writer, reps []*join.Report, repeat int) {
	join.WriteComparison(w, reps, repeat)
	changes, ok := repro.CompareChanges(reps)
	if !ok {
		return
	}
	fmt.Fprintf(w, "\nACBF against CBF (Table 1 of the paper):\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tthis run\tpaper\t")
	for _, c := range changes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", c.Measure, repro.FormatChange(c.Change), c.Paper)
	}
	tw.Flush()
	if reps[0].TimingsMs["total"] < timesMeaningfulMs {
		fmt.Fprintf(w, "(the time rows are not meaningful here: joins of %.0f ms vary from run to run by more\n"+
			"than these differences; docs/results holds the full-scale run's)\n", reps[0].TimingsMs["total"])
	}
}

// timesMeaningfulMs is the join time below which compare says that its time
// comparisons are noise: at under a second, alternated runs of the same
// join on the 2-core machines here differed by 20-40%.
const timesMeaningfulMs = 1000
