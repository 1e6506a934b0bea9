package join

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// Tags of shuffled records: the source of a row.
const (
	TagKeys  uint8 = 0 // the small side (key file)
	TagInput uint8 = 1 // the large side
)

// KeyType says how join keys compare.
type KeyType string

const (
	IntKeys    KeyType = "int"    // as integers
	StringKeys KeyType = "string" // as bytes
)

// Options configures Run.
type Options struct {
	Keys, Input     string // small and large side: CSV with header (.txt, .gz, .zip)
	KeyCol, JoinCol string // join columns by header name (default PATENT, CITED)
	KeyType         KeyType
	Filter          Kind
	Sizing          Sizing
	Mappers         int   // map goroutines (default DefaultWorkers; at most MaxWorkers)
	Reducers        int   // reduce partitions and goroutines (default DefaultWorkers; at most MaxWorkers)
	MemBudget       int64 // memory of the shuffle and Sort (default 256 MiB, or shuffle.MinBudget(Mappers, Reducers) if more; at least that)
	TempDir         string
	Sort            bool // order the output by key, then large-side row order
	// SkipBadRows drops malformed rows (wrong field count, bad quoting, a join
	// key that does not parse) and counts them instead of failing.
	SkipBadRows bool
	// FilterFile, if set, is a filter file (join build-filter) used instead of
	// building the filter; it must match the join's settings and key set.
	FilterFile string
	// Progress, if set, is called at the start of each phase and then every
	// 100 ms from another goroutine: "build" and "map" count the bytes of
	// their input read after the header (total -1 for a stream, whose size
	// is unknown), "reduce" the partitions reduced, "sort" (with Sort) the
	// output bytes written.
	Progress func(phase string, done, total int64)

	// names maps a path to its name in messages: Compare's temporary copies
	// of stream inputs keep the streams' names.
	names map[string]string
}

// FilterReport describes the filter of a run.
type FilterReport struct {
	Kind            Kind    `json:"kind"`
	M               uint64  `json:"m"`
	K               int     `json:"k"`
	FirstLevelBits  uint64  `json:"first_level_bits"`
	MemoryBits      uint64  `json:"memory_bits"`
	SerializedBytes int64   `json:"serialized_bytes"`
	TheoreticalFPP  float64 `json:"theoretical_fpp"`
}

// Report is what a run measured.
type Report struct {
	Filter               FilterReport `json:"filter"`
	KeysRecords          int64        `json:"keys_records"`
	KeysDistinct         int          `json:"keys_distinct"`
	InputRecords         int64        `json:"input_records"`
	MapOutputRecords     int64        `json:"map_output_records"`
	FilteredOutRecords   int64        `json:"filtered_out_records"`
	FalsePositiveRecords int64        `json:"false_positive_records"`
	FPPMeasured          float64      `json:"fpp_measured"`
	ShuffleRecords       int64        `json:"shuffle_records"`
	ShuffleBytes         int64        `json:"shuffle_bytes"`
	// ShuffleBytesNoFilter estimates the IPC bytes without a filter: the
	// measured bytes plus the filtered-out rows at their Arrow body size.
	ShuffleBytesNoFilter int64   `json:"shuffle_bytes_no_filter_estimate"`
	ShuffleReduction     float64 `json:"shuffle_reduction"`
	SpilledBytes         int64   `json:"spilled_bytes"`
	// ShufflePeakBytes is the most Arrow memory the shuffle held at once, map
	// and reduce phases included; it stays within MemBudget.
	ShufflePeakBytes int64 `json:"shuffle_peak_bytes"`
	// SortPeakBytes is the most memory the --sort buffers held at once: at
	// most an eighth of MemBudget (plus one row bigger than a buffer).
	SortPeakBytes  int64 `json:"sort_peak_bytes,omitempty"`
	BroadcastBytes int64 `json:"broadcast_bytes"`
	// BroadcastCopies is how many copies of the filter the mappers decoded:
	// one each while they fit in MaxBroadcastBytes, fewer (shared) beyond.
	BroadcastCopies int                `json:"broadcast_copies"`
	JoinRows        int64              `json:"join_rows"`
	TimingsMs       map[string]float64 `json:"timings_ms"`
	PeakHeapBytes   uint64             `json:"peak_heap_bytes"`
	Mappers         int                `json:"mappers"`
	Reducers        int                `json:"reducers"`
	// BadRows counts the rows skipped with SkipBadRows; BadRowExamples names
	// the first few (file:line: what is wrong).
	BadRows        int64    `json:"bad_rows"`
	BadRowExamples []string `json:"bad_row_examples,omitempty"`
}

// badRows collects skipped rows: a count and the earliest few, by file offset.
type badRows struct {
	mu       sync.Mutex
	n        int64
	examples []*csvscan.ParseError
}

const badExamples = 5

func (b *badRows) add(pe *csvscan.ParseError) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n++
	b.examples = append(b.examples, pe)
	slices.SortFunc(b.examples, func(x, y *csvscan.ParseError) int {
		if x.File != y.File {
			return strings.Compare(x.File, y.File)
		}
		return cmpInt(x.Offset, y.Offset)
	})
	if len(b.examples) > badExamples {
		b.examples = b.examples[:badExamples]
	}
}

// report fills in line numbers (range readers know only offsets) and formats.
func (b *badRows) report(paths map[string]string) []string {
	var out []string
	for _, pe := range b.examples {
		err := error(pe)
		if path, ok := paths[pe.File]; ok {
			err = csvscan.WithLine(pe, path)
		}
		out = append(out, err.Error())
	}
	return out
}

// Partition returns the reduce partition of a join key: a murmur3 hash of the
// key reduced to [0, r).
func Partition(key []byte, r int) int {
	h1, _ := hashing.Sum(key)
	return int(hashing.Reduce(h1, uint64(r)))
}

// keyOf returns the join key bytes of a field.
func keyOf(kt KeyType, dst, field []byte) ([]byte, error) {
	if kt == StringKeys {
		return field, nil
	}
	return IntKey(dst, field)
}

// MapKeyRow turns a key-side row into its shuffle record: the key, and the row's
// other fields (CSV-encoded) to append to matching large-side rows.
func MapKeyRow(kt KeyType, fields [][]byte, keyIdx int, seq int64, buf []byte) (shuffle.Record, []byte, error) {
	var kb [8]byte
	key, err := keyOf(kt, kb[:], fields[keyIdx])
	if err != nil {
		return shuffle.Record{}, buf, err
	}
	start := len(buf)
	buf = append(buf, key...)
	keyEnd := len(buf)
	first := true
	for i, f := range fields {
		if i == keyIdx {
			continue
		}
		if !first {
			buf = append(buf, ',')
		}
		first = false
		buf = AppendCSVField(buf, f)
	}
	return shuffle.Record{Key: buf[start:keyEnd], Tag: TagKeys, Seq: seq, Row: buf[keyEnd:]}, buf, nil
}

// MapInputRow tests a large-side row's join key against the filter. It returns
// the shuffle record and true if the row survives, false if the filter drops it.
func MapInputRow(f Filter, kt KeyType, fields [][]byte, raw []byte, joinIdx int, seq int64, kb []byte) (shuffle.Record, bool, error) {
	key, err := keyOf(kt, kb, fields[joinIdx])
	if err != nil {
		return shuffle.Record{}, false, err
	}
	if !f.Contains(key) {
		return shuffle.Record{}, false, nil
	}
	return shuffle.Record{Key: key, Tag: TagInput, Seq: seq, Row: raw}, true, nil
}

// JoinRow joins one large-side record with the key-side records of its key:
// it emits one output row per match and reports whether there was any (a
// large-side record without a match is a false positive of the filter).
func JoinRow(large shuffle.Record, smalls []shuffle.Record, emit func(large, small shuffle.Record) error) (bool, error) {
	for _, s := range smalls {
		if err := emit(large, s); err != nil {
			return false, err
		}
	}
	return len(smalls) > 0, nil
}

// AppendCSVField appends f as a CSV field, quoted only if it must be (it holds
// a comma, quote or line break), with quotes doubled.
func AppendCSVField(buf, f []byte) []byte {
	if bytes.IndexAny(f, ",\"\r\n") < 0 {
		return append(buf, f...)
	}
	buf = append(buf, '"')
	for _, c := range f {
		if c == '"' {
			buf = append(buf, '"')
		}
		buf = append(buf, c)
	}
	return append(buf, '"')
}

// side is an opened input (csvscan.Input): its header, and parts that workers
// read in parallel. A regular file is cut at proven record boundaries; a pipe,
// FIFO, standard input or compressed file is read once, in order (see
// csvscan.Input).
type side struct {
	bad        *badRows // non-nil: skip malformed rows into it
	in         *csvscan.Input
	path, name string
	header     []string
	headerRaw  []byte
	size       int64 // bytes after the header; -1 for a stream
}

// openSide opens path and reads its header; parts is how many ranges a
// regular file is cut into; name, if set, names it in messages.
func openSide(ctx context.Context, path, name string, parts int, skipBad bool) (*side, error) {
	in, err := csvscan.OpenInput(ctx, path, csvscan.InputOptions{Parts: parts, SkipBad: skipBad, Name: name})
	if err != nil {
		return nil, err
	}
	for i, h := range in.Header {
		if j := slices.Index(in.Header[:i], h); j >= 0 {
			in.Close()
			return nil, fmt.Errorf("%s:1: column %q appears twice (columns %d and %d)", in.Name, h, j+1, i+1)
		}
	}
	return &side{in: in, path: path, name: in.Name, header: in.Header, headerRaw: in.HeaderRaw, size: in.Size}, nil
}

func (s *side) close() { s.in.Close() }

func (s *side) column(flag, col string) (int, error) {
	i := slices.Index(s.header, col)
	if i < 0 {
		return 0, fmt.Errorf("%s %s: %s has no column %q (columns: %s)", flag, col, s.name, col, quoteList(s.header))
	}
	return i, nil
}

// quoteList prints names as a quoted, comma-separated list: text from a file
// may hold anything, escape sequences included.
func quoteList(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(n))
	}
	return b.String()
}

// scan reads the side with up to workers goroutines, one part at a time; each
// goroutine gets its own state from newState. fn sees every record with its
// byte offset. The error returned is the one a sequential read meets first
// (csvscan.FirstError), or ctx's.
func (s *side) scan(ctx context.Context, workers int, newState func() any, fn func(st any, r *csvscan.Reader) error, done func(st any) error) error {
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := newState()
			for {
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				p, err := s.in.Next()
				if err != nil {
					errs[w] = err
					return
				}
				if p == nil {
					break
				}
				if s.bad != nil {
					p.SkipBad(s.bad.add)
				}
				err = fn(st, p.Reader)
				p.Release()
				if err != nil {
					errs[w] = err
					return
				}
			}
			errs[w] = done(st)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := csvscan.FirstError(errs); err != nil {
		return csvscan.WithLine(err, s.path)
	}
	return s.in.Unchanged()
}

// CheckSides refuses one stream given as two inputs (of keys, input and
// filter file, in that order; "" is left out): a pipe, FIFO or standard
// input can be read only once. The same regular file twice is fine.
func CheckSides(keys, input, filterFile string) error {
	names := []string{"keys", "input", "filter file"}
	paths := []string{keys, input, filterFile}
	for i := range paths {
		for j := i + 1; j < len(paths); j++ {
			if paths[i] == "" || paths[j] == "" {
				continue
			}
			a, aerr := statInput(paths[i])
			b, berr := statInput(paths[j])
			both := paths[i] == "-" && paths[j] == "-" // standard input is read from its offset, once, even a regular file
			if !both && (aerr != nil || berr != nil || !os.SameFile(a, b) || a.Mode().IsRegular()) {
				continue
			}
			return fmt.Errorf("%s %s and %s %s are the same stream, which can be read only once: save one of them to a file",
				names[i], paths[i], names[j], paths[j])
		}
	}
	return nil
}

// statInput stats an input path, "-" being standard input.
func statInput(path string) (os.FileInfo, error) {
	if path == "-" {
		return os.Stdin.Stat()
	}
	return os.Stat(path)
}

// checkEvery is how many rows a loop handles between looks at its context:
// about a millisecond of work.
const checkEvery = 1 << 14

// MaxWorkers bounds Options.Mappers and Options.Reducers: each mapper holds a
// read buffer of up to 1 MiB and its own filter copy, and the shuffle's
// minimum budget grows with mappers x reducers; more goroutines than this
// only add memory.
const MaxWorkers = 256

// DefaultWorkers is the default count of mappers and of reducers: one per
// core (GOMAXPROCS), at most MaxWorkers.
func DefaultWorkers() int { return min(runtime.GOMAXPROCS(0), MaxWorkers) }

// MaxBroadcastBytes bounds the memory of the filter copies the mappers
// decode (1 GiB): each mapper gets its own copy while all of them fit,
// otherwise as many copies as fit (at least one) are shared among the
// mappers. A filter is at most MaxFilterBytes, so with the built filter a run
// holds at most MaxFilterBytes + MaxBroadcastBytes of filters.
const MaxBroadcastBytes = 1 << 30

// broadcastCopies is how many copies of a filter of size bytes the mappers
// decode (see MaxBroadcastBytes).
func broadcastCopies(mappers int, size uint64) int {
	if size == 0 || uint64(mappers)*size <= broadcastLimit {
		return mappers
	}
	return int(max(1, broadcastLimit/size))
}

// broadcastLimit is MaxBroadcastBytes; tests lower it.
var broadcastLimit uint64 = MaxBroadcastBytes

// defaultMemBudget is the memory budget when Options.MemBudget is 0.
const defaultMemBudget = 256 << 20

// Run executes the join locally: build, broadcast, map, shuffle, reduce (see the
// package documentation), writing CSV with a header to out. On error nothing
// more is written and the shuffle's temporary files are removed.
func Run(ctx context.Context, opt Options, out io.Writer) (*Report, error) {
	start := time.Now()
	if opt.KeyCol == "" {
		opt.KeyCol = "PATENT"
	}
	if opt.JoinCol == "" {
		opt.JoinCol = "CITED"
	}
	if opt.KeyType == "" {
		opt.KeyType = IntKeys
	}
	if opt.KeyType != IntKeys && opt.KeyType != StringKeys {
		return nil, fmt.Errorf("--key-type %q: want int or string", opt.KeyType)
	}
	if opt.Filter == "" && opt.FilterFile == "" {
		opt.Filter = ACBF
	}
	if opt.Mappers <= 0 {
		opt.Mappers = DefaultWorkers()
	}
	if opt.Reducers <= 0 {
		opt.Reducers = DefaultWorkers()
	}
	if opt.Mappers > MaxWorkers || opt.Reducers > MaxWorkers {
		return nil, fmt.Errorf("%d mappers and %d reducers: at most %d each", opt.Mappers, opt.Reducers, MaxWorkers)
	}
	if min := shuffle.MinBudget(opt.Mappers, opt.Reducers); opt.MemBudget <= 0 {
		opt.MemBudget = max(defaultMemBudget, min) // many cores: more than the default
	} else if opt.MemBudget < min {
		return nil, fmt.Errorf("--mem %d bytes: below the minimum of %d for %d mappers and %d reducers", opt.MemBudget, min, opt.Mappers, opt.Reducers)
	}
	rep := &Report{TimingsMs: map[string]float64{}, Mappers: opt.Mappers, Reducers: opt.Reducers}
	phase := time.Now()
	lap := func(name string) {
		rep.TimingsMs[name] = float64(time.Since(phase).Microseconds()) / 1000
		phase = time.Now()
	}
	stopHeap := watchHeap(&rep.PeakHeapBytes)
	defer stopHeap()

	if err := CheckSides(opt.Keys, opt.Input, opt.FilterFile); err != nil {
		return nil, err
	}
	keySide, err := openSide(ctx, opt.Keys, opt.names[opt.Keys], opt.Mappers, opt.SkipBadRows)
	if err != nil {
		return nil, err
	}
	defer keySide.close()
	keyIdx, err := keySide.column("--key-col", opt.KeyCol)
	if err != nil {
		return nil, err
	}
	input, err := openSide(ctx, opt.Input, opt.names[opt.Input], 4*opt.Mappers, opt.SkipBadRows)
	if err != nil {
		return nil, err
	}
	defer input.close()
	joinIdx, err := input.column("--join-col", opt.JoinCol)
	if err != nil {
		return nil, err
	}
	var bad *badRows
	if opt.SkipBadRows {
		bad = &badRows{}
		keySide.bad, input.bad = bad, bad
	}
	// keyError handles a join key that does not parse: an error, or a skipped row.
	keyError := func(r *csvscan.Reader, col string, err error) error {
		if bad == nil {
			return r.Errorf("%s: %v", col, err)
		}
		bad.add(&csvscan.ParseError{File: r.Name(), Line: r.Line(), Offset: r.Offset(), Msg: fmt.Sprintf("%s: %v", col, err)})
		return nil
	}
	sh, err := shuffle.New(shuffle.Options{Partitions: opt.Reducers, Writers: opt.Mappers, MemBudget: opt.MemBudget, TempDir: opt.TempDir})
	if err != nil {
		return nil, err
	}
	defer sh.Close()

	// 1. Build: each goroutine puts the distinct keys of its ranges in a local
	// table and ships its key-side rows to the shuffle; the tables merge by union.
	type buildState struct {
		keys map[string]struct{}
		w    *shuffle.Writer
		rows int64
		buf  []byte
	}
	var mu sync.Mutex
	global := map[string]struct{}{}
	stopBuild := func() {}
	if opt.Progress != nil {
		opt.Progress("build", 0, keySide.size)
		stopBuild = ticker(func() { opt.Progress("build", keySide.in.Progress(), keySide.size) })
	}
	err = keySide.scan(ctx, opt.Mappers, func() any {
		return &buildState{keys: map[string]struct{}{}, w: sh.NewWriter()}
	}, func(st any, r *csvscan.Reader) error {
		b := st.(*buildState)
		for n := 1; r.Next(); n++ {
			if n%checkEvery == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			rec, buf, err := MapKeyRow(opt.KeyType, r.Fields(), keyIdx, r.Offset(), b.buf[:0])
			if err != nil {
				if err := keyError(r, opt.KeyCol, err); err != nil {
					return err
				}
				continue
			}
			b.buf = buf
			b.rows++
			if _, ok := b.keys[string(rec.Key)]; !ok {
				b.keys[string(rec.Key)] = struct{}{}
			}
			if err := b.w.Add(Partition(rec.Key, opt.Reducers), rec); err != nil {
				return err
			}
		}
		return r.Err()
	}, func(st any) error {
		b := st.(*buildState)
		mu.Lock()
		for k := range b.keys {
			global[k] = struct{}{}
		}
		rep.KeysRecords += b.rows
		mu.Unlock()
		return b.w.Close()
	})
	stopBuild()
	if err != nil {
		return nil, err
	}
	keys := make([][]byte, 0, len(global))
	for k := range global {
		keys = append(keys, []byte(k))
	}
	rep.KeysDistinct = len(keys)
	var built *Built
	if opt.FilterFile != "" {
		ff, err := ReadFilterFile(ctx, opt.FilterFile)
		if err != nil {
			return nil, err
		}
		if err := ff.check(opt.FilterFile, opt, keys); err != nil {
			return nil, err
		}
		built = ff.Built
	} else if len(keys) == 0 && opt.Filter != None && opt.Filter != Exact {
		return nil, fmt.Errorf("%s: no keys (a header and no rows): a %s filter cannot be sized for none; --filter exact or none gives the empty join", keySide.name, opt.Filter)
	} else if built, err = BuildFilter(opt.Filter, keys, opt.Sizing); err != nil {
		return nil, err
	}
	rep.Filter = FilterReport{Kind: built.Kind, M: built.M, K: built.K, FirstLevelBits: built.FirstLevelBits,
		MemoryBits: built.MemoryBits, SerializedBytes: built.SerializedBytes, TheoreticalFPP: built.TheoreticalFPP}
	lap("build")

	// 2. Broadcast: serialize once, decode a copy per map goroutine, as
	// many as fit in MaxBroadcastBytes (broadcastCopies); mappers beyond
	// that share the copies, as the cores of one node share its copy.
	wire, err := built.Marshal()
	if err != nil {
		return nil, err
	}
	rep.BroadcastBytes = int64(len(wire))
	built.Filter = nil // the mappers use the copies: let the original go
	rep.BroadcastCopies = broadcastCopies(opt.Mappers, built.residentBytes())
	decoded := make([]Filter, rep.BroadcastCopies)
	for i := range decoded {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if decoded[i], err = Unmarshal(built.Kind, wire); err != nil {
			return nil, fmt.Errorf("broadcast: %w", err)
		}
	}
	copies := make(chan Filter, opt.Mappers)
	for i := range opt.Mappers {
		copies <- decoded[i%len(decoded)] // shared copies: Contains only reads
	}
	lap("broadcast")

	// 3. Map: test every large-side row, ship the survivors.
	type mapState struct {
		f               Filter
		w               *shuffle.Writer
		rows, out, drop int64
		kb              [8]byte
	}
	stopProgress := func() {}
	if opt.Progress != nil {
		opt.Progress("map", 0, input.size)
		stopProgress = ticker(func() { opt.Progress("map", input.in.Progress(), input.size) })
	}
	var dropBytes int64
	err = input.scan(ctx, opt.Mappers, func() any {
		return &mapState{f: <-copies, w: sh.NewWriter()}
	}, func(st any, r *csvscan.Reader) error {
		m := st.(*mapState)
		for r.Next() {
			if m.rows++; m.rows%checkEvery == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			rec, ok, err := MapInputRow(m.f, opt.KeyType, r.Fields(), r.Raw(), joinIdx, r.Offset(), m.kb[:])
			if err != nil {
				if err := keyError(r, opt.JoinCol, err); err != nil {
					return err
				}
				m.rows--
				continue
			}
			if !ok {
				// What this row would have cost the shuffle: its Arrow body
				// (key and row bytes, 4-byte offsets, tag, seq).
				m.drop += int64(len(m.kb)) + int64(len(r.Raw())) + 8 + 1 + 8 + 8
				continue
			}
			m.out++
			if err := m.w.Add(Partition(rec.Key, opt.Reducers), rec); err != nil {
				return err
			}
		}
		return r.Err()
	}, func(st any) error {
		m := st.(*mapState)
		mu.Lock()
		rep.InputRecords += m.rows
		rep.MapOutputRecords += m.out
		dropBytes += m.drop
		mu.Unlock()
		return m.w.Close()
	})
	stopProgress()
	if err != nil {
		return nil, err
	}
	rep.FilteredOutRecords = rep.InputRecords - rep.MapOutputRecords
	lap("map")
	if err := sh.Seal(); err != nil {
		return nil, err
	}
	st := sh.Stats()
	rep.ShuffleRecords, rep.ShuffleBytes, rep.SpilledBytes = st.Records, st.Bytes, st.SpilledBytes
	rep.ShuffleBytesNoFilter = st.Bytes + dropBytes
	if rep.ShuffleBytesNoFilter > 0 {
		rep.ShuffleReduction = 1 - float64(rep.ShuffleBytes)/float64(rep.ShuffleBytesNoFilter)
	}
	lap("shuffle")

	// 4. Reduce: per partition, the key-side rows by key, then every large-side
	// row joined against them.
	bw := bufio.NewWriterSize(out, 1<<20)
	var outMu sync.Mutex
	var joinRows, fps atomic.Int64
	if _, err := bw.Write(OutputHeader(input.headerRaw, keySide.header, keyIdx)); err != nil {
		return nil, err
	}
	// --sort orders the rows with an external merge sort in a quarter of the
	// budget (the shuffle's builders, which had it, are done).
	var sorter *sorter
	if opt.Sort {
		sorter = newSorter(opt.TempDir, opt.MemBudget/4, opt.Reducers)
		defer sorter.close()
	}
	parts := make(chan int, opt.Reducers)
	for p := range opt.Reducers {
		parts <- p
	}
	close(parts)
	var reduced atomic.Int64
	stopReduce := func() {}
	if opt.Progress != nil {
		opt.Progress("reduce", 0, int64(opt.Reducers))
		stopReduce = ticker(func() { opt.Progress("reduce", reduced.Load(), int64(opt.Reducers)) })
	}
	// The first failing reducer stops the others (the error it sent is the
	// first in errs; theirs, the cancellation, come after).
	rctx, stopReducers := context.WithCancel(ctx)
	defer stopReducers()
	errs := make(chan error, opt.Reducers)
	fail := func(err error) {
		errs <- err
		stopReducers()
	}
	var wg sync.WaitGroup
	for range opt.Reducers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sbuf *sortBuf
			if sorter != nil {
				sbuf = sorter.newBuf()
			}
			var buf []byte
			flush := func() error {
				outMu.Lock()
				defer outMu.Unlock()
				_, err := bw.Write(buf)
				buf = buf[:0]
				return err
			}
			for p := range parts {
				err := reducePartition(rctx, sh, p, func(large, small shuffle.Record) error {
					joinRows.Add(1)
					if sbuf != nil {
						return sbuf.add(large.Key, large.Seq, small.Seq, large.Row, small.Row)
					}
					buf = append(append(append(buf, large.Row...), ','), small.Row...)
					buf = append(buf, '\n')
					if len(buf) >= 256<<10 {
						return flush()
					}
					return nil
				}, &fps)
				sh.Release(p)
				reduced.Add(1)
				if err != nil {
					fail(err)
					return
				}
			}
			if err := flush(); err != nil {
				fail(err)
			}
		}()
	}
	wg.Wait()
	stopReduce()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	if sorter != nil {
		cw := &countingWriter{w: bw}
		total := sorter.outBytes()
		stopSort := func() {}
		if opt.Progress != nil {
			opt.Progress("sort", 0, total)
			stopSort = ticker(func() { opt.Progress("sort", cw.n.Load(), total) })
		}
		err := sorter.finish(ctx, cw)
		stopSort()
		if err != nil {
			return nil, err
		}
		rep.SortPeakBytes = sorter.peakBytes()
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	rep.JoinRows = joinRows.Load()
	rep.FalsePositiveRecords = fps.Load()
	members := rep.MapOutputRecords - rep.FalsePositiveRecords
	if nonMembers := rep.InputRecords - members; nonMembers > 0 {
		rep.FPPMeasured = float64(rep.FalsePositiveRecords) / float64(nonMembers)
	}
	lap("reduce")
	rep.ShufflePeakBytes = sh.Stats().PeakBytes
	if bad != nil {
		rep.BadRows = bad.n
		rep.BadRowExamples = bad.report(map[string]string{keySide.name: keySide.path, input.name: input.path})
	}
	rep.TimingsMs["total"] = float64(time.Since(start).Microseconds()) / 1000
	stopHeap()
	return rep, nil
}

// WriteText prints the report as `join run` does: a few readable lines.
func (r *Report) WriteText(w io.Writer) {
	f := r.Filter
	fmt.Fprintf(w, "filter %s: m=%d counters, k=%d, first level %d bits, memory %d bits, broadcast %d bytes, formula FP %.3g\n",
		f.Kind, f.M, f.K, f.FirstLevelBits, f.MemoryBits, r.BroadcastBytes, f.TheoreticalFPP)
	if r.BroadcastCopies < r.Mappers {
		fmt.Fprintf(w, "broadcast: %d mappers share %d copies of the filter (one each would take more than %s)\n",
			r.Mappers, r.BroadcastCopies, bytesText(MaxBroadcastBytes))
	}
	fmt.Fprintf(w, "keys: %d rows, %d distinct\n", r.KeysRecords, r.KeysDistinct)
	fmt.Fprintf(w, "input: %d rows; map output %d, filtered out %d, false positives %d (measured FP %.3g)\n",
		r.InputRecords, r.MapOutputRecords, r.FilteredOutRecords, r.FalsePositiveRecords, r.FPPMeasured)
	fmt.Fprintf(w, "shuffle: %d records, %d bytes (Arrow IPC), %.1f%% less than without a filter (estimated), %d bytes spilled, %.1f MiB held at most\n",
		r.ShuffleRecords, r.ShuffleBytes, 100*r.ShuffleReduction, r.SpilledBytes, float64(r.ShufflePeakBytes)/(1<<20))
	if r.BadRows > 0 {
		fmt.Fprintf(w, "bad rows: %d skipped; the first: %s\n", r.BadRows, strings.Join(r.BadRowExamples, "; "))
	}
	fmt.Fprintf(w, "join: %d rows; time build %.0f ms, broadcast %.0f ms, map %.0f ms, shuffle %.0f ms, reduce %.0f ms, total %.0f ms; peak heap %.1f MiB\n",
		r.JoinRows, r.TimingsMs["build"], r.TimingsMs["broadcast"], r.TimingsMs["map"], r.TimingsMs["shuffle"], r.TimingsMs["reduce"], r.TimingsMs["total"],
		float64(r.PeakHeapBytes)/(1<<20))
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// OutputHeader is the output header: the large side's header as it is, then the
// key side's columns but the key.
func OutputHeader(largeRaw []byte, keyHeader []string, keyIdx int) []byte {
	line := slices.Clone(largeRaw)
	for i, h := range keyHeader {
		if i == keyIdx {
			continue
		}
		line = append(line, ',')
		line = AppendCSVField(line, []byte(h))
	}
	return append(line, '\n')
}

// reducePartition joins partition p (the local executor's form of "group by
// key, separate by tag, cross product") in one pass over its batches: they come
// in arrival order, and every key-side record arrived before the first
// large-side one (the build phase closes its writers before the map phase
// starts), so the key-side records are indexed by key first and the large-side
// records then probe the index.
func reducePartition(ctx context.Context, sh *shuffle.Shuffle, p int, emit func(large, small shuffle.Record) error, fps *atomic.Int64) error {
	var smalls keyTable
	probing := false
	var fp int64
	err := sh.Partition(p, func(rec arrow.Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		keys, tags, seqs, rows := columns(rec)
		for i := 0; i < int(rec.NumRows()); i++ {
			if tags.Value(i) == TagKeys {
				if probing {
					return fmt.Errorf("join: internal error: partition %d has a key-side record after large-side ones", p)
				}
				smalls.add(keys.Value(i), seqs.Value(i), rows.Value(i))
				continue
			}
			if !probing {
				probing = true
				smalls.seal()
			}
			key := keys.Value(i)
			large := shuffle.Record{Key: key, Tag: TagInput, Seq: seqs.Value(i), Row: rows.Value(i)}
			matched, err := JoinRow(large, smalls.lookup(key), emit)
			if err != nil {
				return err
			}
			if !matched {
				fp++
			}
		}
		return nil
	})
	fps.Add(fp)
	return err
}

func columns(rec arrow.Record) (*array.Binary, *array.Uint8, *array.Int64, *array.Binary) {
	return rec.Column(0).(*array.Binary), rec.Column(1).(*array.Uint8), rec.Column(2).(*array.Int64), rec.Column(3).(*array.Binary)
}

// watchHeap samples the live heap every 20 ms into *peak until stopped.
func watchHeap(peak *uint64) func() {
	done := make(chan struct{})
	var once sync.Once
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > *peak {
			*peak = ms.HeapInuse
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return func() {
		once.Do(func() {
			close(done)
			wg.Wait()
			sample()
		})
	}
}

// countingWriter counts the bytes written through it; n may be read
// concurrently.
type countingWriter struct {
	w io.Writer
	n atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// ticker calls fn every 100 ms until stopped, and once more at the end.
func ticker(fn func()) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				fn()
				return
			case <-t.C:
				fn()
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}
