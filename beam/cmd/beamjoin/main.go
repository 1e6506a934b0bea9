// Command beamjoin runs the acbfjoin join as an Apache Beam pipeline: the same
// join flags as `join run`, plus Beam's standard flags (--runner prism, the
// default, runs in this process; --runner flink, spark or dataflow submit it,
// with --endpoint, --project, --region, --staging_location and so on; see
// docs/scale-out.md).
//
//	go run ./cmd/beamjoin --keys keys.txt --input cite75_99.txt --filter acbf --out joined.csv
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	beamjoin "github.com/acbfjoin/acbfjoin/beam"
	"github.com/acbfjoin/acbfjoin/beam/fsys"
	"github.com/acbfjoin/acbfjoin/cli"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/local"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
)

var (
	keys     = flag.String("keys", "", "small side: a CSV file with header (.csv, .tsv, .txt, .gz, .zip), Parquet or Arrow IPC file (required)")
	input    = flag.String("input", "", "large side: a CSV file with header, Parquet (a row group a range) or Arrow IPC file (required)")
	keyCol   = flag.String("key-col", join.DefaultKeyCol, "join column of the small side; several, comma-separated, for a composite key")
	joinCol  = flag.String("join-col", join.DefaultJoinCol, "join column of the large side; as many as --key-col, matched in order")
	keyType  = flag.String("key-type", string(key.Auto), cli.KeyTypeUsage)
	joinType = flag.String("join", string(join.JoinInner), "inner, semi, anti, left, right or full, as join run takes them (docs/join-types.md)")
	filter   = flag.String("filter", "acbf", "the filter, one of "+strings.Join(filters.Names(), ", "))
	out      = flag.String("out", "", "output CSV (required; .gz to compress, - for standard output); checked against the inputs as join run checks it; a URL (s3://, gs://, memfs://) is written as shards, see --shards")
	shards   = flag.Int("shards", 0, "write the output as this many shards, PREFIX-00000-of-0000N.EXT from --out PREFIX.EXT, each a CSV file with the header, committed when the pipeline has succeeded (docs/scale-out.md); default: one file for a local --out, and for a URL one shard a range of the large side (at most 1000)")
	on       = flag.String("on", "", cli.OnUsage)
	whereF   = flag.String("where", "", cli.WhereUsage("the large side's", "in the map stage, before the filter's probe; a left or anti join writes no row for one it drops"))
	keysWh   = flag.String("keys-where", "", cli.WhereUsage("the key side's", "before the filter is built: only the keys of the rows kept go into it and to the reduce"))
	suffix   = flag.String("suffix", join.DefaultSuffix, cli.SuffixUsage)
	version  = flag.Bool("version", false, "print the version and exit")
	columns  = flag.String("columns", "", "the output's columns, by name, in this order (A,B,C; quote a name holding a comma): from either side, by the output's names (--suffix), or keys.NAME and input.NAME for a side's own NAME, each with \" AS NEWNAME\" to write it under another name; default all, the large side's then the key side's but its key")
	delim    = flag.String("delim", "", `field separator of both CSV sides: one byte, such as "," "\t" (or "tab") ";" or "|" (not a quote or line break); default: a tab for .tsv and .tab files, else a comma (the output is CSV)`)
	keysFmt  = flag.String("keys-format", "", "format of --keys: csv, parquet, arrow or jsonl (default: by its name), as join run takes it")
	inputFmt = flag.String("input-format", "", "format of --input: csv, parquet, arrow or jsonl (default: by its name), as join run takes it")
	keysDel  = flag.String("keys-delim", "", "field separator of --keys alone, instead of --delim (as --delim takes it)")
	inputDel = flag.String("input-delim", "", "field separator of --input alone, instead of --delim (as --delim takes it)")
	cpuProf  = flag.String("cpuprofile", "", "write a CPU profile of this process to this file (on prism, the workers' too)")
	verbose  = flag.Bool("verbose", false, "print the runner's and the SDK's log lines (prism's INFO lines: the job server, the workers)")
	quiet    = flag.Bool("quiet", false, "print no progress line")
)

// sizingFlags are join's sizing flags (--bits-per-key, --fpp and every
// kind's options: --k, --bucket-size, ...), one implementation.
var sizingFlags cli.SizingFlags

func init() { sizingFlags.Register(flag.CommandLine) }

func main() {
	// join's rules: a bad flag is one line naming it, a flag given twice
	// is refused, -h prints the usage.
	flag.CommandLine.Init("beamjoin", flag.ContinueOnError) // the errors are cli.Parse's to word, not the flag package's exit
	if err := cli.Parse(flag.CommandLine, os.Args[1:], "beamjoin"); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, err) // "beamjoin: ...", named by cli.Parse
		os.Exit(2)
	}
	if !*verbose {
		// Prism and the SDK log through slog's default logger, which
		// beam.Init sets at beamlog.LogLevel: their INFO lines (the job's
		// states, each worker's start and stop) are for --verbose; warnings
		// and errors stay.
		beamlog.LogLevel = "warn"
	}
	beam.Init()
	if !*verbose {
		// A failed bundle is logged by prism and the SDK at ERROR with the
		// stage's whole plan, five times over; the error run returns says
		// it in one line (below). Their log goes to --verbose only.
		slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	}
	// A stop signal cancels the run: what it made is removed (run's
	// defers) and the exit status is 128 + the signal, as join's.
	ctx := cli.Signals("beamjoin")
	err := run(ctx)
	var sig cli.SignalError
	if cli.ReaderLeft(err) {
		os.Exit(128 + int(syscall.SIGPIPE)) // the reader left: nobody reads a message
	}
	switch {
	case errors.As(context.Cause(ctx), &sig):
		switch {
		case commitStarted && fsys.RemovedEarlier():
			fmt.Fprintf(os.Stderr, "beamjoin: stopped by %v while committing the shards of --out: none of this run's kept, and the earlier run's shards of it were removed first\n", sig)
		case commitStarted:
			fmt.Fprintf(os.Stderr, "beamjoin: stopped by %v while committing the shards of --out: none of this run's kept, an earlier run's (if any) as they were\n", sig)
		default:
			fmt.Fprintf(os.Stderr, "beamjoin: stopped by %v; nothing written\n", sig)
		}
		os.Exit(128 + int(sig.Sig))
	case errors.Is(err, atomicfile.ErrStderrIsInput):
		// Standard error is an input: the message goes to standard
		// output, or nowhere when it is an input too.
		if w := atomicfile.MessageTo(err); w != nil {
			fmt.Fprintf(w, "beamjoin: %v\n", err)
		}
		os.Exit(2)
	case err != nil:
		msg := strings.TrimPrefix(cli.Rewrite("beamjoin", flag.CommandLine, err).Error(), "beamjoin: ") // the package's errors name it already
		if i := strings.LastIndex(strings.TrimSpace(msg), "\n"); i >= 0 && !*verbose {
			// A failed job's error holds the runner's plan of the failed
			// stage, then what the DoFn returned, last: that line is the
			// cause (a file, its line, the problem); --verbose prints all.
			msg = strings.TrimSpace(msg)[i+1:]
		}
		msg = cli.RewriteText(msg)
		// A worker's error reaches this process as text (errors.Is cannot
		// see csvscan.ErrNotInteger through the runner): the hint of join's.
		if errors.Is(err, csvscan.ErrNotInteger) || strings.Contains(msg, "invalid integer") {
			msg += " (give --key-type string to compare them as text)"
		}
		fmt.Fprintf(os.Stderr, "beamjoin: %s\n", msg)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// commitStarted records that the sharded output's commit began (the
// message of a stop signal then says what it left).
var commitStarted bool

// usageError marks a bad command line (exit status 2, as join's).
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

func run(ctx context.Context) (err error) {
	var kh, ih beamjoin.Header
	var commit func() error // a sharded output's (fsys.Sharding.Commit)
	if *version {
		fmt.Println(cli.VersionLine("beamjoin"))
		return nil
	}
	if *keys == "" || *input == "" || *out == "" {
		return usageError{fmt.Errorf("--keys, --input and --out are required")}
	}
	if flag.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q (flags start with -)", strings.Join(flag.Args(), " "))}
	}
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, f := range []struct{ name, v string }{{"key-col", *keyCol}, {"join-col", *joinCol}, {"key-type", *keyType}, {"join", *joinType}, {"filter", *filter}, {"on", *on}, {"suffix", *suffix}, {"where", *whereF}, {"keys-where", *keysWh}} {
		if set[f.name] && f.v == "" {
			return usageError{fmt.Errorf("--%s is empty (leave it out for its default)", f.name)}
		}
	}
	kc, jc, err := cli.On(*on, set["on"], *keyCol, set["key-col"], *joinCol, set["join-col"])
	if err != nil {
		return usageError{err}
	}
	// The separators and columns as join run reads them (cli's parsers,
	// then join.Options' checks in the pipeline's Build).
	opt := beamjoin.Options{Sides: join.Sides{Keys: *keys, Input: *input, KeysFormat: *keysFmt, InputFormat: *inputFmt, Where: *whereF, KeysWhere: *keysWh}, Keying: join.Keying{KeyCol: kc, JoinCol: jc, KeyType: key.Type(*keyType)}, JoinType: join.JoinType(*joinType), Suffix: *suffix}
	for _, d := range []struct {
		name, v string
		sep     *byte
	}{{"delim", *delim, &opt.Sep}, {"keys-delim", *keysDel, &opt.KeysSep}, {"input-delim", *inputDel, &opt.InputSep}} {
		var err error
		if *d.sep, err = cli.ParseDelim(d.name, d.v); err != nil {
			return usageError{err}
		}
	}
	if set["columns"] {
		cols, err := cli.ParseColumns(*columns)
		if err != nil {
			return usageError{err}
		}
		opt.Columns = cols
	}
	if _, err := opt.Check(); err != nil {
		return usageError{cli.Rewrite("beamjoin", flag.CommandLine, err)}
	}
	sp, err := filters.Lookup(*filter)
	if err != nil {
		return usageError{fmt.Errorf("--filter %q: unknown filter (want one of %s)", *filter, strings.Join(filters.Names(), ", "))}
	}
	kind := sp.Kind
	// The sizing's own checks here, before the pipeline runs; whether a
	// size fits the keys is known only when they are counted, in the
	// pipeline (its error is the run's, one line).
	sizing, err := sizingFlags.Sizing("beamjoin")
	if err != nil {
		return usageError{err}
	}
	if err := sizingFlags.CheckKinds("beamjoin", kind); err != nil {
		return usageError{err}
	}
	if set["shards"] && (*shards < 1 || *shards > 99999) {
		return usageError{fmt.Errorf("--shards %d: want 1 to 99999", *shards)}
	}
	remote := fsys.IsURL(*out) // an object store: the runner's file system writes it
	if !remote && strings.Contains(*out, "://") {
		return usageError{fmt.Errorf("--out %s: %s:// is no file system of beamjoin's: it writes %s:// and local files", *out, (*out)[:strings.Index(*out, "://")], strings.Join(fsys.Schemes, "://, "))}
	}
	if err := fsys.CheckName(*out); err != nil {
		return usageError{fmt.Errorf("--out %s: %w", *out, err)}
	}
	// The output's format by its name, as join run reads it
	// (local.FormatFor): beamjoin writes CSV alone, so a name join run
	// would write as Parquet, Arrow, JSON lines or TSV is refused, not
	// filled with CSV text under that name.
	if *out != "-" {
		f, err := local.FormatFor(*out, "")
		if err != nil { // join run's reason (a .zip, a .json) names formats beamjoin does not write
			return usageError{fmt.Errorf("--out %s: its name is no CSV file's: beamjoin writes CSV alone (name it .csv or .csv.gz)", *out)}
		}
		if f != local.FormatCSV {
			return usageError{fmt.Errorf("--out %s: beamjoin writes CSV, and the name asks for %s (join run writes it): name it .csv or .csv.gz", *out, f)}
		}
	}
	var sharding *fsys.Sharding
	if remote || set["shards"] {
		name := *out
		if !remote {
			if *out == "-" {
				return usageError{fmt.Errorf("--shards: --out - is standard output, one stream: give a file's name")}
			}
			if name, err = filepath.Abs(*out); err != nil { // the workers write it, from their own folders
				return usageError{fmt.Errorf("--out %s: %w", *out, err)}
			}
		}
		sh, err := fsys.NewSharding(name, *shards)
		if err != nil {
			return usageError{fmt.Errorf("--out %s: %w", *out, err)}
		}
		sharding = &sh
	}
	outs := []atomicfile.Named{{Label: "--cpuprofile", Path: *cpuProf}}
	if *cpuProf == "" {
		outs = nil
	}
	if sharding == nil {
		outs = append(outs, atomicfile.Named{Label: "--out", Path: *out})
	} else if err := checkShards(*sharding); err != nil {
		return usageError{err}
	}
	// The output rules of join run, by the same code: never an input, never
	// a folder, standard output and error not redirected into an input.
	if err := atomicfile.Check(outs, []atomicfile.Named{{Label: "--keys", Path: *keys}, {Label: "--input", Path: *input}}); err != nil {
		return usageError{err}
	}
	// The profile is stopped and its bytes checked before the output is
	// committed (endProfile), and committed after it: a profile that
	// cannot be written fails the run with the old output in place, as
	// join run's --report-json does (a review found --out replaced and
	// then the run failed).
	endProfile := func() error { return nil }
	commitProfile := func() error { return nil }
	if *cpuProf != "" {
		prof, perr := atomicfile.Create(ctx, *cpuProf, atomicfile.Options{})
		if perr != nil {
			return fmt.Errorf("--cpuprofile %s: %w", *cpuProf, perr)
		}
		defer prof.Abort()
		w := &cli.FirstError{W: prof}
		if err := pprof.StartCPUProfile(w); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		stopped := false
		defer func() {
			if !stopped {
				pprof.StopCPUProfile()
			}
		}()
		endProfile = func() error {
			pprof.StopCPUProfile() // its write errors are its own: w keeps them
			stopped = true
			if w.Err != nil {
				return fmt.Errorf("--cpuprofile %s: %w", *cpuProf, w.Err)
			}
			return nil
		}
		commitProfile = func() error {
			if err := prof.Commit(); err != nil {
				return fmt.Errorf("--cpuprofile %s: %w", *cpuProf, err)
			}
			return nil
		}
	}
	// Everything this run makes on the local disk goes in a folder of its
	// own, removed on every path: the pipeline's rows, and what Beam puts in
	// the temporary folder (its LOOPBACK runs leave an empty
	// beamloopbackworker-N file in os.TempDir(), which TMPDIR now points
	// into). A run that is killed leaves it for `join clean`
	// (atomicfile.TempPrefix).
	tmp, err := os.MkdirTemp(os.TempDir(), atomicfile.TempPrefix()+"beam-")
	if err != nil {
		return fmt.Errorf("temporary folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Setenv("TMPDIR", tmp); err != nil {
		return err
	}
	rows := filepath.Join(tmp, "rows.csv")
	var outF *atomicfile.File
	if sharding != nil {
		// A place that cannot be written fails now, with nothing made;
		// the shards are moved to their names only when the run succeeds.
		if err := sharding.Begin(ctx); err != nil {
			return fmt.Errorf("--out %s: %w", *out, err)
		}
		committed := false
		defer func() {
			if !committed {
				sharding.Abort(context.WithoutCancel(ctx))
			}
		}()
		commit = func() error {
			committed, commitStarted = true, true // Commit takes back what it did on failure
			h, err := beamjoin.OutputHeader(opt, kh, ih)
			if err != nil {
				return err
			}
			_, err = sharding.Commit(ctx, h.Line)
			return err
		}
	} else {
		// Created now, so that an output that cannot be written fails
		// before the pipeline runs; committed only when everything is in.
		if outF, err = atomicfile.Create(ctx, *out, atomicfile.Options{Gzip: true}); err != nil {
			return fmt.Errorf("--out %s: %w", *out, err)
		}
		defer outF.Abort()
	}
	opt.Filter, opt.Sizing, opt.Output, opt.Shards = kind, sizing, rows, sharding
	start := time.Now()
	stop := progress(start)
	var counters map[string]int64
	counters, kh, ih, err = beamjoin.Execute(ctx, opt, beamx.RunWithMetrics)
	stop()
	if err != nil {
		return err
	}
	if err := context.Cause(ctx); err != nil {
		return err
	}
	if outF != nil { // a local file: the header, then the rows
		h, err := beamjoin.OutputHeader(opt, kh, ih)
		if err != nil {
			return err
		}
		if _, err := outF.Write(h.Line); err != nil {
			return fmt.Errorf("--out %s: %w", *out, err)
		}
		// textio.Write writes no file for no rows: the header alone. A
		// stop signal ends the copy (ctxReader): nothing is committed.
		beforeCopy(ctx)
		if r, err := os.Open(rows); err == nil {
			_, err = io.Copy(outF, ctxReader{ctx, r})
			r.Close()
			if cerr := context.Cause(ctx); cerr != nil {
				return cerr
			}
			if err != nil {
				return fmt.Errorf("--out %s: %w", *out, err)
			}
		} else if !os.IsNotExist(err) {
			return err
		}
	}
	rep := &join.Report{
		Filter:               join.FilterReport{Kind: kind},
		KeysRecords:          counters[beamjoin.CKeyRows],
		InputRecords:         counters[beamjoin.CInput],
		MapOutputRecords:     counters[beamjoin.CMapOutput],
		FalsePositiveRecords: counters[beamjoin.CFalsePositive],
		JoinRows:             counters[beamjoin.CJoinRows],
		TimingsMs:            map[string]float64{"total": float64(time.Since(start).Milliseconds())},
	}
	// A NULL or unmatchable key's row is left out before the filter (as
	// join run's report says it): neither filtered out nor a non-member
	// the filter was tested on (a review found it counted as both).
	nulls, unmat := counters[beamjoin.CInputNull], counters[beamjoin.CInputUnmatchable]
	rep.Keys.InputNull, rep.Keys.InputUnmatchable = nulls, unmat
	rep.FilteredOutRecords = rep.InputRecords - rep.MapOutputRecords - nulls - unmat
	if non := rep.TestedNonMembers(); non > 0 {
		rep.FPPMeasured = float64(rep.FalsePositiveRecords) / float64(non)
	}
	// The counts of join run's report; filter sizes, shuffle bytes and phase
	// times live in the runner (its UI or metrics), not in this process.
	// Printed before the output is committed (as join run does): standard
	// output that cannot be written fails the run with no output in place.
	// With the rows on standard output, the report goes to standard error.
	report := io.Writer(os.Stdout)
	if outF != nil && outF.Stdout() {
		report = os.Stderr
	}
	left := ""
	if nulls+unmat > 0 {
		left = fmt.Sprintf("left out (no key that can match): input %d NULL, %d not of the key type\n", nulls, unmat)
	}
	if _, err := fmt.Fprintf(report, "filter %s; keys: %d rows\n%sinput: %d rows; map output %d, filtered out %d, false positives %d (%s)\njoin: %d rows; total %.0f ms (pipeline construction, runner, output)\n",
		rep.Filter.Kind, rep.KeysRecords, left,
		rep.InputRecords, rep.MapOutputRecords, rep.FilteredOutRecords, rep.FalsePositiveRecords, rep.MeasuredFPText(),
		rep.JoinRows, rep.TimingsMs["total"]); err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	if err := endProfile(); err != nil {
		return err
	}
	// The last look at a stop signal before anything is committed: one
	// that came during the copy or the report stops the run with the old
	// output in place, and "nothing written" is then true.
	if err := context.Cause(ctx); err != nil {
		return err
	}
	if outF != nil {
		if err := outF.Commit(); err != nil {
			return fmt.Errorf("--out %s: %w", *out, err)
		}
	}
	if commit != nil {
		if err := commit(); err != nil {
			if fsys.RemovedEarlier() {
				return fmt.Errorf("--out %s: %w (none of this run's shards kept; the earlier run's were removed first)", *out, err)
			}
			return fmt.Errorf("--out %s: %w (none of its shards kept)", *out, err)
		}
	}
	return commitProfile()
}

// beforeCopy runs when the pipeline's rows are about to be copied into
// --out (ctx the run's): nothing, but in a test that sends a stop signal
// there and waits for ctx to end.
var beforeCopy = func(context.Context) {}

// ctxReader is r until ctx ends: then its reads fail with ctx's cause,
// so that a copy stops at a stop signal.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := context.Cause(c.ctx); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// checkShards refuses shards whose names an input's files take, or that
// would be written where an input is: an earlier run's shards read as an
// input, then replaced; or this run's read by the next run of the same
// command (an output in an input's folder, or matching its glob, as
// atomicfile.Check refuses a local one).
func checkShards(sh fsys.Sharding) error {
	for _, side := range []struct{ label, path string }{{"--keys", *keys}, {"--input", *input}} {
		files, many, err := source.Files(side.path, "")
		if err != nil {
			continue // the pipeline's checks word it
		}
		for _, f := range files {
			if !fsys.IsURL(f) {
				if abs, err := filepath.Abs(f); err == nil {
					f = abs
				}
			}
			if f == sh.Out {
				return fmt.Errorf("--out %s: it is %s: write the output elsewhere", *out, side.label)
			}
			if sh.Owns(f) {
				return fmt.Errorf("--out %s: %s %s holds %s, a shard of this output: write the output elsewhere", *out, side.label, side.path, f)
			}
		}
		// The output named as a side of many files (its folder): the
		// shards land beside it, under its name, which reads as the
		// side; refused, as a local --out that is a folder is (a review
		// found it accepted with --shards).
		if many && !source.IsPattern(side.path) {
			sp := strings.TrimSuffix(side.path, "/")
			if !fsys.IsURL(sp) {
				if abs, err := filepath.Abs(sp); err == nil {
					sp = abs
				}
			}
			if strings.TrimSuffix(sh.Out, "/") == sp {
				return fmt.Errorf("--out %s: it is %s, a folder of files: write the output elsewhere", *out, side.label)
			}
		}
		if !many || !fsys.IsURL(side.path) {
			continue // a local side: atomicfile.Check below
		}
		if source.IsPattern(side.path) {
			if ok, _ := path.Match(side.path, sh.Prefix+"-00000-of-00001"+sh.Ext); ok {
				return fmt.Errorf("--out %s: its shards would match %s %s, and be read by the next run: write the output elsewhere", *out, side.label, side.path)
			}
		} else if strings.HasPrefix(sh.Out, strings.TrimSuffix(side.path, "/")+"/") {
			return fmt.Errorf("--out %s: it is in the folder of %s %s, whose files the next run would read: write the output elsewhere", *out, side.label, side.path)
		}
	}
	if !fsys.IsURL(sh.Out) {
		return atomicfile.Check([]atomicfile.Named{{Label: "--out", Path: sh.Name(0)}}, []atomicfile.Named{{Label: "--keys", Path: *keys}, {Label: "--input", Path: *input}})
	}
	return nil
}

// progress prints, until stop is called, the rows the workers of this
// process have handled (beamjoin.Progress): a line rewritten every 250 ms on
// a terminal, a line every 10 s otherwise (a log). Workers in other
// processes (a worker pool, a cluster) do not add to it: their counts are
// the counters printed at the end.
func progress(start time.Time) (stop func()) {
	if *quiet {
		return func() {}
	}
	st, err := os.Stderr.Stat()
	tty := err == nil && st.Mode()&os.ModeCharDevice != 0
	every := 10 * time.Second
	if tty {
		every = 250 * time.Millisecond
	}
	line := func() string {
		p := &beamjoin.Progress
		return fmt.Sprintf("beamjoin: %s: key rows %d; input rows %d, %d through the filter; join rows %d (this process's workers)",
			time.Since(start).Round(100*time.Millisecond), p.KeyRows.Load(), p.InputRows.Load(), p.Passed.Load(), p.JoinRows.Load())
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				if tty {
					fmt.Fprintf(os.Stderr, "\r%s\x1b[K\n", line())
				}
				return
			case <-t.C:
				if tty {
					fmt.Fprintf(os.Stderr, "\r%s\x1b[K", line())
				} else {
					fmt.Fprintln(os.Stderr, line())
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
