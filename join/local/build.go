package local

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/acbfjoin/acbfjoin/bank"
	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/keylist"
	"github.com/acbfjoin/acbfjoin/mdbf"
	"github.com/acbfjoin/acbfjoin/shuffle"
	"github.com/acbfjoin/acbfjoin/where"
)

// buildStats are what the build phase counted.
type buildStats struct {
	records  int64 // key-side rows
	distinct int   // distinct keys
	parts    partCounts
	sketch   *joinSketch // of the key-side rows' keys, for the join-size estimate
	cannot   keyCounts   // rows whose key cannot match (NULL; no value of an inferred type)
	// lo and hi are the least and greatest key of a one-column integer key
	// (key.Of's bytes, whose order is the integers'), for skipping a
	// table's chunks by their statistics; hi is nil without them.
	lo, hi []byte
	// index is the key set itself, kept for Filter auto's and the hot
	// exclusions' membership tests (nil otherwise); the broadcast phase
	// lets it go before the map phase.
	index keyIndex
	// whereDropped are the rows Options.KeysWhere dropped (not in
	// records); wherePruned those of them in chunks skipped unread.
	whereDropped int64
	wherePruned  pruned
}

// build reads the key side with one goroutine per mapper: each collects
// the keys of its parts, in parts by hash (keyCollector), and ships its
// key-side rows, tagged TagKeys, to the shuffle (a hot key's to each of
// its partitions: Options.Skew); then the keys are made distinct a part at
// a time, in parallel (mergeKeys).
//
// A key type inferred from the key side's text is decided by this read
// (x.pair.Deferred, deferring): it checks every key as inference would
// have in a pass of its own, and when one is no canonical integer it
// stops, the types are inferred by that pass, and the side is read again.
func (x *execution) build(ctx context.Context) (keylist.List, buildStats, error) {
	keys, st, ev, err := x.buildOnce(ctx)
	if len(x.pair.Deferred) == 0 {
		return keys, st, err
	}
	if err == nil { // every key a canonical integer: Int stands
		return keys, st, x.settleTypes(ctx, ev)
	}
	if !errors.Is(err, errNotCanonical) {
		return keys, st, err
	}
	if err := x.retype(ctx); err != nil {
		return keylist.List{}, st, err
	}
	keys, st, _, err = x.buildOnce(ctx)
	return keys, st, err
}

// buildOnce is one read of the key side (build), and with deferred key
// types what it found of their columns.
func (x *execution) buildOnce(ctx context.Context) (keylist.List, buildStats, []key.Evidence, error) {
	sketches, err := x.newJoinSketches()
	if err != nil {
		return keylist.List{}, buildStats{parts: newPartCounts(x.parts)}, nil, err
	}
	bd := x.newBuilder(sketches)
	sctx := ctx
	if len(x.pair.Deferred) > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithCancel(ctx)
		defer cancel()
		bd.inf = newInferring(x.keySpec, x.pair.Deferred, cancel)
	}
	stop := x.progress("build", x.keys.Progress, x.keys.Size)
	before := prunedNow(x.keys)
	err = source.Scan(sctx, x.keys, x.opt.Mappers, bd.newWorker, func(b *buildWorker, r source.RowReader) error {
		return bd.readPart(sctx, b, r)
	}, bd.finishWorker)
	stop()
	skipped := prunedSince(x.keys, before)
	if bd.inf != nil && bd.inf.failed.Load() && ctx.Err() == nil {
		return keylist.List{}, bd.st, nil, errNotCanonical
	}
	if err != nil {
		return keylist.List{}, bd.st, nil, err
	}
	keys, st, err := bd.finish(ctx, sketches)
	st.wherePruned = skipped
	st.whereDropped += skipped.rows
	if bd.inf != nil {
		return keys, st, bd.inf.evidence(), err
	}
	return keys, st, nil, err
}

// builder is the build phase's state shared by its workers: what every row
// is read with (the join type's padding, the bank's classes) and what the
// workers merge into when their parts are done.
type builder struct {
	x        *execution
	keepKeys bool // right and full joins: a key-side row carries the large side's padding
	nLarge   int
	padSpec  key.Spec
	cellCols []int      // the key side's columns a row carries, in order (keyCells)
	intKeys  bool       // a one-column integer key: the workers track its bounds
	strKeys  bool       // a one-column string key: the workers track its bounds too (bytewise, as Parquet's statistics order text)
	rawRows  bool       // a comma-separated CSV key side whose rows travel whole: made from the raw line (join.MapKeyRowRaw)
	tabRows  bool       // a table key side (Parquet, Arrow, JSON lines) of a one-column key whose rows travel whole: the key's value rendered alone, the rest straight from the columns (columnar.Rows.NextField, AppendOthers)
	cellRows bool       // tabRows' rows travel as typed cells made from the columns (keyCells' AppendCellsOf): no text of them is made
	bp       *bankPlan  // a bank join's, else nil
	inf      *inferring // the deferred key types' checks, else nil
	sketches []*joinSketch
	next     atomic.Int32 // the next worker's sketch

	mu     sync.Mutex      // guards the rest
	cols   []*keyCollector // the finished workers' keys
	merged []*classKeys    // a bank join's: each chosen class's keys
	st     buildStats
}

// newBuilder is the build's shared state before any row is read: each
// worker takes one of sketches.
func (x *execution) newBuilder(sketches []*joinSketch) *builder {
	bd := &builder{
		x:        x,
		keepKeys: x.opt.JoinType.KeepsUnmatchedKeys(),
		nLarge:   x.largeCols(),
		padSpec:  x.paddingSpec(),
		cellCols: x.keyCellCols(),
		intKeys:  !x.keySpec.Composite() && x.keySpec.Types[0] == key.Int,
		strKeys:  !x.keySpec.Composite() && x.keySpec.Types[0] == key.String,
		rawRows:  x.keys.Tab == nil && x.keys.Sep == ',' && !x.keySpec.Composite() && x.keyKeep == nil,
		tabRows:  x.keys.Tab != nil && !x.keySpec.Composite() && x.keyKeep == nil,
		cellRows: x.cellTypes != nil && x.keys.Tab != nil && x.keys.Types != nil,
		bp:       x.bank,
		sketches: sketches,
		st:       buildStats{parts: newPartCounts(x.parts)},
	}
	if bd.bp != nil {
		bd.merged = newClassKeySets(len(bd.bp.classes))
	}
	return bd
}

// newClassKeySets is n empty class key sets.
func newClassKeySets(n int) []*classKeys {
	sets := make([]*classKeys, n)
	for i := range sets {
		sets[i] = &classKeys{}
	}
	return sets
}

// buildWorker is one build goroutine's: its keys, its shuffle writer, what
// it counted, and the buffers its rows are assembled in.
type buildWorker struct {
	keys *keyCollector
	w    *shuffle.Writer
	rows int64
	buf  []byte
	// A bank join's: the class of each row, each chosen class's keys.
	cl   classifier
	sets []*classKeys
	tmp  []byte
	// The records of each partition; the partitions of a row (more
	// than one for a hot key's: Options.Skew).
	pc     partCounts
	parts  []int
	sk     *joinSketch
	cannot keyCounts
	lo, hi [8]byte
	any    bool // lo, hi are set
	// A string key's bounds (boundStr), their own copies.
	slo, shi []byte
	sany     bool
	// The non-empty values of each deferred key column (inferring).
	inferN []int64
	// Right and full joins: the output's writer for the rows whose key
	// cannot match (written here, padded), and a record's row with its
	// large-side padding.
	out            RowWriter
	pad, row, kept []byte
	cells          []byte     // a row's fields as typed cells (x.cellTypes)
	split          cellFields // appendCSVCells' scratch
	keyFields      [][]byte   // a row's key fields (right, full)
	// With a fieldReader: a row's key field at its column (the key's
	// readers index no other), and the key side's field count.
	view    [][]byte
	nfields int
	// Options.KeysWhere's copy, and the rows it dropped.
	where        *where.Pred
	whereDropped int64
}

// newWorker is a build goroutine's state, with its own shuffle writer and
// sketch.
func (bd *builder) newWorker() *buildWorker {
	x := bd.x
	w := &buildWorker{keys: &keyCollector{}, w: x.sh.NewWriter(), pc: newPartCounts(x.parts), sk: bd.sketches[bd.next.Add(1)-1], where: clonePred(x.keysWhere),
		parts: ownLines[int](1)[:0]} // written at every row (ship)
	if bd.bp != nil {
		w.cl.c = bd.bp.b.Classing
		w.sets = newClassKeySets(len(bd.bp.classes))
	}
	return w
}

// readPart reads the key-side rows of one part: each row's key goes into
// the worker's set and its row to the shuffle; a row whose key cannot
// match is counted (and, in a right or full join, written now); a row of a
// class the bank join did not choose is skipped.
func (bd *builder) readPart(ctx context.Context, b *buildWorker, r source.RowReader) error {
	x := bd.x
	fr, col := bd.fieldReader(r)
	others, _ := fr.(join.OthersAppender) // the reader's own copy of a row's other fields, if it makes one
	base := seqBase(r)                    // a record's place in the side: base + its offset
	if fr != nil && len(b.view) != col+1 {
		b.view, b.nfields = make([][]byte, col+1), len(x.keys.Header)
	}
	for n := 1; ; n++ {
		// keys: the row's key fields at their columns (all its fields,
		// or with a fieldReader only its key's, split: b.keys)
		var keys [][]byte
		if fr != nil {
			if !fr.NextField(col) {
				break
			}
			b.view[col] = fr.Field()
			keys = b.view
		} else {
			if !r.Next() {
				break
			}
			keys = r.Fields()
		}
		if n%checkEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if b.where != nil { // Options.KeysWhere: before anything counts the row
			ok, err := x.selected(b.where, r)
			if err != nil {
				return err
			}
			if !ok {
				b.whereDropped++
				continue
			}
		}
		if bd.inf != nil && !bd.inf.see(b, keys) {
			return errNotCanonical
		}
		ci := -1
		var label string
		if bd.bp != nil {
			var err error
			var skip bool
			if label, ci, skip, err = bd.class(b, r); err != nil {
				return err
			} else if skip {
				continue
			}
		}
		if x.keySpec.IsNull(key.NullsOf(r), keys) {
			if err := bd.unmatched(b, r, keys, keyNull); err != nil {
				return err
			}
			continue
		}
		var rec shuffle.Record
		var buf []byte
		var err error
		switch {
		case fr != nil && bd.tabRows && bd.cellRows:
			// The row's cells come from its columns below (keyCells): its
			// key alone here, no CSV text of the rest (the twins' 22
			// other columns took most of their build's CPU as text).
			buf, err = x.keySpec.Append(b.buf[:0], keys)
			rec = shuffle.Record{Key: buf, Tag: join.TagKeys, Seq: base + r.Offset()}
		case fr != nil:
			var ok bool
			var raw []byte // a table's row has no line: AppendOthers writes its row
			if !bd.tabRows {
				raw = r.Raw()
			}
			if rec, buf, ok, err = join.MapKeyLine(&x.keySpec, keys, b.nfields, raw, base+r.Offset(), b.buf[:0], others); !ok && err == nil {
				rec, buf = join.AppendKeyRow(rec, buf, &x.keySpec, r.Fields()) // the row's other fields split now
			}
		case bd.rawRows:
			rec, buf, err = join.MapKeyRowRaw(&x.keySpec, r.Fields(), r.Raw(), base+r.Offset(), b.buf[:0])
		default:
			rec, buf, err = join.MapKeyRow(&x.keySpec, r.Fields(), base+r.Offset(), b.buf[:0])
		}
		if err != nil {
			if key.Unmatchable(err, x.typing.Lenient) {
				if err := bd.unmatched(b, r, keys, keyUnmatchable); err != nil {
					return err
				}
				continue
			}
			if err := x.keyError(r, err); err != nil {
				return err
			}
			continue
		}
		if k := rec.Key; bd.intKeys && len(k) == 8 {
			b.bound(k)
		} else if bd.strKeys {
			b.boundStr(k)
		}
		if ci >= 0 {
			b.sets[ci].add(rec.Key)
			rec, buf, b.tmp = routeRow(rec, buf, x.opt.Route, label, ci, b.tmp)
		}
		if x.keyKeep != nil { // only the columns the output asks for travel
			b.kept = join.AppendPicked(b.kept[:0], r.Fields(), x.keyKeep)
			rec.Row = b.kept
		}
		if x.cellTypes != nil { // typed rows: the fields as cells, made once here (typedrows.go)
			if b.cells, err = bd.keyCells(b, r, rec.Row); err != nil {
				return err
			}
			rec.Row = b.cells
		}
		if bd.keepKeys {
			b.pad = bd.padding(b, keys, key.NullsOf(r))
			b.row = join.WithLargePadding(b.row[:0], b.pad, rec.Row)
			rec.Row = b.row
		}
		b.buf = buf
		if err := bd.ship(b, rec); err != nil {
			return err
		}
	}
	return r.Err()
}

// fieldReader is a RowReader that can read a record splitting only one
// of its fields (csvscan.Reader.NextField).
type fieldReader interface {
	NextField(col int) bool
	Field() []byte
}

// fieldReader returns r as a fieldReader, with the key's column, when the
// build reads only the key of each row and its raw line (rawRows), or the
// key's value and the other columns (tabRows; no bank classes, a key side
// of known width; a right or full join's padding reads the key too):
// readPart then splits or renders the row's other fields only when it
// must (a row the raw path does not copy, an unmatched row). Else nil.
func (bd *builder) fieldReader(r source.RowReader) (fieldReader, int) {
	fr, ok := r.(fieldReader)
	if !ok || !bd.rawRows && !bd.tabRows || bd.bp != nil || len(bd.x.keys.Header) == 0 {
		return nil, -1
	}
	return fr, bd.x.keySpec.Cols[0]
}

// class is the bank class of a key-side row: its label and index among
// the chosen classes, or skip for a row of a class not chosen (not in this
// join) or whose class value is refused (reported through keyError).
func (bd *builder) class(b *buildWorker, r source.RowReader) (label string, ci int, skip bool, err error) {
	label, err = b.cl.label(r.Fields()[bd.bp.classIdx])
	if err != nil {
		if err := bd.x.keyError(r, fmt.Errorf("%s: %w", bd.bp.b.ClassCol, err)); err != nil {
			return "", -1, true, err
		}
		return "", -1, true, nil
	}
	i, ok := bd.bp.index[label]
	if !ok {
		return "", -1, true, nil
	}
	return label, i, false, nil
}

// unmatched counts a key-side row whose key cannot match (NULL; no value
// of an inferred type): a right or full join writes its row now, padded.
func (bd *builder) unmatched(b *buildWorker, r source.RowReader, keys [][]byte, v keyVerdict) error {
	b.cannot.add(v)
	if !bd.keepKeys {
		return nil
	}
	x := bd.x
	if b.out == nil {
		b.out = x.sink.Writer()
	}
	b.pad = bd.padding(b, keys, key.NullsOf(r))
	if x.keyKeep != nil {
		b.row = join.AppendPicked(b.row[:0], r.Fields(), x.keyKeep)
	} else {
		b.row = join.AppendKeyFields(b.row[:0], x.keySpec, r.Fields())
	}
	if x.cellTypes != nil {
		var err error
		if b.cells, err = bd.keyCells(b, r, b.row); err != nil {
			return err
		}
		b.row = append(b.row[:0], b.cells...)
	}
	return b.out.Write(nil, -1, seqBase(r)+r.Offset(), b.pad, b.row)
}

// keyCells is a key-side row's fields (row, CSV) as typed cells, in
// b.cells' storage: from its table's columns where the reader r is a
// table's rows (the columns the output carries: Options.Columns' asked,
// or all but the key's; numbers, dates and times native, an empty text a
// value apart from NULL), else its CSV fields split once, as text cells.
func (bd *builder) keyCells(b *buildWorker, r any, row []byte) ([]byte, error) {
	x := bd.x
	if tc, ok := r.(interface {
		AppendCellsOf([]byte, []int, []columnar.Type) []byte
	}); ok && x.keys.Types != nil {
		return tc.AppendCellsOf(b.cells[:0], bd.cellCols, x.keys.Types), nil
	}
	cells, err := appendCSVCells(b.cells[:0], row, &b.split)
	if err != nil {
		return cells, fmt.Errorf("join: internal error: a key-side row: %w", err)
	}
	return cells, nil
}

// padding is the large side's padding of a right or full join's key-side
// row whose key fields are at their columns of keys (its key fields in the
// large side's key columns; a NULL's is empty), in b.pad's storage.
func (bd *builder) padding(b *buildWorker, keys [][]byte, nulls key.Nulls) []byte {
	b.keyFields = b.keyFields[:0]
	for _, c := range bd.x.keySpec.Cols {
		b.keyFields = append(b.keyFields, keys[c])
	}
	if bd.x.cellTypes != nil {
		return appendCellPadding(b.pad[:0], bd.nLarge, bd.padSpec.Cols, b.keyFields, bd.x.keySpec.Cols, nulls)
	}
	return join.AppendLargePadding(b.pad[:0], bd.nLarge, bd.padSpec, b.keyFields)
}

// mergeBounds widens the key side's bounds (st.lo, st.hi; hi nil while
// there are none) to a finished worker's.
func (st *buildStats) mergeBounds(b *buildWorker) {
	if b.any {
		if st.hi == nil || string(b.lo[:]) < string(st.lo) {
			st.lo = b.lo[:]
		}
		if st.hi == nil || string(b.hi[:]) > string(st.hi) {
			st.hi = b.hi[:]
		}
	}
	if b.sany { // a string key's (never beside an integer key's)
		if st.hi == nil || bytes.Compare(b.slo, st.lo) < 0 {
			st.lo = b.slo
		}
		if st.hi == nil || bytes.Compare(b.shi, st.hi) > 0 {
			st.hi = b.shi
		}
	}
}

// boundStr widens the worker's string key bounds to the key k, compared
// as bytes (Parquet's order of text and binary values, which its
// statistics give). A copy only when a bound moves. The bounds are never
// nil once set, an empty key's included: a nil hi is no bounds
// (mergeBounds), and a worker whose keys were all "" (a Parquet, Arrow or
// JSON lines side's empty string, which is a value) had its bounds taken
// for none, the other workers' least key kept as the side's, and the
// row groups of "" rows skipped: a review found 30,000 of 30,190 rows
// lost in half the runs.
func (b *buildWorker) boundStr(k []byte) {
	if b.slo == nil {
		b.slo, b.shi = []byte{}, []byte{}
	}
	if !b.sany || bytes.Compare(k, b.slo) < 0 {
		b.slo = append(b.slo[:0], k...)
	}
	if !b.sany || bytes.Compare(k, b.shi) > 0 {
		b.shi = append(b.shi[:0], k...)
	}
	b.sany = true
}

// bound widens the worker's key bounds to the 8-byte integer key k.
func (b *buildWorker) bound(k []byte) {
	if !b.any || string(k) < string(b.lo[:]) {
		b.lo = [8]byte(k)
	}
	if !b.any || string(k) > string(b.hi[:]) {
		b.hi = [8]byte(k)
	}
	b.any = true
}

// ship counts a key-side record (its key into the worker's set and
// sketch) and adds it to the shuffle, in each of its key's partitions.
func (bd *builder) ship(b *buildWorker, rec shuffle.Record) error {
	x := bd.x
	b.rows++
	h1, h2 := hashing.Sum(rec.Key)
	b.keys.add(rec.Key, h1)
	b.sk.add(h1, h2)
	p := join.PartitionOf(h1, x.parts)
	b.pc.plain[p]++
	b.parts = x.skew.keyPartitions(rec.Key, p, b.parts)
	for _, q := range b.parts {
		b.pc.actual[q]++
		b.pc.bytes[q] += int64(len(rec.Key) + len(rec.Row))
		if err := b.w.Add(q, rec); err != nil {
			return err
		}
	}
	return nil
}

// finishWorker hands a worker's keys to the builder (finish merges them),
// adds its counts to the builder's and closes its writers.
func (bd *builder) finishWorker(b *buildWorker) error {
	bd.mu.Lock()
	bd.cols = append(bd.cols, b.keys)
	if bd.inf != nil {
		bd.inf.add(b.inferN)
	}
	for i, set := range b.sets {
		bd.merged[i].merge(set)
	}
	st := &bd.st
	st.records += b.rows
	st.whereDropped += b.whereDropped
	st.parts.add(b.pc)
	st.cannot.null += b.cannot.null
	st.cannot.unmatchable += b.cannot.unmatchable
	st.mergeBounds(b)
	bd.mu.Unlock()
	if b.out != nil {
		if err := b.out.Flush(); err != nil {
			b.w.Close()
			return err
		}
	}
	return b.w.Close()
}

// finish is the build's result once every worker is done: the distinct
// keys, the merged sketch, and what later phases keep (the key index for
// auto and exclusions, a bank's class key sets, sealed).
func (bd *builder) finish(ctx context.Context, sketches []*joinSketch) (keylist.List, buildStats, error) {
	x, st := bd.x, bd.st
	keys, index, err := mergeKeys(ctx, bd.cols, x.opt.Mappers, x.opt.Filter == join.FilterAuto || x.opt.HotExclusions > 0)
	bd.cols = nil
	if err != nil {
		return keylist.List{}, st, err
	}
	st.distinct = keys.Len()
	if index != nil {
		st.index = index
	}
	if st.sketch, err = mergeSketches(sketches); err != nil {
		return keylist.List{}, st, err
	}
	if bp := bd.bp; bp != nil {
		m := map[string]*classKeys{}
		for i, c := range bp.classes {
			m[c.Label] = bd.merged[i]
		}
		sealAll(m)
		bp.sets = bd.merged
	}
	return keys, st, nil
}

// keySet is a set of join keys, the local hash table of a build worker:
// 8-byte keys (every integer key) in a u64Set (their bytes read
// little-endian), which allocates nothing a key, others in a map of
// strings.
type keySet struct {
	ints u64Set
	strs map[string]struct{}
}

func (s *keySet) add(key []byte) {
	if len(key) == 8 {
		s.ints.add(binary.LittleEndian.Uint64(key))
		return
	}
	if s.strs == nil {
		s.strs = map[string]struct{}{}
	}
	if _, ok := s.strs[string(key)]; !ok {
		s.strs[string(key)] = struct{}{}
	}
}

// has reports whether key is in the set. No allocation.
func (s *keySet) has(key string) bool {
	if len(key) == 8 {
		// The bytes little-endian, as add reads them (no conversion to a
		// slice, which could allocate).
		var k uint64
		for i := 7; i >= 0; i-- {
			k = k<<8 | uint64(key[i])
		}
		return s.ints.has(k)
	}
	_, ok := s.strs[key]
	return ok
}

// len returns the number of keys.
func (s *keySet) len() int { return s.ints.len() + len(s.strs) }

// hashHasBatch sets out[i] to has(keys[i]), one by one: exact (a keySet
// keeps no hashes).
func (s *keySet) hashHasBatch(keys [][]byte, out []bool) {
	for i, k := range keys {
		out[i] = s.has(unsafe.String(unsafe.SliceData(k), len(k)))
	}
}

// merge adds the keys of o.
func (s *keySet) merge(o *keySet) {
	if s.ints.len() < o.ints.len() {
		s.ints, o.ints = o.ints, s.ints // insert the smaller into the larger
	}
	o.ints.each(s.ints.add)
	o.ints = u64Set{}
	if s.strs == nil && len(o.strs) > 0 {
		s.strs, o.strs = o.strs, nil
	}
	for k := range o.strs {
		s.strs[k] = struct{}{}
	}
}

// list returns the keys, in no order, in one allocation for the 8-byte ones.
func (s *keySet) list() [][]byte {
	keys := make([][]byte, 0, s.len())
	arena := make([]byte, 0, 8*s.ints.len())
	s.ints.each(func(k uint64) {
		arena = binary.LittleEndian.AppendUint64(arena, k)
		keys = append(keys, arena[len(arena)-8:len(arena):len(arena)])
	})
	for k := range s.strs {
		keys = append(keys, []byte(k))
	}
	return keys
}

// filter builds the filter of the key set, or reads the filter file and
// checks it was built for this join and these keys.
func (x *execution) filter(ctx context.Context, keys keylist.List) (*filters.Built, error) {
	if x.bank != nil {
		if err := x.bank.check(x.opt.Bank); err != nil {
			return nil, err
		}
		if len(x.bank.classes) == 0 { // a bank of no key rows: the empty join
			return filters.Build(x.bank.b.Kind, nil, x.bank.b.Sizing)
		}
		return bank.Union(x.bank.classes)
	}
	if x.opt.FilterFile != "" {
		ff, name, err := readFilterFile(ctx, x.opt.FilterFile)
		if err != nil {
			return nil, err
		}
		if err := ff.Check(name, x.opt, keys); err != nil {
			return nil, err
		}
		x.filterFile = ff.Report(name)
		return ff.Built, nil
	}
	if x.opt.Layout == join.LayoutPerColumn {
		return mdbf.Build(x.opt.Filter, x.keySpec.TupleTypes(), keys.Slices(), x.opt.Sizing)
	}
	return filters.BuildList(x.opt.Filter, keys, x.opt.Sizing)
}
