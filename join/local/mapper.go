package local

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/shuffle"
	"github.com/acbfjoin/acbfjoin/where"
)

// mapStats are what the map phase counted.
type mapStats struct {
	records int64 // large-side rows read (bad rows skipped not counted)
	output  int64 // rows the filter let through
	// droppedBytes is what the dropped rows would have added to the
	// shuffle's batches (shuffle.RecordBytes each).
	droppedBytes int64
	// parts counts the survivors of each partition; actual only with
	// hot keys (Options.Skew), else it is plain.
	parts partCounts
	// sketch is of the survivors' keys, for the join-size estimate.
	sketch *joinSketch
	// cannot counts the rows whose key cannot match (NULL; no value of an
	// inferred type): read, never tested.
	cannot keyCounts
	// table is what a table side's chunks did (nil for CSV).
	table *join.TableReport
	// bypassed counts the rows anti, left and full joins wrote without a
	// shuffle, and their bytes.
	bypassed, bypassedBytes int64
	// guard is what the mappers' filter guards did.
	guard guardStats
	// whereDropped are the rows Options.Where dropped (not in records);
	// wherePruned those of them in chunks skipped unread (pruneWhere).
	whereDropped int64
	wherePruned  pruned
}

// mapBatch is how many records a mapper reads at once (csvscan.NextBatch).
const mapBatch = 256

// mapWorker is what every mapper has, whatever its key: a filter copy, a
// shuffle writer, its counts, and the survivor's way to its partition.
type mapWorker struct {
	f                              filters.Filter
	w                              *shuffle.Writer
	rows, out, dropRows, dropBytes int64
	enc                            []byte   // a row re-encoded as CSV, or as text cells (cells)
	cells                          bool     // a CSV side's rows travel as text cells (typed rows: x.cellTypes; typedrows.go)
	split                          [][]byte // a row's fields (splitLine)
	pc                             partCounts
	spread                         *spreader // with hot keys
	sk                             *joinSketch
	sep                            byte
	nfields, parts                 int
	cannot                         keyCounts
	tm                             *tableMapper // a table side's scratch (maptable.go)
	// Anti, left and full joins: a row the filter rejects, or whose key is
	// NULL, is written to the output here (out), with keyPad after it.
	bypass              bool
	bw                  RowWriter
	newOut              func() RowWriter
	keyPad              []byte
	passedBy, passedBy8 int64 // rows written here, and their bytes
	guard               filterGuard
	keep                []int       // the large side's columns the output asks for (nil: all)
	where               *where.Pred // Options.Where's copy (nil: none)
	whereDropped        int64       // the rows it dropped (not in rows)
	seqBase             int64       // the part being read's (seqBase): emitCSV and rejectCSV add it
	keyLo, keyHi        []byte      // mapInputs'
	points              *keyPoints  // mapInputs'
	bloom               *fileBloom
}

// mapInputs are what the map phase reads besides the large side: the
// filter's copies (one a mapper, or shared) and the key side's least and
// greatest key (buildStats.lo, hi: a table's chunks skipped by their
// statistics; nil without them) and every key where they are few enough
// (keyPoints: a chunk between two keys skipped too; nil: the range alone),
// and the skipping of a Parquet side's row groups by the file's own Bloom
// filters (nil: none).
type mapInputs struct {
	copies       []filters.Filter
	keyLo, keyHi []byte
	points       *keyPoints
	bloom        *fileBloom
}

// newMapWorker is mapper i's, its filter one of copies.
func (x *execution) newMapWorker(i int, in mapInputs, sketches []*joinSketch) mapWorker {
	m := mapWorker{f: in.copies[i%len(in.copies)], keyLo: in.keyLo, keyHi: in.keyHi, points: in.points, bloom: in.bloom, w: x.sh.NewWriter(), pc: newPartCounts(x.parts), sk: sketches[i],
		sep: x.input.Sep, nfields: len(x.input.Header), parts: x.parts,
		bypass: x.opt.JoinType.KeepsUnmatchedLarge(), newOut: x.sink.Writer, keyPad: x.shape().keyPad, guard: newFilterGuard(x), keep: x.largeKeep,
		where: clonePred(x.where)}
	if x.input.Tab != nil {
		m.sep = ',' // a table's rows come as CSV lines (columnar.Rows.Raw)
	} else {
		m.cells = x.cellTypes != nil
	}
	if x.skew != nil {
		m.spread = newSpreader(x.skew, i)
	}
	return m
}

// drop counts a row the filter dropped: what its row's and key's bytes
// would have cost the shuffle (the per-record rest is added at the end).
func (m *mapWorker) drop(rowBytes, keyBytes int) {
	m.drops(1, int64(rowBytes+keyBytes))
}

// drops counts rows dropped rows at once, bytes their rows' and keys'
// bytes, as drop does one: the batch loops sum them in locals, which stay
// in registers, and add them here once a batch.
func (m *mapWorker) drops(rows, bytes int64) {
	m.dropRows += rows
	m.dropBytes += bytes
}

// reject handles a row that cannot match (the filter rejected its key,
// filtered; or the key is NULL or unmatchable): with anti, left and full
// joins written to the output without a shuffle (raw, a CSV line). A
// filtered row counts as dropped (what it would have cost the shuffle);
// a NULL one is no filter's saving (it passes the shuffle by with no
// filter too: a review found --filter none reporting 1.9% saved).
func (m *mapWorker) reject(key []byte, offset int64, raw []byte, filtered bool) error {
	if filtered {
		m.drop(len(raw), len(key))
	}
	if !m.bypass {
		return nil
	}
	if m.bw == nil {
		m.bw = m.newOut()
	}
	m.passedBy++
	m.passedBy8 += int64(len(raw))
	return m.bw.Write(key, offset, -1, raw, m.keyPad)
}

// rejectCSV is reject of a CSV side's row, re-encoded as CSV if its file
// has another separator.
func (m *mapWorker) rejectCSV(r source.RowReader, key []byte, offset int64, raw []byte, filtered bool) error {
	if m.bypass {
		var err error
		if raw, err = m.csvLine(r, raw); err != nil {
			return err
		}
	}
	return m.reject(key, m.seqBase+offset, raw, filtered)
}

// seqBase is what orders the records of r, a part of its side, among the
// side's: its offset (a CSV row's byte, a table row's number) counts in
// its file, and of a side of many files the files before it come first
// (csvscan.Reader's and columnar.Rows' SeqBase; 0 for a side of one).
// Once a part: a record's place is seqBase + its offset; --sort orders by
// it.
func seqBase(r source.RowReader) int64 {
	if b, ok := r.(interface{ SeqBase() int64 }); ok {
		return b.SeqBase()
	}
	return 0
}

// emitCSV sends a survivor of a CSV side (raw, of record offset, a row of
// r) to its partition, re-encoded as CSV if its file has another
// separator (only the survivors are).
func (m *mapWorker) emitCSV(r source.RowReader, key []byte, offset int64, raw []byte) error {
	raw, err := m.csvLine(r, raw)
	if err != nil {
		return err
	}
	return m.emit(key, m.seqBase+offset, raw)
}

// csvLine is a CSV side's row as the shuffle and the output carry it: as it
// is, re-encoded as CSV when its separator is not a comma or it holds a CR
// (csvscan.PassRaw; a differential test found a bare CR passed on
// unquoted, which other readers took for a line break), and cut to the
// columns the output asks for (Options.Columns: keep); with typed rows
// (m.cells: a table key side's typed output) its fields as text cells,
// an empty one a NULL, as the row's CSV text would have been read.
func (m *mapWorker) csvLine(r source.RowReader, raw []byte) ([]byte, error) {
	if m.keep == nil && !m.cells && csvscan.PassRaw(raw, m.sep) {
		return raw, nil
	}

	fields, err := m.splitLine(raw)
	if err != nil {
		return nil, r.Errorf("%w", err)
	}
	switch {
	case m.cells:
		m.enc = m.enc[:0]
		if m.keep == nil {
			for _, f := range fields {
				m.enc = columnar.AppendTextBytes(m.enc, f)
			}
		} else {
			for _, i := range m.keep {
				m.enc = columnar.AppendTextBytes(m.enc, fields[i])
			}
		}
	case m.keep != nil:
		m.enc = join.AppendPicked(m.enc[:0], fields, m.keep)
	default:
		m.enc = csvscan.AppendFields(m.enc[:0], fields)
	}
	return m.enc, nil
}

// splitLine returns the fields of raw, a row of the side without its line
// break, as the reader read them. A row without a quote is split at the
// separator into m.split, slices of raw, without an allocation; any other
// goes through the parser (parseRaw), as do rows of the wrong field count
// (for its error). The rows the filter rejects pass here when the output
// keeps them (anti, left, full) and Columns cuts them: a parser a row made
// that join 25x slower (4.4 s against 0.18 s for 4M rows). A CR raw ends
// with is its last field's (the reader took the line's own CR away with
// its LF): a review found a line ending CR CR LF losing a CR here that
// the reader, and the stream and Beam engines, kept.
func (m *mapWorker) splitLine(raw []byte) ([][]byte, error) {
	if len(raw) > 0 && bytes.IndexByte(raw, '"') < 0 {
		m.split = m.split[:0]
		rest := raw
		for {
			i := bytes.IndexByte(rest, m.sep)
			if i < 0 {
				m.split = append(m.split, rest)
				break
			}
			m.split = append(m.split, rest[:i])
			rest = rest[i+1:]
		}
		if len(m.split) == m.nfields {
			return m.split, nil
		}
	}
	return parseRaw(raw, m.nfields, m.sep)
}

// parseRaw is csvscan.ParseRecordSep of raw, a record without its line end,
// as the reader reads it in a file: with a line end of its own after it
// ("\r\n", which the parser takes away whole), so that a CR raw ends with
// stays its last field's. Only such a raw is copied to add it: the parser
// ends any other at the input's end as at a line end. O(len(raw)).
func parseRaw(raw []byte, nfields int, sep byte) ([][]byte, error) {
	if len(raw) == 0 || raw[len(raw)-1] != '\r' {
		return csvscan.ParseRecordSep(raw, nfields, sep)
	}
	line := make([]byte, len(raw), len(raw)+2)
	copy(line, raw)
	return csvscan.ParseRecordSep(append(line, '\r', '\n'), nfields, sep)
}

// emit sends a survivor (raw, a CSV line, its row's offset in the side) to
// its partition: sketched, spread if its key is hot.
func (m *mapWorker) emit(key []byte, offset int64, raw []byte) error {
	if m.guard.skipped {
		m.guard.unprobed++
	}
	return m.emitAs(key, offset, raw, m.guard.skipped)
}

// emitAs is emit of a row its filter did not probe where unprobed (the
// guard had turned it off for the row's chunk): a helper's emit of
// another mapper's survivors (rowHelp) carries that mapper's verdict. It
// counts no unprobed row: the guard whose verdict it is counts them (a
// helper's guard, never turned off, would not report them: guardStats.add).
func (m *mapWorker) emitAs(key []byte, offset int64, raw []byte, unprobed bool) error {
	h1, h2 := hashing.Sum(key)
	return m.emitHashed(key, h1, h2, offset, raw, unprobed)
}

// emitHashed is emitAs of a key whose hashing.Sum is (h1, h2), hashed by
// the caller: a dictionary's survivors are hashed an entry at a time
// (filterDictRows), not a row at a time. O(1) beside the shuffle's copy.
func (m *mapWorker) emitHashed(key []byte, h1, h2 uint64, offset int64, raw []byte, unprobed bool) error {
	m.out++
	m.sk.add(h1, h2)
	p := join.PartitionOf(h1, m.parts)
	m.pc.plain[p]++
	if m.spread != nil {
		p = m.spread.partition(key, p)
		m.pc.actual[p]++
	}
	rec := join.InputRecord(key, offset, raw)
	if unprobed {
		rec.Tag = join.TagUnprobed
	}
	return m.w.Add(p, rec)
}

// done adds the worker's counts to st (under mu) and closes its writer.
func (m *mapWorker) done(mu *sync.Mutex, st *mapStats) error {
	mu.Lock()
	st.records += m.rows
	st.whereDropped += m.whereDropped
	st.output += m.out
	// shuffle.RecordBytes of each dropped row, summed: its row and key
	// bytes plus an empty record's cost.
	st.droppedBytes += m.dropBytes + m.dropRows*shuffle.RecordBytes(shuffle.Record{})
	st.parts.add(m.pc)
	st.cannot.null += m.cannot.null
	st.cannot.unmatchable += m.cannot.unmatchable
	st.bypassed += m.passedBy
	st.bypassedBytes += m.passedBy8
	st.guard.add(&m.guard)
	if m.tm != nil {
		m.tm.addTo(st.table)
	}
	mu.Unlock()
	if m.bw != nil {
		if err := m.bw.Flush(); err != nil {
			m.w.Close()
			return err
		}
	}
	return m.w.Close()
}

// mapRows runs the map phase with a mapper each (newWorker(i)) reading
// a CSV side's rows with read (a *csvscan.Reader), or a table side's
// chunks with mapChunk (maptable.go, Options.Where too): the counting, the
// sketches and the progress around it.
func mapRows[W interface{ base() *mapWorker }](ctx context.Context, x *execution, newWorker func(i int, sketches []*joinSketch) W,
	read func(m W, r source.RowReader) error) (mapStats, error) {
	var mu sync.Mutex
	st := mapStats{parts: newPartCounts(x.parts)}
	sketches, err := x.newJoinSketches()
	if err != nil {
		return st, err
	}
	var next atomic.Int32
	newW := func() W { return newWorker(int(next.Add(1)-1), sketches) }
	done := func(m W) error { return m.base().done(&mu, &st) }
	fn := func(m W, c *source.Chunk) error { return x.mapChunk(ctx, m.base(), c) }
	stop := x.progress("map", x.input.Progress, x.input.Size)
	before := prunedNow(x.input) // chunks Where's statistics rule out (pruneWhere)
	if x.input.Tab != nil {
		st.table = &join.TableReport{Format: string(x.input.Tab.Format)}
		// A mapper with no chunk left helps write the survivors of the
		// chunks still being mapped (helpBoard).
		hb := newHelpBoard(x.opt.Mappers)
		x.help = hb
		finish := done
		done = func(m W) error {
			hb.helpUntilDone(m.base())
			return finish(m)
		}
		// A mapper that stops on an error never comes to done: the
		// helpers waiting for it stop (fail).
		if !x.joinSpec.Composite() && x.where == nil { // chunks in pairs where their key columns decode faster so
			x.input.SetPairCol(x.joinSpec.Cols[0])
			defer x.input.SetPairCol(-1)
		}
		err = source.ScanTableWith(ctx, x.input, x.opt.Mappers, newW, fn, done, hb.fail)
		x.help = nil
		helpedRows.Add(hb.helped.Load())
	} else {
		err = source.Scan(ctx, x.input, x.opt.Mappers, newW, read, done)
	}
	st.wherePruned = prunedSince(x.input, before)
	st.whereDropped += st.wherePruned.rows
	stop()
	if err != nil {
		return st, err
	}
	st.settle(x.skew)
	st.sketch, err = mergeSketches(sketches)
	return st, err
}

// batchWorker is a mapper of a single-column key: it reads batches of the
// join column.
type batchWorker struct {
	mapWorker
	bf filters.BatchFilter // f, if it tests keys in batches
	// ib is f, for integer keys, if it tests them as integers: a batch whose
	// keys all parsed (csvscan.Batch.Ints) is probed on the values, and a
	// key's bytes are written only for the rows that pass.
	ib      filters.IntBatchFilter
	batch   csvscan.Batch
	kb      [mapBatch][8]byte // the batch's integer keys
	intKeys [mapBatch][]byte  // kb[i][:], set once
	keys    [][]byte
	gather  [][]byte // the keys of a batch gathered one by one (never intKeys: it must stay kb[i][:])
	recs    []int    // the batch record of each key
	pass    []bool
}

func (m *batchWorker) base() *mapWorker { return &m.mapWorker }

// probe sets pass[j] to the filter's verdict on keys[j], a batch at once
// where it can (their memory accesses overlap), or every key passing once
// the guard has turned the filter off; the guard watches the batch.
func (m *mapWorker) probe(keys [][]byte, pass []bool) {
	if !m.guardStart(pass) {
		return
	}
	t0 := m.guard.start(len(pass))
	m.probeAll(keys, pass)
	m.guardEnd(t0, pass)
}

// probeInts is probe of integer keys given as integers (filterInts), the
// guard's rules the same.
func (m *mapWorker) probeInts(ib filters.IntBatchFilter, vals []int64, pass []bool) {
	if !m.guardStart(pass) {
		return
	}
	t0 := m.guard.start(len(pass))
	ib.ContainsInts(vals, pass)
	m.guardEnd(t0, pass)
}

// guardStart reports whether a batch is to be probed; when the guard has
// turned the filter off it is not, and every key of pass passes.
func (m *mapWorker) guardStart(pass []bool) bool {
	m.guard.skipped = m.guard.off
	if m.guard.off {
		for j := range pass {
			pass[j] = true
		}
		return false
	}
	return true
}

// guardEnd gives the guard, when it watches, the batch's probe time (from
// t0) and how many of its keys passed.
func (m *mapWorker) guardEnd(t0 time.Time, pass []bool) {
	if m.guard.on {
		m.guard.observe(t0, len(pass), countPass(pass))
	}
}

// probeAll sets pass[j] to the filter's verdict on keys[j], as probe does,
// but always probes: for keys that stand for many rows each (a column's
// dictionary: filterDict), whose cost the guard does not weigh.
func (m *mapWorker) probeAll(keys [][]byte, pass []bool) {
	if bf, ok := m.f.(filters.BatchFilter); ok {
		bf.ContainsBatch(keys, pass)
		return
	}
	for j, key := range keys {
		pass[j] = m.f.Contains(key)
	}
}

// mapInput reads the large side with one goroutine per mapper, each with its
// filter copy: every row's join key (key.Of) is tested against the
// filter, as join.MapInputRow does, and the survivors (join.InputRecord)
// go to their partition of the shuffle. Rows are read in batches of the join
// column only (csvscan.NextBatch): no field slice is built for a row the
// filter drops, and a filters.BatchFilter tests a whole batch at once.
func (x *execution) mapInput(ctx context.Context, in mapInputs) (mapStats, error) {
	if x.joinSpec.Composite() || x.where != nil && x.input.Tab == nil {
		return x.mapTuples(ctx, in)
	}
	kt, col := x.joinSpec.Types[0], x.joinSpec.Cols[0]
	return mapRows(ctx, x, func(i int, sketches []*joinSketch) *batchWorker {
		m := &batchWorker{mapWorker: x.newMapWorker(i, in, sketches), pass: make([]bool, mapBatch)}
		m.batch.ScanInts = kt == key.Int
		m.bf, _ = m.f.(filters.BatchFilter)
		if kt == key.Int {
			m.ib, _ = m.f.(filters.IntBatchFilter)
		}
		for i := range m.intKeys {
			m.intKeys[i] = m.kb[i][:]
		}
		return m
	}, func(m *batchWorker, rr source.RowReader) error {
		m.seqBase = seqBase(rr)
		r := rr.(*csvscan.Reader) // mapRows gives a CSV side's reader here (no Where)
		b := &m.batch
		for r.NextBatch(col, mapBatch, b) {
			if ctx.Err() != nil { // a batch is a few microseconds of work
				return ctx.Err()
			}
			// The keys of the batch (key.Of), then the filter's verdict
			// on all of them at once where it can (their memory accesses
			// overlap), then the survivors to the shuffle. recs maps a key
			// to its record; nil when they are one to one.
			n := b.Len()
			if m.ib != nil {
				if ints := b.Ints(); len(ints) == n {
					if err := m.intBatch(r, b, ints); err != nil {
						return err
					}
					continue
				}
			}
			m.keys, m.recs = m.keys[:0], nil
			first := 0 // the first key for key.Of
			if kt == key.Int {
				m.keys = m.intKeys[:n]
				// Plain integers of up to 8 digits, parsed in one loop
				// (the NBER keys); key.Of takes the rest.
				ints := b.Ints()
				for i, v := range ints {
					key.PutInt(m.kb[i][:], v)
				}
				first = len(ints)
			}
			for i := first; i < n; i++ {
				f := b.Field(i)
				k, err := key.Of(kt, m.kb[i][:], f)
				if err == nil && len(f) > 0 { // an empty field is NULL (key.Spec.IsNull)
					if kt != key.Int {
						m.keys = append(m.keys, k)
					}
					continue
				}
				// A key that does not parse, or a NULL (rare): the batch's
				// keys are gathered one by one instead.
				if err = m.gatherKeys(x, r, b, kt); err != nil {
					return err
				}
				m.keys = m.gather
				break
			}
			m.probe(m.keys, m.pass[:len(m.keys)])
			m.rows += int64(len(m.keys))
			for j, key := range m.keys {
				i := j
				if m.recs != nil {
					i = m.recs[j]
				}
				if !m.pass[j] {
					if !m.bypass {
						m.drop(b.RawLen(i), len(key))
					} else if err := m.rejectCSV(r, key, b.Offset(i), b.Raw(i), true); err != nil { // counts the drop
						return err
					}
					continue
				}
				if err := m.emitCSV(r, key, b.Offset(i), b.Raw(i)); err != nil {
					return err
				}
			}
		}
		return r.Err()
	})
}

// intBatch is the batch loop of mapInput for a batch of integer keys that
// all parsed (ints, one a record of b) and a filter that tests integers
// (m.ib): the verdicts on the values (ContainsInts, which tests what
// ContainsBatch tests on the keys' bytes), then each row dropped, or
// written out with its key's bytes made for it alone. O(len(ints)).
func (m *batchWorker) intBatch(r *csvscan.Reader, b *csvscan.Batch, ints []int64) error {
	pass := m.pass[:len(ints)]
	m.probeInts(m.ib, ints, pass)
	m.rows += int64(len(ints))
	if !m.bypass {
		// The drops counted in locals (drop's sums), which stay in
		// registers.
		var rows, bytes int64
		for j, v := range ints {
			if !pass[j] {
				rows++
				bytes += int64(b.RawLen(j))
				continue
			}
			k := m.intKeys[j]
			key.PutInt(k, v)
			if err := m.emitCSV(r, k, b.Offset(j), b.Raw(j)); err != nil {
				return err
			}
		}
		m.drops(rows, bytes+rows*int64(len(m.kb[0])))
		return nil
	}
	for j, v := range ints {
		k := m.intKeys[j]
		key.PutInt(k, v)
		if !pass[j] {
			if err := m.rejectCSV(r, k, b.Offset(j), b.Raw(j), true); err != nil { // counts the drop
				return err
			}
			continue
		}
		if err := m.emitCSV(r, k, b.Offset(j), b.Raw(j)); err != nil {
			return err
		}
	}
	return nil
}

// settle makes the actual partition counts the plain ones when no row was
// spread (no hot keys): the mappers count only the plain ones then.
func (st *mapStats) settle(sp *skewPlan) {
	if sp == nil {
		copy(st.parts.actual, st.parts.plain)
	}
}

// tupleWorker is a mapper of a composite key: it reads whole rows.
type tupleWorker struct {
	mapWorker
	key []byte
}

func (m *tupleWorker) base() *mapWorker { return &m.mapWorker }

// mapTuples is mapInput for a composite key, or for a CSV side's key with
// Options.Where (a table side's chunks go to mapChunk either way): rows
// are read whole (every key column is needed, or the predicate's
// columns), the predicate's rejects dropped uncounted, their tuple made
// (key.Spec.Append, as the key side's rows are: join.MapKeyRow), tested
// and the survivors shuffled. Slower per row than mapInput's batches of
// one column, which single-column joins without Where take.
func (x *execution) mapTuples(ctx context.Context, in mapInputs) (mapStats, error) {
	ks := x.joinSpec
	return mapRows(ctx, x, func(i int, sketches []*joinSketch) *tupleWorker {
		return &tupleWorker{mapWorker: x.newMapWorker(i, in, sketches)}
	}, func(m *tupleWorker, r source.RowReader) error {
		m.seqBase = seqBase(r)
		for n := 1; r.Next(); n++ {
			if n%checkEvery == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if m.where != nil { // Options.Where: before the row counts
				ok, err := x.selected(m.where, r)
				if err != nil {
					return err
				}
				if !ok {
					m.whereDropped++
					continue
				}
			}
			key, v, err := rowKey(m.key[:0], r, ks, x.typing.Lenient)
			if err != nil {
				if err := x.keyError(r, err); err != nil {
					return err
				}
				continue
			}
			if v != keyOK {
				m.rows++
				m.cannot.add(v)
				if m.bypass {
					if err := m.rejectCSV(r, nil, r.Offset(), r.Raw(), false); err != nil {
						return err
					}
				}
				continue
			}
			m.key = key
			m.rows++
			if !m.f.Contains(key) {
				if err := m.rejectCSV(r, key, r.Offset(), r.Raw(), true); err != nil {
					return err
				}
				continue
			}
			if err := m.emitCSV(r, key, r.Offset(), r.Raw()); err != nil {
				return err
			}
		}
		return r.Err()
	})
}

// gatherKeys makes the keys of a batch one record at a time, for a batch in
// which some key does not parse or is NULL: with lenient typing those rows
// are counted in m (and read), else they are errors, or skipped bad rows.
// It leaves the keys in m.gather and the record of each in m.recs (m.kb
// holds the integer keys).
func (m *batchWorker) gatherKeys(x *execution, r *csvscan.Reader, b *csvscan.Batch, kt key.Type) error {
	keys, recs := m.gather[:0], m.recs[:0]
	for i := range b.Len() {
		f := b.Field(i)
		key, err := key.Of(kt, m.kb[i][:], f)
		if len(f) == 0 || (err != nil && x.typing.Lenient) {
			m.rows++
			if len(f) == 0 { // NULL under every key type (key.Spec.IsNull)
				m.cannot.add(keyNull)
			} else {
				m.cannot.add(keyUnmatchable)
			}
			if m.bypass {
				if err := m.rejectCSV(r, nil, b.Offset(i), b.Raw(i), false); err != nil {
					return err
				}
			}
			continue
		}
		if err != nil {
			if err := x.batchKeyError(r, b, i, fmt.Errorf("%s: %w", x.opt.JoinCol, err)); err != nil {
				return err
			}
			continue
		}
		keys, recs = append(keys, key), append(recs, i)
	}
	m.gather, m.recs = keys, recs
	return nil
}

// seal ends the shuffle's writing: every partition's stream is complete and
// its bytes counted.
func (x *execution) seal() (shuffle.Stats, error) {
	if err := x.sh.Seal(); err != nil {
		return shuffle.Stats{}, err
	}
	return x.sh.Stats(), nil
}
