package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/acbfjoin/acbfjoin/datasets/nber"
	"github.com/acbfjoin/acbfjoin/join"
)

// cmdDemo runs the filters on a built-in default: NBER-shaped data at 5% scale
// with the paper's key ratio (65,771 of 2,923,922 patents), in a temporary
// folder that is removed at the end.
func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scale := fs.Float64("scale", 0.05, "data size relative to the real files")
	seed := fs.Uint64("seed", 1, "seed of the data and the key sample")
	bpk := fs.Float64("bits-per-key", 32, "filter memory in bits per key (the CBF gets bits/4 counters per key)")
	if err := parse(fs, args); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "acbfjoin-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	fmt.Fprintf(stdout, "Generating NBER-shaped data at scale %v (seed %d)...\n", *scale, *seed)
	gen, err := nber.Generate(ctx, dir, nber.GenOptions{Scale: *scale, Seed: *seed})
	if err != nil {
		return err
	}
	sample := int(math.Round(nber.PaperKeySample * *scale))
	keysPath := filepath.Join(dir, "keys.txt")
	kr, err := nber.ExtractKeysFile(gen.PatPath, keysPath, nber.KeysOptions{Sample: sample, Seed: *seed})
	if err != nil {
		return err
	}
	keys, _, err := join.ReadKeys(keysPath, "PATENT")
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d citations, %d patents, %d join keys sampled (the paper's ratio, 65,771 of 2,923,922)\n\n",
		gen.Citations, gen.Patents, kr.Kept)

	kinds := []join.Kind{join.None, join.Exact, join.Bloom, join.CBF, join.ACBF}
	built := make([]*join.Built, len(kinds))
	filters := make([]join.Filter, len(kinds))
	buildTime := make([]time.Duration, len(kinds))
	for i, kind := range kinds {
		start := time.Now()
		b, err := join.BuildFilter(kind, keys, join.Sizing{BitsPerKey: *bpk})
		if err != nil {
			return err
		}
		buildTime[i] = time.Since(start)
		built[i], filters[i] = b, b.Filter
	}
	res, err := join.ProbeFile(gen.CitePath, "CITED", built[1].Filter, filters)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "filter\tk\tfirst level bits\tbroadcast bytes\tbuild\tformula FP\tmeasured FP\tcitations passed\tfalse positives\t")
	for i, b := range built {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%.3g\t%.3g\t%d\t%d\t\n", b.Kind, b.K, b.FirstLevelBits, b.SerializedBytes,
			buildTime[i].Round(10*time.Microsecond), b.TheoreticalFPP, res[i].FPP(), res[i].Passed, res[i].FalsePositives())
	}
	tw.Flush()
	cbfFP, acbfFP := res[3].FalsePositives(), res[4].FalsePositives()
	fmt.Fprintf(stdout, "\n%d of %d citations cite a key. At %.0f bits per key, ACBF (optimal first level) lets through %d false positives against the CBF's %d (%+.1f%%).\n",
		res[0].Member, res[0].Rows, *bpk, acbfFP, cbfFP, 100*(float64(acbfFP)-float64(cbfFP))/math.Max(float64(cbfFP), 1))
	fmt.Fprintln(stdout, "This demo probes the filters only; the shuffle and reduce-side join come with issue 4.")
	return nil
}
