package local

import (
	"github.com/acbfjoin/acbfjoin/columnar"
)

// keyHalves remembers the key-side halves of the typed rows a Parquet
// sink spooled (appendCellRow's second half) that one goroutine of Finish
// has seen: a key row's fields repeat in every output row it joins (the
// flights join's 370,248 rows carry 205 airports' six columns), and a half
// seen before is neither split nor looked at nor parsed again. Finish's
// first pass (observeSpool) skips its values, which allowed what they
// allow once; its second (readSpool) appends the values it parsed the
// first time (keep, apply), so the row groups hold what they held. It is
// for small key sides: it stops at the first half past keyHalvesMax
// distinct ones or keyHalvesBytes in all, and once a sample of rows shows
// that few halves repeat (a key side of distinct rows each met once). Not
// safe for concurrent use.
type keyHalves struct {
	ids          map[string]int32 // a half's id: its index in counts and cells
	counts       []int            // each half's fields
	cells        [][]halfCell     // readSpool's: each half's values (keep)
	arena        []byte           // the texts of cells
	bytes        int              // the halves' bytes (in ids, and at most again in arena)
	looked, hits int
	off          bool
}

// halfRef is what eachRow tells its fn of a row's key-side half: its id
// in the keyHalves (-1: none), whether it was seen before (then fields
// holds the large side's half only: large fields), and the large side's
// fields.
type halfRef struct {
	id    int32
	seen  bool
	large int
}

// halfCell is a value of a key-side half as appendFields put it in its
// column: NULL (def 0), or the value in its physical type's field.
type halfCell struct {
	def int16
	v   columnar.Value
}

// The most halves a keyHalves holds and their bytes; the rows looked up
// before it decides whether halves repeat, and the least share of them
// that must have been seen before (variables, that a test sets small;
// useKeyHalves false: none, for a test to compare against).
var (
	keyHalvesMax     = 4096
	keyHalvesBytes   = 1 << 20
	keyHalvesSample  = 1 << 14
	keyHalvesHitRate = 4 // at least 1 in 4
	useKeyHalves     = true
)

// newKeyHalves is an empty keyHalves (nil when useKeyHalves is off).
func newKeyHalves() *keyHalves {
	if !useKeyHalves {
		return nil
	}
	return &keyHalves{ids: map[string]int32{}}
}

// on reports whether h (nil: none) is in use.
func (h *keyHalves) on() bool { return h != nil && !h.off }

// seen returns the id of half if it was added before (its fields:
// counts[id]). O(len(half)).
func (h *keyHalves) seen(half []byte) (int32, bool) {
	h.looked++
	id, ok := h.ids[string(half)]
	if ok {
		h.hits++
		return id, true
	}
	if h.looked == keyHalvesSample && h.hits < h.looked/keyHalvesHitRate {
		h.off = true // few repeat: the lookups cost more than they save
	}
	return 0, false
}

// add remembers half, of fields fields, and returns its id; -1 when h is
// full (the half is then not remembered).
func (h *keyHalves) add(half []byte, fields int) int32 {
	if h.off {
		return -1
	}
	if len(h.counts) == keyHalvesMax || h.bytes+len(half) > keyHalvesBytes {
		// A key side of many rows: what the halves hold (each a value a
		// field) would cost more, in memory and collections, than
		// parsing saves (the NBER Parquet twins' 65,771 keys of 22
		// columns were 1.14x the time, 57 MB more); h stops.
		h.off = true
		return -1
	}
	id := int32(len(h.counts))
	h.ids[string(half)] = id
	h.counts = append(h.counts, fields)
	h.bytes += len(half)
	return id
}

// keep records the values appendFields has just put in g's last columns
// from the fields of half r (new: not seen before) under its id, for
// apply. Texts are copied to h's own arena (not left in g's, whose chunks
// they would keep alive after the group is written), which the halves'
// bound bounds: a text is shorter than its cell.
func (h *keyHalves) keep(g *pqGroup, phys []columnar.Physical, r halfRef) {
	n := len(g.cols)
	cells := make([]halfCell, n-r.large)
	for j := r.large; j < n; j++ {
		c, hc := &g.cols[j], &cells[j-r.large]
		if hc.def = c.defs[len(c.defs)-1]; hc.def == 0 {
			continue
		}
		hc.v = c.last(phys[j])
		if p := phys[j]; p == columnar.PhysBytes || p == columnar.PhysFixed {
			hc.v.B = h.copyBytes(hc.v.B)
		}
	}
	for int(r.id) >= len(h.cells) {
		h.cells = append(h.cells, nil)
	}
	h.cells[r.id] = cells
}

// copyBytes is b copied to h's arena: in chunks of 64 KiB (or of b),
// never grown in place, so that earlier copies stay where they are; an
// empty b is an empty slice, not nil (pqGroup.keep).
func (h *keyHalves) copyBytes(b []byte) []byte {
	if len(b) == 0 {
		return noBytes
	}
	if cap(h.arena)-len(h.arena) < len(b) {
		h.arena = make([]byte, 0, max(64<<10, len(b)))
	}
	start := len(h.arena)
	h.arena = append(h.arena, b...)
	return h.arena[start:len(h.arena):len(h.arena)]
}

// apply appends the values of half r (seen before) to g's last columns as
// appendFields put them the first time, its texts counted in g's bytes
// as keep counts them (the row groups end where they ended).
func (h *keyHalves) apply(g *pqGroup, phys []columnar.Physical, r halfRef) {
	for k, hc := range h.cells[r.id] {
		j := r.large + k
		c := &g.cols[j]
		c.defs = append(c.defs, hc.def)
		if hc.def == 0 {
			continue
		}
		c.add(phys[j], hc.v)
		if p := phys[j]; p == columnar.PhysBytes || p == columnar.PhysFixed {
			g.text += len(hc.v.B)
		}
	}
}
