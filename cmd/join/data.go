package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/acbfjoin/acbfjoin/datasets/nber"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
)

func cmdGen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	usageWithExamples(fs, "join gen --out DIR [flags]", `
Examples:
  join gen --scale 1 --seed 1 --out data        # the full size: 16,522,438 citations, 2,923,922 patents
  join gen --scale 0.01 --out small             # 1% for a quick try
`)
	scale := fs.Float64("scale", 1, "size relative to the real files (1 = 16,522,438 citations, 2,923,922 patents)")
	seed := fs.Uint64("seed", 1, "random seed; the same seed and scale give identical files")
	out := fs.String("out", "", "output folder (required)")
	workers := fs.Int("workers", 0, "goroutines (0 = GOMAXPROCS); does not change the output")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError{fmt.Errorf("gen: --out is required")}
	}
	res, err := nber.Generate(ctx, *out, nber.GenOptions{Scale: *scale, Seed: *seed, Workers: *workers})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d citations, %.1f%% cite numbers before 1963, most cited patent %d times)\n",
		res.CitePath, res.Citations, 100*float64(res.CitedPre1963)/float64(max(res.Citations, 1)), res.MaxInDegree)
	fmt.Fprintf(stdout, "wrote %s (%d patents) in %s\n", res.PatPath, res.Patents, res.Elapsed.Round(time.Millisecond))
	return nil
}

func cmdKeys(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("keys", flag.ContinueOnError)
	fs.SetOutput(stderr)
	usageWithExamples(fs, "join keys --patents FILE --out FILE [flags]", `
Examples:
  join keys --patents data/apat63_99.txt --out data/keys.txt                  # the paper's 65,771 keys
  join keys --patents data/apat63_99.txt --where GYEAR=1999 --where COUNTRY=JP --out data/jp99.txt
  join keys --patents nber/apat63_99.zip --sample 1000 --seed 7 --out - | head
`)
	patents := fs.String("patents", "", "patent file: apat63_99.txt, .gz or .zip (required)")
	sample := fs.Int("sample", nber.PaperKeySample, "records to sample")
	seed := fs.Uint64("seed", 1, "sampling seed")
	out := fs.String("out", "", "output file (.gz: compressed; - for standard output) (required)")
	var where multiFlag
	fs.Var(&where, "where", "keep only records with COL=VALUE (repeatable; all must hold)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *patents == "" || *out == "" {
		return usageError{fmt.Errorf("keys: --patents and --out are required")}
	}
	if *sample < 1 {
		return usageError{fmt.Errorf("keys: --sample %d: want at least 1", *sample)}
	}
	opt := nber.KeysOptions{Sample: *sample, Seed: *seed}
	for _, w := range where {
		p, err := nber.ParsePredicate(w)
		if err != nil {
			return usageError{fmt.Errorf("keys: --where: %w", err)}
		}
		opt.Where = append(opt.Where, p)
	}
	if err := checkPaths([]namedPath{{"out", *out}}, []namedPath{{"patents", *patents}}); err != nil {
		return usageError{fmt.Errorf("keys: %w", err)}
	}
	var files outputs
	defer files.abort()
	f, err := files.create(ctx, namedPath{"out", *out}, atomicfile.Options{Gzip: true})
	if err != nil {
		return err
	}
	res, err := nber.ExtractKeysContext(ctx, *patents, f, opt)
	if err != nil {
		return err
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("--out %s: %w", *out, err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d of %d matching records (%d scanned)\n", *out, res.Kept, res.Matched, res.Scanned)
	return nil
}

func cmdFetch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fetch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	usageWithExamples(fs, "join fetch --dir DIR [flags]", `
Examples:
  join fetch --dir nber        # acite75_99.zip and apat63_99.zip, resumed and verified
  join fetch --dir nber --url http://mirror.example/patents
`)
	dir := fs.String("dir", "", "download folder (required)")
	url := fs.String("url", nber.NBERBaseURL, "base URL of the NBER patent data page")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		return usageError{fmt.Errorf("fetch: --dir is required")}
	}
	f := &nber.Fetcher{BaseURL: *url, Log: func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }}
	return f.Fetch(ctx, *dir)
}
