package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
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
	if set["k"] && j.k < 1 {
		return fail("--k %d: want at least 1 (leave --k out for round((m/n) ln 2))", j.k)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"mappers", j.mappers}, {"reducers", j.reducers}} {
		if (set[f.name] && f.v < 1) || f.v < 0 {
			return fail("--%s %d: want at least 1 (leave it out for one per core)", f.name, f.v)
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
		opt.Progress = newBars(stderr)
	}
	return opt, nil
}

// parseSize parses "256MiB", "64KiB", "1GiB", "1000" (bytes).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("want a positive size like 256MiB")
	}
	return int64(v * float64(mult)), nil
}

// cores is n, or one per core when n is 0 (join.Run's default for mappers
// and reducers).
func cores(n int) int {
	if n == 0 {
		return runtime.GOMAXPROCS(0)
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

// newBars returns a Progress callback drawing one bar per phase.
func newBars(w io.Writer) func(phase string, done, total int64) {
	bars := map[string]*progressbar.ProgressBar{}
	return func(phase string, done, total int64) {
		b := bars[phase]
		if b == nil {
			b = progressbar.NewOptions64(total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(phase),
				progressbar.OptionShowBytes(phase != "reduce"), progressbar.OptionShowCount(), // reduce counts partitions
				progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100*time.Millisecond))
			bars[phase] = b
		}
		b.Set64(done)
		if done >= total {
			b.Finish()
		}
	}
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var jf joinFlags
	jf.register(fs)
	filter := fs.String("filter", "acbf", "none, exact, bloom, cbf, acbf (optimal first level), acbf1, acbf2, acbf3")
	filterFile := fs.String("filter-file", "", "use the filter in this file (join build-filter) instead of building one")
	out := fs.String("out", "-", "output file, or - for standard output")
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
	if *out != "-" {
		if err := checkOut(*out, jf.keys, jf.input); err != nil {
			return usageError{fmt.Errorf("run: --out %s: %v", *out, err)}
		}
	}
	if opt.Filter, err = join.ParseKind(*filter); err != nil {
		return usageError{fmt.Errorf("run: --filter: %w", err)}
	}
	if *filterFile != "" {
		opt.FilterFile = *filterFile
		explicit := false
		fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "filter" })
		if !explicit {
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

	var rep *join.Report
	write := func(w io.Writer) error {
		if *format == "csv" {
			rep, err = join.Run(ctx, opt, w)
			return err
		}
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			err := join.CSVToParquet(pr, w)
			pr.CloseWithError(err) // the join's next write fails with the writer's error
			done <- err
		}()
		rep, err = join.Run(ctx, opt, pw)
		pw.CloseWithError(err)
		// A failed Parquet write stops the join too: report the write's error,
		// not the closed pipe the join then met.
		if perr := <-done; perr != nil && (err == nil || !errors.Is(err, context.Canceled)) {
			err = perr
		}
		return err
	}
	if *out == "-" {
		err = write(stdout)
	} else {
		err = writeFileAtomic(*out, write)
	}
	if err != nil {
		return err
	}
	report := stdout
	if *out == "-" {
		report = stderr
	}
	rep.WriteText(report)
	if *reportJSON != "" {
		if err := writeFileAtomic(*reportJSON, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(rep)
		}); err != nil {
			return err
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
	kind, err := join.ParseKind(*filter)
	if err != nil {
		return usageError{fmt.Errorf("build-filter: --filter: %w", err)}
	}
	if *out == "" {
		return usageError{fmt.Errorf("build-filter: --out is required")}
	}
	if err := checkOut(*out, jf.keys); err != nil {
		return usageError{fmt.Errorf("build-filter: --out %s: %v", *out, err)}
	}
	keys, err := join.ReadKeySet(ctx, opt.Keys, opt.KeyCol, opt.KeyType, opt.Mappers)
	if err != nil {
		return err
	}
	b, err := join.BuildFilter(kind, keys, opt.Sizing)
	if err != nil {
		return err
	}
	if err := join.WriteFilterFile(*out, b, opt.KeyCol, opt.KeyType); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %s filter of %d keys, k=%d, %d bytes, formula FP %.3g\n", *out, b.Kind, b.N, b.K, b.SerializedBytes, b.TheoreticalFPP)
	return nil
}

// checkOut refuses an output path whose folder is missing or that names one of
// the inputs.
func checkOut(out string, inputs ...string) error {
	dir := filepath.Dir(out)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("folder %s does not exist", dir)
	}
	if st, err := os.Stat(out); err == nil {
		if st.IsDir() {
			return fmt.Errorf("is a folder")
		}
		for _, in := range inputs {
			if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
				return fmt.Errorf("is the input %s: the join would overwrite it", in)
			}
		}
	}
	return nil
}

// writeFileAtomic writes path so that it appears only when complete.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.Write(path, func(f *os.File) error { return write(f) })
}
