package stream

import (
	"bytes"
	"errors"
	"fmt"
	"unsafe"

	"github.com/acbfjoin/acbfjoin/filters"
)

// keyRow is a live key-side row: its other fields as the output appends
// them and its time (timed mode).
type keyRow struct {
	row []byte // its own copy (the output appends it, no conversion a match)
	t   int64
}

// table is the exact table of the live key rows: for each key, its live
// rows, oldest first (a delete removes the oldest: FIFO). Lookups during a
// batch's probe are concurrent reads; updates happen between batches, from
// one goroutine.
//
// Memory follows the live rows, not the stream: a Go map keeps its buckets
// after deletes, so when the live keys fall to a quarter of the most the
// map held, it is copied into a fresh one (amortised O(1) a delete).
type table struct {
	m     map[string]*entry
	rows  int64
	peak  int   // most keys since the map was made
	bytes int64 // the live rows' and keys' bytes
}

// entry is a live key's rows, oldest first, and the key (the map's string).
type entry struct {
	key  string
	rows []keyRow
}

// keyBytes returns the key as bytes without a copy, for the filter and the
// sketch, which only read it (expiry would otherwise allocate a copy a row).
func (e *entry) keyBytes() []byte { return unsafe.Slice(unsafe.StringData(e.key), len(e.key)) }

func newTable() *table { return &table{m: map[string]*entry{}} }

// keys returns the number of live keys.
func (t *table) keys() int { return len(t.m) }

// lookup returns the live rows of key (nil if none). Safe for concurrent
// readers while nothing updates the table; no allocation.
func (t *table) lookup(key []byte) []keyRow {
	if e := t.m[string(key)]; e != nil {
		return e.rows
	}
	return nil
}

// insert adds a row of key; it returns the key's entry and whether the key
// was not live before.
func (t *table) insert(key []byte, row []byte, tm int64) (*entry, bool) {
	e := t.m[string(key)]
	fresh := e == nil
	if fresh {
		e = &entry{key: string(key)}
		t.m[e.key] = e
		t.bytes += int64(len(e.key))
		t.peak = max(t.peak, len(t.m))
	}
	e.rows = append(e.rows, keyRow{row: bytes.Clone(row), t: tm})
	t.rows++
	t.bytes += int64(len(row))
	return e, fresh
}

// errNotLive is returned by remove for a key with no live row.
var errNotLive = errors.New("no live row has this key")

// remove deletes the oldest live row of key; it reports whether the key has
// no live row left.
func (t *table) remove(key []byte) (bool, error) {
	e := t.m[string(key)]
	if e == nil {
		return false, errNotLive
	}
	return t.removeOldest(e), nil
}

// removeOldest deletes e's oldest row (e is live); it reports whether the
// key has no live row left.
func (t *table) removeOldest(e *entry) bool {
	t.rows--
	t.bytes -= int64(len(e.rows[0].row))
	if len(e.rows) == 1 {
		e.rows = nil
		delete(t.m, e.key)
		t.bytes -= int64(len(e.key))
		t.maybeShrink()
		return true
	}
	e.rows[0] = keyRow{} // release the row's bytes
	e.rows = e.rows[1:]
	return false
}

// maybeShrink copies the map into a fresh one when it holds a quarter of the
// keys it once held.
func (t *table) maybeShrink() {
	if t.peak < 4096 || len(t.m) > t.peak/4 {
		return
	}
	m := make(map[string]*entry, len(t.m))
	for k, v := range t.m {
		m[k] = v
	}
	t.m, t.peak = m, len(m)
}

// liveFilter is the filter over the live keys, updated in place; it is
// rebuilt from the table at twice the capacity when the live keys outgrow
// it (or when the kind reports it full before: a cuckoo table).
type liveFilter struct {
	spec     *filters.Spec
	sizing   filters.Sizing
	p        filters.Params
	f        filters.Filter
	capacity uint64
	n        uint64
	rebuilds int
	bytes    int64 // its serialized size
}

func newLiveFilter(spec *filters.Spec, s filters.Sizing, capacity uint64) (*liveFilter, error) {
	lf := &liveFilter{spec: spec, sizing: s}
	if err := lf.build(capacity, nil); err != nil {
		return nil, err
	}
	return lf, nil
}

// build sizes the filter for capacity keys and builds it over keys (the
// live ones).
func (lf *liveFilter) build(capacity uint64, keys [][]byte) error {
	p, err := lf.spec.Size(capacity, lf.sizing)
	if err != nil {
		return fmt.Errorf("stream: size the %s filter for %d live keys: %w", lf.spec.Kind, capacity, err)
	}
	f, p, size, err := lf.spec.Build(p, keys)
	if err != nil {
		return fmt.Errorf("stream: build the %s filter for %d live keys: %w", lf.spec.Kind, capacity, err)
	}
	lf.p, lf.f, lf.capacity, lf.n, lf.bytes = p, f, capacity, uint64(len(keys)), size
	return nil
}

// grow rebuilds the filter over the table's keys with twice the capacity.
func (lf *liveFilter) grow(t *table) error {
	keys := make([][]byte, 0, len(t.m))
	for k := range t.m {
		keys = append(keys, []byte(k))
	}
	c := lf.capacity * 2
	for c < uint64(len(keys))+1 {
		c *= 2
	}
	if c > MaxCapacity {
		return fmt.Errorf("stream: %d live keys: more than the %d a filter holds", len(keys), uint64(MaxCapacity))
	}
	lf.rebuilds++
	return lf.build(c, keys)
}

// add inserts a key that became live; t holds it already (a rebuild takes
// it from there).
func (lf *liveFilter) add(key []byte, t *table) error {
	if lf.n+1 > lf.capacity {
		return lf.grow(t) // the rebuild includes key
	}
	if err := lf.spec.Add(lf.f, key); err != nil {
		// Full before its capacity (a cuckoo table's kicks failed): the
		// filter is unchanged; rebuild larger.
		return lf.grow(t)
	}
	lf.n++
	return nil
}

// remove deletes a key that is no longer live.
func (lf *liveFilter) remove(key []byte) error {
	if err := lf.spec.Remove(lf.f, key); err != nil {
		return fmt.Errorf("stream: remove a live key from the %s filter: %w", lf.spec.Kind, err)
	}
	lf.n--
	return nil
}

// fpp is the formula false positive rate at the live keys.
func (lf *liveFilter) fpp() float64 { return lf.spec.FPP(lf.p, lf.n) }
