package join

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/internal/remote"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// Options is the plan of a join, which an executor (join/local, beam) runs.
// Its fields are grouped by concern, each group a struct embedded here (so
// that opt.Keys, opt.Filter and the like read as before) that checks and
// fills in its own fields (Resolve); the rules between groups are one
// table (crossRules). The zero value of a field is its default.
type Options struct {
	Sides        // the two inputs: paths, names, formats, separators
	Keying       // the key: its columns on each side, their types, the filter's layout
	FilterChoice // the filter: a kind and its sizing, a filter file, or auto
	BankJoin     // a join through a filter bank's classes
	Output       // the output's columns and order
	Resources    // goroutines, memory, temporary files, progress
	// JoinType is which rows the join writes (default JoinInner; SQL's
	// semantics, docs/join-types.md, one definition: semantics.go):
	// JoinSemi each large-side row that has a match, once, with its own
	// columns; JoinAnti each that has none; JoinLeft every large-side row,
	// the unmatched ones padded with empty (NULL) key-side columns;
	// JoinRight every key-side row, the unmatched ones with empty
	// large-side columns but the join columns, which hold the key (as
	// SQL's USING); JoinFull both. A NULL key never matches
	// (key.Spec.IsNull: an empty CSV field, a Parquet or Arrow NULL; an
	// empty string of a table is a value). A row the filter rejects is
	// certainly unmatched: anti, left and full write it without shuffling
	// it.
	JoinType JoinType
	// Skew is what the join does about hot keys (default SkewOff). With
	// SkewAuto a pass before the build samples the large side (a regular
	// file; for a stream, the key side stands in for it) for keys whose
	// rows exceed N/Reducers (N the large side's rows, estimated), spreads
	// each such key's large-side rows over several partitions and copies
	// its key-side rows to each of them. The output is the same either
	// way: byte for byte with Sort, the same rows otherwise.
	Skew Skew
	// EstimateJoinSize sketches the key side's keys and the survivors' with
	// count-min sketches and reports the join's size estimated before the
	// shuffle (Report.JoinRowsEstimate): about 10% of a filtered join's
	// time (15 alternated pairs of whole runs), so it is asked for; Skew auto
	// always estimates.
	EstimateJoinSize bool
}

// Sides are a join's two inputs (Options.Sides; beam.Options embeds them
// too).
type Sides struct {
	Keys, Input string // small and large side: CSV with header (.txt, .gz, .zip; "-" for standard input)
	// KeysName and InputName, if set, name the sides in messages instead of
	// their paths (a temporary copy of a stream keeps the stream's name).
	KeysName, InputName string
	// KeysFormat and InputFormat say how a side is stored: csv, parquet,
	// arrow or jsonl; "" by its name's extension (columnar.FormatOf:
	// .parquet and .pq, .arrow, .feather, .ipc and .arrows, .jsonl and
	// .ndjson; anything else is CSV). A Parquet, Arrow or JSON lines side
	// brings its columns' types (KeyType auto).
	KeysFormat, InputFormat string
	// Sep is the field separator of both sides (0: by each file's name, a
	// tab for .tsv and .tab, else a comma: csvscan.SepFor). The output is
	// CSV whatever the sides' separator: the rows of a large side of another
	// separator are re-encoded.
	Sep byte
	// KeysSep and InputSep, if not 0, are the separator of one side,
	// instead of Sep (a TSV on standard input joined with a CSV key file).
	KeysSep, InputSep byte
	// SkipBadRows drops malformed rows (wrong field count, bad quoting, a join
	// key that does not parse) and counts them instead of failing.
	SkipBadRows bool
	// IgnoreFileBloom reads every row group of a Parquet large side that
	// its statistics do not skip, never the file's own Bloom filters of
	// the join column (by default a row group whose filter holds none of
	// the keys is skipped: Report.InputTable.ChunksSkippedBloom); for
	// comparing the two.
	IgnoreFileBloom bool
	// Where and KeysWhere, if set, select the large side's and the key
	// side's rows by a predicate over the side's columns (package where:
	// `state == "CA" and delay > 60`), before the join: a row of the large
	// side it rejects is read in the map phase and dropped before the
	// filter's probe, in every join type (a left join writes no row for
	// it); a key-side row it rejects goes neither into the filter nor to
	// the reducers. Report.WhereRows counts the rows each dropped.
	Where, KeysWhere string
}

// Keying is a join's key (Options.Keying; the stream engine's and Beam's
// options embed it too).
type Keying struct {
	// KeyCol and JoinCol are the join columns by header name (default
	// PATENT, CITED). Several columns, comma-separated as one CSV record
	// ("A,B,C"; a name holding a comma quoted), make a composite key: the
	// same count on both sides, matched in order. KeyType is how keys
	// compare: int or string, one a column or one for all ("int,string");
	// auto (the default, "") decides each from the data: a Parquet or
	// Arrow column's type, else int when every key of the key side is a
	// canonical integer (key.CanonicalInt), else string. With auto, a NULL
	// key (an empty CSV field too) never matches and a key that is no value
	// of the type cannot: such rows are counted (Report.Keys), not errors.
	KeyCol, JoinCol string
	KeyType         key.Type
	// Layout is how a composite key's filter is made (default
	// LayoutComposite); LayoutPerColumn needs a composite key and a filter
	// built here (no FilterFile or Bank).
	Layout Layout
	// KeyCols, JoinCols and KeyTypes are set by Resolve: the lists of
	// KeyCol, JoinCol and key.Type, one entry a key column. Resolve also
	// writes KeyCol and JoinCol back in canonical form (JoinColumns) and
	// KeyType as one type a column when the key is composite.
	KeyCols, JoinCols []string
	KeyTypes          []key.Type
}

// FilterChoice is how a join gets its filter (Options.FilterChoice): a kind
// built here and its sizing, a filter file, or FilterAuto.
type FilterChoice struct {
	Filter filters.Kind   // default acbf, or the filter file's kind
	Sizing filters.Sizing // must be zero with FilterFile
	// FilterFile, if set, is a filter file (join build-filter) used instead of
	// building the filter; it must match the join's settings and key set.
	FilterFile string
	// KeepFilter keeps every mapper probing the filter whatever it passes;
	// by default a mapper whose filter passes so much that probing costs
	// more than the shuffle it saves stops probing and shuffles its rows
	// unprobed (join/local's filterGuard; the report says when). compare
	// keeps the filter: it measures filters.
	KeepFilter bool
	// HotExclusions, above 0, reads the large side (a regular file) once
	// more after the filter is built, for the HotExclusions most frequent
	// keys that pass the filter and are not keys (a top-k sketch of them);
	// the map phase drops their rows as the filter drops the others. The
	// row-weighted false positive rate falls as much as those keys carried
	// of it (Report.HotExclusions). At most MaxHotExclusions.
	HotExclusions int
	// BroadcastBudget bounds the bytes of one broadcast copy of the filter
	// FilterAuto may choose (0: DefaultBroadcastBudget); NeedDeletes limits
	// it to kinds that delete keys. Both are for FilterAuto only.
	BroadcastBudget int64
	NeedDeletes     bool
	// AutoTimings, if set, are the probe, decode and build times FilterAuto uses
	// for the kinds it names instead of timing them on this machine: its
	// choice then depends on the data and these numbers alone (tests,
	// whose verdict must not follow the machine's speed or load; replaying
	// another machine's decision). A kind left out is timed.
	AutoTimings map[filters.Kind]AutoTiming
}

// BankJoin is a join through a filter bank (Options.BankJoin).
type BankJoin struct {
	// Bank, if set, is a filter bank file (join bank build) over the key
	// file's classes: the join filters the large side with the union of the
	// filters of Classes and joins it with the key rows of those classes
	// only, which equals a join with the key file restricted to them. The
	// bank must match the key file (each class's keys, by count and
	// fingerprint). Filter (but the bank's kind), FilterFile and Sizing
	// must be unset; KeyCol and KeyType default to the bank's.
	Bank    string
	Classes []string // class labels of the bank (default: all its classes)
	// Route, with Bank, tags each output row with the class of its key
	// row: RouteColumn adds a last column "class"; RouteDir hands the rows
	// of each class to its own sink (join/local.NewRouted).
	Route Route
}

// Output is what a join's output holds and in what order (Options.Output).
type Output struct {
	// Columns, if set, are the output's columns, by name, in their order:
	// from either side (the output's names: the large side's, then the key
	// side's but its key columns, each suffixed where the large side has
	// its name: KeyOutputNames).
	Columns []string
	// Suffix is appended to the output name of a key-side column whose
	// name the large side has too (KeyOutputNames); "" is DefaultSuffix,
	// "_keys".
	Suffix string
	Sort   bool // order the output by key, then large-side row order
}

// Resources are what a join may use (Options.Resources).
type Resources struct {
	Mappers  int // map goroutines (default one per core; at most MaxWorkers)
	Reducers int // reduce goroutines, each joining four partitions or more (the shuffle's: Report.Partitions), the largest first (default one per core; at most MaxWorkers)
	// MemBudget bounds the shuffle's memory and, with Sort, the sort's
	// (default DefaultMemBudget, or more when the mappers and reducers need
	// it: shuffle.MinBudget; at least that).
	MemBudget int64
	// MemAvailable is the memory the reduce's key tables may take: each
	// reducer holds one partition's key-side rows at a time (keys, rows,
	// a 32-byte entry and 32-64 bytes of index a row), the partitions
	// made small enough for MemBudget (a grace hash join). A key side
	// whose largest partitions still need more is refused after the
	// build, with the numbers, instead of running the machine out of
	// memory in the reduce. 0: MemAvailable of /proc/meminfo where there
	// is one (Linux), else no check.
	MemAvailable int64
	TempDir      string // for spill and sort files (default: the system's)
	// Progress, if set, is called at the start of each phase and then every
	// 100 ms from another goroutine: "build" and "map" count the bytes of
	// their input read after the header (total -1 for a stream, whose size
	// is unknown), "reduce" the shuffle's records read, "sort" (with Sort) the
	// output bytes written.
	Progress func(phase string, done, total int64)
}

// Route says how a bank join marks each row's class.
type Route string

const (
	RouteNone   Route = ""
	RouteColumn Route = "column" // a last column "class"
	RouteDir    Route = "dir"    // one sink a class
)

// FilterAuto is the Options.Filter that lets the join choose the filter, its
// size and whether to filter at all, from the data and a cost model
// (filters/choose; docs/auto.md). The report says what it chose and why.
const FilterAuto filters.Kind = "auto"

// DefaultFilter is the kind a join builds when Options names none: no
// Filter, no FilterFile and no Bank (a filter file or a bank brings its
// own).
const DefaultFilter = filters.ACBF

// MaxHotExclusions bounds Options.HotExclusions: the largest top-k the
// sketch keeps (topk.MaxK).
const MaxHotExclusions = 1 << 16

// DefaultBroadcastBudget is Options.BroadcastBudget when it is 0: 8 MiB a
// copy.
const DefaultBroadcastBudget = 8 << 20

// Skew says what a join does about hot keys (Options.Skew).
type Skew string

const (
	SkewOff  Skew = "off"  // plain hash partitioning
	SkewAuto Skew = "auto" // sample for hot keys and spread them
)

// ErrOptions is wrapped by every error about Options (an option.Error naming
// the field; sizing errors wrap filters.ErrSizing instead).
var ErrOptions = errors.New("join: invalid options")

// ErrKeySideTooLarge is the error of a key side whose rows the reduce could
// not hold in the memory available (Options.MemAvailable).
var ErrKeySideTooLarge = errors.New("the key side does not fit in memory")

// MaxWorkers bounds Mappers and Reducers: each mapper holds a read buffer (128
// KiB, more for a longer record) and a filter copy, and the shuffle's minimum budget grows with
// mappers x reducers; more goroutines than this only add memory.
const MaxWorkers = 256

// Workers returns the goroutines an option named name asks for: n, or one a
// core for 0; an error (option.Error) for a negative n or more than
// MaxWorkers.
func Workers(name string, n int) (int, error) {
	switch {
	case n < 0:
		return n, optionError(name, n, "want at least 1 (0: one per core)")
	case n > MaxWorkers:
		return n, optionError(name, n, "at most %d (each holds a read buffer, a filter copy and shuffle batches; more only add memory)", MaxWorkers)
	case n == 0:
		return defaultWorkers(), nil
	}
	return n, nil
}

// defaultWorkers is the default count of mappers and of reducers: one per
// core (GOMAXPROCS), at most MaxWorkers.
func defaultWorkers() int { return min(runtime.GOMAXPROCS(0), MaxWorkers) }

// DefaultMemBudget is MemBudget's default (256 MiB), unless the mappers and
// reducers need more (shuffle.MinBudget).
const DefaultMemBudget = 256 << 20

func optionError(name string, value any, format string, a ...any) error {
	return &option.Error{Pkg: "join", Name: name, Value: value, Reason: fmt.Sprintf(format, a...), Err: ErrOptions}
}

// Check is Resolve before the bank is read: a bank join's key column and
// type, which the bank fills in when it is read (join/local), stand in as
// the join columns' names (their count is the key's) and int, so that a
// caller can refuse every other option before any work. Without Bank it is
// Resolve.
func (opt Options) Check() (Options, error) {
	if opt.Bank != "" {
		opt.KeyCol, opt.KeyType = cmp.Or(opt.KeyCol, opt.JoinCol, DefaultKeyCol), cmp.Or(opt.KeyType, key.Int)
	}
	return opt.Resolve()
}

// Resolve checks opt and returns it with every default filled in: each
// concern checks and fills its own fields (Sides.check, Keying.resolve,
// BankJoin.check, FilterChoice.resolve, Resources.resolve), and the rules
// between concerns are crossRules. Its errors name the field
// (option.Error) and wrap ErrOptions or filters.ErrSizing. It does not open
// the inputs.
func (opt Options) Resolve() (Options, error) {
	if err := opt.Sides.check(); err != nil {
		return opt, err
	}
	if err := opt.Keying.resolve(); err != nil {
		return opt, err
	}
	if err := opt.BankJoin.check(); err != nil {
		return opt, err
	}
	if err := CheckSuffix(opt.Suffix); err != nil {
		return opt, err
	}
	switch {
	case opt.Skew != "" && opt.Skew != SkewOff && opt.Skew != SkewAuto:
		return opt, optionError("Skew", opt.Skew, "want off or auto")
	case opt.JoinType != "" && !slices.Contains(JoinTypes, opt.JoinType):
		return opt, optionError("JoinType", opt.JoinType, "want inner, semi, anti, left, right or full%s", joinTypeHint(opt.JoinType))
	}
	for _, r := range crossRules {
		if r.when(&opt) {
			field := r.field
			if field == "Sizing" {
				field += "." + opt.Sizing.Set()[0].Name // the option set
			}
			return opt, optionError(field, r.value(&opt), "%s", r.reason(&opt))
		}
	}
	opt.Skew = cmp.Or(opt.Skew, SkewOff)
	opt.JoinType = cmp.Or(opt.JoinType, JoinInner)
	if opt.FilterFile == "" && opt.Bank == "" {
		opt.Filter = cmp.Or(opt.Filter, DefaultFilter)
	}
	if err := opt.FilterChoice.resolve(); err != nil {
		return opt, err
	}
	err := opt.Resources.resolve()
	return opt, err
}

// crossRule is a rule between two concerns of Options: when it holds, the
// field is refused for the reason.
type crossRule struct {
	field  string
	when   func(o *Options) bool
	value  func(o *Options) any
	reason func(o *Options) string
}

// crossRules are the rules between Options' concerns, checked in order
// after each concern has checked its own fields.
var crossRules = []crossRule{
	{"FilterFile", func(o *Options) bool { return o.Bank != "" && o.FilterFile != "" },
		func(o *Options) any { return o.FilterFile },
		func(o *Options) string {
			return fmt.Sprintf("cannot be used with a bank (%s): the bank holds the filters", o.Bank)
		}},
	{"Sizing", func(o *Options) bool { return o.Bank != "" && len(o.Sizing.Set()) > 0 },
		func(o *Options) any { return o.Sizing.Set()[0].Value },
		func(o *Options) string {
			return fmt.Sprintf("cannot change the filters of the bank %s: leave it out, or build another bank", o.Bank)
		}},
	{"Skew", func(o *Options) bool { return o.JoinType.KeepsUnmatchedKeys() && o.Skew == SkewAuto },
		func(o *Options) any { return string(o.Skew) },
		func(o *Options) string {
			return fmt.Sprintf("copies a hot key's rows to several partitions, and a %s join writes each key row without a match once: leave it off", o.JoinType)
		}},
	{"Columns", func(o *Options) bool { return len(o.Columns) > 0 && o.Route != RouteNone },
		func(o *Options) any { return strings.Join(o.Columns, ",") },
		func(*Options) string {
			return "a routed bank join writes every column with its class: leave them out"
		}},
	{"JoinType", func(o *Options) bool { return o.JoinType != "" && o.JoinType != JoinInner && o.Route != RouteNone },
		func(o *Options) any { return o.JoinType },
		func(*Options) string {
			return "a routed bank join marks each row with its key row's class: inner joins only"
		}},
	{"Layout", func(o *Options) bool { return o.Layout == LayoutPerColumn && o.FilterFile != "" },
		func(o *Options) any { return o.Layout },
		func(o *Options) string {
			return fmt.Sprintf("cannot be used with a filter file (%s): filter files hold composite filters", o.FilterFile)
		}},
	{"Layout", func(o *Options) bool { return o.Layout == LayoutPerColumn && o.Bank != "" },
		func(o *Options) any { return o.Layout },
		func(o *Options) string {
			return fmt.Sprintf("cannot be used with a bank (%s): banks hold composite filters", o.Bank)
		}},
	{"HotExclusions", func(o *Options) bool { return o.HotExclusions > 0 && o.Bank != "" },
		func(o *Options) any { return o.HotExclusions },
		func(*Options) string {
			return "a bank join filters with its classes' filters: exclusions are for one filter"
		}},
	{"HotExclusions", func(o *Options) bool { return o.HotExclusions > 0 && o.Layout == LayoutPerColumn },
		func(o *Options) any { return o.HotExclusions },
		func(*Options) string { return "tests the whole key: leave the per-column layout out" }},
	{"Bank", func(o *Options) bool { return o.Filter == FilterAuto && o.Bank != "" },
		func(o *Options) any { return o.Bank },
		func(*Options) string {
			return "filters with the bank's kind: the filter auto chooses a kind; give one or the other"
		}},
	{"Layout", func(o *Options) bool { return o.Filter == FilterAuto && o.Layout == LayoutPerColumn },
		func(o *Options) any { return o.Layout },
		func(*Options) string {
			return "the filter auto chooses one filter over the whole key: leave the layout out, or name a kind"
		}},
}

// check refuses sides that are missing or whose separator or format is
// not one.
func (s Sides) check() error {
	switch {
	case s.Keys == "":
		return optionError("Keys", `""`, "required (the key file, the small side)")
	case s.Input == "":
		return optionError("Input", `""`, "required (the large file)")
	}
	for _, f := range []struct {
		name string
		sep  byte
	}{{"Sep", s.Sep}, {"KeysSep", s.KeysSep}, {"InputSep", s.InputSep}} {
		if f.sep == '"' || f.sep == '\n' || f.sep == '\r' {
			return optionError(f.name, fmt.Sprintf("%q", f.sep), "a quote or line break cannot separate fields")
		}
	}
	switch {
	case !validFormat(s.KeysFormat):
		return optionError("KeysFormat", s.KeysFormat, "want csv, parquet, arrow or jsonl")
	case !validFormat(s.InputFormat):
		return optionError("InputFormat", s.InputFormat, "want csv, parquet, arrow or jsonl")
	}
	return nil
}

// check refuses a bank join's options without a bank, and a Route that
// is none.
func (b BankJoin) check() error {
	switch {
	case b.Bank == "" && len(b.Classes) > 0:
		return optionError("Classes", strings.Join(b.Classes, ","), "needs a bank (Bank)")
	case b.Bank == "" && b.Route != RouteNone:
		return optionError("Route", b.Route, "needs a bank (Bank)")
	case b.Route != RouteNone && b.Route != RouteColumn && b.Route != RouteDir:
		return optionError("Route", b.Route, "want column or dir")
	}
	return nil
}

// resolve checks the filter's options among themselves (the options of
// auto with auto, the sizing of a kind, none with a filter file), looks
// the kind up and fills in auto's budget.
func (f *FilterChoice) resolve() error {
	auto := f.Filter == FilterAuto
	switch {
	case !auto && f.BroadcastBudget != 0:
		return optionError("BroadcastBudget", f.BroadcastBudget, "bounds the filter auto chooses: give it with the filter auto")
	case !auto && f.NeedDeletes:
		return optionError("NeedDeletes", f.NeedDeletes, "limits the kinds auto chooses from: give it with the filter auto")
	case f.HotExclusions < 0 || f.HotExclusions > MaxHotExclusions:
		return optionError("HotExclusions", f.HotExclusions, "want 1 to %d keys (0: none)", MaxHotExclusions)
	case f.BroadcastBudget < 0:
		return optionError("BroadcastBudget", f.BroadcastBudget, "want a size in bytes, at least 1 (0: %d)", DefaultBroadcastBudget)
	case auto && f.FilterFile != "":
		return optionError("FilterFile", f.FilterFile, "holds a filter already: the filter auto chooses one; give one or the other")
	case auto && len(f.Sizing.Set()) > 0:
		set := f.Sizing.Set()[0]
		return optionError("Sizing."+set.Name, set.Value, "the filter auto sizes its own filter: leave it out, or name a kind")
	}
	if auto && f.BroadcastBudget == 0 {
		f.BroadcastBudget = DefaultBroadcastBudget
	}
	if f.Filter != "" && !auto {
		if _, err := filters.Lookup(string(f.Filter)); err != nil {
			return &option.Error{Pkg: "join", Name: "Filter", Value: fmt.Sprintf("%q", f.Filter), Reason: "unknown filter (want auto or one of " + strings.Join(filters.Names(), ", ") + ")", Err: ErrOptions, Cause: err}
		}
	}
	if err := f.Sizing.Validate(); err != nil {
		return err
	}
	if set := f.Sizing.Set(); f.FilterFile != "" && len(set) > 0 {
		return optionError("Sizing."+set[0].Name, set[0].Value, "cannot change the filter of the filter file %s: leave it out, or build another filter", f.FilterFile)
	}
	return nil
}

// resolve fills in the workers and the memory budget and checks TempDir.
func (r *Resources) resolve() error {
	var err error
	if r.Mappers, err = Workers("Mappers", r.Mappers); err != nil {
		return err
	}
	if r.Reducers, err = Workers("Reducers", r.Reducers); err != nil {
		return err
	}
	minBudget := shuffle.MinBudget(r.Mappers, r.Reducers)
	switch {
	case r.MemBudget < 0:
		return optionError("MemBudget", r.MemBudget, "want a positive number of bytes")
	case r.MemBudget == 0:
		r.MemBudget = max(DefaultMemBudget, minBudget) // many cores: more than the default
	case r.MemBudget < minBudget:
		return optionError("MemBudget", r.MemBudget, "below the minimum of %s for %d mappers and %d reducers (8 KiB batches, 8 per mapper and reducer)",
			SizeText(minBudget), r.Mappers, r.Reducers)
	}
	if r.TempDir != "" && !TempDirOK(r.TempDir) {
		return optionError("TempDir", r.TempDir, "not an existing folder")
	}
	return nil
}

// TempDirOK reports whether dir, a TempDir given, names an existing
// folder: the rule of Resources' and the stream engine's TempDir alike.
// One stat.
func TempDirOK(dir string) bool {
	st, err := os.Stat(dir)
	return err == nil && st.IsDir()
}

// validFormat reports whether f names a side's format (columnar.FormatOf's,
// "" for by the name).
func validFormat(f string) bool {
	_, err := columnar.FormatOf("", f)
	return err == nil
}

// resolve fills KeyCols, JoinCols and KeyTypes from KeyCol, JoinCol and
// KeyType, and checks Layout against the key (against a filter file or a
// bank: crossRules).
func (k *Keying) resolve() error {
	j, err := key.ParseJoin(cmp.Or(k.KeyCol, DefaultKeyCol), cmp.Or(k.JoinCol, DefaultJoinCol), k.KeyType)
	if err != nil {
		return option.Within(err, "join", ErrOptions)
	}
	k.KeyCols, k.JoinCols, k.KeyTypes = j.KeyCols, j.JoinCols, j.Types
	k.KeyCol, k.JoinCol, k.KeyType = j.KeyCol(), j.JoinCol(), j.Type()
	switch {
	case k.Layout == "":
		k.Layout = LayoutComposite
	case k.Layout != LayoutComposite && k.Layout != LayoutPerColumn:
		return optionError("Layout", k.Layout, "want composite or per-column")
	case k.Layout == LayoutPerColumn && len(j.KeyCols) == 1:
		return optionError("Layout", k.Layout, "needs a key of several columns (the key %s is one)", k.KeyCol)
	}
	return nil
}

// joinTypeHint names the join type that other tools' word for t means: "
// (full is SQL's full outer join)" for outer, and the like; "" for others.
func joinTypeHint(t JoinType) string {
	switch strings.ToLower(strings.NewReplacer("_", " ", "-", " ").Replace(string(t))) {
	case "outer", "full outer", "fullouter":
		return " (SQL's full outer join is full)"
	case "left outer", "leftouter":
		return " (SQL's left outer join is left)"
	case "right outer", "rightouter":
		return " (SQL's right outer join is right)"
	case "left semi", "leftsemi", "exists":
		return " (a left semi join is semi)"
	case "left anti", "leftanti", "not exists":
		return " (a left anti join is anti)"
	}
	return ""
}

// SideSep returns the separator of one side: its own (KeysSep or
// InputSep) if set, else Sep.
func SideSep(own, both byte) byte {
	if own != 0 {
		return own
	}
	return both
}

// Key is the join's key of a resolved Options: its columns on each side
// and their types (key.Join.Specs finds them in the headers).
func (opt Options) Key() key.Join {
	return key.Join{KeyCols: opt.KeyCols, JoinCols: opt.JoinCols, Types: opt.KeyTypes}
}

// MaxBroadcastBytes bounds the memory of the filter copies a node's
// mappers decode (1 GiB): each mapper gets its own copy while all of them
// fit, otherwise as many copies as fit (at least one) are shared among the
// mappers, as the cores of one node share its copy. A filter is at most
// filters.MaxFilterBytes, and the built one is let go once serialized.
const MaxBroadcastBytes = 1 << 30

// BroadcastLimit is the most memory the filter copies the mappers decode
// may take together under the memory budget mem (0 or less: none given):
// MaxBroadcastBytes, and half of mem. The copies are outside the budget,
// but a second copy is the one memory a tight budget can do without: the
// mappers share a copy at the same speed (probing only reads), and at
// 10^7 keys under --mem 64MiB the ACBF's second copy was 45 MB of the map
// phase's heap. O(1).
func BroadcastLimit(mem int64) int64 {
	if mem > 0 {
		return min(MaxBroadcastBytes, mem/2)
	}
	return MaxBroadcastBytes
}

// The key columns of a join that names none: the NBER files' (the patent
// number of apat63_99, the cited patent of cite75_99).
const (
	DefaultKeyCol  = "PATENT"
	DefaultJoinCol = "CITED"
)

// SizeText prints n bytes in the largest binary unit that divides it
// ("256MiB"), as a size flag reads it.
func SizeText(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{50, "PiB"}, {40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n != 0 && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// AutoTiming is what a kind's filter costs on some machine, for
// Options.AutoTimings: one probe, decoding one broadcast copy per byte of
// it, and building it per key (its encoding then counts for nothing).
type AutoTiming struct {
	ProbeNs, DecodeNsPerByte, BuildNsPerKey float64
}

// FileError returns err, from opening the file at path that the option
// named name gives (Keys, Input, FilterFile, Bank), as an option.Error
// naming the option when it is about the path itself (missing, not
// permitted, a folder: os.PathError), so that the command line names its
// flag; other errors (the file's content) are returned as they are.
func FileError(name, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		reason := pe.Err.Error()
		if uerr := remote.Unregistered(path); uerr != nil && errors.Is(err, fs.ErrNotExist) {
			// A URL this program has no file system for (join reads
			// local files; beamjoin registers Beam's).
			reason = "no such file: " + uerr.Error()
		}
		return &option.Error{Pkg: "join", Name: name, Value: path, Reason: reason, Err: ErrOptions, Cause: err}
	}
	return err
}

// CheckSuffix refuses an Output.Suffix (the stream's too) that would put
// a line break or another control character in a column's name: a header
// of such names reads back, but no one wants one. O(len(s)).
func CheckSuffix(s string) error {
	for _, c := range s {
		if c < ' ' || c == 0x7f {
			return optionError("Suffix", s, "holds a control character (%q): a column's name would", c)
		}
	}
	return nil
}
