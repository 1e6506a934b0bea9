package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/join/local"

	"github.com/acbfjoin/acbfjoin/cli"
	"github.com/acbfjoin/acbfjoin/datasets"
	"github.com/acbfjoin/acbfjoin/datasets/imdb"
	"github.com/acbfjoin/acbfjoin/datasets/ipstream"
	"github.com/acbfjoin/acbfjoin/datasets/nber"
	"github.com/acbfjoin/acbfjoin/datasets/semijoin"
	"github.com/acbfjoin/acbfjoin/datasets/triples"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/internal/option"
	wherelang "github.com/acbfjoin/acbfjoin/where"
)

func cmdGen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gen", stderr)
	usageWith(fs, "join gen --out DIR [flags]", `
Examples:
  join gen --scale 1 --seed 1 --out data        # the full size: 16,522,438 citations, 2,923,922 patents
  join gen --scale 0.01 --out small             # 1% for a quick try
  join gen --dataset imdb-ratings --rows 1256196 --seed 1 --out data   # data/title.ratings.tsv at the Bloom filter course project's size
  join gen --dataset imdb-ratings --rows 10000 --out small             # 10,000 titles for a quick try
  join gen --dataset triples --rows 1000000 --seed 1 --out data       # data/triples.csv: the multi-dimensional Bloom filter project's 10^6 random triples
  join gen --dataset triples --rows 20000 --domain 5 --out dups       # integers 0..4: many duplicate (A, B, C) keys
  join gen --dataset ipstream --rows 10000000 --seed 1 --out ips      # ips/ipstream.csv (IP,SEQ: Zipf 1.1 over 1,000,000 addresses)
                                                                      # and ips/ipstream.events (IP,SINCE: 1,000,000 events, about 50,000 live)
  join gen --dataset ipstream --rows 100000 --zipf 0.8 --distinct 50000 --events 20000 --live 1000 --out ips
  join gen --scale 0.1 --format parquet --out pq   # pq/cite75_99.parquet and pq/apat63_99.parquet (typed by their values)
  join gen --dataset semijoin --keys 100000 --rows 2000000 --selectivity 0.02 --key-shape string --out sj
                                                                      # sj/keys.csv (K,PAY: 100,000 keys) and sj/input.csv
                                                                      # (ID,K,PAD: exactly 40,000 of 2,000,000 rows with a key)
`)
	dataset := fs.String("dataset", "nber", "what to write: nber (cite75_99.txt, apat63_99.txt), imdb-ratings (title.ratings.tsv), triples (triples.csv: A,B,C,ROW), ipstream (ipstream.csv: IP,SEQ and ipstream.events: IP,SINCE, for join stream) or semijoin (keys.csv: K,PAY and input.csv: ID,K,PAD, with an exact selectivity)")
	scale := fs.Float64("scale", 1, "nber only: size relative to the real files (1 = 16,522,438 citations, 2,923,922 patents)")
	rows := fs.Int("rows", 0, fmt.Sprintf("imdb-ratings: titles, 1..%d (default %d); triples: rows (default %d); ipstream: probe rows N (default %d); semijoin: input rows, 0..%d (default %d)", imdb.MaxRows, imdb.SeedRows, triples.SeedRows, ipstream.DefaultRows, int64(semijoin.MaxRows), semijoin.DefaultRows))
	domain := fs.Int("domain", 0, "triples only: 0 for random decimals in [0, 99999) (the multi-column experiment's values), D for integers 0..D-1")
	seed := fs.Uint64("seed", 1, "random seed; the same seed and size give identical files")
	out := fs.String("out", "", "output folder (required)")
	workers := fs.Int("workers", 0, "nber only: goroutines (0 = GOMAXPROCS); does not change the output")
	zipf := fs.Float64("zipf", ipstream.DefaultZipf, fmt.Sprintf("ipstream: the Zipf exponent s of the probe addresses, 0 < s <= %d; semijoin: of the rows' keys, 1 < s <= %d (default uniform)", ipstream.MaxZipf, semijoin.MaxZipf))
	distinct := fs.Int64("distinct", 0, "ipstream: the domain's addresses D, 1..2^32 (default max(1, N/10)); semijoin: the non-member keys the rows without a key draw from (default max(1, rows/4))")
	events := fs.Int64("events", 0, "ipstream only: key events E (default max(1, N/10))")
	live := fs.Int64("live", 0, "ipstream only: the live set's target size L, 1..D (default max(1, D/20))")
	keys := fs.Int("keys", semijoin.DefaultKeys, fmt.Sprintf("semijoin only: distinct keys in keys.csv, 1..%d", semijoin.MaxKeys))
	selectivity := fs.Float64("selectivity", semijoin.DefaultSelectivity, "semijoin only: the exact share of input.csv's rows whose key is in keys.csv, 0..1 (round(S*rows) rows)")
	keyShape := fs.String("key-shape", semijoin.Dense.String(), "semijoin only: dense (integers 0..keys-1), sparse (random non-negative int64) or string (k and 16 hex digits)")
	format := fs.String("format", "csv", "csv, or parquet: each file as NAME.parquet instead (a column INT64 or DOUBLE when every value is one, else UTF-8; an empty field NULL)")
	rowGroup := fs.Int("row-group", 0, "with --format parquet: rows a row group, at most 256 MiB of values each (default 65,536, or fewer when they take 8 MiB)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usageError{fmt.Errorf("gen: --out is required")}
	}
	if *format != "csv" && *format != "parquet" {
		return usageError{fmt.Errorf("gen: --format %s: want csv or parquet", *format)}
	}
	if *rowGroup < 0 || *rowGroup > 0 && *format != "parquet" {
		return usageError{fmt.Errorf("gen: --row-group %d: want a number of rows >= 1, with --format parquet", *rowGroup)}
	}
	if err := outDir("gen", *out); err != nil {
		return err
	}
	opt := datasets.Options{Dataset: *dataset, Seed: *seed, Given: map[string]bool{}, Scale: *scale, Workers: *workers, Rows: int64(*rows), Domain: *domain,
		Zipf: *zipf, Distinct: *distinct, Events: *events, Live: *live, Keys: *keys, Selectivity: *selectivity, Shape: *keyShape}
	fields := map[string]string{"scale": "Scale", "workers": "Workers", "rows": "Rows", "domain": "Domain", "zipf": "Zipf", "distinct": "Distinct",
		"events": "Events", "live": "Live", "keys": "Keys", "selectivity": "Selectivity", "key-shape": "Shape"}
	fs.Visit(func(f *flag.Flag) { opt.Given[fields[f.Name]] = true })
	if *format == "parquet" {
		return genParquet(ctx, *out, opt, *rowGroup, stdout)
	}
	text, err := datasets.Gen(ctx, *out, opt)
	var oe *option.Error
	if errors.As(err, &oe) {
		return usageError{flagError("gen", fs, err)}
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, text)
	return err
}

// genParquet generates the data set's CSV files into a temporary folder in
// out and writes each as Parquet into out (local.ConvertCSV): NAME.txt,
// .csv or .tsv as NAME.parquet, another name with .parquet added.
func genParquet(ctx context.Context, out string, opt datasets.Options, rowGroup int, stdout io.Writer) error {
	if err := os.MkdirAll(out, 0o777); err != nil {
		return fmt.Errorf("gen: --out %w", err)
	}
	tmp, err := os.MkdirTemp(out, atomicfile.TempPrefix()+"gen-")
	if err != nil {
		return fmt.Errorf("gen: --out %w", err)
	}
	defer os.RemoveAll(tmp)
	text, err := datasets.Gen(ctx, tmp, opt)
	var oe *option.Error
	if errors.As(err, &oe) {
		return usageError{fmt.Errorf("gen: %w", err)}
	}
	if err != nil {
		return err
	}
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, strings.ReplaceAll(strings.ReplaceAll(text, "wrote ", "generated "), tmp+string(filepath.Separator), ""))
	for _, e := range ents {
		src := filepath.Join(tmp, e.Name())
		name := e.Name()
		for _, ext := range []string{".txt", ".csv", ".tsv"} {
			name = strings.TrimSuffix(name, ext)
		}
		dst := filepath.Join(out, name+".parquet")
		rows, err := local.ConvertCSVFile(ctx, src, dst, rowGroup, tmp)
		if err != nil {
			return outError("gen", dst, err)
		}
		os.Remove(src) // the folder's space back before the next file
		fmt.Fprintf(stdout, "wrote %s (%d rows)\n", dst, rows)
	}
	return nil
}

func cmdKeys(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("keys", stderr)
	usageWith(fs, "join keys --from FILE --out FILE [flags]   (--patents FILE: the same)", `
Examples:
  join keys --from airports.csv --where 'state == "CA"' --sample 100 --out ca.csv  # any table
  join keys --patents data/apat63_99.txt --out data/keys.txt                  # the paper's 65,771 keys
  join keys --patents data/apat63_99.txt --where GYEAR=1999 --where COUNTRY=JP --out data/jp99.txt
  join keys --patents data/apat63_99.txt --where 'GYEAR >= 1990 and CLAIMS > 20' --sample 1000 --out data/big90s.txt
  join keys --patents nber/apat63_99.zip --sample 1000 --seed 7 --out - | head
  join keys --from data/cite75_99.txt --sample 100000 --out data/pairs.csv    # a two-column key: CITING,CITED
  join keys --patents pq/apat63_99.parquet --out pq/keys.parquet             # Parquet in and out
`)
	patents := fs.String("from", "", "the table to sample records from: CSV or TSV with a header (.gz, .zip), Parquet or Arrow (required, or --patents)")
	fs.StringVar(patents, "patents", "", "the same as --from, for the NBER patent file (apat63_99.txt)")
	sample := fs.Int("sample", nber.PaperKeySample, "records to sample")
	seed := fs.Uint64("seed", 1, "sampling seed")
	out := fs.String("out", "", "output file (.gz: compressed; .parquet: Parquet, typed by its values; - for standard output) (required)")
	var where cli.Repeated
	fs.Var(&where, "where", `keep only records for which this holds: an expression over the file's columns, as join run's --where takes it (GYEAR >= 1990 and COUNTRY in ["JP", "DE"]), or COL=VALUE (the field's text exactly); repeatable, all must hold`)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *patents == "" || *out == "" {
		return usageError{fmt.Errorf("keys: --from (or --patents) and --out are required")}
	}
	both, inFlag := 0, "patents"
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "patents" || f.Name == "from" {
			both++
			inFlag = f.Name
		}
	})
	if both > 1 {
		return usageError{fmt.Errorf("keys: --patents and --from name the same input: give one")}
	}
	if *sample < 1 {
		return usageError{fmt.Errorf("keys: --sample %d: want at least 1", *sample)}
	}
	opt := nber.KeysOptions{Sample: *sample, Seed: *seed}
	var exprs []string
	for _, w := range where {
		if !nber.IsPredicate(w) {
			if err := wherelang.Syntax(w); err != nil {
				return usageError{fmt.Errorf("keys: --where: %w (or COLUMN=VALUE)", err)}
			}
			exprs = append(exprs, "("+w+")")
			continue
		}
		p, err := nber.ParsePredicate(w)
		if err != nil {
			return usageError{fmt.Errorf("keys: --where: %w", err)}
		}
		opt.Where = append(opt.Where, p)
	}
	if len(exprs) == 1 {
		opt.Expr = where[slices.IndexFunc(where, func(w string) bool { return !nber.IsPredicate(w) })] // as given: its positions are the user's
	} else {
		opt.Expr = strings.Join(exprs, " and ")
	}
	asParquet := false
	if of, err := local.FormatFor(*out, ""); err == nil && of == local.FormatParquet {
		asParquet = true
	} else if err := csvOut("keys", *out); err != nil {
		return err
	}
	// keys copies the sampled records as they are: a tab-separated source
	// makes a tab-separated sample, which a .csv name would misname (and
	// the Parquet conversion must read with tabs).
	inSep := csvscan.SepFor(*patents)
	if !asParquet && inSep != ',' {
		return usageError{fmt.Errorf("keys: --out %s: the sample's records are copied as they are, and %s is tab-separated: name the output .parquet (its columns typed by their values)", *out, *patents)}
	}
	outs := []output{{namedPath{"--out", *out}, atomicfile.Options{Gzip: true}}}
	if err := checkPaths(paths(outs), []namedPath{{"--" + inFlag, *patents}}); err != nil {
		return usageError{fmt.Errorf("keys: %w", err)}
	}
	var res nber.KeysResult
	err := writeAndCommit(ctx, outs, func(files []*atomicfile.File) (err error) {
		f := files[0]
		if asParquet { // the sample's CSV, typed by its values on its way through
			_, err = local.ConvertWritten(ctx, local.CSVProducer{Name: *out, Sep: inSep, Write: func(w io.Writer) (err error) {
				res, err = nber.ExtractKeysContext(ctx, *patents, w, opt)
				return err
			}}, f, 0, "")
		} else {
			res, err = nber.ExtractKeysContext(ctx, *patents, f, opt)
		}
		if err != nil {
			if *patents == "-" && errors.Is(err, csvscan.ErrTableFile) {
				// keys reads standard input as CSV, and has no format flag
				// to give (a review found the advice unfollowable).
				return fmt.Errorf("keys: --%s -: standard input holds a Parquet or Arrow file, which keys reads only by its name: save it to a file and name that", inFlag)
			}
			if e := fileFlag(inFlag, *patents, err); e != err {
				return fmt.Errorf("keys: %w", e)
			}
			if e := flagError("keys", fs, err); e != err {
				return e
			}
			return fmt.Errorf("keys: %w", fileFlag("out", *out, err))
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The summary goes where the sample does not: with --out - the
	// sample is standard output's, and a reader of the pipe took the
	// summary for one more record (a review).
	summary := stdout
	if *out == "-" {
		summary = stderr
	}
	fmt.Fprintf(summary, "wrote %s: %d of %d matching records (%d scanned)\n", *out, res.Kept, res.Matched, res.Scanned)
	return nil
}

func cmdFetch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("fetch", stderr)
	usageWith(fs, "join fetch --dir DIR [flags]", `
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
