package app

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/acbfjoin/acbfjoin/datasets/nber"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/local"
	"github.com/acbfjoin/acbfjoin/repro"
)

// cmdDemo compares the filters on the full join, on a built-in default: an
// NBER-shaped data set at 5% scale with the paper's key ratio (65,771 of
// 2,923,922 patents), generated in a temporary folder removed at the end; or
// on real NBER files with --data.
func cmdDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", stderr)
	usageWith(fs, "join demo [flags]", `
Examples:
  join demo                    # 5% NBER-shaped data, every filter, the paper's Table 1
  join demo --bits-per-key 16
  join demo --data nber        # the real NBER files (join fetch --dir nber)
`)
	scale := fs.Float64("scale", 0.05, "data size relative to the real files")
	seed := fs.Uint64("seed", 1, "seed of the data and the key sample")
	bpk := fs.Float64("bits-per-key", 32, "filter memory in bits per key (the CBF gets bits/4 counters per key)")
	data := fs.String("data", "", "folder with real NBER files (cite75_99.txt or acite75_99.zip, apat63_99.txt or apat63_99.zip) instead of generated ones")
	if err := parse(fs, args); err != nil {
		return err
	}
	if !(*bpk > 0) || math.IsInf(*bpk, 0) {
		return usageError{fmt.Errorf("demo: --bits-per-key %v: want a positive number of bits per key (leave it out for 32)", *bpk)}
	}
	if !(*scale > 0) || *scale > 8 {
		return usageError{fmt.Errorf("demo: --scale %v: want a size above 0 and at most 8 times the real files", *scale)}
	}
	dir, err := os.MkdirTemp("", atomicfile.TempPrefix()+"demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	var cite, pat string
	sample := int(math.Round(nber.PaperKeySample * *scale))
	if *data != "" {
		if cite, pat, err = repro.FindNBER(*data); err != nil {
			return flagError("demo", fs, err)
		}
		if err := checkPaths(nil, []namedPath{{"--data", cite}, {"--data", pat}}); err != nil {
			return usageError{fmt.Errorf("demo: %w", err)}
		}
		// The paper's ratio of the file's patents (all of them was taken
		// from a sample of the files, and called the paper's ratio).
		rows, err := nber.CountRecords(ctx, pat)
		if err != nil {
			return err
		}
		sample = nber.PaperSample(rows)
		fmt.Fprintf(stdout, "Real NBER data in %s\n", *data)
	} else {
		fmt.Fprintf(stdout, "Generating NBER-shaped data at scale %v (seed %d)...\n", *scale, *seed)
		gen, err := nber.Generate(ctx, dir, nber.GenOptions{Scale: *scale, Seed: *seed})
		if err != nil {
			return err
		}
		cite, pat = gen.CitePath, gen.PatPath
	}
	keys := filepath.Join(dir, "keys.txt")
	kr, err := nber.ExtractKeysFile(pat, keys, nber.KeysOptions{Sample: sample, Seed: *seed})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d join keys sampled from %d patents (%.2f%%; the paper's ratio: 65,771 of 2,923,922, 2.25%%); joining cite75_99 CITED = PATENT\n", kr.Kept, kr.Scanned, 100*float64(kr.Kept)/float64(max(kr.Scanned, 1)))
	kinds := []filters.Kind{filters.None, filters.Exact, filters.Bloom, filters.CBF, filters.ACBF}
	opt := join.Options{Sides: join.Sides{Keys: keys, Input: cite}, Keying: join.Keying{KeyCol: join.DefaultKeyCol, JoinCol: join.DefaultJoinCol}, FilterChoice: join.FilterChoice{Sizing: filters.Sizing{BitsPerKey: *bpk}}}
	reps, err := local.Compare(ctx, opt, kinds, 1)
	if err != nil {
		return flagError("demo", fs, err)
	}
	fmt.Fprintf(stdout, "Filters at %.0f bits per key, each at its default k (round(ln 2 x bits a key); the ACBFs the CBF's, as the paper takes it):\n\n", *bpk)
	writeCompare(stdout, reps, 1)
	return nil
}
