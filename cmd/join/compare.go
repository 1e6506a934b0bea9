package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/acbfjoin/acbfjoin/join"
)

func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var jf joinFlags
	jf.register(fs)
	filters := fs.String("filters", "none,exact,bloom,cbf,acbf", "filters to compare, comma separated")
	repeat := fs.Int("repeat", 1, "timed runs per filter (alternating between filters); times are medians")
	if err := parse(fs, args); err != nil {
		return err
	}
	opt, err := jf.options("compare", fs, stderr)
	if err != nil {
		return err
	}
	if *repeat < 1 {
		return usageError{fmt.Errorf("compare: --repeat %d: want at least 1", *repeat)}
	}
	if err := checkPaths(nil, []namedPath{{"keys", opt.Keys}, {"input", opt.Input}}); err != nil {
		return usageError{fmt.Errorf("compare: %w", err)}
	}
	if err := join.CheckSides(opt.Keys, opt.Input, ""); err != nil {
		return usageError{fmt.Errorf("compare: %w", err)}
	}
	var kinds []join.Kind
	for _, s := range strings.Split(*filters, ",") {
		k, err := join.ParseKind(strings.TrimSpace(s))
		if err != nil {
			return usageError{fmt.Errorf("compare: --filters: %w", err)}
		}
		kinds = append(kinds, k)
	}
	reps, err := join.Compare(ctx, opt, kinds, *repeat)
	if err != nil {
		return err
	}
	printCompare(stdout, kinds, reps, *repeat)
	return nil
}

func printCompare(w io.Writer, kinds []join.Kind, reps []*join.Report, repeat int) {
	r0 := reps[0]
	fmt.Fprintf(w, "%d input rows, %d key rows (%d distinct), %d join rows; times are medians of %d run(s)\n\n",
		r0.InputRecords, r0.KeysRecords, r0.KeysDistinct, r0.JoinRows, repeat)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "filter\tk\tmemory bits\tformula FP\tmeasured FP\tmap output records\tfalse positives\tshuffle bytes\tconstruction ms\ttotal ms\t")
	for _, r := range reps {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3g\t%.3g\t%d\t%d\t%d\t%.1f\t%.0f\t\n", r.Filter.Kind, r.Filter.K, r.Filter.MemoryBits,
			r.Filter.TheoreticalFPP, r.FPPMeasured, r.MapOutputRecords, r.FalsePositiveRecords, r.ShuffleBytes,
			r.TimingsMs["build"], r.TimingsMs["total"])
	}
	tw.Flush()
	ci, ai := slices.Index(kinds, join.CBF), slices.Index(kinds, join.ACBF)
	if ci < 0 || ai < 0 {
		return
	}
	fmt.Fprintf(w, "\nACBF against CBF (Table 1 of the paper):\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tthis run\tpaper\t")
	for _, c := range join.Table1Changes(reps[ci], reps[ai]) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", c.Measure, join.FormatChange(c.Change), c.Paper)
	}
	tw.Flush()
}
