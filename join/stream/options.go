package stream

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
)

// Options is the plan of a streaming join. The zero value of a field is its
// default.
type Options struct {
	// KeyEvents is the key side: key events ("+row", "-key") without
	// Window, a CSV of timed rows with it. Probe is the probe side, a CSV
	// with a header. Paths as join.Options takes them ("-" is standard
	// input, for one of the two only; .gz and .zip are read).
	KeyEvents, Probe string
	// KeyEventsName and ProbeName, if set, name the sides in messages.
	KeyEventsName, ProbeName string
	// KeyEventsFormat and ProbeFormat say how a side is stored: csv,
	// parquet or arrow ("" by its name: columnar.FormatOf). Key events are
	// text; timed key rows (Window) and the probe may be tables, whose
	// columns bring their types (KeyType auto). TempDir is where a Parquet
	// stream, or a CSV key side whose key type is inferred, is saved first
	// (default: the system's).
	KeyEventsFormat, ProbeFormat string
	TempDir                      string
	// Keying is the key, as join.Options has it, with two defaults of
	// its own: KeyCol the key side's first column, JoinCol KeyCol's names.
	// KeyType auto takes a table column's type, else infers it from the
	// key side's text when that is a regular file (read once before the
	// stream starts), else int. With auto a NULL key (an empty CSV field
	// too) never matches, nor a key that is no value of the type: those
	// rows are counted (Report.Keys) and left out. Layout must be unset
	// (a stream's filter holds whole keys); KeyCols, JoinCols and KeyTypes
	// are not read.
	join.Keying
	// Where, if set, selects the probe rows by a predicate over the probe
	// side's columns (package where, as join.Options.Where): a row it
	// rejects is dropped as it is read, as if it were not in the stream
	// (Report.WhereDropped counts them).
	Where string
	// Suffix is appended to the output name of a key-side column whose
	// name the probe side has too (join.KeyOutputNames; "" is
	// join.DefaultSuffix).
	Suffix string
	// Batch is the probe rows a batch (default 100,000); KeyBatch the key
	// events a batch in event mode (default Batch).
	Batch, KeyBatch int
	// Window, if positive, selects timed mode: a probe row at time t joins
	// the key rows of its key whose time tk has t-Window < tk <= t. KeyTime
	// names the key side's integer time column, ProbeTime the probe's
	// (default KeyTime's name). Both sides must be in time order.
	Window             int64
	KeyTime, ProbeTime string
	// Filter is the kind kept over the live keys (default acbf); it must
	// delete keys (filters.Spec.Deletes). Sizing sizes it for Capacity keys
	// (default 1024); a live key set that outgrows it doubles the capacity
	// and rebuilds the filter from the live keys.
	Filter   filters.Kind
	Sizing   filters.Sizing
	Capacity uint64
	// CMSEps and CMSDelta size the count-min sketches (cms.ForError: width
	// e/eps, depth ln 1/delta; defaults 0.0001 and 0.01) of the live key rows
	// and of each batch's probe keys, whose inner product estimates a
	// batch's output rows before it is joined. NoSketches turns the
	// sketches and the hot keys off.
	CMSEps, CMSDelta float64
	NoSketches       bool
	// TopK is the hot probe keys tracked (default 10).
	TopK int
	// Workers probe a batch in parallel (default one per core, at most
	// join.MaxWorkers).
	Workers int
	// JoinType is inner (default), semi (each probe row with a live match,
	// once, its own columns) or anti (each probe row without one: those the
	// filter rejects need no lookup; a NULL key never matches). Left, right
	// and full are refused: a stream has no end at which a probe row is
	// known to have no match to come.
	JoinType join.JoinType
	// Verify also looks up the probe rows the filter rejects in the live key
	// table, to count false negatives (which must be none).
	Verify bool
	// OnBatch, if set, is called after each batch with its report, from the
	// goroutine that called Run.
	OnBatch func(BatchReport)
}

// Limits of the options.
const (
	DefaultBatch    = 100_000
	MaxBatch        = 1 << 24
	DefaultCapacity = 1024
	MaxCapacity     = 1 << 32
	DefaultTopK     = 10
	MaxTopK         = 100_000
	DefaultCMSEps   = 0.0001
	DefaultCMSDelta = 0.01
)

// ErrOptions is wrapped by every error about Options (an option.Error naming
// the field).
var ErrOptions = errors.New("stream: invalid options")

func optionError(name string, value any, format string, a ...any) error {
	return &option.Error{Pkg: "stream", Name: name, Value: value, Reason: fmt.Sprintf(format, a...), Err: ErrOptions}
}

// resolve checks opt and fills its defaults, but the column defaults, which
// need the headers.
func (opt Options) resolve() (Options, *filters.Spec, error) {
	if opt.KeyEvents == "" {
		return opt, nil, optionError("KeyEvents", `""`, "required (the key events, or the timed key rows)")
	}
	if opt.Probe == "" {
		return opt, nil, optionError("Probe", `""`, "required (the probe rows)")
	}
	if opt.KeyEvents == "-" && opt.Probe == "-" {
		return opt, nil, optionError("Probe", opt.Probe, "standard input is already the key events: one side only can be -")
	}
	if opt.Layout != "" && opt.Layout != join.LayoutComposite {
		return opt, nil, optionError("Layout", opt.Layout, "a stream's filter holds whole keys: leave it out")
	}
	switch opt.JoinType {
	case "":
		opt.JoinType = join.JoinInner
	case join.JoinInner, join.JoinSemi, join.JoinAnti:
	case join.JoinLeft, join.JoinRight, join.JoinFull:
		return opt, nil, optionError("JoinType", opt.JoinType, "a stream joins each probe row with the keys live at its time, and has no end at which a row is known to have no match to come: inner, semi or anti")
	default:
		return opt, nil, optionError("JoinType", opt.JoinType, "want inner, semi or anti")
	}
	switch {
	case opt.Batch < 0 || opt.Batch > MaxBatch:
		return opt, nil, optionError("Batch", opt.Batch, "want 1 to %d probe rows a batch (0: %d)", MaxBatch, DefaultBatch)
	case opt.KeyBatch < 0 || opt.KeyBatch > MaxBatch:
		return opt, nil, optionError("KeyBatch", opt.KeyBatch, "want 1 to %d key events a batch (0: as many as the probe rows a batch)", MaxBatch)
	case opt.KeyBatch != 0 && opt.Window > 0:
		return opt, nil, optionError("KeyBatch", opt.KeyBatch, "applies to key events; with a window the key rows are applied by time")
	case opt.Window < 0:
		return opt, nil, optionError("Window", opt.Window, "want a positive span in the time columns' units")
	case opt.Window > 0 && opt.KeyTime == "":
		return opt, nil, optionError("KeyTime", `""`, "required with a window (the key side's integer time column)")
	case opt.Window == 0 && opt.KeyTime != "":
		return opt, nil, optionError("KeyTime", opt.KeyTime, "applies only with a window (the span a key row stays live)")
	case opt.Window == 0 && opt.ProbeTime != "":
		return opt, nil, optionError("ProbeTime", opt.ProbeTime, "applies only with a window (the span a key row stays live)")
	case opt.Capacity > MaxCapacity:
		return opt, nil, optionError("Capacity", opt.Capacity, "at most %d keys", uint64(MaxCapacity))
	case opt.TopK < 0 || opt.TopK > MaxTopK:
		return opt, nil, optionError("TopK", opt.TopK, "want 1 to %d hot keys (0: %d)", MaxTopK, DefaultTopK)
	case opt.TempDir != "" && !join.TempDirOK(opt.TempDir): // refused at once, as join run's
		return opt, nil, optionError("TempDir", opt.TempDir, "not an existing folder")
	case opt.Workers < 0 || opt.Workers > join.MaxWorkers:
		return opt, nil, optionError("Workers", opt.Workers, "want 1 to %d (0: one per core)", join.MaxWorkers)
	case opt.CMSEps != 0 && !(opt.CMSEps > 0 && opt.CMSEps < 1):
		return opt, nil, optionError("CMSEps", opt.CMSEps, "want an error between 0 and 1, such as 0.001")
	case opt.CMSDelta != 0 && !(opt.CMSDelta > 0 && opt.CMSDelta < 1):
		return opt, nil, optionError("CMSDelta", opt.CMSDelta, "want a probability between 0 and 1, such as 0.01")
	case opt.CMSEps != 0 && math.E/opt.CMSEps > 1<<26:
		return opt, nil, optionError("CMSEps", opt.CMSEps, "a width of e/eps = %.0f counters is too wide (at most %d)", math.E/opt.CMSEps, 1<<26)
	}
	if opt.Batch == 0 {
		opt.Batch = DefaultBatch
	}
	if opt.KeyBatch == 0 {
		opt.KeyBatch = opt.Batch
	}
	if opt.Window > 0 && opt.ProbeTime == "" {
		opt.ProbeTime = opt.KeyTime
	}
	if opt.Capacity == 0 {
		opt.Capacity = DefaultCapacity
	}
	if opt.TopK == 0 {
		opt.TopK = DefaultTopK
	}
	if opt.Workers == 0 {
		opt.Workers = min(runtime.GOMAXPROCS(0), join.MaxWorkers)
	}
	if opt.CMSEps == 0 {
		opt.CMSEps = DefaultCMSEps
	}
	if opt.CMSDelta == 0 {
		opt.CMSDelta = DefaultCMSDelta
	}
	if opt.Filter == "" {
		opt.Filter = filters.ACBF
	}
	spec, err := filters.Lookup(string(opt.Filter))
	if err != nil {
		return opt, nil, &option.Error{Pkg: "stream", Name: "Filter", Value: fmt.Sprintf("%q", opt.Filter),
			Reason: "unknown filter (want one that deletes: " + strings.Join(DeletingKinds(), ", ") + ")", Err: ErrOptions, Cause: err}
	}
	if !spec.Deletes || !spec.CanAdd() {
		return opt, nil, optionError("Filter", opt.Filter, "cannot delete keys, and a stream's key set loses keys (deletes, expiry): want one of %s",
			strings.Join(DeletingKinds(), ", "))
	}
	if err := opt.Sizing.Validate(); err != nil {
		return opt, nil, err
	}
	if opt.Sizing.Budget != 0 {
		return opt, nil, &option.Error{Pkg: "filters", Name: "Sizing.Budget", Value: opt.Sizing.Budget, Err: ErrOptions,
			Reason: "a stream's filter follows its live keys (it is rebuilt twice as large when they outgrow it): size it by bits per key or a target FPP"}
	}
	if c, ok := opt.Sizing.Option(filters.OptionACBFCapacity); ok {
		return opt, nil, &option.Error{Pkg: "filters", Name: "Sizing." + filters.OptionACBFCapacity, Value: c, Err: ErrOptions,
			Reason: "a stream sizes its filter for its live keys (Capacity, the capacity option) and rebuilds it twice as large when they outgrow it: set that instead"}
	}
	if _, err := spec.Size(opt.Capacity, opt.Sizing); err != nil {
		return opt, nil, err
	}
	return opt, spec, nil
}

// DeletingKinds are the filter kinds a stream can keep: those that delete.
func DeletingKinds() []string {
	var out []string
	for _, sp := range filters.Kinds() {
		if sp.Deletes && sp.CanAdd() {
			out = append(out, string(sp.Kind))
		}
	}
	return out
}
