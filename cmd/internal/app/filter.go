package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/acbfjoin/acbfjoin/cli"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/internal/svgplot"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/repro/evaluate"
)

const filterUsage = `usage: join filter size|eval|plot [flags]

  size  for each filter kind, what it takes to hold n keys: bits per key, k or
        fingerprint size, bytes, formula FP, whether it deletes
        join filter size --n N (--fpp P | --bits-per-key B) [--kind K|all]
  eval  build each kind over n synthetic keys and measure it: false positives
        over fresh non-members against the formula (z-score, PASS within 4 sd),
        false negatives, insert failures, ns per Add, Remove and Contains
        join filter eval --kinds all --n N --queries Q [--churn C] [--seed S] [--json]
  plot  build each kind at a range of bits per key and plot its false positive
        rate against its memory, measured and by formula (SVG)
        join filter plot --n N [--bits 4:32:2] --out FILE.svg

Run 'join filter size -h' (eval -h, plot -h) for their flags.
`

const filterSizeExamples = `
Examples:
  join filter size --n 1000000 --fpp 0.01
  join filter size --n 65771 --bits-per-key 16 --kind cuckoo
  join filter size --n 1e6 --fpp 0.001 --json
`

const filterEvalExamples = `
Examples:
  join filter eval --n 100000 --queries 1000000
  join filter eval --kinds cuckoo,cbf,acbf --n 100000 --churn 10 --seed 7
  join filter eval --kinds blocked,bloom --n 1e6 --queries 1e7 --bits-per-key 10 --json
`

func cmdFilter(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, "filter", filterUsage, args, stdout, stderr, []subcommand{
		{"size", cmdFilterSize},
		{"eval", cmdFilterEval},
		{"plot", cmdFilterPlot},
	})
}

// parseKinds reads a comma-separated list of kinds, or all
// (filters.ParseKinds).
func parseKinds(cmd, flagName, list string) ([]filters.Kind, error) {
	if slices.Contains(strings.Split(strings.ReplaceAll(list, " ", ""), ","), string(join.FilterAuto)) {
		return nil, usageError{fmt.Errorf("%s: --%s auto: %s measures each kind named; auto chooses one of them for a join (join run --filter auto says which and why)", cmd, flagName, cmd)}
	}
	kinds, err := filters.ParseKinds(list)
	if err != nil {
		return nil, usageError{fmt.Errorf("%s: --%s %v", cmd, flagName, err)}
	}
	return kinds, nil
}

func cmdFilterSize(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("filter size", stderr)
	var sf sizingFlags
	sf.register(fs)
	var n cli.Count
	fs.Var(&n, "n", "distinct keys the filter holds (required; 1e6 is accepted)")
	kind := fs.String("kind", "all", "the kinds to size, comma separated, or all: "+strings.Join(filters.Names(), ", "))
	asJSON := fs.Bool("json", false, "print JSON instead of a Markdown table")
	usageWith(fs, "join filter size --n N (--fpp P | --bits-per-key B) [flags]", filterSizeExamples)
	if err := parse(fs, args); err != nil {
		return err
	}
	if n.N < 1 {
		return usageError{fmt.Errorf("filter size: --n is required: the distinct keys the filter holds, at least 1")}
	}
	kinds, err := parseKinds("filter size", "kind", *kind)
	if err != nil {
		return err
	}
	sf.Kinds = kinds
	sz, err := sf.resolve("filter size", "")
	if err != nil {
		return err
	}
	rows := filters.SizeAll(uint64(n.N), sz, kinds, func(err error) string {
		return strings.TrimPrefix(flagError("filter size", fs, err).Error(), "filter size: ")
	})
	if *asJSON {
		return writeJSON(stdout, rows)
	}
	filters.WriteSizes(stdout, uint64(n.N), sz, rows)
	return nil
}

func cmdFilterEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("filter eval", stderr)
	var sf sizingFlags
	sf.register(fs)
	var n, queries cli.Count
	queries.N = evaluate.DefaultQueries
	fs.Var(&n, "n", "distinct keys to build each filter over (required; 1e6 is accepted)")
	fs.Var(&queries, "queries", "fresh non-members to count false positives over")
	kindList := fs.String("kinds", "all", "the kinds to evaluate, comma separated, or all: "+strings.Join(filters.Names(), ", "))
	var churnN cli.Count
	churn := &churnN.N
	fs.Var(&churnN, "churn", "update rounds for the kinds that delete: each deletes a fifth of the keys and inserts them again, checked against an exact model")
	seed := fs.Uint64("seed", 1, "seed of the keys and queries (the same seed gives the same keys)")
	asJSON := fs.Bool("json", false, "print JSON instead of a Markdown table")
	reportJSON := fs.String("report-json", "", "also write the results as JSON to this file")
	quiet := fs.Bool("quiet", false, "no progress line on a terminal")
	usageWith(fs, "join filter eval --n N [--kinds all] [--queries Q] [--churn C] [--seed S] [flags]", filterEvalExamples)
	if err := parse(fs, args); err != nil {
		return err
	}
	kinds, err := parseKinds("filter eval", "kinds", *kindList)
	if err != nil {
		return err
	}
	sf.Kinds = kinds
	sz, err := sf.resolve("filter eval", "")
	if err != nil {
		return err
	}
	cfg, err := evaluate.Config{Kinds: kinds, N: n.N, Queries: queries.N, Churn: *churn, Seed: *seed, Sizing: sz}.Validate()
	if err != nil {
		return usageError{flagError("filter eval", fs, err)}
	}
	outs := reportOutput(nil, sf.set("report-json"), *reportJSON)
	if err := checkPaths(paths(outs), nil); err != nil {
		return usageError{fmt.Errorf("filter eval: %w", err)}
	}
	return writeAndCommit(ctx, outs, func(files []*atomicfile.File) error {
		if f, ok := stderr.(*os.File); ok && !*quiet && isTerminal(f) {
			cfg.Progress = func(k filters.Kind, phase string) { fmt.Fprintf(stderr, "\r\033[Kfilter eval: %s: %s", k, phase) }
			defer fmt.Fprint(stderr, "\r\033[K")
		}
		results, err := evaluate.Evaluate(ctx, cfg)
		if err != nil {
			return err
		}
		report := evalReport{n.N, queries.N, *churn, *seed, sz, runtime.Version(), evaluate.JSONSafe(results)}
		if err := writeReportJSON(reportFile(outs, files), report); err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(stdout, report)
		}
		evaluate.WriteMarkdown(stdout, cfg, results, cli.RewriteText)
		return nil
	})
}

// evalReport is filter eval's JSON.
type evalReport struct {
	N       int               `json:"n"`
	Queries int               `json:"queries"`
	Churn   int               `json:"churn"`
	Seed    uint64            `json:"seed"`
	Sizing  filters.Sizing    `json:"sizing"`
	Go      string            `json:"go"`
	Results []evaluate.Result `json:"results"`
}

const filterPlotExamples = `
Examples:
  join filter plot --n 100000 --out fp.svg
  join filter plot --n 1e6 --queries 1e7 --bits 4:32:2 --kinds bloom,blocked,cuckoo,acbf --out fp.svg
`

func cmdFilterPlot(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("filter plot", stderr)
	var sf sizingFlags
	sf.register(fs)
	var n, queries cli.Count
	n.N, queries.N = 100000, evaluate.DefaultQueries
	fs.Var(&n, "n", "distinct keys to build each filter over (1e6 is accepted)")
	fs.Var(&queries, "queries", "fresh non-members to count false positives over, at each point")
	kindList := fs.String("kinds", "all", "the kinds to plot, comma separated, or all (none and exact have no memory budget and are left out)")
	bitsList := fs.String("bits", "4:32:2", "the bits per key to build each kind at: a list (8,10,16) or FROM:TO:STEP")
	seed := fs.Uint64("seed", 1, "seed of the keys and queries")
	out := fs.String("out", "", "the image to write (required): .svg, .png, .jpg or .pdf by its extension")
	quiet := fs.Bool("quiet", false, "no progress line on a terminal")
	usageWith(fs, "join filter plot --out FILE.svg [--n N] [--bits 4:32:2] [flags]", filterPlotExamples)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError{fmt.Errorf("filter plot: --out is required (an .svg, .png or .pdf file)")}
	}
	if sf.SizedBy() {
		return usageError{fmt.Errorf("filter plot: the plot sizes each kind at --bits; --fpp, --bits-per-key and --filter-budget do not apply")}
	}
	bits, err := evaluate.ParseBits(*bitsList)
	if err != nil {
		return usageError{fmt.Errorf("filter plot: --bits %q: %v", *bitsList, err)}
	}
	kinds, err := parseKinds("filter plot", "kinds", *kindList)
	if err != nil {
		return err
	}
	sf.Kinds = kinds
	sz, err := sf.resolve("filter plot", "")
	if err != nil {
		return err
	}
	cfg, err := evaluate.Config{Kinds: kinds, N: n.N, Queries: queries.N, Seed: *seed, Sizing: sz}.Validate()
	if err != nil {
		return usageError{flagError("filter plot", fs, err)}
	}
	for _, b := range bits {
		s := sz
		s.BitsPerKey = b
		if err := s.Validate(); err != nil {
			return usageError{fmt.Errorf("filter plot: --bits %g: %v", b, err)}
		}
	}
	if err := checkPaths([]namedPath{{"--out", *out}}, nil); err != nil {
		return usageError{fmt.Errorf("filter plot: %w", err)}
	}
	if _, err := svgplot.FormatOf(*out); err != nil {
		return usageError{fmt.Errorf("filter plot: --out %w", err)}
	}
	if f, ok := stderr.(*os.File); ok && !*quiet && isTerminal(f) {
		cfg.Progress = func(k filters.Kind, phase string) { fmt.Fprintf(stderr, "\r\033[Kfilter plot: %s: %s", k, phase) }
		defer fmt.Fprint(stderr, "\r\033[K")
	}
	points, err := evaluate.Sweep(ctx, cfg, bits)
	if err != nil {
		return err
	}
	title := fmt.Sprintf("n = %d keys, %d queries a point", n.N, queries.N)
	if err := evaluate.WritePlot(*out, title, points); err != nil {
		return fmt.Errorf("--out %s: %w", *out, err)
	}
	fmt.Fprintf(stdout, "%d keys, %d fresh non-member queries a point, seed %d; wrote %s\n\n", n.N, queries.N, *seed, *out)
	evaluate.WritePoints(stdout, points, func(e string) string { return strings.ReplaceAll(cli.RewriteText(e), "--bits-per-key ", "--bits ") })
	return nil
}
