package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// joinFlags are the flags run and compare share.
type joinFlags struct {
	keys, input, keyCol, joinCol, keyType string
	bpk, fpp                              float64
	k, mappers, reducers                  int
	mem                                   string
	tempDir                               string
	quiet                                 bool
	badRows                               string
	bars                                  *bars // set by options on a terminal
}

func (j *joinFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&j.keys, "keys", "", "small side: CSV with header, .txt/.gz/.zip (required)")
	fs.StringVar(&j.input, "input", "", "large side: CSV with header, .txt/.gz/.zip (required)")
	fs.StringVar(&j.keyCol, "key-col", "PATENT", "join column of the small side")
	fs.StringVar(&j.joinCol, "join-col", "CITED", "join column of the large side")
	fs.StringVar(&j.keyType, "key-type", "int", "compare keys as int or string")
	fs.Float64Var(&j.bpk, "bits-per-key", 32, "filter memory in bits per distinct key (the CBF gets bits/4 counters per key)")
	fs.IntVar(&j.k, "k", 0, "hash functions (0: round((m/n) ln 2), the same for every filter)")
	fs.Float64Var(&j.fpp, "fpp", 0, "size the filter for this formula false positive rate instead of --bits-per-key")
	fs.IntVar(&j.mappers, "mappers", 0, "map goroutines (0: GOMAXPROCS)")
	fs.IntVar(&j.reducers, "reducers", 0, "reduce partitions (0: GOMAXPROCS)")
	fs.StringVar(&j.mem, "mem", "256MiB", "memory for the shuffle and --sort, spilling to --tmp-dir beyond it (B, KiB, MiB, GiB; at least 64KiB x mappers x reducers)")
	fs.StringVar(&j.tempDir, "tmp-dir", "", "folder for spill files (default: the system's)")
	fs.StringVar(&j.tempDir, "temp-dir", "", "the same as --tmp-dir")
	fs.BoolVar(&j.quiet, "quiet", false, "no progress bars")
	fs.StringVar(&j.badRows, "bad-rows", "fail", "fail: stop at the first malformed row; skip: drop malformed rows, count them and report the first few")
}

func (j *joinFlags) options(name string, fs *flag.FlagSet, stderr io.Writer) (join.Options, error) {
	fail := func(format string, a ...any) (join.Options, error) {
		return join.Options{}, usageError{fmt.Errorf(name+": "+format, a...)}
	}
	if j.keys == "" || j.input == "" {
		return fail("--keys and --input are required")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	mem, err := parseSize(j.mem)
	if err != nil {
		return fail("--mem %q: %v", j.mem, err)
	}
	if j.keyType != "int" && j.keyType != "string" {
		return fail("--key-type %q: want int or string", j.keyType)
	}
	if set["k"] && (j.k < 1 || j.k > join.MaxK) {
		return fail("--k %d: want 1 to %d (leave --k out for round((m/n) ln 2))", j.k, join.MaxK)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"mappers", j.mappers}, {"reducers", j.reducers}} {
		if (set[f.name] && f.v < 1) || f.v < 0 {
			return fail("--%s %d: want at least 1 (leave it out for one per core)", f.name, f.v)
		}
		if f.v > join.MaxWorkers {
			return fail("--%s %d: at most %d (each holds a read buffer, a filter copy and shuffle batches; more only add memory)", f.name, f.v, join.MaxWorkers)
		}
	}
	if !set["mem"] {
		mem = 0 // join.Run's default: 256 MiB, or more when many cores need it
	} else if mappers, reducers := cores(j.mappers), cores(j.reducers); mem < shuffle.MinBudget(mappers, reducers) {
		min := shuffle.MinBudget(mappers, reducers)
		return fail("--mem %s: below the minimum of %s for %d mappers and %d reducers (8 KiB batches, 8 per mapper and reducer)",
			j.mem, formatSize(min), mappers, reducers)
	}
	if set["fpp"] && !(j.fpp > 0 && j.fpp < 1) {
		return fail("--fpp %v: want a rate between 0 and 1, such as 0.001", j.fpp)
	}
	if !(j.bpk >= 4) {
		return fail("--bits-per-key %v: want at least 4 (one 4-bit counter per key)", j.bpk)
	}
	if set["mem"] {
		// With a budget, trade a little collector time for a heap that stays
		// near the live data: half the default growth before a collection,
		// and a soft limit (docs/design.md has the measurements).
		debug.SetGCPercent(50)
		debug.SetMemoryLimit(goMemLimit(mem, j.keys))
	}
	if j.badRows != "fail" && j.badRows != "skip" {
		return fail("--bad-rows %q: want fail or skip", j.badRows)
	}
	if j.tempDir != "" {
		if st, err := os.Stat(j.tempDir); err != nil || !st.IsDir() {
			return fail("--tmp-dir %s: not an existing folder", j.tempDir)
		}
	}
	opt := join.Options{
		Keys: j.keys, Input: j.input, KeyCol: j.keyCol, JoinCol: j.joinCol, KeyType: join.KeyType(j.keyType),
		Sizing:  join.Sizing{BitsPerKey: j.bpk, K: j.k, FPP: j.fpp},
		Mappers: j.mappers, Reducers: j.reducers, MemBudget: mem, TempDir: j.tempDir,
		SkipBadRows: j.badRows == "skip",
	}
	if !j.quiet && isTerminal(os.Stderr) {
		j.bars = newBars(stderr)
		opt.Progress = j.bars.update
	}
	return opt, nil
}

// maxSize bounds --mem: 1 PiB, far beyond any machine, and far from
// overflowing int64 arithmetic.
const maxSize = 1 << 50

// parseSize parses "256MiB", "64KiB", "1GiB", "1000" (bytes), at most maxSize.
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"PiB", 1 << 50}, {"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) { // !(v > 0) refuses NaN too
		return 0, fmt.Errorf("want a positive size like 256MiB")
	}
	if v*float64(mult) > maxSize {
		return 0, fmt.Errorf("want at most %s", formatSize(maxSize))
	}
	if v*float64(mult) < 1 {
		return 0, fmt.Errorf("want at least 1 byte")
	}
	return int64(v * float64(mult)), nil
}

// cores is n, or join.Run's default for mappers and reducers when n is 0.
func cores(n int) int {
	if n == 0 {
		return join.DefaultWorkers()
	}
	return n
}

// goMemLimit is the soft memory limit given to the Go collector with --mem,
// so that the garbage of the heap stays near the budget too (the shuffle
// counts its own Arrow memory; the collector decides when the rest goes). It
// is the budget, plus the key side, which the build and the reduce hold in
// maps (about three times its CSV bytes; a .gz or .zip file is taken as a
// quarter of its content), plus 32 MiB for buffers and the collector's
// headroom. docs/design.md has the measurements behind the numbers.
func goMemLimit(mem int64, keys string) int64 {
	var keyBytes int64
	if st, err := os.Stat(keys); err == nil {
		keyBytes = st.Size()
		if ext := strings.ToLower(filepath.Ext(keys)); ext == ".gz" || ext == ".zip" {
			keyBytes *= 4
		}
	}
	return mem + 3*keyBytes + 32<<20
}

// formatSize prints n bytes in the largest binary unit that divides it, as
// parseSize reads it.
func formatSize(n int64) string {
	switch {
	case n%(1<<50) == 0:
		return fmt.Sprintf("%dPiB", n>>50)
	case n%(1<<40) == 0:
		return fmt.Sprintf("%dTiB", n>>40)
	case n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// bars draws one progress bar per phase on a terminal.
type bars struct {
	w io.Writer
	m map[string]*progressbar.ProgressBar
}

func newBars(w io.Writer) *bars { return &bars{w: w, m: map[string]*progressbar.ProgressBar{}} }

// update is a join.Options.Progress callback. A total below 0 (a stream of
// unknown size) draws a spinner with the bytes read.
func (b *bars) update(phase string, done, total int64) {
	bar := b.m[phase]
	if bar == nil {
		bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(b.w), progressbar.OptionSetDescription(phase),
			progressbar.OptionShowBytes(phase != "reduce"), progressbar.OptionShowCount(), // reduce counts partitions
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
	if b == nil {
		return
	}
	for _, bar := range b.m {
		if !bar.IsFinished() {
			bar.Exit()
		}
	}
	fmt.Fprint(b.w, "\r\033[K")
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var jf joinFlags
	jf.register(fs)
	filter := fs.String("filter", "acbf", "none, exact, bloom, cbf, acbf (optimal first level), acbf1, acbf2, acbf3")
	filterFile := fs.String("filter-file", "", "use the filter in this file (join build-filter) instead of building one")
	out := fs.String("out", "-", "output file (.gz: compressed), or - for standard output")
	format := fs.String("format", "csv", "csv or parquet")
	sorted := fs.Bool("sort", false, "order the output by key, then by the large side's row order")
	reportJSON := fs.String("report-json", "", "also write the report as JSON to this file")
	if err := parse(fs, args); err != nil {
		return err
	}
	opt, err := jf.options("run", fs, stderr)
	if err != nil {
		return err
	}
	defer jf.bars.clear()
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if opt.Filter, err = join.ParseKind(*filter); err != nil {
		return usageError{fmt.Errorf("run: --filter: %w", err)}
	}
	if *filterFile != "" {
		for _, f := range []string{"bits-per-key", "k", "fpp"} {
			if set[f] {
				return usageError{fmt.Errorf("run: --%s cannot change the filter of --filter-file %s: leave it out, or build another filter with join build-filter", f, *filterFile)}
			}
		}
		opt.FilterFile = *filterFile
		if !set["filter"] {
			opt.Filter = "" // take the kind from the file
		}
	}
	if *format != "csv" && *format != "parquet" {
		return usageError{fmt.Errorf("run: --format %q: want csv or parquet", *format)}
	}
	if *format == "parquet" && *out == "-" {
		return usageError{fmt.Errorf("run: --format parquet needs --out FILE")}
	}
	opt.Sort = *sorted
	outs := []namedPath{{"out", *out}}
	if set["report-json"] {
		outs = append(outs, namedPath{"report-json", *reportJSON})
	}
	if err := checkPaths(outs, []namedPath{{"keys", jf.keys}, {"input", jf.input}, {"filter-file", *filterFile}}); err != nil {
		return usageError{fmt.Errorf("run: %w", err)}
	}
	var files outputs
	defer files.abort()
	outF, err := files.create(ctx, outs[0], atomicfile.Options{Gzip: *format == "csv"})
	if err != nil {
		return err
	}
	var repF *atomicfile.File
	if len(outs) > 1 {
		if repF, err = files.create(ctx, outs[1], atomicfile.Options{Gzip: true}); err != nil {
			return err
		}
	}

	var rep *join.Report
	if *format == "csv" {
		rep, err = join.Run(ctx, opt, outF)
	} else {
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			err := join.CSVToParquet(pr, outF)
			pr.CloseWithError(err) // the join's next write fails with the writer's error
			done <- err
		}()
		rep, err = join.Run(ctx, opt, pw)
		pw.CloseWithError(err)
		// A failed Parquet write stops the join too: report the write's error,
		// not the closed pipe the join then met.
		if perr := <-done; perr != nil && (err == nil || !errors.Is(err, context.Canceled)) {
			err = fmt.Errorf("--out %s: %w", *out, perr)
		}
	}
	if err != nil {
		return err
	}
	// Everything is written before anything is committed: a report that
	// cannot be written (a full disk, /dev/full) fails the run with the
	// output not yet in place.
	if repF != nil {
		enc := json.NewEncoder(repF)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fmt.Errorf("--report-json %s: %w", *reportJSON, err)
		}
	}
	jf.bars.clear()
	report := stdout
	if outF.Stdout() || (repF != nil && repF.Stdout()) {
		report = stderr
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	if _, err := report.Write(text.Bytes()); err != nil {
		if report == stderr {
			return fmt.Errorf("write the report to standard error: %w", err)
		}
		return stdoutError{err}
	}
	if err := outF.Commit(); err != nil {
		return fmt.Errorf("--out %s: %w", *out, err)
	}
	if repF != nil {
		if err := repF.Commit(); err != nil {
			return fmt.Errorf("--report-json %s: %w", *reportJSON, err)
		}
	}
	return nil
}

func cmdBuildFilter(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("build-filter", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var jf joinFlags
	jf.register(fs)
	filter := fs.String("filter", "acbf", "none, exact, bloom, cbf, acbf, acbf1, acbf2, acbf3")
	out := fs.String("out", "", "filter file to write (required)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if jf.input == "" {
		jf.input = "-" // not used: build-filter reads only the key file
	}
	opt, err := jf.options("build-filter", fs, stderr)
	if err != nil {
		return err
	}
	defer jf.bars.clear()
	kind, err := join.ParseKind(*filter)
	if err != nil {
		return usageError{fmt.Errorf("build-filter: --filter: %w", err)}
	}
	if *out == "" {
		return usageError{fmt.Errorf("build-filter: --out is required")}
	}
	if err := checkPaths([]namedPath{{"out", *out}}, []namedPath{{"keys", jf.keys}}); err != nil {
		return usageError{fmt.Errorf("build-filter: %w", err)}
	}
	var files outputs
	defer files.abort()
	f, err := files.create(ctx, namedPath{"out", *out}, atomicfile.Options{})
	if err != nil {
		return err
	}
	keys, err := join.ReadKeySet(ctx, opt.Keys, opt.KeyCol, opt.KeyType, opt.Mappers)
	if err != nil {
		return err
	}
	b, err := join.BuildFilter(kind, keys, opt.Sizing)
	if err != nil {
		return err
	}
	if err := join.WriteFilter(f, b, opt.KeyCol, opt.KeyType); err != nil {
		return fmt.Errorf("--out %s: %w", *out, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("--out %s: %w", *out, err)
	}
	fmt.Fprintf(stdout, "wrote %s: %s filter of %d keys, k=%d, %d bytes, formula FP %.3g\n", *out, b.Kind, b.N, b.K, b.SerializedBytes, b.TheoreticalFPP)
	return nil
}
