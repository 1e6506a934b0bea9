package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"

	"github.com/acbfjoin/acbfjoin/cli"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/hugeheap"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/local"
	"github.com/acbfjoin/acbfjoin/key"
)

// joinFlags are the flags run, compare and build-filter share.
type joinFlags struct {
	sizingFlags
	keys, input, keyCol, joinCol, keyType string
	keysFormat, inputFormat               string
	joinType, columns, suffix, on         string
	where, keysWhere, progress            string
	parquetBloom                          string               // --parquet-bloom, as given
	pq                                    local.ParquetOptions // its ParquetOptions (run)
	mappers, reducers                     int
	mem                                   string
	tempDir                               string
	quiet, estimate, keepFilter           bool
	ignoreFileBloom                       bool
	badRows                               string
	filter                                filters.Kind // set by the command
	filterFile                            string       // set by run
	delim, keysDelim, inputDelim          string
	layout                                string
	bank, classes, route                  string // set by run
	skew                                  string // set by run
	budget                                string // set by run
	needDeletes                           bool   // set by run
	hotExclusions                         int    // set by run
	bars                                  *bars  // set by options on a terminal
}

// keyTypeUsage is the --key-type flag's help, every command's (beamjoin's too).
const keyTypeUsage = cli.KeyTypeUsage

func (j *joinFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&j.keys, "keys", "", "small side: CSV with header (.csv, .tsv, .txt, .gz, .zip), Parquet, Arrow IPC or JSON lines, a folder of part files or a quoted glob of them ('parts/*.parquet'), or - (required)")
	fs.StringVar(&j.input, "input", "", "large side: CSV with header (.csv, .tsv, .txt, .gz, .zip), Parquet, Arrow IPC or JSON lines, a folder of part files or a quoted glob of them ('parts/*.parquet'), or - (required)")
	fs.StringVar(&j.keyCol, "key-col", join.DefaultKeyCol, "join column of the small side; several, comma-separated, for a composite key (A,B,C; quote a name holding a comma)")
	fs.StringVar(&j.joinCol, "join-col", join.DefaultJoinCol, "join column of the large side; several for a composite key, as many as --key-col, matched in order")
	fs.StringVar(&j.keysFormat, "keys-format", "", "format of --keys: csv, parquet, arrow or jsonl (default: by its name: .parquet/.pq, .arrow/.feather/.ipc, .jsonl/.ndjson, else CSV)")
	fs.StringVar(&j.inputFormat, "input-format", "", "format of --input: csv, parquet, arrow or jsonl (default: by its name)")
	fs.StringVar(&j.keyType, "key-type", string(key.Auto), keyTypeUsage)
	fs.StringVar(&j.joinType, "join", string(join.JoinInner), "the join: inner; semi (each large row with a match, once, its own columns); anti (each without one; rows the filter rejects skip the shuffle); "+
		"left (every large row, unmatched ones with empty key-side columns); right (every key row, unmatched ones with empty large-side columns but the join column); full (both). A NULL key (an empty CSV field; a Parquet or Arrow NULL) never matches")
	fs.StringVar(&j.where, "where", "", cli.WhereUsage("the large side's", "in the map phase, before the filter's probe; a left or anti join writes no row for one it drops"))
	fs.StringVar(&j.keysWhere, "keys-where", "", cli.WhereUsage("the key side's", "before the filter is built: only the keys of the rows kept go into it and to the reducers"))
	fs.StringVar(&j.suffix, "suffix", join.DefaultSuffix, cli.SuffixUsage)
	fs.StringVar(&j.on, "on", "", cli.OnUsage)
	fs.StringVar(&j.columns, "columns", "", "the output's columns, by name, in this order (A,B,C; quote a name holding a comma): from either side, by the output's names (--suffix), or keys.NAME and input.NAME for a side's own NAME, each with \" AS NEWNAME\" to write it under another name; default all, the large side's then the key side's but its key")
	fs.StringVar(&j.layout, "filter-layout", "", "composite key only: composite (one filter over the key tuples; the default) or per-column (one filter a column, the multi-dimension Bloom filter's design, for comparison)")
	j.sizingFlags.register(fs)
	fs.IntVar(&j.mappers, "mappers", 0, "map goroutines (0: one per core)")
	fs.IntVar(&j.reducers, "reducers", 0, "reducers (0: one per core), each joining four partitions of the shuffle or more, the largest first")
	fs.StringVar(&j.mem, "mem", "", "memory for the shuffle, --sort and the reducers' key tables, spilling to --tmp-dir beyond it (a key side too large for half of it is joined in partitions, one at a time a reducer); the build's distinct keys (40 bytes an integer key, more a text one) and the filter come on top (B, KiB, MiB, GiB; at least 64KiB x mappers x reducers; default "+
		join.SizeText(join.DefaultMemBudget)+", or that minimum if more)")
	fs.StringVar(&j.tempDir, "tmp-dir", "", "folder for spill files (default: the system's)")
	fs.StringVar(&j.tempDir, "temp-dir", "", "the same as --tmp-dir")
	fs.BoolVar(&j.quiet, "quiet", false, "no progress bars and no text report (--report-json is still written)")
	fs.StringVar(&j.progress, "progress", "", "how the run shows its progress on standard error: bar (a bar a phase, the default on a terminal), plain (a line every 10 s once the run has taken 5 s: phase, progress, rate, time left; the default otherwise) or none")
	fs.BoolVar(&j.keepFilter, "keep-filter", false, "keep probing the filter in every mapper whatever it passes (by default a mapper whose filter passes so much that probing costs more than the shuffle it saves stops probing, and the report says when; compare always keeps it)")
	fs.BoolVar(&j.estimate, "estimate-size", false, "estimate the join's size before the shuffle with count-min sketches of both sides' keys, and report it beside the true size (costs about 10% of a filtered join; --skew auto always does)")
	fs.StringVar(&j.delim, "delim", "", `field separator of both sides: one byte, such as "," "\t" (or "tab") ";" or "|" (not a quote or line break); default: a tab for .tsv and .tab files, else a comma (the output is CSV)`)
	fs.StringVar(&j.keysDelim, "keys-delim", "", "field separator of --keys alone, instead of --delim (as --delim takes it)")
	fs.StringVar(&j.inputDelim, "input-delim", "", "field separator of --input alone, instead of --delim: a TSV on standard input with a CSV key file takes --input-delim tab")
	fs.BoolVar(&j.ignoreFileBloom, "ignore-file-bloom", false, "read every row group of a Parquet --input that its statistics do not skip, never its own Bloom filters of the join column (by default a row group whose filter holds none of the keys is skipped unread, and a row group read drops without a probe its rows of none of the few keys its filter passed; for comparing the two)")
	fs.StringVar(&j.badRows, "bad-rows", "fail", "fail: stop at the first malformed row; skip: drop malformed rows, count them and report the first few")
}

// options turns the flags into join.Options, checked by the library
// (join.Options.Resolve): only the flags given are passed, so the library's
// defaults stand for the others. cmd is the command's name for messages.
func (j *joinFlags) options(cmd string, stderr io.Writer) (join.Options, error) {
	opt := join.Options{
		Sides:            join.Sides{Keys: j.keys, Input: j.input, KeysFormat: j.keysFormat, InputFormat: j.inputFormat, IgnoreFileBloom: j.ignoreFileBloom},
		Keying:           join.Keying{KeyCol: j.keyCol, JoinCol: j.joinCol, KeyType: key.Type(j.keyType), Layout: join.Layout(j.layout)},
		FilterChoice:     join.FilterChoice{Filter: j.filter, FilterFile: j.filterFile, KeepFilter: j.keepFilter},
		Resources:        join.Resources{Mappers: j.mappers, Reducers: j.reducers, TempDir: j.tempDir},
		Skew:             join.Skew(j.skew),
		JoinType:         join.JoinType(j.joinType),
		EstimateJoinSize: j.estimate,
	}
	for _, f := range []struct{ name, v string }{{"key-col", j.keyCol}, {"join-col", j.joinCol}, {"key-type", j.keyType}, {"join", j.joinType}, {"suffix", j.suffix}, {"on", j.on}, {"where", j.where}, {"keys-where", j.keysWhere}} {
		if j.set(f.name) && f.v == "" { // "" is the library's default
			return opt, usageError{fmt.Errorf("%s: --%s is empty (leave it out for its default)", cmd, f.name)}
		}
	}
	switch j.progress {
	case "", "bar", "plain", "none":
	default:
		return opt, usageError{fmt.Errorf("%s: --progress %q: want bar, plain or none", cmd, j.progress)}
	}
	var err error
	if opt.KeyCol, opt.JoinCol, err = cli.On(j.on, j.set("on"), j.keyCol, j.set("key-col"), j.joinCol, j.set("join-col")); err != nil {
		return opt, usageError{fmt.Errorf("%s: %w", cmd, err)}
	}
	opt.Suffix = j.suffix
	opt.Where, opt.KeysWhere = j.where, j.keysWhere
	if j.set("columns") {
		cols, err := cli.ParseColumns(j.columns) // beamjoin's too
		if err != nil {
			return opt, usageError{fmt.Errorf("%s: %w", cmd, err)}
		}
		opt.Columns = cols
	}
	if opt.Sizing, err = j.sizing(cmd); err != nil {
		return opt, err
	}
	if opt.Sep, err = parseDelim(cmd, j.delim); err != nil {
		return opt, err
	}
	if opt.KeysSep, err = parseDelimFlag(cmd, "keys-delim", j.keysDelim); err != nil {
		return opt, err
	}
	if opt.InputSep, err = parseDelimFlag(cmd, "input-delim", j.inputDelim); err != nil {
		return opt, err
	}
	opt.Bank, opt.Route = j.bank, join.Route(j.route) // Classes and Route without a bank: the library refuses them
	if j.bank != "" {
		// The bank decides the key column and type unless they are given.
		if !j.set("key-col") && !j.set("on") {
			opt.KeyCol = ""
		}
		if !j.set("key-type") {
			opt.KeyType = ""
		}
	}
	if j.classes != "" {
		var err error
		if opt.Classes, err = key.SplitList(j.classes); err != nil {
			return opt, usageError{fmt.Errorf("%s: --classes %w (a label holding a comma is written quoted, as in a CSV line)", cmd, err)}
		}
	}
	if j.set("broadcast-budget") {
		b, err := parseSize(j.budget)
		if err != nil || b == 0 {
			return opt, usageError{fmt.Errorf("%s: --broadcast-budget %q: want a size such as 64KiB or 8MiB", cmd, j.budget)}
		}
		opt.BroadcastBudget = b
	}
	opt.NeedDeletes = j.needDeletes
	opt.HotExclusions = j.hotExclusions
	if j.set("mem") {
		mem, err := parseSize(j.mem)
		if err != nil {
			return opt, usageError{fmt.Errorf("%s: --mem %q: %v", cmd, j.mem, err)}
		}
		opt.MemBudget = mem
	}
	if opt.SkipBadRows, err = badRowsFlag(cmd, j.badRows); err != nil {
		return opt, err
	}
	resolved, err := opt.Check() // before the bank (if any) is read
	if err != nil {
		return opt, usageError{flagError(cmd, j.fs, err)}
	}
	if err := j.checkKinds(cmd, resolved.Filter); err != nil {
		return opt, err
	}
	switch mode := j.progress; {
	case j.quiet || mode == "none":
	case mode == "bar" || mode == "" && isTerminal(os.Stderr):
		j.bars = newBars(stderr)
		opt.Progress = j.bars.update
	default: // plain, or standard error no terminal
		j.bars = newPlain(stderr)
		opt.Progress = j.bars.update
	}
	return opt, nil
}

// flagError rewrites an option.Error in err as the user's flag and value
// ("run: --mem 4KiB: below the minimum ...", cli.Rewrite); a key that is
// no integer (csvscan.ErrNotInteger) gets how its command's keys came to
// compare as integers (intKeyError); other errors are returned as they are.
func flagError(cmd string, fs *flag.FlagSet, err error) error {
	var dce *join.DefaultColumnsError
	if errors.As(err, &dce) && fs.Lookup("on") != nil {
		return defaultColumnsError{cmd, dce}
	}
	err = cli.Rewrite(cmd, fs, err) // --on's columns named as --on's too
	if how := intKeyHow(fs); how != "" && errors.Is(err, csvscan.ErrNotInteger) {
		return intKeyError{err, how}
	}
	return err
}

// defaultColumnsError is join.DefaultColumnsError in the flags' words:
// the NBER default columns, which the files lack, what each has, and the
// --on that names the columns both have.
type defaultColumnsError struct {
	cmd string
	e   *join.DefaultColumnsError
}

func (d defaultColumnsError) Unwrap() error { return d.e }

func (d defaultColumnsError) Error() string {
	e := d.e
	msg := fmt.Sprintf("%s: --key-col and --join-col default to the NBER files' PATENT and CITED, which these files lack: %s has %s; %s has %s; ",
		d.cmd, e.Keys, quoted(e.KeyNames), e.Input, quoted(e.InputNames))
	if len(e.Shared) == 0 {
		return msg + "give --key-col and --join-col"
	}
	on := e.Shared[0]
	if len(e.Shared) > 1 {
		on += " (or --on " + strings.Join(e.Shared[:min(2, len(e.Shared))], ",") + " for a composite key)"
	}
	return msg + fmt.Sprintf("both have %s: give --on %s, or --key-col and --join-col", quoted(e.Shared), on)
}

// quoted is names quoted and comma-separated, for messages.
func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// intKeyError is a key that is no integer where keys compare as integers,
// with how they came to (intKeyHow) for its hint.
type intKeyError struct {
	error
	how string
}

func (e intKeyError) Unwrap() error { return e.error }

// intKeyHow says, for the hint of a key that is no integer, how the keys of
// a command (its flags, parsed) came to compare as integers and what to
// give instead: --key-type given, a bank's type, the command's default
// (multikey's int) or auto's inference. "" if the command has no --key-type.
func intKeyHow(fs *flag.FlagSet) string {
	kt := fs.Lookup("key-type")
	if kt == nil {
		return ""
	}
	given, bank := false, false
	fs.Visit(func(f *flag.Flag) {
		given = given || f.Name == "key-type"
		bank = bank || (f.Name == "bank" && f.Value.String() != "")
	})
	switch v := kt.Value.String(); {
	case given && strings.Contains(v, ","):
		return fmt.Sprintf("--key-type %s compares that column as integers: give string in its place to compare it as text", v)
	case given:
		return fmt.Sprintf("--key-type %s compares the keys as integers: give --key-type string to compare them as text", v)
	case bank:
		return fmt.Sprintf("the bank's keys are integers, as it was built: build one with %s bank build --key-type string to compare them as text", prog)
	case kt.DefValue == string(key.Int):
		return "keys are compared as integers by default: give --key-type string to compare them as text"
	}
	return "--key-type auto took the keys as integers: give --key-type string to compare them as text"
}

// tuneGC sets the collector for a run: a soft limit of the budget (the
// default's without --mem) and the key side's estimate (local.GoMemLimit),
// so that the garbage of the heap stays near the budget too; with --mem
// also half the default growth before a collection (docs/design.md has
// the measurements). A small key side (local.SmallKeySide) is built with
// the collector off, the soft limit still in force: opt.Progress is
// wrapped to turn it back on when the first phase after the build (and
// auto's decision) starts, from a floor (gcFloor). It is process-wide: the
// command that runs sets it, once its options are valid.
func (j *joinFlags) tuneGC(opt *join.Options) {
	// The heap's huge pages first, while the collector runs as the
	// process started (hugeheap.Advise collects once).
	hugeStart.Do(func() {
		switch {
		case opt.MemBudget != 0:
			// The user's bound on memory stays the bound it was measured
			// at (bench/results/mem.md, keymem.md).
			hugeResult.Why = "--mem is given"
		case !heapGrows(opt):
			hugeResult.Why = "a small heap, or a side of unknown size"
		default:
			hugeResult = hugeheap.Advise(hugeRegion)
		}
	})
	gcStart.Do(func() { gcGOGC = debug.SetGCPercent(-1) }) // GOGC's, or the default's 100
	pct := gcGOGC
	mem := opt.MemBudget
	if mem == 0 {
		// Without it a key side of 10^7 keys (an 855 MB file) peaked at
		// 874 MB with the default budget (bench/results/keymem.md).
		mem = join.DefaultMemBudget
	} else {
		pct = 50
	}
	// The key files are looked at before the lock: a floor's finalizer
	// (and every finalizer behind it) would wait on their reads.
	limit := local.GoMemLimit(mem, opt.Keys)
	small := local.SmallKeySide(mem, opt.Keys)
	// An earlier run's floor, not yet collected, puts nothing back from
	// now on.
	gcMu.Lock()
	gcGen++
	gen := gcGen
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(limit)
	if !small {
		debug.SetGCPercent(pct)
	}
	gcMu.Unlock()
	if !small {
		return
	}
	prev := opt.Progress
	var once sync.Once
	opt.Progress = func(phase string, done, total int64) {
		if phase != "build" && phase != "auto" {
			once.Do(func() { gcFloor(pct, limit, min(gcFloorBytes, limit/4), gen) })
		}
		if prev != nil {
			prev(phase, done, total)
		}
	}
}

// hugeRegion is the heap a run puts on huge pages (hugeheap.Advise): a
// quarter of the default budget, the one it runs under (a run with --mem
// puts none), so that what whole 2 MiB pages may add to the resident
// memory stays within the budget's quarter.
const hugeRegion = join.DefaultMemBudget / 4

// heapGrows reports whether a run's heap is likely to grow by tens of
// MiB, for hugeheap.Advise, which costs a collection (0.9-1.6 ms) and
// saves a fault a 4 KiB page the heap grows by: sides of known size
// (local files; a stream's heap may live long, and khugepaged fills
// back what its collections return) with a key side of 4 MiB or more
// (its rows are held to the reduce), or a large side compressed,
// columnar or JSON lines of 1 MiB or more (decoded in memory). A join of
// 1,000 citations to one key took 1.27x the wall time with the advice (8
// to 10 ms, 30 pairs) and the whole NBER file to 658 keys 1.04x (its
// survivors few, its heap 35 MiB); the NBER key side (5.5 MB) 0.94x, the
// 658 keys' join of the patents as Parquet 0.88x. O(one stat a file).
func heapGrows(opt *join.Options) bool {
	kt, kp, kok := local.SideBytes(opt.Keys, opt.KeysFormat)
	_, ip, iok := local.SideBytes(opt.Input, opt.InputFormat)
	return kok && iok && (kt+12*kp >= 4<<20 || ip >= 1<<20)
}

// hugeStart makes the heap's huge pages once a process: the first run's
// budget and sides decide, and hugeResult says what was done (the
// report's settings.huge_pages).
var (
	hugeStart  sync.Once
	hugeResult hugeheap.Result
)

// gcFloorBytes is the memory up to which the phases after a small key
// side's build run without the collector (gcFloor).
const gcFloorBytes = 32 << 20

// The process's collector settings across runs (tuneGC): GOGC as the
// process started (the first tuneGC reads it; a later one would read its
// own run's setting), and the run whose floor may put them back.
var (
	gcStart sync.Once
	gcGOGC  int
	gcMu    sync.Mutex // guards gcGen and the settings' changes that check it
	gcGen   int64
)

// gcFloor turns the collector on at pct, with the soft limit limit, once
// the Go memory in use first reaches floor: until then it stays off under
// a soft limit of floor, whose collection, the first, lets a sentinel's
// finalizer put pct and limit in place. A join whose heap stays small
// then collects nothing: the 20-key Bloom join's map phase, with a heap of
// 13 MB, ran 3 collections whose workers and assists took the mappers'
// cores (the execution trace's scheduling waits), 0.88x wall with GOGC=off
// at the same peak RSS (15 pairs). The floor is where the memory is
// already, where that is more (a collection then starts at once, as
// turning pct on would start it). gen is the run's (gcGen): a later run's
// tuneGC makes the finalizer put nothing back, where no collection came
// before it (a review found a second run in one process reading the
// first's "off" as GOGC's).
func gcFloor(pct int, limit, floor, gen int64) {
	gcMu.Lock()
	defer gcMu.Unlock()
	if gcGen != gen { // a later run's settings stand
		return
	}
	var m [1]metrics.Sample
	m[0].Name = "/memory/classes/total:bytes"
	metrics.Read(m[:])
	if m[0].Value.Kind() == metrics.KindUint64 {
		floor = max(floor, int64(m[0].Value.Uint64()))
	}
	if pct < 0 || floor >= limit { // never a floor above the run's soft limit
		debug.SetGCPercent(pct)
		return
	}
	debug.SetMemoryLimit(floor)
	afterCollection(gen, func() {
		debug.SetMemoryLimit(limit)
		// The floor's collection took the build's garbage (and auto's
		// decision's): the next waits for the floor again, not for pct
		// of what is left live, which was below it (8 MB live after a
		// collection at once as the map phase started, the garbage of
		// --filter auto's decision having taken the memory to the floor:
		// a goal of 16 MB at GOGC 100, a second collection in the map
		// phase, which the fixed kinds' joins did not have). pct comes
		// back at that next collection.
		up := floorPercent(floor)
		if up <= pct {
			debug.SetGCPercent(pct)
			return
		}
		debug.SetGCPercent(up)
		afterCollection(gen, func() { debug.SetGCPercent(pct) })
	})
}

// afterCollection runs f, under gcMu, once the next collection has ended
// (a sentinel's finalizer), unless a later run (gcGen past gen) has put
// its own settings in place by then.
func afterCollection(gen int64, f func()) {
	runtime.SetFinalizer(new(gcSentinel), func(*gcSentinel) {
		gcMu.Lock()
		defer gcMu.Unlock()
		if gcGen == gen {
			f()
		}
	})
}

// floorPercent is the GOGC whose heap goal, after the collection just
// ended, keeps the Go memory near floor: the heap then may grow to floor
// less the memory outside the heap's spans (stacks, the runtime's own),
// over the heap marked live (runtime/metrics; 0 where they are not
// known). Not the heap's objects alone: right after a collection its
// dead objects are still being swept, and counting the freed spans as
// memory besides the heap gave GOGC 86-217 from one run to the next.
func floorPercent(floor int64) int {
	names := []string{"/gc/heap/live:bytes", "/memory/classes/total:bytes",
		"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes", "/memory/classes/heap/free:bytes", "/memory/classes/heap/released:bytes"}
	m := make([]metrics.Sample, len(names))
	for i, n := range names {
		m[i].Name = n
	}
	metrics.Read(m)
	v := make([]int64, len(m))
	for i, s := range m {
		if s.Value.Kind() != metrics.KindUint64 {
			return 0
		}
		v[i] = int64(s.Value.Uint64())
	}
	return percentFor(floor, v[0], v[1], v[2]+v[3]+v[4]+v[5])
}

// percentFor is floorPercent of a heap of live bytes marked live, total
// bytes of Go memory of which heap are the heap's spans: the heap may grow
// to floor less the rest of the memory (0: it is there already).
func percentFor(floor, live, total, heap int64) int {
	goal := floor - (total - heap)
	if live <= 0 || goal <= live {
		return 0
	}
	return int(min(100*(goal-live)/live, 1<<20))
}

// gcSentinel is an object whose only use is its finalizer (gcFloor): not
// a tiny allocation, which would share its block with others.
type gcSentinel struct{ _ [2]*int }

// parseSize parses "256MiB", "64KiB", "1GiB", "1000" (bytes), at most
// 1 PiB (cli.ParseSize).
func parseSize(s string) (int64, error) { return cli.ParseSize(s, cli.MaxSize) }

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
