package app

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/join/local"
	"github.com/acbfjoin/acbfjoin/join/source"
)

const compareExamples = `
Examples:
  join compare --keys data/keys.txt --input data/cite75_99.txt
  join compare --keys data/keys.txt --input data/cite75_99.txt --filters cbf,acbf --bits-per-key 16 --repeat 5
  join compare --keys data/keys.txt --input data/cite75_99.txt --report-json compare.json --quiet
`

func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compare", stderr)
	var jf joinFlags
	jf.register(fs)
	list := fs.String("filters", "none,exact,bloom,cbf,acbf", "filters to compare, comma separated, of: "+strings.Join(filters.Names(), ", ")+"; or all")
	repeat := fs.Int("repeat", 1, "timed runs per filter (alternating between filters); times are medians")
	reportJSON := fs.String("report-json", "", "also write the reports (a JSON array, one per filter) to this file")
	usageGrouped(fs, "join compare --keys FILE --input FILE [flags]", "Runs the same join with each filter of --filters (alternating, --repeat times)\nand prints the paper's Table 1 for them: shuffle, false positives, times.", joinFlagGroups, compareExamples)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *repeat < 1 {
		return usageError{fmt.Errorf("compare: --repeat %d: want at least 1", *repeat)}
	}
	kinds, err := parseKinds("compare", "filters", *list)
	if err != nil {
		return err
	}
	jf.Kinds = kinds
	opt, err := jf.options("compare", stderr)
	if err != nil {
		return err
	}
	defer jf.bars.clear()
	outs := reportOutput(nil, jf.set("report-json"), *reportJSON)
	if err := checkPaths(paths(outs), []namedPath{{"--keys", opt.Keys}, {"--input", opt.Input}}); err != nil {
		return usageError{fmt.Errorf("compare: %w", err)}
	}
	if err := source.CheckSides(opt.Keys, opt.Input, ""); err != nil {
		return usageError{fmt.Errorf("compare: %w", err)}
	}
	return writeAndCommit(ctx, outs, func(files []*atomicfile.File) error {
		jf.tuneGC(&opt)
		reps, err := local.Compare(ctx, opt, kinds, *repeat)
		if err != nil {
			return flagError("compare", fs, err)
		}
		if err := writeReportJSON(reportFile(outs, files), reps); err != nil {
			return err
		}
		jf.bars.clear()
		if !jf.quiet {
			writeCompare(stdout, reps, *repeat)
		}
		return nil
	})
}
