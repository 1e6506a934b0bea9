package local

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/sketch/topk"
)

// Hot exclusions (Options.HotExclusions, docs/auto.md): a filter's false
// positives are counted in rows, and a large side whose keys are skewed
// ships a false positive key's rows as often as the key occurs, so a few
// frequent non-members can carry most of the false positive rows. A pass
// over the large side before the map phase finds the most frequent keys
// that pass the filter and are not keys (each mapper a HeavyKeeper top-k of
// them, merged); the map phase drops rows of those keys as the filter drops
// the others.

// exclusionSketchBytes is the memory of each pass worker's top-k sketch per
// key asked for: 256 bytes (a HeavyKeeper of 2 arrays about 14 buckets a key
// wide, besides its heap), so that a key's bucket is rarely contested by
// another frequent key.
const exclusionSketchBytes = 256

// exclusions is the exact set the map phase tests a passing key against.
type exclusions struct {
	set      *filters.Built // the exact set of the excluded keys
	found    int
	excluded atomic.Int64 // rows dropped by it
}

// findExclusions is the pass: it reads the large side again with the
// mappers, keys each row (x.joinSpec), and adds to a top-k sketch every key
// that f lets through and that is not a key (index: the build's set,
// an exact test). The n most frequent become the exclusions: keys that are
// not keys, by construction, so that no row that joins is ever dropped. The
// large side must be a regular file (it is read twice). Cost: a read and
// parse of the large side, one filter probe a row and a set lookup and
// sketch update a passing row.
func (x *execution) findExclusions(ctx context.Context, f filters.Filter, n int, index keyIndex) (*exclusions, error) {
	if err := x.checkExclusions(); err != nil {
		return nil, err
	}
	if index == nil {
		return nil, fmt.Errorf("hot exclusions: the key set was not kept (a bug)")
	}
	pass, err := x.openExclusionPass(ctx)
	if err != nil {
		return nil, err
	}
	defer pass.Close()
	p, err := x.newExclusionPass(f, n)
	if err != nil {
		return nil, err
	}
	p.index = index
	if pass.Tab != nil {
		err = source.ScanTable(ctx, pass, x.opt.Mappers, p.newWorker, func(w *exclusionWorker, c *source.Chunk) error {
			return p.chunk(ctx, pass, w, c)
		}, p.done)
	} else {
		err = source.Scan(ctx, pass, x.opt.Mappers, p.newWorker, func(w *exclusionWorker, rr source.RowReader) error {
			return p.rows(ctx, w, rr.(*csvscan.Reader))
		}, p.done)
	}
	if err != nil {
		return nil, err
	}
	keys := p.top()
	set, err := filters.Build(filters.Exact, keys, filters.Sizing{})
	if err != nil {
		return nil, err
	}
	return &exclusions{set: set, found: len(keys)}, nil
}

// openExclusionPass opens the large side a second time, as the map phase
// reads it (its bad rows skipped, not reported: the map phase reports
// them), and refuses it if its header changed since the first read.
func (x *execution) openExclusionPass(ctx context.Context) (*source.Side, error) {
	var bad *source.BadRows
	if x.input.Bad != nil {
		bad = &source.BadRows{} // the map phase reports them
	}
	pass, err := source.Open(ctx, source.Options{Option: "Input", Path: x.input.Path, Name: x.input.Name, Parts: x.opt.Mappers, SkipBad: bad != nil, Sep: x.input.Sep,
		Format: x.opt.InputFormat, TempDir: x.opt.TempDir})
	if err != nil {
		return nil, err
	}
	pass.Bad = bad
	pass.SkipNested() // checked on x.input (checkNested)
	if !slices.Equal(pass.Header, x.input.Header) {
		pass.Close()
		return nil, fmt.Errorf("%s: its header changed between two reads: run again on a copy that nothing writes", x.input.Name)
	}
	return pass, nil
}

// exclusionPass is the pass's shared state: the filter the keys are tested
// against, a top-k sketch for each worker, and the merge of them.
type exclusionPass struct {
	x       *execution
	f       filters.Filter
	index   keyIndex // the key set: a key is never an exclusion
	workers []*exclusionWorker
	next    atomic.Int32

	mu     sync.Mutex
	merged *topk.TopK
}

// exclusionWorker is a pass worker's sketch and buffers.
type exclusionWorker struct {
	t     *topk.TopK
	key   []byte
	batch csvscan.Batch
	kb    [8]byte
	m     mapWorker // a table's chunks' keys (chunkKeys)
}

// newExclusionPass makes the pass's sketches, each of memory for the n
// keys asked for.
func (x *execution) newExclusionPass(f filters.Filter, n int) (*exclusionPass, error) {
	cfg := topk.ForMemory(n, uint64(n)*exclusionSketchBytes)
	cfg.Seed = 1
	p := &exclusionPass{x: x, f: f, workers: make([]*exclusionWorker, x.opt.Mappers)}
	for i := range p.workers {
		t, err := topk.New(cfg)
		if err != nil {
			return nil, fmt.Errorf("hot exclusions of %d keys: %w", n, err)
		}
		p.workers[i] = &exclusionWorker{t: t}
	}
	return p, nil
}

// newWorker hands out the next worker's state.
func (p *exclusionPass) newWorker() *exclusionWorker { return p.workers[p.next.Add(1)-1] }

// add counts key in w's sketch if the filter lets it through and it is not
// a key.
func (p *exclusionPass) add(w *exclusionWorker, key []byte) {
	// The sketch keeps at most topk.MaxKeyLen bytes of a key: a
	// longer one would come back cut, possibly equal to a key.
	if len(key) < topk.MaxKeyLen && p.f.Contains(key) && !p.index.has(string(key)) {
		w.t.Add(key, 1)
	}
}

// done merges a worker's sketch into the pass's.
func (p *exclusionPass) done(w *exclusionWorker) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.merged == nil {
		p.merged = w.t
		return nil
	}
	return p.merged.Merge(w.t)
}

// chunk counts the keys of a table's chunk: its key columns, keyed as the
// map phase keys them (chunkKeys; rows that do not key are its to report).
func (p *exclusionPass) chunk(ctx context.Context, pass *source.Side, w *exclusionWorker, c *source.Chunk) error {
	x := p.x
	if w.m.tm == nil {
		w.m.tm = newTableMapper(pass)
	}
	cols, err := c.Read(x.joinSpec.Cols)
	if err != nil {
		return err
	}
	for lo := 0; lo < cols[0].Len(); lo += mapBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := x.chunkKeys(&w.m, x.joinSpec, chunkRows{c: c, cols: cols, lo: lo, hi: min(lo+mapBatch, cols[0].Len())}, false); err != nil {
			return err
		}
		for _, k := range w.m.tm.keys {
			p.add(w, k)
		}
	}
	return nil
}

// rows counts the keys of a text part's rows; a row that does not key is
// skipped (the map phase reports it).
func (p *exclusionPass) rows(ctx context.Context, w *exclusionWorker, r *csvscan.Reader) error {
	x := p.x
	if x.joinSpec.Composite() {
		for r.Next() {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var v keyVerdict
			var err error
			if w.key, v, err = rowKey(w.key[:0], r, x.joinSpec, x.typing.Lenient); err == nil && v == keyOK { // else the map phase reports it
				p.add(w, w.key)
			}
		}
		return r.Err()
	}
	// One column: its field alone, in batches, as the map phase reads it.
	kt, col := x.joinSpec.Types[0], x.joinSpec.Cols[0]
	for r.NextBatch(col, mapBatch, &w.batch) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		for i := range w.batch.Len() {
			fld := w.batch.Field(i)
			if key, err := key.Of(kt, w.kb[:], fld); err == nil && len(fld) > 0 { // else the map phase reports it (an empty field is NULL)
				p.add(w, key)
			}
		}
	}
	return r.Err()
}

// top is the exclusions: the merged sketch's most frequent keys, never a
// key whatever the sketch returns.
func (p *exclusionPass) top() [][]byte {
	var keys [][]byte
	if p.merged != nil {
		for _, it := range p.merged.Top() {
			if !p.index.has(string(it.Key)) {
				keys = append(keys, it.Key)
			}
		}
	}
	return keys
}

// checkExclusions refuses Options.HotExclusions for a large side that is a
// stream (it is read twice), before anything is built.
func (x *execution) checkExclusions() error {
	if x.opt.HotExclusions > 0 && !x.input.Regular() {
		return &option.Error{Pkg: "join", Name: "HotExclusions", Value: x.opt.HotExclusions, Err: join.ErrOptions,
			Reason: fmt.Sprintf("reads the large side twice (a pass for its frequent keys), and %s is a stream: save it to a file", x.input.Name)}
	}
	return nil
}

// excluding is a filter copy that also drops the excluded keys; it counts
// the rows it drops for them. Contains only reads (the counter is atomic).
type excluding struct {
	f   filters.Filter
	bf  filters.BatchFilter // f, if it tests batches
	ex  filters.Filter
	cnt *atomic.Int64
}

func (e *excluding) Contains(key []byte) bool {
	if !e.f.Contains(key) {
		return false
	}
	if e.ex.Contains(key) {
		e.cnt.Add(1)
		return false
	}
	return true
}

func (e *excluding) ContainsBatch(keys [][]byte, out []bool) {
	if e.bf != nil {
		e.bf.ContainsBatch(keys, out)
	} else {
		for i, k := range keys {
			out[i] = e.f.Contains(k)
		}
	}
	var n int64
	for i, k := range keys {
		if out[i] && e.ex.Contains(k) {
			out[i] = false
			n++
		}
	}
	if n > 0 {
		e.cnt.Add(n)
	}
}

// containsEntries is ContainsBatch without the count, for a dictionary's
// entries (filterDict): out[i] the verdict, excl[i] whether keys[i]
// passed the filter and was dropped as excluded; the caller counts the
// rows of each excluded entry, not the entry once.
func (e *excluding) containsEntries(keys [][]byte, out, excl []bool) {
	if e.bf != nil {
		e.bf.ContainsBatch(keys, out)
	} else {
		for i, k := range keys {
			out[i] = e.f.Contains(k)
		}
	}
	for i, k := range keys {
		excl[i] = out[i] && e.ex.Contains(k)
		if excl[i] {
			out[i] = false
		}
	}
}

// wrap returns the copies, each dropping the excluded keys too.
func (ex *exclusions) wrap(copies []filters.Filter) []filters.Filter {
	out := make([]filters.Filter, len(copies))
	for i, c := range copies {
		bf, _ := c.(filters.BatchFilter)
		out[i] = &excluding{f: c, bf: bf, ex: ex.set.Filter, cnt: &ex.excluded}
	}
	return out
}

// report is what the exclusions did in a join reported as rep.
func (ex *exclusions) report(asked int, rep *join.Report) *join.ExclusionsReport {
	r := &join.ExclusionsReport{Asked: asked, Found: ex.found, BroadcastBytes: ex.set.SerializedBytes, ExcludedRecords: ex.excluded.Load()}
	if nonMembers := rep.TestedNonMembers(); nonMembers > 0 {
		r.FPPMeasuredWithout = float64(rep.FalsePositiveRecords+r.ExcludedRecords) / float64(nonMembers)
	}
	return r
}
