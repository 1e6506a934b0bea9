package local

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/acbfjoin/acbfjoin/columnar"

	"github.com/acbfjoin/acbfjoin/csvscan"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// reduceStats are what the reduce phase counted.
type reduceStats struct {
	joinRows       int64
	falsePositives int64   // large-side rows without a match
	partRows       []int64 // the join rows of each partition
}

// reduce joins the partitions with one goroutine per reducer, each with its
// own writer of the sink; the first failing reducer stops the others.
func (x *execution) reduce(ctx context.Context, sink Sink, keyParts, mapParts partCounts) (reduceStats, error) {
	if err := x.beginSink(); err != nil {
		return reduceStats{}, err
	}
	parts := make(chan int, x.parts)
	for _, p := range largestFirst(x.parts, keyParts, mapParts) {
		parts <- p
	}
	close(parts)
	var joinRows, fps, read atomic.Int64
	partRows := make([]int64, x.parts) // each written by the one reducer of its partition
	// The progress counts the shuffle's records read: a partition is
	// most of the reduce when there are as few as the reducers.
	stop := x.progress("reduce", read.Load, x.sh.Stats().Records)
	defer stop()
	// The first failing reducer stops the others (the error it sent is the
	// first in errs; theirs, the cancellation, come after).
	rctx, stopReducers := context.WithCancel(ctx)
	defer stopReducers()
	errs := make(chan error, x.opt.Reducers)
	fail := func(err error) {
		errs <- err
		stopReducers()
	}
	var wg sync.WaitGroup
	for range x.opt.Reducers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := sink.Writer()
			var rows int64
			for p := range parts {
				var hint keyHint
				if c := keyParts; len(c.actual) > p {
					hint = keyHint{records: c.actual[p], bytes: c.bytes[p]}
				}
				rd := reducer{sh: x.sh, shape: x.shape(), fps: &fps, read: &read}
				err := rd.reducePartition(rctx, p, hint, func(large, small shuffle.Record) error {
					rows++
					return w.Write(large.Key, large.Seq, small.Seq, large.Row, small.Row)
				})
				joinRows.Add(rows)
				partRows[p] = rows
				rows = 0
				x.sh.Release(p)
				if err != nil {
					fail(err)
					return
				}
			}
			if err := w.Flush(); err != nil {
				fail(err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return reduceStats{}, err
	}
	return reduceStats{joinRows: joinRows.Load(), falsePositives: fps.Load(), partRows: partRows}, nil
}

// largestFirst is the order in which the reducers take the n partitions
// from their queue: by the records the build and the map phase wrote to
// each (keyParts' and mapParts' actual counts; a map phase without hot
// keys counts plain ones only, the same), the largest first, ties in
// partition order. The longest-processing-time
// rule: a reducer that takes a large partition last finishes after the
// others, one that takes it first is evened out by the small ones the
// others take meanwhile. O(n log n).
func largestFirst(n int, keyParts, mapParts partCounts) []int {
	size := make([]int64, n)
	for _, c := range []partCounts{keyParts, mapParts} {
		counts := c.actual
		if !slices.ContainsFunc(counts, func(v int64) bool { return v != 0 }) {
			counts = c.plain
		}
		for p := range min(n, len(counts)) {
			size[p] += counts[p]
		}
	}
	order := make([]int, n)
	for p := range order {
		order[p] = p
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size[b], size[a]) })
	return order
}

// joinShape is what the phases write for the join type beyond an inner
// join's rows.
type joinShape struct {
	jt     join.JoinType
	keyPad []byte // left, full: the key-side part of a large row without a match (join.KeyPadding)
}

// shape is x's joinShape.
func (x *execution) shape() joinShape {
	sh := joinShape{jt: x.opt.JoinType}
	if sh.jt.ForLarge(0)&join.WritePadded != 0 { // left, full: the key side's padding
		n := len(x.keys.Header) - len(x.keySpec.Cols)
		if x.keyKeep != nil {
			n = len(x.keyKeep)
		}
		sh.keyPad = join.KeyPadding(n)
		if x.cellTypes != nil {
			sh.keyPad = nullCells(n)
		}
	}
	return sh
}

// reducer is what the reduce of every partition shares: the shuffle it
// reads, what the join type writes, and the count of false positives (the
// large-side rows that met no key) it adds to.
// probeChunk is the large-side records a reducer looks up before it joins
// them (reducePartition).
const probeChunk = 32

// warmed is what loads made only to bring memory into the cache read
// (keyTable.touchRow, builtKeys.hashHasBatch), summed: kept so that the
// compiler keeps the loads.
var warmed atomic.Uint64

type reducer struct {
	sh    *shuffle.Shuffle
	shape joinShape
	fps   *atomic.Int64
	read  *atomic.Int64 // the records read, for the progress
}

// reducePartition joins partition p (the local executor's form of "group by
// key, separate by tag, cross product") in one pass over its batches: they come
// in arrival order, and every key-side record arrived before the first
// large-side one (the build phase closes its writers before the map phase
// starts), so the key-side records are indexed by key first and the large-side
// records then probe the index. What it emits for a large-side record is
// the join type's (join.JoinType.ForLarge: its pairs, the record alone, or
// padded); then, for right and full (KeepsUnmatchedKeys), every key-side
// record no large-side record met, with its large-side padding
// (join.SplitKeyRow).
func (rd reducer) reducePartition(ctx context.Context, p int, hint keyHint, emit func(large, small shuffle.Record) error) error {
	sh, shape, fps := rd.sh, rd.shape, rd.fps
	var smalls keyTable
	smalls.reserve(hint)
	var matched []bool // right, full: each key-side entry's
	keepKeys := shape.jt.KeepsUnmatchedKeys()
	probing := false
	var fp int64
	var spans [probeChunk]struct {
		lo, hi int
		ok     bool
	}
	var rowAt [probeChunk]int // the row offset of each span's first entry
	var touched byte          // what touchRow read, kept (warmed) so that its loads stay
	defer func() { warmed.Add(uint64(touched)) }()
	seal := func() {
		probing = true
		smalls.seal()
		if keepKeys {
			matched = make([]bool, len(smalls.ents))
		}
	}
	err := sh.Partition(p, func(rec arrow.Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		keys, tags, seqs, rows := columns(rec)
		n := int(rec.NumRows())
		for i := 0; i < n; {
			if !probing {
				if tags.Value(i) == join.TagKeys {
					smalls.add(keys.Value(i), seqs.Value(i), rows.Value(i))
					i++
					continue
				}
				seal()
			}
			// The next chunk's spans are looked up first, a pass for each
			// of the three loads a record's join waits on (the index slot,
			// the first entry, its row), so that each pass's cache misses
			// overlap instead of each waiting behind the previous one of
			// its record: with one pass doing all three, the entry's and
			// the row's loads held 60% of this loop's samples (perf, Intel
			// Xeon).
			c := min(n-i, probeChunk)
			for j := range c {
				sp := &spans[j]
				sp.lo, sp.hi, sp.ok = smalls.span(keys.Value(i + j))
			}
			for j := range c {
				if spans[j].ok {
					rowAt[j] = smalls.rowOffset(spans[j].lo)
				}
			}
			for j := range c {
				if spans[j].ok {
					touched ^= smalls.touchRow(rowAt[j])
				}
			}
			for j := range c {
				if tags.Value(i+j) == join.TagKeys {
					return fmt.Errorf("join: internal error: partition %d has a key-side record after large-side ones", p)
				}
				key := keys.Value(i + j)
				large := shuffle.Record{Key: key, Tag: tags.Value(i + j), Seq: seqs.Value(i + j), Row: rows.Value(i + j)}
				lo, hi := spans[j].lo, spans[j].hi
				if !spans[j].ok {
					lo, hi = 0, 0
					if large.Tag == join.TagInput { // an unprobed row is no false positive
						fp++
					}
				}
				var err error
				switch shape.jt.ForLarge(hi - lo) {
				case join.WriteAlone:
					err = emit(large, shuffle.Record{Key: key, Seq: -1})
				case join.WritePadded:
					err = emit(large, shuffle.Record{Key: key, Seq: -1, Row: shape.keyPad})
				case join.WritePairs:
					for k := lo; k < hi && err == nil; k++ {
						small := smalls.record(k)
						if keepKeys {
							_, small.Row = join.SplitKeyRow(small.Row)
							matched[k] = true
						}
						err = emit(large, small)
					}
				}
				if err != nil {
					return err
				}
			}
			i += c
		}
		if rd.read != nil {
			rd.read.Add(rec.NumRows())
		}
		return nil
	})
	fps.Add(fp)
	if err != nil || !keepKeys {
		return err
	}
	if !probing {
		seal() // key-side records only
	}
	for j := range smalls.ents {
		if matched[j] {
			continue
		}
		small := smalls.record(j)
		pad, fields := join.SplitKeyRow(small.Row)
		small.Row = fields
		if err := emit(shuffle.Record{Key: small.Key, Tag: join.TagInput, Seq: -1, Row: pad}, small); err != nil {
			return err
		}
	}
	return nil
}

func columns(rec arrow.Record) (*array.Binary, *array.Uint8, *array.Int64, *array.Binary) {
	return rec.Column(0).(*array.Binary), rec.Column(1).(*array.Uint8), rec.Column(2).(*array.Int64), rec.Column(3).(*array.Binary)
}

// beginSink begins the sink with the output's header, once: before the
// build phase for a join type that writes rows there or in the map phase
// (right and full: key rows whose key is NULL; anti, left, full: the rows
// the filter rejects), else before the reduce.
func (x *execution) beginSink() error {
	if x.begun {
		return nil
	}
	x.begun = true
	return x.sink.Begin(x.outputHeader())
}

// widenJoinColumns gives a right or full join's join columns a type that
// holds the key side's keys too (an unmatched key row writes its key
// there): the wider of two integer types, else none (Text: typed by the
// values written). An int64 key in an int32 column failed the Parquet
// output at its end.
func (x *execution) widenJoinColumns(h *join.Header) {
	if h.Types == nil || !x.opt.JoinType.KeepsUnmatchedKeys() {
		return
	}
	for j, c := range x.joinSpec.Cols {
		if c = x.largePos(c); c < 0 {
			continue // a join column the output leaves out
		}
		lt := h.Types[c]
		var kt columnar.Type
		if x.keys.Types != nil {
			kt = x.keys.Types[x.keySpec.Cols[j]]
		}
		switch {
		case lt == kt:
		case lt.Kind == columnar.Int && kt.Kind == columnar.Int:
			lt.Width = max(lt.Width, kt.Width)
			h.Types[c] = lt
		default:
			h.Types[c] = columnar.Type{}
		}
	}
}

// outputHeader is the output's header: the large side's names, the key
// side's columns (join.OutputHeader: a name the large side has too
// suffixed), and with Route column a last column "class".
func (x *execution) outputHeader() join.Header {
	keyNames, keyTypes := x.keyOutputNames(), x.keys.Types
	if x.opt.JoinType.LargeOnly() {
		keyNames, keyTypes = nil, nil // semi, anti: the large side's columns only
	}
	if x.keyKeep != nil {
		// Only the columns asked (Options.Columns), as the rows carry them.
		h := join.Header{Join: x.joinSpec}
		var types []columnar.Type
		for _, c := range x.largeKeep {
			h.Names = append(h.Names, x.input.Header[c])
		}
		if x.input.Types != nil || keyTypes != nil {
			types = make([]columnar.Type, len(x.largeKeep))
			for i, c := range x.largeKeep {
				if x.input.Types != nil {
					types[i] = x.input.Types[c]
				}
			}
		}
		for _, c := range x.keyKeep {
			h.Names = append(h.Names, keyNames[c])
			if types != nil && keyTypes != nil {
				types = append(types, keyTypes[c])
			} else if types != nil {
				types = append(types, columnar.Type{})
			}
		}
		h.Types = types
		h.Line = append(csvscan.AppendNames(nil, h.Names), '\n')
		x.widenJoinColumns(&h)
		return h
	}
	h := join.OutputHeader(x.input.Header, x.joinSpec, keyNames, x.keySpec, x.opt.Suffix)
	h.SetTypes(len(x.input.Header), x.input.Types, keyTypes, x.keySpec)
	x.widenJoinColumns(&h)
	if x.opt.Route == join.RouteColumn {
		h.Line = append(h.Line[:len(h.Line)-1], ",class\n"...)
		h.Names = append(h.Names, "class")
	}
	return h
}
