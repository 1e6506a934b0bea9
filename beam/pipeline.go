// Package beamjoin runs the acbfjoin reduce-side join as an Apache Beam
// pipeline (Go SDK), so the same join scales out on a runner whose workers
// share a file system (Flink, Spark) and runs locally on prism, in process
// or as a separate job server. It reuses the join package's steps: MapKeyRow
// for the key side, the filters' broadcast format, MapInputRow for the
// filtered map, JoinType.ForLarge for the reduce. The inputs are files of the local
// file system, read by the workers themselves: the key file whole, the large
// side in byte ranges cut by the launcher (docs/scale-out.md).
//
//	key file ─ParDo(read whole)─┬─ keys ─Distinct─Combine(build filter)─┐ (singleton side input: the broadcast)
//	                            └─ KV(key, row) ─────────────┐          │
//	input ranges ─ParDo(read a range, filter; side input)─ KV(key, row) ┴─CoGroupByKey─ParDo(cross product)─ rows
package beamjoin

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/where"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local paths; add gcs, s3 for clusters
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/filter"

	"github.com/acbfjoin/acbfjoin/beam/fsys"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// Counter names, in the "acbfjoin" namespace.
const (
	Namespace      = "acbfjoin"
	CInput         = "input_records"
	CMapOutput     = "map_output_records"
	CFalsePositive = "false_positive_records"
	CJoinRows      = "join_rows"
	CKeyRows       = "keys_records"
	// CInputNull and CInputUnmatchable count the large side's rows whose
	// key is NULL, or cannot be the key type's: no key can meet them, and
	// the filter never sees them (join run's "left out").
	CInputNull        = "input_null_records"
	CInputUnmatchable = "input_unmatchable_records"
)

// Progress counts, in this process, the rows the pipeline's workers have
// handled so far (atomically, in steps of at most 65,536 rows), for a
// progress line: the workers of prism in this process and of LOOPBACK add
// to it; workers in other processes (a worker pool, a cluster) do not, and
// their counts arrive as the counters at the end.
var Progress struct {
	KeyRows, InputRows, Passed, JoinRows atomic.Int64
}

// progressStep is how many rows a DoFn handles between updates of Progress.
const progressStep = 1 << 16

var (
	cInput  = beam.NewCounter(Namespace, CInput)
	cMapOut = beam.NewCounter(Namespace, CMapOutput)
	cFP     = beam.NewCounter(Namespace, CFalsePositive)
	cJoin   = beam.NewCounter(Namespace, CJoinRows)
	cKeys   = beam.NewCounter(Namespace, CKeyRows)
	cNull   = beam.NewCounter(Namespace, CInputNull)
	cUnmat  = beam.NewCounter(Namespace, CInputUnmatchable)
)

func init() {
	register.DoFn4x1[context.Context, string, func(string, string), func(string), error](&keyFileFn{})
	register.DoFn5x1[context.Context, source.Span, func(*[]byte) bool, func(string, string), func(string), error](&rangeMapFn{})
	beam.RegisterType(reflect.TypeOf((*source.Span)(nil)).Elem())
	register.DoFn5x0[context.Context, string, func(*string) bool, func(*string) bool, func(string)](&crossFn{})
	register.Combiner3[[]string, string, []byte](&filterCombineFn{})
	register.DoFn2x1[string, func(string), error](&projectFn{})
	register.DoFn2x0[string, func(int, string)](&shardOfFn{})
	register.DoFn3x1[context.Context, int, func(*string) bool, error](&writeShardFn{})
	register.Emitter2[int, string]()
	register.Function2x1[string, string, string](keyOnly)
	register.Emitter2[string, string]()
	register.Emitter1[string]()
	register.Iter1[string]()
	register.Iter1[[]byte]()
}

// keyCols is a key.Spec in fields Beam serializes. A NULL key never
// matches and its row is left out (nullKey); Lenient says the key types
// were decided from the data (KeyType auto, source.DecideKeyTypes): a key
// that is no value of its type cannot match either, where a type given
// makes it an error.
type keyCols struct {
	Cols         []int
	Names, Types []string
	Lenient      bool
	EmptyOK      bool   // key.Spec's: a table side's empty string is a value
	Wide         []bool // key.Spec's: a uint64 beyond int64 is an error, not unmatchable
}

// unmatchable is key.Unmatchable, by a name no local variable shadows.
var unmatchable = key.Unmatchable

func newKeyCols(ks key.Spec) keyCols {
	k := keyCols{Cols: ks.Cols, Names: ks.Names, Wide: ks.Wide}
	for _, t := range ks.Types {
		k.Types = append(k.Types, string(t))
	}
	return k
}

func (k keyCols) spec() key.Spec {
	ks := key.Spec{Cols: k.Cols, Names: k.Names, EmptyOK: k.EmptyOK, Wide: k.Wide}
	for _, t := range k.Types {
		ks.Types = append(ks.Types, key.Type(t))
	}
	return ks
}

// keyFileFn reads a whole local key file (its element: the path) with the
// project's reader, compressed or not, and emits each row as keyRowFn does.
type keyFileFn struct {
	NFields int
	Format  string // Options.KeysFormat
	Sep     byte   // the file's field separator (sideSep)
	Key     keyCols
	// Right and full joins (JoinType): a row carries the large-side
	// padding written for it when it meets no large row (join.
	// WithLargePadding), and a row whose key cannot match is written to
	// out at once, padded. LargeCols and Join are the large side's column
	// count and join columns.
	JoinType  string
	LargeCols int
	Join      keyCols
	// Where, if set, is Options.KeysWhere, over the columns Names of types
	// Types (nil for CSV): a row it rejects is dropped before its key
	// counts, as join run drops it.
	Where rowWhere
}

func (f *keyFileFn) ProcessElement(ctx context.Context, path string, emit func(string, string), out func(string)) error {
	r, c, err := source.OpenSpan(ctx, path, f.Format, source.WholeFile, f.NFields, f.Sep)
	if err != nil {
		return fmt.Errorf("key file: %w", err)
	}
	defer c.Close()
	ks := f.Key.spec()
	var rows int64
	var buf []byte
	keepKeys := join.JoinType(f.JoinType).KeepsUnmatchedKeys()
	js := f.Join.spec()
	var pad, row []byte
	pred, err := f.Where.compile()
	if err != nil {
		return err
	}
	for r.Next() {
		if ok, err := keepRow(pred, r); err != nil {
			return fmt.Errorf("key file: %s:%d: %w", path, lineOf(path, r), err)
		} else if !ok {
			continue
		}
		null := nullKey(ks, r)
		var rec shuffle.Record
		var b []byte
		var err error
		if !null {
			rec, b, err = join.MapKeyRow(&ks, r.Fields(), 0, buf[:0])
		}
		if null || (err != nil && unmatchable(err, f.Key.Lenient)) {
			// A NULL or unmatchable key: no row can meet it; a right or
			// full join writes its row now.
			if keepKeys {
				pad = join.AppendLargePadding(pad[:0], f.LargeCols, js, keyFieldsOf(ks, r.Fields()))
				row = join.AppendOutputRow(row[:0], pad, join.AppendKeyFields(nil, ks, r.Fields()))
				out(string(row[:len(row)-1]))
				cJoin.Inc(ctx, 1)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("key file: %s:%d: %w", path, lineOf(path, r), err)
		}
		buf = b
		rows++
		if keepKeys {
			pad = join.AppendLargePadding(pad[:0], f.LargeCols, js, keyFieldsOf(ks, r.Fields()))
			emit(string(rec.Key), string(join.WithLargePadding(nil, pad, rec.Row)))
			continue
		}
		emit(string(rec.Key), string(rec.Row))
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("key file: %w", csvscan.WithLine(err, path))
	}
	cKeys.Inc(ctx, rows)
	Progress.KeyRows.Add(rows)
	return nil
}

func keyOnly(k, _ string) string { return k }

// nullKey reports whether a key field of the row is NULL (key.Spec.IsNull,
// the rule of every engine: a table's NULL, where an empty string is a
// value; a CSV row's empty field, under every key type).
func nullKey(ks key.Spec, r source.SpanRows) bool {
	return ks.IsNull(key.NullsOf(r), r.Fields())
}

// keyFieldsOf are a row's key fields, in ks's order.
func keyFieldsOf(ks key.Spec, fields [][]byte) [][]byte {
	out := make([][]byte, len(ks.Cols))
	for j, c := range ks.Cols {
		out[j] = fields[c]
	}
	return out
}

// filterCombineFn merges the distinct keys (the paper's merged local hash
// tables) and builds the filter from them; its output, the serialized filter,
// is the broadcast.
type filterCombineFn struct {
	Kind   string
	Sizing filters.Sizing
}

func (f *filterCombineFn) CreateAccumulator() []string                { return nil }
func (f *filterCombineFn) AddInput(acc []string, key string) []string { return append(acc, key) }
func (f *filterCombineFn) MergeAccumulators(a, b []string) []string   { return append(a, b...) }
func (f *filterCombineFn) ExtractOutput(acc []string) []byte {
	keys := make([][]byte, len(acc))
	for i, k := range acc {
		keys[i] = []byte(k)
	}
	kind := filters.Kind(f.Kind)
	b, err := filters.Build(kind, keys, f.Sizing)
	var data []byte
	if err == nil {
		data, err = b.Marshal()
	}
	if err != nil {
		// A combine's output cannot be an error: the error travels in the
		// broadcast to the map, which fails with it (a size that does not
		// fit this many keys: --bits-per-key 2 for acbf3).
		return append([]byte(broadcastError), err.Error()...)
	}
	// The kind travels with the bytes.
	return append([]byte(string(kind)+"\x00"), data...)
}

// broadcastError starts a broadcast that carries the build's error instead
// of a filter (a 1 byte: no kind's name holds one).
const broadcastError = "\x01"

// decodeBroadcast reads the filter side input: the kind, a 0 byte, the
// filter's serialized form (filterCombineFn's output).
func decodeBroadcast(side func(*[]byte) bool) (filters.Filter, error) {
	var broadcast []byte
	if !side(&broadcast) {
		// A global Combine of no input emits nothing: no keys, so the
		// filter is the empty set (every row dropped).
		b, err := filters.Build(filters.Exact, nil, filters.Sizing{})
		if err != nil {
			return nil, err
		}
		return b.Filter, nil
	}
	if msg, ok := bytes.CutPrefix(broadcast, []byte(broadcastError)); ok {
		return nil, errors.New(string(msg))
	}
	i := bytes.IndexByte(broadcast, 0)
	if i < 0 {
		return nil, fmt.Errorf("broadcast: no filter kind")
	}
	flt, err := filters.Decode(filters.Kind(broadcast[:i]), broadcast[i+1:])
	if err != nil {
		return nil, fmt.Errorf("broadcast: %w", err)
	}
	return flt, nil
}

// rangeMapFn is the filtered map over byte ranges of a local file (or one
// mounted at the same path on every worker): each element is a range,
// which it reads with the project's parser (csvscan.OpenRange) and filters
// as inputRowFn filters a line (join.MapInputRow), emitting the survivors as
// KV(key, row). The runner's cost is paid a range, not a row: textio's
// reader makes every line an element, and at 16.5 million lines the runner's
// work on them (the emitter, the side input set up for each, the garbage)
// was most of the pipeline's time.
type rangeMapFn struct {
	Path    string
	Format  string // Options.InputFormat
	NFields int
	Sep     byte // the file's field separator (sideSep)
	Key     keyCols
	// JoinType: anti, left and full write a row the filter rejects, or of
	// a NULL key, to out at once (KeyPad after it), without the shuffle.
	JoinType string
	KeyPad   string
	// Where, if set, is Options.Where over the large side's columns: a row
	// it rejects is dropped before the probe, in every join type.
	Where rowWhere

	pred   *where.Pred    // Where's, compiled once per DoFn instance
	filter filters.Filter // decoded once per DoFn instance from the side input
	ks     *key.Spec
	kb     []byte
	sep    byte   // the file's separator (Sep)
	enc    []byte // a row of another separator, as CSV
}

func (f *rangeMapFn) ProcessElement(ctx context.Context, sp source.Span, side func(*[]byte) bool, emit func(string, string), passBy func(string)) error {
	bypass := join.JoinType(f.JoinType).KeepsUnmatchedLarge()
	var line []byte
	var written int64
	write := func(raw []byte) { // a row written at once (anti, left, full)
		line = join.AppendOutputRow(line[:0], raw, []byte(f.KeyPad))
		passBy(string(line[:len(line)-1]))
		written++
	}
	defer func() {
		if written > 0 {
			cJoin.Inc(ctx, written)
			Progress.JoinRows.Add(written)
		}
	}()
	if f.filter == nil {
		flt, err := decodeBroadcast(side)
		if err != nil {
			return err
		}
		f.filter = flt
		ks := f.Key.spec()
		f.ks = &ks
		f.sep = f.Sep
		if f.pred, err = f.Where.compile(); err != nil {
			return err
		}
	}
	var refutes func(func(int) (columnar.Stats, bool)) bool
	if f.pred != nil { // a row group whose statistics rule Where out is not read (join run's rule)
		refutes = f.pred.Refutes
	}
	path := cmp.Or(sp.Path, f.Path) // a side of many files: the span's file
	r, c, err := source.OpenSpanWhere(ctx, path, f.Format, sp, f.NFields, f.Sep, refutes)
	if err != nil {
		return fmt.Errorf("input: %w", err)
	}
	defer c.Close()
	var in, out, lastIn, lastOut, nulls, unmat int64
	defer func() { Progress.InputRows.Add(in - lastIn); Progress.Passed.Add(out - lastOut) }()
	for r.Next() {
		if ok, err := keepRow(f.pred, r); err != nil {
			return fmt.Errorf("input: %s:%d: %w", path, lineOf(path, r), err)
		} else if !ok {
			continue
		}
		in++
		if in-lastIn == progressStep {
			Progress.InputRows.Add(in - lastIn)
			Progress.Passed.Add(out - lastOut)
			lastIn, lastOut = in, out
		}
		null := nullKey(*f.ks, r)
		var key []byte
		var ok bool
		var err error
		if !null {
			key, ok, err = join.MapInputRow(f.filter, *f.ks, r.Fields(), f.kb[:0])
		}
		if null || (err != nil && unmatchable(err, f.Key.Lenient)) {
			// A NULL or unmatchable key: no key can meet it.
			if null {
				nulls++
			} else {
				unmat++
			}
			if bypass {
				write(f.csvRow(r, sp))
			}
			continue
		}
		if err == nil && !ok && bypass {
			write(f.csvRow(r, sp)) // certainly no match: no shuffle
		}
		if err != nil {
			return fmt.Errorf("input: %s:%d: %w", path, lineOf(path, r), err)
		}
		f.kb = key[:0]
		if ok {
			out++
			emit(string(key), string(f.csvRow(r, sp)))
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("input: %w", csvscan.WithLine(err, path))
	}
	cInput.Inc(ctx, in)
	cMapOut.Inc(ctx, out)
	cNull.Inc(ctx, nulls)
	cUnmat.Inc(ctx, unmat)
	return nil
}

// csvRow is r's current row as a CSV line: as it is in its file (a
// table's row rendered as CSV), or re-encoded when its separator is not a
// comma or it holds a CR (csvscan.PassRaw).
func (f *rangeMapFn) csvRow(r source.SpanRows, sp source.Span) []byte {
	if raw := r.Raw(); sp.Table || csvscan.PassRaw(raw, f.sep) {
		return raw
	}
	f.enc = csvscan.AppendFields(f.enc[:0], r.Fields())
	return f.enc
}

// lineOf returns the line number of r's current record: the reader's own
// when it counts lines (a whole file), else counted in the file up to the
// record's offset (a range's reader knows offsets only; on the error path).
func lineOf(path string, r source.SpanRows) int64 {
	if n := r.Line(); n > 0 {
		return n
	}
	if c, ok := r.(*csvscan.Reader); ok {
		return csvscan.LineAt(path, c.Offset())
	}
	return 0
}

// crossFn is the reduce: per key, what the join type writes (the one
// definition, join.JoinType.ForLarge, as join/local's reducePartition and
// join/stream's probe ask it): for each large-side row its pairs, the row
// alone, or padded (KeyPad); then each key-side row no large row met with
// its large-side padding (KeepsUnmatchedKeys). A large-side row without a
// partner is a false positive.
type crossFn struct {
	JoinType string
	KeyPad   string
}

func (f *crossFn) ProcessElement(ctx context.Context, key string, larges func(*string) bool, smalls func(*string) bool, emit func(string)) {
	jt := join.JoinType(f.JoinType)
	keepKeys := jt.KeepsUnmatchedKeys()
	var ss []shuffle.Record
	var pads [][]byte
	var row string
	for smalls(&row) {
		r := []byte(row)
		if keepKeys {
			var pad []byte
			pad, r = join.SplitKeyRow(r)
			pads = append(pads, pad)
		}
		ss = append(ss, shuffle.Record{Key: []byte(key), Tag: join.TagKeys, Row: r})
	}
	var joined, fp int64
	var buf []byte
	write := func(large, small []byte) {
		joined++
		buf = join.AppendOutputRow(buf[:0], large, small)
		emit(string(buf[:len(buf)-1])) // textio.Write ends each element with a line break
	}
	anyLarge := false
	for larges(&row) {
		anyLarge = true
		large := []byte(row)
		if len(ss) == 0 {
			fp++
		}
		switch jt.ForLarge(len(ss)) {
		case join.WriteAlone:
			write(large, nil)
		case join.WritePadded:
			write(large, []byte(f.KeyPad))
		case join.WritePairs:
			for _, s := range ss {
				write(large, s.Row)
			}
		}
	}
	if keepKeys && !anyLarge {
		for i, s := range ss {
			write(pads[i], s.Row)
		}
	}
	// The counters once a key, not once a row.
	if joined > 0 {
		cJoin.Inc(ctx, joined)
		Progress.JoinRows.Add(joined)
	}
	if fp > 0 {
		cFP.Inc(ctx, fp)
	}
}

// Options configures the pipeline. Its sides and key are join.Options'
// (the same fields, checked by the same rules: Check); what beamjoin does
// not do is refused by Check: KeysName and InputName (the workers name a
// side by its path), SkipBadRows, and Layout per-column.
type Options struct {
	join.Sides
	join.Keying
	JoinType join.JoinType // inner (default), semi, anti, left, right, full: as join.Options
	Filter   filters.Kind
	Sizing   filters.Sizing
	Output   string // rows, without the header
	// Shards, if set, writes the output as shards (fsys.Sharding, each
	// with the header) in place of Output.
	Shards *fsys.Sharding
	// Columns, if set, are the output's columns, by name, in their order,
	// as join.Options.Columns (the header's and every row's).
	Columns []string
	// Suffix is join.Options.Suffix: appended to a key-side column's
	// output name that the large side has too ("" is join.DefaultSuffix).
	Suffix string
}

// Check checks opt's options that join.Options shares (the key columns and
// type, the join type, the separators, Columns) as join run checks them
// (join.Options.Resolve), before anything is read.
func (opt Options) Check() (join.Options, error) {
	refuse := func(name string, value any, reason string) (join.Options, error) {
		return join.Options{}, &option.Error{Pkg: "beamjoin", Name: name, Value: value, Reason: reason, Err: join.ErrOptions}
	}
	switch {
	case opt.KeysName != "" || opt.InputName != "":
		return refuse("KeysName", opt.KeysName+opt.InputName, "the workers open and name each side by its path")
	case opt.SkipBadRows:
		return refuse("SkipBadRows", true, "not done by the pipeline: a malformed row fails it")
	case opt.Layout != "" && opt.Layout != join.LayoutComposite:
		return refuse("Layout", opt.Layout, "the pipeline builds one filter over the whole key")
	}
	jo, err := opt.joinOptions().Resolve()
	return jo, option.Within(err, "beamjoin", join.ErrOptions)
}

// joinOptions are the options of opt that join.Options shares, for the
// library's checks (Resolve) and its key type decision.
func (opt Options) joinOptions() join.Options {
	return join.Options{Sides: opt.Sides, Keying: opt.Keying, JoinType: opt.JoinType, Output: join.Output{Columns: opt.Columns, Suffix: opt.Suffix}}
}

// sideSep is the field separator of a side's file: its own (KeysSep,
// InputSep), else Sep, else by its name (csvscan.SepFor), as join run
// reads it.
func sideSep(own, both byte, path string) byte {
	if s := join.SideSep(own, both); s != 0 {
		return s
	}
	return csvscan.SepFor(path)
}

// Header is what the pipeline needs to know of a file before it runs.
type Header struct {
	Names []string
	Types []columnar.Type // a table's column types; nil for CSV
}

// ReadHeader reads the column names of a local file: a CSV file's header
// line, a Parquet or Arrow file's schema. A CSV file's separator is by its
// name (csvscan.SepFor).
func ReadHeader(path string) (Header, error) { return readHeader(path, "", csvscan.SepFor(path)) }

// readHeader is ReadHeader with a side's format (columnar.FormatOf's) and
// a CSV file's separator.
func readHeader(path, format string, sep byte) (Header, error) {
	if _, many, err := source.Files(path, format); err != nil {
		return Header{}, err
	} else if many { // the files' agreement checked as join run checks it
		s, err := source.Open(context.Background(), source.Options{Option: "Input", Path: path, Format: format, Sep: sep})
		if err != nil {
			return Header{}, err
		}
		defer s.Close()
		return Header{Names: s.Header, Types: s.Types}, nil
	}
	if format, err := columnar.FormatOf(path, format); err != nil {
		return Header{}, err
	} else if format != columnar.CSV {
		t, err := source.OpenSkipNested(context.Background(), path, format)
		if err != nil {
			return Header{}, err
		}
		defer t.Close()
		return Header{Names: t.Names, Types: t.Types}, nil
	}
	rc, name, err := csvscan.Open(path)
	if err != nil {
		return Header{}, err
	}
	defer rc.Close()
	r := csvscan.NewReader(rc, name)
	if err := r.SetSep(sep); err != nil {
		return Header{}, err
	}
	names, err := r.ReadHeader()
	if err != nil {
		return Header{}, err
	}
	if err := key.CheckHeader(name, names); err != nil {
		return Header{}, err
	}
	return Header{Names: names}, nil
}

// KeySpecs finds the key columns of opt (KeyCol, JoinCol, KeyType as
// join.Options takes them: several comma-separated for a composite key) in
// the two headers.
func KeySpecs(opt Options, kh, ih Header) (keys, input key.Spec, err error) {
	jo, err := opt.joinOptions().Resolve()
	if err != nil {
		return keys, input, fmt.Errorf("beamjoin: %w", err)
	}
	keys, input, err = jo.Key().Specs(opt.Keys, kh.Names, opt.Input, ih.Names)
	return keys, input, option.Within(err, "beamjoin", join.ErrOptions)
}

// outputKeyNames are the key side's names as the output has them: none
// for a semi or anti join (the large side's columns only).
func outputKeyNames(opt Options, kh Header) []string {
	if opt.JoinType.LargeOnly() {
		return nil
	}
	return kh.Names
}

// OutputHeader is the output's header: with Columns, of the columns asked
// under the names asked (join.PickColumns: refused as join run refuses
// them).
func OutputHeader(opt Options, kh, ih Header) (join.Header, error) {
	ks, js, err := KeySpecs(opt, kh, ih)
	if err != nil {
		return join.Header{}, err
	}
	h, picks, _, err := outputHeader(opt, kh, ih, ks, js)
	if err != nil || len(opt.Columns) == 0 {
		return h, err
	}
	names := join.Names(picks)
	return join.Header{Line: append(csvscan.AppendNames(nil, names), '\n'), Names: names}, nil
}

// outputHeader is a whole output row's header and, with Columns, the
// columns asked and the position of each in it.
func outputHeader(opt Options, kh, ih Header, ks, js key.Spec) (join.Header, []join.Pick, []int, error) {
	h := join.OutputHeader(ih.Names, js, outputKeyNames(opt, kh), ks, opt.Suffix)
	if len(opt.Columns) == 0 {
		return h, nil, nil, nil
	}
	picks, err := join.PickColumns(opt.Columns, ih.Names, kh.Names, ks, opt.Suffix, opt.JoinType.LargeOnly())
	if err != nil {
		return h, nil, nil, option.Within(err, "beamjoin", join.ErrOptions)
	}
	idx, err := join.Index(picks, h.Names)
	return h, picks, idx, err
}

// projectFn writes the output columns asked (Options.Columns) of each
// output row (a CSV line of NFields fields), in their order (Idx), as join
// run's projection does: one empty field is written "".
type projectFn struct {
	NFields int
	Idx     []int
}

func (f *projectFn) ProcessElement(line string, emit func(string)) error {
	fields, err := csvscan.ParseRecord([]byte(line), f.NFields)
	if err != nil {
		return fmt.Errorf("an output row: %w", err)
	}
	emit(string(join.AppendPicked(nil, fields, f.Idx)))
	return nil
}

// Build adds the join to the pipeline and returns the output rows. The headers
// are read now, from the local files.
func Build(s beam.Scope, opt Options) (beam.PCollection, Header, Header, error) {
	// Checked before anything reads them: a FIFO read for its header would
	// leave nothing for the workers.
	keysPath, keyFiles, err := checkLocal("Keys", opt.Keys, opt.KeysFormat)
	if err != nil {
		return beam.PCollection{}, Header{}, Header{}, err
	}
	inputPath, inputFiles, err := checkLocal("Input", opt.Input, opt.InputFormat)
	if err != nil {
		return beam.PCollection{}, Header{}, Header{}, err
	}
	if _, err := opt.Check(); err != nil {
		return beam.PCollection{}, Header{}, Header{}, err
	}
	// A side of many files (a folder, a glob: source.Files) is known by its
	// first file's name (its separator, its format) and read file by file.
	keysSep, inputSep := sideSep(opt.KeysSep, opt.Sep, keyFiles[0]), sideSep(opt.InputSep, opt.Sep, inputFiles[0])
	kh, err := readHeader(keysPath, opt.KeysFormat, keysSep)
	if err != nil {
		return beam.PCollection{}, kh, Header{}, err
	}
	ih, err := readHeader(inputPath, opt.InputFormat, inputSep)
	if err != nil {
		return beam.PCollection{}, kh, ih, err
	}
	ks, js, err := KeySpecs(opt, kh, ih)
	if err != nil {
		return beam.PCollection{}, kh, ih, err
	}
	if err := checkWhere(opt, kh, ih, keysPath, inputPath); err != nil {
		return beam.PCollection{}, kh, ih, err
	}
	// The key types, decided as join run decides them (one implementation:
	// a Parquet or Arrow column's type, else the key side's text); it also
	// checks the separators against the sides' formats and Columns against
	// the output's columns, as run does.
	jo := opt.joinOptions()
	jo.Keys, jo.Input = keysPath, inputPath
	d, err := source.DecideKeyTypes(context.Background(), jo)
	if err != nil {
		return beam.PCollection{}, kh, ih, option.Within(err, "beamjoin", join.ErrOptions)
	}
	ks.Types, js.Types = d.Types, d.Types
	ks.Wide, js.Wide = d.KeysWide, d.InputWide
	kc, jc := newKeyCols(ks), newKeyCols(js)
	kc.Lenient, jc.Lenient = d.Lenient, d.Lenient
	for _, c := range []struct {
		k            *keyCols
		path, format string
	}{{&kc, keyFiles[0], opt.KeysFormat}, {&jc, inputFiles[0], opt.InputFormat}} {
		f, _ := columnar.FormatOf(c.path, c.format)
		c.k.EmptyOK = f != columnar.CSV
	}
	jt := opt.JoinType
	if jt == "" {
		jt = join.JoinInner
	}
	keyPad := ""
	if jt.ForLarge(0)&join.WritePadded != 0 { // left, full (the one definition)
		keyPad = string(join.KeyPadding(len(kh.Names) - len(ks.Cols)))
	}
	keyRows, keyOut := beam.ParDo2(s.Scope("key rows"), &keyFileFn{NFields: len(kh.Names), Format: opt.KeysFormat, Sep: keysSep, Key: kc, JoinType: string(jt), LargeCols: len(ih.Names), Join: jc,
		Where: rowWhere{Src: opt.KeysWhere, Side: keysPath, Names: kh.Names, Types: kh.Types}},
		beam.CreateList(s.Scope("key files"), keyFiles))
	keys := filter.Distinct(s.Scope("distinct keys"), beam.ParDo(s.Scope("keys"), keyOnly, keyRows))
	broadcast := beam.Combine(s.Scope("build filter"), &filterCombineFn{Kind: string(opt.Filter), Sizing: opt.Sizing}, keys)
	sp, err := source.Spans(inputPath, opt.InputFormat, inputSep)
	if err != nil {
		return beam.PCollection{}, kh, ih, err
	}
	if opt.Shards != nil && opt.Shards.N == 0 { // one shard a range of the large side
		opt.Shards.N = min(max(len(sp), 1), 1000)
	}
	inputRows, passedBy := beam.ParDo2(s.Scope("filtered map"), &rangeMapFn{Path: inputPath, Format: opt.InputFormat, NFields: len(ih.Names), Sep: inputSep, Key: jc, JoinType: string(jt), KeyPad: keyPad,
		Where: rowWhere{Src: opt.Where, Side: inputPath, Names: ih.Names, Types: ih.Types}},
		beam.CreateList(s.Scope("input ranges"), sp), beam.SideInput{Input: broadcast})
	grouped := beam.CoGroupByKey(s.Scope("shuffle"), inputRows, keyRows)
	rows := beam.Flatten(s.Scope("output"), beam.ParDo(s.Scope("reduce"), &crossFn{JoinType: string(jt), KeyPad: keyPad}, grouped), passedBy, keyOut)
	if len(opt.Columns) > 0 {
		whole, _, idx, err := outputHeader(opt, kh, ih, ks, js)
		if err != nil {
			return beam.PCollection{}, kh, ih, err
		}
		rows = beam.ParDo(s.Scope("columns"), &projectFn{NFields: len(whole.Names), Idx: idx}, rows)
	}
	if opt.Shards != nil {
		h, err := OutputHeader(opt, kh, ih)
		if err != nil {
			return beam.PCollection{}, kh, ih, err
		}
		keyed := beam.ParDo(s.Scope("shard"), &shardOfFn{N: opt.Shards.N}, rows)
		beam.ParDo0(s.Scope("write shards"), &writeShardFn{Sharding: *opt.Shards, Header: h.Line}, beam.GroupByKey(s.Scope("shards"), keyed))
	} else if opt.Output != "" {
		textio.Write(s.Scope("write"), opt.Output, rows)
	}
	return rows, kh, ih, nil
}

// shardOfFn keys an output row by its shard: a hash of the row (FNV-1a)
// modulo N, so that every shard gets about as many rows.
type shardOfFn struct{ N int }

func (f *shardOfFn) ProcessElement(row string, emit func(int, string)) {
	h := uint64(14695981039346656037)
	for i := 0; i < len(row); i++ {
		h = (h ^ uint64(row[i])) * 1099511628211
	}
	emit(int(h%uint64(f.N)), row)
}

// writeShardFn writes a shard's rows whole (fsys.Sharding.WriteShard),
// under the output's temporary folder; the launcher commits them.
type writeShardFn struct {
	Sharding fsys.Sharding
	Header   []byte
}

func (f *writeShardFn) ProcessElement(ctx context.Context, shard int, rows func(*string) bool) error {
	return f.Sharding.WriteShard(ctx, shard, f.Header, rows)
}

// checkLocal returns the absolute path of a local input, or why the
// pipeline cannot read it: every worker opens it again, by its path (so a
// relative path would be read in the worker's own folder), so it must be a
// file of the local file system (or one mounted at the same path on every
// worker), not a stream or a FIFO, which can be read only once; or a URL
// of one of Beam's file systems (fsys.Schemes), returned as it is, its
// files listed (source.Files).
func checkLocal(name, path, format string) (string, []string, error) {
	refuse := func(format string, a ...any) error {
		return &option.Error{Pkg: "beamjoin", Name: name, Value: path, Reason: fmt.Sprintf(format, a...), Err: join.ErrOptions}
	}
	if path == "-" {
		return "", nil, refuse("the pipeline reads files, not standard input (every worker opens its input again by its path): save it to a file and name that")
	}
	if fsys.IsURL(path) { // read through Beam's file systems (package fsys)
		if err := fsys.CheckName(path); err != nil {
			return "", nil, refuse("%v", err)
		}
		files, _, err := source.Files(path, format)
		if err != nil {
			return "", nil, refuse("%v", errors.Unwrap(err))
		}
		return path, files, nil
	}
	if strings.Contains(path, "://") {
		return "", nil, refuse("%s:// is no file system of beamjoin's: it reads %s:// and local files (or files mounted at the same path on every worker)", path[:strings.Index(path, "://")], strings.Join(fsys.Schemes, "://, "))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", nil, refuse("%v", err)
	}
	files, _, err := source.Files(abs, format)
	if err != nil {
		return "", nil, refuse("%v", errors.Unwrap(err))
	}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return "", nil, refuse("%v", errors.Unwrap(err))
		}
		if !st.Mode().IsRegular() {
			what := "not a regular file"
			if f != abs {
				what = f + ": not a regular file"
			}
			return "", nil, refuse("%s (a pipe, a FIFO, a device): the workers open it again, so it must be a file; save it to one", what)
		}
	}
	return abs, files, nil
}

// rowWhere is a side's predicate (Options.Where, KeysWhere) as a DoFn
// carries it to the workers: its source and the side's names and types,
// compiled there (package where, as join run compiles it).
type rowWhere struct {
	Src, Side string
	Names     []string
	Types     []columnar.Type
}

// compile is the predicate, nil without one.
func (w rowWhere) compile() (*where.Pred, error) {
	if w.Src == "" {
		return nil, nil
	}
	return where.Compile(w.Src, w.Side, w.Names, w.Types)
}

// checkWhere compiles opt's predicates over the sides' headers, so that a
// bad one is refused before the pipeline runs, as join run refuses it.
func checkWhere(opt Options, kh, ih Header, keysPath, inputPath string) error {
	for _, w := range []struct {
		name string
		rw   rowWhere
	}{{"KeysWhere", rowWhere{opt.KeysWhere, keysPath, kh.Names, kh.Types}}, {"Where", rowWhere{opt.Where, inputPath, ih.Names, ih.Types}}} {
		if _, err := where.CompileOption("beamjoin", w.name, w.rw.Src, w.rw.Side, w.rw.Names, w.rw.Types, join.ErrOptions); err != nil {
			return err
		}
	}
	return nil
}

// keepRow reports whether r's current row passes p (nil: every row).
func keepRow(p *where.Pred, r source.SpanRows) (bool, error) {
	if p == nil {
		return true, nil
	}
	return p.Match(r.Fields(), key.NullsOf(r))
}
