// Package beamjoin runs the acbfjoin reduce-side join as an Apache Beam
// pipeline (Go SDK), so the same join scales out on Flink, Spark or Dataflow and
// runs locally on the in-process prism runner. It reuses the join package's
// steps: MapKeyRow for the key side, BuildFilter and the broadcast format for
// the filter, MapInputRow for the filtered map, JoinRow for the reduce.
//
//	key file ─ParDo(parse)─┬─ keys ─Distinct─Combine(build filter)─┐ (singleton side input: the broadcast)
//	                       └─ KV(key, row) ───────────────┐       │
//	input ─ParDo(filter, tag; side input)─ KV(key, row) ──┴─CoGroupByKey─ParDo(cross product)─ rows
package beamjoin

import (
	"bytes"
	"context"
	"fmt"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local paths; add gcs, s3 for clusters
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/transforms/filter"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/join"
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
)

var (
	cInput  = beam.NewCounter(Namespace, CInput)
	cMapOut = beam.NewCounter(Namespace, CMapOutput)
	cFP     = beam.NewCounter(Namespace, CFalsePositive)
	cJoin   = beam.NewCounter(Namespace, CJoinRows)
	cKeys   = beam.NewCounter(Namespace, CKeyRows)
)

func init() {
	register.DoFn3x1[context.Context, string, func(string, string), error](&keyRowFn{})
	register.DoFn4x1[context.Context, string, func(*[]byte) bool, func(string, string), error](&inputRowFn{})
	register.DoFn5x0[context.Context, string, func(*string) bool, func(*string) bool, func(string)](&crossFn{})
	register.Combiner3[[]string, string, []byte](&filterCombineFn{})
	register.Function2x1[string, string, string](keyOnly)
	register.Emitter2[string, string]()
	register.Emitter1[string]()
	register.Iter1[string]()
	register.Iter1[[]byte]()
}

// parseLine splits one CSV line (no line break inside quotes, as in the NBER
// files) into fields with the project's reader.
func parseLine(line string, nfields int) ([][]byte, error) {
	return csvscan.ParseRecord([]byte(line), nfields)
}

// keyRowFn turns a key-file line into KV(key, the row's other fields).
type keyRowFn struct {
	Header  string
	NFields int
	Key     keyCols
}

// keyCols is a join.KeySpec in fields Beam serializes.
type keyCols struct {
	Cols         []int
	Names, Types []string
}

func newKeyCols(ks join.KeySpec) keyCols {
	k := keyCols{Cols: ks.Cols, Names: ks.Names}
	for _, t := range ks.Types {
		k.Types = append(k.Types, string(t))
	}
	return k
}

func (k keyCols) spec() join.KeySpec {
	ks := join.KeySpec{Cols: k.Cols, Names: k.Names}
	for _, t := range k.Types {
		ks.Types = append(ks.Types, join.KeyType(t))
	}
	return ks
}

func (f *keyRowFn) ProcessElement(ctx context.Context, line string, emit func(string, string)) error {
	if line == f.Header {
		return nil
	}
	fields, err := parseLine(line, f.NFields)
	if err != nil || fields == nil {
		return err
	}
	rec, _, err := join.MapKeyRow(f.Key.spec(), fields, 0, nil)
	if err != nil {
		return fmt.Errorf("key file: %q: %w", line, err)
	}
	cKeys.Inc(ctx, 1)
	emit(string(rec.Key), string(rec.Row))
	return nil
}

func keyOnly(k, _ string) string { return k }

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
	if sp, err := filters.Lookup(f.Kind); err == nil && len(keys) == 0 && sp.Sized {
		kind = filters.Exact // nothing to size a filter for: an empty set drops every row
	}
	b, err := filters.Build(kind, keys, f.Sizing)
	if err != nil {
		panic(fmt.Sprintf("acbfjoin: build filter: %v", err)) // Beam reports a failed bundle
	}
	data, err := b.Marshal()
	if err != nil {
		panic(fmt.Sprintf("acbfjoin: serialize filter: %v", err))
	}
	// The kind travels with the bytes: an empty key set falls back to exact.
	return append([]byte(string(kind)+"\x00"), data...)
}

// inputRowFn is the filtered map: it tests each large-side row's join key
// against the broadcast filter and emits the survivors as KV(key, row).
type inputRowFn struct {
	Header  string
	NFields int
	Key     keyCols

	filter filters.Filter // decoded once per DoFn instance from the side input
}

// ProcessElement takes the side input as an iterator so that it is read only
// when the filter is first needed, not fetched from the runner per element.
func (f *inputRowFn) ProcessElement(ctx context.Context, line string, side func(*[]byte) bool, emit func(string, string)) error {
	if line == f.Header {
		return nil
	}
	if f.filter == nil {
		var broadcast []byte
		if !side(&broadcast) {
			return fmt.Errorf("broadcast: the filter side input is empty")
		}
		i := bytes.IndexByte(broadcast, 0)
		flt, err := filters.Decode(filters.Kind(broadcast[:i]), broadcast[i+1:])
		if err != nil {
			return fmt.Errorf("broadcast: %w", err)
		}
		f.filter = flt
	}
	fields, err := parseLine(line, f.NFields)
	if err != nil || fields == nil {
		return err
	}
	cInput.Inc(ctx, 1)
	var kb [32]byte
	key, ok, err := join.MapInputRow(f.filter, f.Key.spec(), fields, kb[:0])
	if err != nil {
		return fmt.Errorf("input: %q: %w", line, err)
	}
	if ok {
		cMapOut.Inc(ctx, 1)
		emit(string(key), line)
	}
	return nil
}

// crossFn is the reduce: per key, the cross product of large-side and key-side
// rows; a large-side row without a partner is a false positive.
type crossFn struct{}

func (f *crossFn) ProcessElement(ctx context.Context, key string, larges func(*string) bool, smalls func(*string) bool, emit func(string)) {
	var ss []shuffle.Record
	var row string
	for smalls(&row) {
		ss = append(ss, shuffle.Record{Key: []byte(key), Tag: join.TagKeys, Row: []byte(row)})
	}
	for larges(&row) {
		large := shuffle.Record{Key: []byte(key), Tag: join.TagInput, Row: []byte(row)}
		var buf []byte
		matched, _ := join.JoinRow(large, ss, func(l, s shuffle.Record) error {
			cJoin.Inc(ctx, 1)
			buf = join.AppendOutputRow(buf[:0], l.Row, s.Row)
			emit(string(buf[:len(buf)-1])) // textio.Write ends each element with a line break
			return nil
		})
		if !matched {
			cFP.Inc(ctx, 1)
		}
	}
}

// Options configures the pipeline.
type Options struct {
	Keys, Input     string
	KeyCol, JoinCol string       // several, comma-separated, for a composite key (as join.Options)
	KeyType         join.KeyType // one a key column, or one for all
	Filter          filters.Kind
	Sizing          filters.Sizing
	Output          string // rows, without the header
}

// Header is what the pipeline needs to know of a file before it runs.
type Header struct {
	Raw   string
	Names []string
}

// ReadHeader reads the header line of a local file.
func ReadHeader(path string) (Header, error) {
	rc, name, err := csvscan.Open(path)
	if err != nil {
		return Header{}, err
	}
	defer rc.Close()
	r := csvscan.NewReader(rc, name)
	names, err := r.ReadHeader()
	if err != nil {
		return Header{}, err
	}
	return Header{Raw: string(r.Raw()), Names: names}, nil
}

// KeySpecs finds the key columns of opt (KeyCol, JoinCol, KeyType as
// join.Options takes them: several comma-separated for a composite key) in
// the two headers.
func KeySpecs(opt Options, kh, ih Header) (keys, input join.KeySpec, err error) {
	jo, err := join.Options{Keys: opt.Keys, Input: opt.Input, KeyCol: opt.KeyCol, JoinCol: opt.JoinCol, KeyType: opt.KeyType}.Resolve()
	if err != nil {
		return keys, input, fmt.Errorf("beamjoin: %w", err)
	}
	if keys, err = join.NewKeySpec(kh.Names, jo.KeyCols, jo.KeyTypes); err != nil {
		return keys, input, fmt.Errorf("beamjoin: KeyCol %s: %s: %v (columns: %q)", jo.KeyCol, opt.Keys, err, kh.Names)
	}
	if input, err = join.NewKeySpec(ih.Names, jo.JoinCols, jo.KeyTypes); err != nil {
		return keys, input, fmt.Errorf("beamjoin: JoinCol %s: %s: %v (columns: %q)", jo.JoinCol, opt.Input, err, ih.Names)
	}
	return keys, input, nil
}

// Build adds the join to the pipeline and returns the output rows. The headers
// are read now, from the local files.
func Build(s beam.Scope, opt Options) (beam.PCollection, Header, Header, error) {
	kh, err := ReadHeader(opt.Keys)
	if err != nil {
		return beam.PCollection{}, kh, Header{}, err
	}
	ih, err := ReadHeader(opt.Input)
	if err != nil {
		return beam.PCollection{}, kh, ih, err
	}
	ks, js, err := KeySpecs(opt, kh, ih)
	if err != nil {
		return beam.PCollection{}, kh, ih, err
	}
	keyRows := beam.ParDo(s.Scope("key rows"), &keyRowFn{Header: kh.Raw, NFields: len(kh.Names), Key: newKeyCols(ks)},
		textio.Read(s.Scope("read keys"), opt.Keys))
	keys := filter.Distinct(s.Scope("distinct keys"), beam.ParDo(s.Scope("keys"), keyOnly, keyRows))
	broadcast := beam.Combine(s.Scope("build filter"), &filterCombineFn{Kind: string(opt.Filter), Sizing: opt.Sizing}, keys)
	inputRows := beam.ParDo(s.Scope("filtered map"), &inputRowFn{Header: ih.Raw, NFields: len(ih.Names), Key: newKeyCols(js)},
		textio.Read(s.Scope("read input"), opt.Input), beam.SideInput{Input: broadcast})
	grouped := beam.CoGroupByKey(s.Scope("shuffle"), inputRows, keyRows)
	rows := beam.ParDo(s.Scope("reduce"), &crossFn{}, grouped)
	if opt.Output != "" {
		textio.Write(s.Scope("write"), opt.Output, rows)
	}
	return rows, kh, ih, nil
}
