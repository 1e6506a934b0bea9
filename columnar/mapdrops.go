package columnar

import (
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// mapDrops gathers the ranges of a file's mapping that the decoders are
// done with and gives their pages back to the kernel (dropSpan) once the
// ranges that all files' mapDrops hold add up to dropBatch bytes, in one
// call a run of ranges that touch (a row group's chunks, and the row
// groups a reader takes in turn, lie end to end). A call a chunk
// (madvise, and a flush of the other cores' TLBs) was about 4% of the
// 20-key Bloom join's wall time and CPU, which holding every page until
// the file is closed saved (15 pairs; its peak RSS 45 -> 74 MB); the
// pages held now add at most dropBatch to the resident memory, for a
// table of many files too (a review found each file's 8 MiB counted
// apart: 12 files of under 8 MiB held them all). The ranges still held
// when the file is closed go with the mapping (close: none is dropped
// after it). Safe for concurrent use.
type mapDrops struct {
	mu      sync.Mutex // held through a drop, so that close waits for it
	pending []span
	n       uintptr // the bytes of pending
	closed  bool
}

// span is the addresses [lo, hi) of a range of a mapping.
type span struct{ lo, hi uintptr }

// dropBatch is the bytes of ranges the mapDrops of all files hold before
// they drop them; a variable for the tests.
var dropBatch uintptr = 8 << 20

// The mapDrops holding ranges, and the bytes of all their ranges.
var (
	dropsMu      sync.Mutex
	dropsAll     = map[*mapDrops]struct{}{}
	dropsPending atomic.Int64
)

// add takes b, a range of the mapping read and done with; where the
// ranges all files hold reach dropBatch, every file drops its own.
func (d *mapDrops) add(b []byte) {
	if len(b) == 0 {
		return
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	d.pending = append(d.pending, span{lo, lo + uintptr(len(b))})
	first := d.n == 0
	d.n += uintptr(len(b))
	d.mu.Unlock()
	if first {
		dropsMu.Lock()
		dropsAll[d] = struct{}{}
		dropsMu.Unlock()
	}
	if dropsPending.Add(int64(len(b))) < int64(dropBatch) {
		return
	}
	dropsMu.Lock()
	all := make([]*mapDrops, 0, len(dropsAll))
	for x := range dropsAll {
		all = append(all, x)
	}
	clear(dropsAll)
	dropsMu.Unlock()
	for _, x := range all {
		x.flush()
	}
}

// flush drops the ranges d holds.
func (d *mapDrops) flush() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.n == 0 {
		return
	}
	runs := d.pending
	dropsPending.Add(-int64(d.n))
	d.pending, d.n = nil, 0
	for _, s := range mergeSpans(runs) {
		dropSpan(s.lo, s.hi)
	}
}

// close forgets the ranges d holds, before its mapping goes: no drop
// comes after it.
func (d *mapDrops) close() {
	d.mu.Lock()
	d.closed = true
	dropsPending.Add(-int64(d.n))
	d.pending, d.n = nil, 0
	d.mu.Unlock()
	dropsMu.Lock()
	delete(dropsAll, d)
	dropsMu.Unlock()
}

// mergeSpans sorts spans by their start and merges those that overlap or
// touch (in place).
func mergeSpans(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	out := spans[:0]
	for _, s := range spans {
		if k := len(out) - 1; k >= 0 && s.lo <= out[k].hi {
			out[k].hi = max(out[k].hi, s.hi)
			continue
		}
		out = append(out, s)
	}
	return out
}
