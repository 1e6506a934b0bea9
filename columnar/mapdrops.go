package columnar

import (
	"slices"
	"sync"
	"unsafe"
)

// mapDrops gathers the ranges of a file's mapping that the decoders are
// done with and gives their pages back to the kernel (dropSpan) once they
// add up to dropBatch bytes, in one call a run of ranges that touch (a
// row group's chunks, and the row groups a reader takes in turn, lie end
// to end). A call a chunk (madvise, and a flush of the other cores' TLBs)
// was about 4% of the 20-key Bloom join's wall time and CPU, which holding
// every page until the file is closed saved (15 pairs; its peak RSS
// 45 -> 74 MB); the pages held now add at most dropBatch to the resident
// memory. The ranges still held when the file is closed go with the
// mapping. Safe for concurrent use.
type mapDrops struct {
	mu      sync.Mutex
	pending []span
	n       uintptr // the bytes of pending
}

// span is the addresses [lo, hi) of a range of a mapping.
type span struct{ lo, hi uintptr }

// dropBatch is the bytes of ranges mapDrops holds before it drops them;
// a variable for the tests.
var dropBatch uintptr = 8 << 20

// add takes b, a range of the mapping read and done with; it drops the
// ranges held, b with them, where they reach dropBatch.
func (d *mapDrops) add(b []byte) {
	if len(b) == 0 {
		return
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	d.mu.Lock()
	d.pending = append(d.pending, span{lo, lo + uintptr(len(b))})
	d.n += uintptr(len(b))
	if d.n < dropBatch {
		d.mu.Unlock()
		return
	}
	runs := d.pending
	d.pending, d.n = nil, 0
	d.mu.Unlock()
	for _, s := range mergeSpans(runs) {
		dropSpan(s.lo, s.hi)
	}
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
