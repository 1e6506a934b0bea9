package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/acbfjoin/acbfjoin/cli"
	"github.com/acbfjoin/acbfjoin/join"

	"github.com/acbfjoin/acbfjoin/datasets/nber"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join/stream"
	"github.com/acbfjoin/acbfjoin/key"
)

const streamExamples = `
Key events (event mode): a header line naming the key side's columns, then
"+" and a row to insert it, "-" and the key to delete its oldest live row:

    IP,SINCE
    +1.2.3.4,1
    -1.2.3.4

Batch i of key events is applied before batch i of probe rows is joined.
With --window W the key side is a CSV of timed rows instead (--key-time,
in time order): a probe row at time t joins the key rows of its key with
t-W < time <= t.

Examples:
  join gen --dataset ipstream --rows 1000000 --zipf 1.1 --out data
  join stream --key-events data/ipstream.events --probe data/ipstream.csv --key-type string --fpp 0.01 --out data/ipjoin.csv
  join stream prep --patents data/apat63_99.txt --citations data/cite75_99.txt --out data/stream
  join stream --key-events data/stream/patents-by-gdate.csv --key-col PATENT --key-time GDATE \
      --probe data/stream/citations-by-gdate.csv --join-col CITED --window 1826 --out data/recent-cites.csv
  tail -f events | join stream --key-events - --probe probe.csv --batch 1000 --out -
`

func cmdStream(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "prep" {
		return cmdStreamPrep(ctx, args[1:], stdout, stderr)
	}
	fs := newFlagSet("stream", stderr)
	var sf sizingFlags
	var opt stream.Options
	fs.StringVar(&opt.KeyEvents, "key-events", "", "key events (+row / -key lines after a header), or with --window timed key rows (CSV, Parquet or Arrow); - for standard input (required)")
	fs.StringVar(&opt.Probe, "probe", "", "probe rows: CSV with a header, Parquet or Arrow, a folder of part files or a quoted glob of them (read in name order), or - (required)")
	fs.StringVar(&opt.KeyEventsFormat, "key-events-format", "", "format of --key-events: csv, parquet, arrow or jsonl (default: by its name; key events are CSV)")
	fs.StringVar(&opt.ProbeFormat, "probe-format", "", "format of --probe: csv, parquet, arrow or jsonl (default: by its name)")
	fs.StringVar(&opt.TempDir, "tmp-dir", "", "folder for a copy of a Parquet stream (default: the system's)")
	fs.StringVar(&opt.KeyCol, "key-col", "", "key column(s) of the key side (default: its first column)")
	fs.StringVar(&opt.JoinCol, "join-col", "", "key column(s) of the probe rows (default: the key columns' names)")
	on := fs.String("on", "", cli.OnUsage)
	fs.StringVar(&opt.Suffix, "suffix", join.DefaultSuffix, cli.SuffixUsage)
	fs.StringVar(&opt.Where, "where", "", cli.WhereUsage("the probe side's", "as they are read, as if the others were not in the stream"))
	keyType := fs.String("key-type", string(key.Auto), keyTypeUsage+" (key events on a pipe: int)")
	joinType := fs.String("join", string(join.JoinInner), "inner, semi (each probe row with a live match, once, its own columns) or anti (each without one; rows the filter rejects need no lookup); left, right and full are refused: a stream has no end")
	fs.IntVar(&opt.Batch, "batch", 0, fmt.Sprintf("probe rows a batch (default %d)", stream.DefaultBatch))
	fs.IntVar(&opt.KeyBatch, "key-batch", 0, "key events a batch (default: --batch)")
	fs.Int64Var(&opt.Window, "window", 0, "timed mode: a key row stays live this long, in the time columns' units (NBER GDATE: days)")
	fs.StringVar(&opt.KeyTime, "key-time", "", "timed mode: the key side's integer time column, in time order")
	fs.StringVar(&opt.ProbeTime, "probe-time", "", "timed mode: the probe's time column (default: --key-time's name)")
	filter := fs.String("filter", string(filters.ACBF), "the filter kept over the live keys, a kind that deletes: "+strings.Join(stream.DeletingKinds(), ", "))
	fs.Uint64Var(&opt.Capacity, "capacity", 0, fmt.Sprintf("live keys the filter is sized for at first; it is rebuilt twice as large when they outgrow it (default %d)", stream.DefaultCapacity))
	sf.register(fs)
	fs.Float64Var(&opt.CMSEps, "cms-eps", 0, fmt.Sprintf("count-min error: width e/eps (default %g)", stream.DefaultCMSEps))
	fs.Float64Var(&opt.CMSDelta, "cms-delta", 0, fmt.Sprintf("count-min failure probability: depth ln(1/delta) (default %g)", stream.DefaultCMSDelta))
	fs.BoolVar(&opt.NoSketches, "no-sketches", false, "no count-min estimate and no hot keys")
	fs.IntVar(&opt.TopK, "topk", 0, fmt.Sprintf("hot probe keys tracked (default %d; the batch lines show 3)", stream.DefaultTopK))
	fs.IntVar(&opt.Workers, "workers", 0, "goroutines probing a batch (default: one per core)")
	fs.BoolVar(&opt.Verify, "verify", false, "also look up the rows the filter rejects, to count false negatives (always 0)")
	out := fs.String("out", "-", "output file (.gz: compressed), or - for standard output")
	reportJSON := fs.String("report-json", "", "also write the report (every batch and the totals) as JSON to this file")
	every := fs.Int("every", 1, "print one batch line every N batches (0: none)")
	quiet := fs.Bool("quiet", false, "no batch lines and no summary (--report-json is still written)")
	usageWith(fs, "join stream --key-events F|- --probe F|- [flags] --out OUT\n       join stream prep --patents F --citations F --out DIR", streamExamples)
	if err := parse(fs, args); err != nil {
		return err
	}
	if sf.set("where") && opt.Where == "" {
		return usageError{errors.New("stream: --where is empty (leave it out for every row)")}
	}
	if sf.set("suffix") && opt.Suffix == "" {
		return usageError{errors.New("stream: --suffix is empty (leave it out for its default)")}
	}
	var err error
	if opt.KeyCol, opt.JoinCol, err = cli.On(*on, sf.set("on"), opt.KeyCol, sf.set("key-col"), opt.JoinCol, sf.set("join-col")); err != nil {
		return usageError{fmt.Errorf("stream: %w", err)}
	}
	opt.KeyType = key.Type(*keyType)
	opt.JoinType = join.JoinType(*joinType)
	opt.Filter = filters.Kind(*filter)
	if opt.Sizing, err = sf.sizing("stream"); err != nil {
		return err
	}
	if _, lerr := filters.Lookup(*filter); lerr == nil { // an unknown kind is the library's to refuse, with the kinds that delete
		if err := sf.checkKinds("stream", opt.Filter); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		name string
		zero bool
		hint string
	}{{"batch", opt.Batch == 0, ""}, {"key-batch", opt.KeyBatch == 0, ""}, {"capacity", opt.Capacity == 0, ""}, {"topk", opt.TopK == 0, ""}, {"workers", opt.Workers == 0, ""},
		{"cms-eps", opt.CMSEps == 0, ""}, {"cms-delta", opt.CMSDelta == 0, ""},
		{"window", opt.Window == 0, "want a positive time for which a key row stays live (without --window the key side is +row/-key events, not timed rows)"}} {
		if sf.set(f.name) && f.zero {
			if f.hint == "" {
				f.hint = "leave it out for its default"
			}
			return usageError{fmt.Errorf("stream: --%s 0: %s", f.name, f.hint)}
		}
	}
	if *every < 0 {
		return usageError{fmt.Errorf("stream: --every %d: want 0 or more batches", *every)}
	}
	outs := reportOutput([]output{{namedPath{"--out", *out}, atomicfile.Options{Gzip: true}}}, sf.set("report-json"), *reportJSON)
	if err := csvOut("stream", *out); err != nil {
		return err
	}
	if err := checkPaths(paths(outs), []namedPath{{"--key-events", opt.KeyEvents}, {"--probe", opt.Probe}}); err != nil {
		return usageError{fmt.Errorf("stream: %w", err)}
	}
	return writeAndCommit(ctx, outs, func(files []*atomicfile.File) error {
		outF, repF := files[0], reportFile(outs, files)
		report, toStderr := stdout, outF.Stdout() || (repF != nil && repF.Stdout())
		if toStderr {
			report = stderr
		}
		var batches []stream.BatchReport
		var lineErr error
		opt.OnBatch = func(b stream.BatchReport) {
			if repF != nil {
				batches = append(batches, b)
			}
			if *quiet || *every == 0 || lineErr != nil {
				return
			}
			if b.Batch == 0 {
				_, lineErr = io.WriteString(report, stream.BatchHeader(opt.Window > 0))
			}
			if b.Batch%*every == 0 && lineErr == nil {
				_, lineErr = io.WriteString(report, b.Line(opt.Window > 0))
			}
		}
		rep, err := stream.Run(ctx, opt, outF)
		if err != nil {
			if _, ok := errors.AsType[*option.Error](err); ok {
				return usageError{flagError("stream", fs, err)}
			}
			return outError("stream", *out, err) // a write to --out names it
		}
		if lineErr != nil {
			return fmt.Errorf("write the batch lines: %w", lineErr)
		}
		if err := writeReportJSON(repF, struct {
			*stream.Report
			Batches []stream.BatchReport `json:"batch_reports"`
		}{rep, batches}); err != nil {
			return err
		}
		if *quiet {
			return nil
		}
		return printReport(rep.WriteText, toStderr, stdout, stderr)
	})
}

func cmdStreamPrep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stream prep", stderr)
	patents := fs.String("patents", "", "NBER patents file (apat63_99.txt or join gen's; PATENT and GDATE columns) (required)")
	citations := fs.String("citations", "", "NBER citations file (cite75_99.txt; CITING and CITED) (required)")
	out := fs.String("out", "", "folder for patents-by-gdate.csv and citations-by-gdate.csv (required)")
	usageWith(fs, "join stream prep --patents F --citations F --out DIR", `
Writes the NBER data as a time-ordered stream for join stream --window:
DIR/patents-by-gdate.csv (every patent, ordered by GDATE) and
DIR/citations-by-gdate.csv (CITING,CITED,GDATE: each citation with its citing
patent's grant date, in that order; citations whose citing patent is not in
the patents file are dropped and counted).

Example:
  join stream prep --patents data/apat63_99.txt --citations data/cite75_99.txt --out data/stream
`)
	if err := parse(fs, args); err != nil {
		return err
	}
	for _, f := range []struct{ name, v string }{{"patents", *patents}, {"citations", *citations}, {"out", *out}} {
		if f.v == "" {
			return usageError{fmt.Errorf("stream prep: --%s is required", f.name)}
		}
	}
	if err := outDir("stream prep", *out); err != nil {
		return err
	}
	outs := []namedPath{{"--out", filepath.Join(*out, nber.StreamPatentsFile)}, {"--out", filepath.Join(*out, nber.StreamCitationsFile)}}
	if _, err := os.Stat(*out); err != nil {
		outs = nil // a folder it makes: nothing in it to be an input
	}
	if err := checkPaths(outs, []namedPath{{"--patents", *patents}, {"--citations", *citations}}); err != nil {
		return usageError{fmt.Errorf("stream prep: %w", err)}
	}
	st, err := nber.WriteStream(ctx, *patents, *citations, *out)
	if err != nil {
		if e := fileFlag("patents", *patents, err); e != err {
			err = e
		} else {
			err = fileFlag("citations", *citations, err)
		}
		return fmt.Errorf("stream prep: %w", err)
	}
	fmt.Fprintf(stdout, "%d patents (GDATE %d..%d), %d citations (%d dropped: citing patent not in %s) written to %s\n",
		st.Patents, st.MinGDATE, st.MaxGDATE, st.Citations, st.Dropped, *patents, *out)
	return nil
}
