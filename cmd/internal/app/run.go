package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/local"
)

const runDescription = `Joins the key file (the small side) with the input (the large side) on
--key-col = --join-col. The keys' filter drops the input rows whose key
cannot match before they are shuffled; the report says what it saved and
its measured false positive rate beside the formula. Key types come from
the data (--key-type auto).`

const runExamples = `
Examples:
  join run --keys data/keys.txt --input data/cite75_99.txt --out joined.csv --sort
  join run --keys data/keys.txt --input data/cite75_99.txt --format parquet --out joined.parquet --report-json report.json
  zcat cite.csv.gz | join run --keys keys.csv --input - --key-col ID --join-col REF --filter exact --mem 64MiB --out - | head
  join run --bank cat.bank --classes 1,2 --keys data/apat63_99.txt --input data/cite75_99.txt --route column --out joined.csv
  join run --bank cat.bank --keys data/apat63_99.txt --input data/cite75_99.txt --route dir --out by-cat   # by-cat/CAT=1/part.csv ...
  join run --keys data/cite75_99.txt --key-col CITED --input data/cite75_99.txt --join-col CITED --skew auto --sort --out self.csv   # hot keys spread
  join run --keys pairs.csv --input data/cite75_99.txt --key-col CITING,CITED --join-col CITING,CITED --out joined.csv   # a composite key
`

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlagSet("run", stderr)
	var jf joinFlags
	jf.register(fs)
	filter := fs.String("filter", string(join.DefaultFilter), "the filter: "+kindList())
	filterFile := fs.String("filter-file", "", "use the filter in this file (join build-filter) instead of building one")
	out := fs.String("out", "-", "output file (.gz: compressed), or - for standard output")
	format := fs.String("format", "", "csv, tsv, jsonl (one JSON object a row, typed as Parquet's columns), parquet, arrow (the Arrow IPC file) or arrow-stream (default: the one --out's extension names, .csv, .tsv or .tab, .jsonl or .ndjson, .parquet or .pq, .arrow, .feather or .ipc, .arrows; else csv)")
	sorted := fs.Bool("sort", false, "order the output by key, then by the large side's row order")
	reportJSON := fs.String("report-json", "", "also write the report as JSON to this file")
	fs.StringVar(&jf.parquetBloom, "parquet-bloom", "", fmt.Sprintf("with a Parquet output: the false-positive rate of the split-block Bloom filters written in every row group for the join column(s), which DuckDB, Spark, DataFusion and this tool's own joins skip row groups by (default %v), or off", local.DefaultParquetBloomFPP))
	rowGroup := fs.Int("row-group", 0, "with a Parquet output: rows a row group, at most 256 MiB of values each (default 65,536, or fewer when they take 8 MiB)")
	fs.StringVar(&jf.bank, "bank", "", "filter with the union of these classes' filters of a bank (join bank build) and join only their key rows")
	fs.StringVar(&jf.classes, "classes", "", "with --bank: the class labels, comma-separated (default: all)")
	fs.StringVar(&jf.route, "route", "", "with --bank: column (a last column \"class\": the class of the row's key) or dir (--out DIR: one DIR/CLASSCOL=class/part.csv a class)")
	fs.StringVar(&jf.skew, "skew", string(join.SkewOff), "off, or auto: sample the large side (the key side for a stream input) for keys holding more than 1/reducers of its rows and spread each over several reducers, its key rows copied to each; the output is the same")
	fs.StringVar(&jf.budget, "broadcast-budget", "", "with --filter auto: the most bytes one broadcast copy of the filter may take (B, KiB, MiB, GiB; default "+join.SizeText(join.DefaultBroadcastBudget)+")")
	fs.BoolVar(&jf.needDeletes, "need-deletes", false, "with --filter auto: only kinds that can delete keys")
	fs.IntVar(&jf.hotExclusions, "hot-exclusions", 0, fmt.Sprintf("read the input once more before the map phase for the N most frequent keys that pass the filter and are not keys, and drop their rows too (a file, not a pipe; at most %d)", join.MaxHotExclusions))
	usageGrouped(fs, "join run --keys FILE --input FILE [flags]", runDescription, joinFlagGroups, runExamples)
	if err := parse(fs, args); err != nil {
		return err
	}
	resolved, err := local.FormatFor(*out, *format)
	if err != nil {
		return usageError{flagError("run", fs, err)}
	}
	*format = resolved
	if *format == "parquet" && *out == "-" {
		return usageError{fmt.Errorf("run: --format parquet needs --out FILE")}
	}
	if jf.pq, err = parquetBloomFlag(jf.parquetBloom, *format); err != nil {
		return usageError{fmt.Errorf("run: %w", err)}
	}
	if jf.set("row-group") && (*rowGroup < 1 || *format != "parquet") {
		return usageError{fmt.Errorf("run: --row-group %d: want a number of rows >= 1, with a Parquet output", *rowGroup)}
	}
	jf.pq.RowGroup = *rowGroup
	if jf.set("filter") { // else the library's default, or the filter file's or bank's kind
		jf.filter = filters.Kind(*filter)
	}
	if jf.route == string(join.RouteDir) {
		return runRouted(ctx, fs, &jf, *out, *format, *sorted, *reportJSON, stdout, stderr)
	}
	jf.filterFile = *filterFile
	opt, err := jf.options("run", stderr)
	if err != nil {
		return err
	}
	defer jf.bars.clear()
	opt.Sort = *sorted
	outs := reportOutput([]output{{namedPath{"--out", *out}, atomicfile.Options{Gzip: *format != local.FormatParquet && *format != local.FormatArrow && *format != local.FormatArrowStream}}}, jf.set("report-json"), *reportJSON)
	if err := checkPaths(paths(outs), []namedPath{{"--keys", jf.keys}, {"--input", jf.input}, {"--filter-file", *filterFile}, {"--bank", jf.bank}}); err != nil {
		return usageError{fmt.Errorf("run: %w", err)}
	}
	return writeAndCommit(ctx, outs, func(files []*atomicfile.File) error {
		outF, repF := files[0], reportFile(outs, files)
		sink := local.NewCSV(outF)
		switch *format {
		case local.FormatTSV:
			sink = local.NewTSV(outF)
		case local.FormatJSONL:
			var err error
			if sink, err = local.NewJSONL(outF, opt.TempDir); err != nil {
				return err
			}
		case local.FormatArrow, local.FormatArrowStream:
			var err error
			if sink, err = local.NewArrow(outF, opt.TempDir, *format == local.FormatArrowStream); err != nil {
				return err
			}
		case local.FormatParquet:
			sink = local.NewParquetWith(outF, opt.TempDir, jf.pq)
		}
		jf.tuneGC(&opt)
		rep, err := local.Run(ctx, opt, sink)
		if err != nil {
			return outError("run", *out, flagError("run", fs, err)) // a write to --out names it
		}
		rep.Settings.Format = *format
		rep.Settings.HugePages = hugeResult.String()
		// Everything is written before anything is committed: a report that
		// cannot be written (a full disk, /dev/full) fails the run with the
		// output not yet in place.
		if err := writeReportJSON(repF, rep); err != nil {
			return err
		}
		jf.bars.clear()
		if jf.quiet {
			return nil
		}
		return printReport(rep.WriteText, outF.Stdout() || (repF != nil && repF.Stdout()), stdout, stderr)
	})
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// kindList lists the filter kinds for help texts.
func kindList() string {
	var b bytes.Buffer
	b.WriteString("auto (run: the join chooses the kind, its size or no filter from a sample and a cost model, and says why; docs/auto.md); ")
	for i, sp := range filters.Kinds() {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s (%s)", sp.Kind, sp.Doc)
	}
	return b.String()
}

const buildFilterExamples = `
Examples:
  join build-filter --keys data/keys.txt --out keys.acbf
  join build-filter --keys data/keys.txt --filter bloom --fpp 0.001 --out keys.bloom
  join build-filter --keys pairs.csv --key-col CITING,CITED --filter bloom --out pairs.bloom
  join run --keys data/keys.txt --input data/cite75_99.txt --filter-file keys.acbf --out joined.csv
`

func cmdBuildFilter(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("build-filter", stderr)
	var jf joinFlags
	jf.register(fs)
	filter := fs.String("filter", string(join.DefaultFilter), "the filter: "+kindList())
	out := fs.String("out", "", "filter file to write (required)")
	usageGrouped(fs, "join build-filter --keys FILE --out FILE [flags]", "Writes the filter of a key file, for join run --filter-file: the file records the\nkeys it was built for, and run refuses it for other keys.", joinFlagGroups, buildFilterExamples)
	if err := parse(fs, args); err != nil {
		return err
	}
	if jf.input == "" {
		jf.input = "-" // not read: build-filter reads only the key file
	}
	if !jf.set("join-col") {
		jf.joinCol = jf.keyCol // nor is the join column: any list of the key's count
	}
	jf.filter = filters.Kind(*filter)
	opt, err := jf.options("build-filter", stderr)
	if err != nil {
		return err
	}
	if err := local.CheckFilterFile(opt); err != nil {
		return usageError{flagError("build-filter", fs, err)}
	}
	defer jf.bars.clear()
	if *out == "" {
		return usageError{fmt.Errorf("build-filter: --out is required")}
	}
	outs := []output{{namedPath{"--out", *out}, atomicfile.Options{}}}
	if err := checkPaths(paths(outs), []namedPath{{"--keys", jf.keys}}); err != nil {
		return usageError{fmt.Errorf("build-filter: %w", err)}
	}
	var built *local.BuiltFilterFile // printed once the file is in place
	err = writeAndCommit(ctx, outs, func(files []*atomicfile.File) (err error) {
		if built, err = local.WriteFilterFile(ctx, opt, files[0]); err != nil {
			return outError("build-filter", *out, flagError("build-filter", fs, err))
		}
		return nil
	})
	if err == nil && !jf.quiet {
		built.WriteText(stdout, *out)
	}
	return err
}

// bars shows a run's progress: one progress bar per phase on a terminal,
// or (plain, --progress plain, the default when standard error is no
// terminal) a line now and then once the run has taken a while.
type bars struct {
	w     io.Writer
	m     map[string]*progressbar.ProgressBar
	plain *plainProgress
}

func newBars(w io.Writer) *bars { return &bars{w: w, m: map[string]*progressbar.ProgressBar{}} }

// newPlain is bars that print plain lines (plainProgress) to w.
func newPlain(w io.Writer) *bars {
	return &bars{w: w, plain: &plainProgress{w: w, now: time.Now, after: plainAfter, every: plainEvery, start: map[string]time.Time{}}}
}

// update is a join.Options.Progress callback. A total below 0 (a stream of
// unknown size) draws a spinner with the bytes read.
func (b *bars) update(phase string, done, total int64) {
	if b.plain != nil {
		b.plain.update(phase, done, total)
		return
	}
	bar := b.m[phase]
	if bar == nil {
		bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(b.w), progressbar.OptionSetDescription(phase),
			progressbar.OptionShowBytes(phase != "reduce" && phase != "Figures 5-7"), progressbar.OptionShowCount(), // reduce counts records, the figures trials
			progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100*time.Millisecond))
		b.m[phase] = bar
	}
	bar.Set64(done)
	if total >= 0 && done >= total {
		bar.Finish()
	}
}

// clear erases the bars' line, so that what is printed next (an error, the
// report) starts on a clean line.
func (b *bars) clear() {
	if b == nil || b.plain != nil {
		return
	}
	for _, bar := range b.m {
		if !bar.IsFinished() {
			bar.Exit()
		}
	}
	fmt.Fprint(b.w, "\r\033[K")
}

// parquetBloomFlag is the ParquetOptions of --parquet-bloom's value v
// (empty: the default) for an output of format.
func parquetBloomFlag(v, format string) (local.ParquetOptions, error) {
	if v == "" {
		return local.ParquetOptions{}, nil
	}
	if format != "parquet" {
		return local.ParquetOptions{}, fmt.Errorf("--parquet-bloom %s: the output is %s, not Parquet", v, format)
	}
	if v == "off" {
		return local.ParquetOptions{BloomFPP: -1}, nil
	}
	fpp, err := strconv.ParseFloat(v, 64)
	if err == nil && fpp <= 0 {
		err = errors.New("below or at 0")
	}
	if err == nil {
		err = local.CheckParquetBloomFPP(fpp)
	}
	if err != nil {
		return local.ParquetOptions{}, fmt.Errorf("--parquet-bloom %s: want off or a false-positive rate from %v to below 1 (such as 0.01)", v, local.MinParquetBloomFPP)
	}
	return local.ParquetOptions{BloomFPP: fpp}, nil
}

// plainAfter and plainEvery are when plain progress prints: its first line
// once a run has taken plainAfter, then a line every plainEvery. Variables
// so that the package's tests, whose standard error is no terminal and
// which compare what the commands print, turn it off however slow the
// machine (TestMain).
var (
	plainAfter = 5 * time.Second
	plainEvery = 10 * time.Second
)

// plainProgress prints a run's progress as lines, for a standard error
// that is no terminal (a log, a pipe): nothing for a run shorter than
// after, then every every a line of the phase, its progress, rate and
// time left: "join: map: 1.2 GiB of 3.4 GiB (35%), 210.5 MiB/s, 11 s
// left". Bytes for build and map, records for reduce. Called from the
// library's progress goroutine, one phase at a time.
type plainProgress struct {
	mu           sync.Mutex // updates may come from more than one goroutine
	w            io.Writer
	now          func() time.Time
	after, every time.Duration
	first, last  time.Time            // the first update's time, the last line's
	start        map[string]time.Time // each phase's first update
}

func (p *plainProgress) update(phase string, done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.first.IsZero() {
		p.first = now
	}
	if _, ok := p.start[phase]; !ok {
		p.start[phase] = now
	}
	if now.Sub(p.first) < p.after || !p.last.IsZero() && now.Sub(p.last) < p.every {
		return
	}
	p.last = now
	unit, count := sizeUnits, sizeUnits // a rate's, and a count's before "of"
	if phase == "reduce" {
		unit = func(n float64) string { return strconv.FormatFloat(n, 'f', 0, 64) + " records" }
		count = func(n float64) string { return strconv.FormatFloat(n, 'f', 0, 64) }
	}
	line := fmt.Sprintf("%s: %s: %s", prog, phase, unit(float64(done)))
	if total > 0 {
		line = fmt.Sprintf("%s: %s: %s of %s (%.0f%%)", prog, phase, count(float64(done)), unit(float64(total)), 100*float64(done)/float64(total))
	}
	if secs := now.Sub(p.start[phase]).Seconds(); secs > 0 && done > 0 {
		rate := float64(done) / secs
		line += ", " + unit(rate) + "/s"
		if total > done {
			line += fmt.Sprintf(", %.0f s left", float64(total-done)/rate)
		}
	}
	fmt.Fprintln(p.w, line)
}

// sizeUnits is n bytes in B, KiB, MiB or GiB, one decimal.
func sizeUnits(n float64) string {
	for _, u := range []string{"B", "KiB", "MiB"} {
		if n < 1024 {
			if u == "B" {
				return strconv.FormatFloat(n, 'f', 0, 64) + " B"
			}
			return strconv.FormatFloat(n, 'f', 1, 64) + " " + u
		}
		n /= 1024
	}
	return strconv.FormatFloat(n, 'f', 1, 64) + " GiB"
}
