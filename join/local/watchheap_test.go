package local

import (
	"runtime"
	"testing"
)

// TestWatchHeapIsHeapInuse: watchHeap's sample, read through
// runtime/metrics, is runtime.MemStats' HeapInuse, which the report's
// peak heap was before (within a few spans: the two reads are not at one
// instant).
func TestWatchHeapIsHeapInuse(t *testing.T) {
	keep := make([][]byte, 0, 64)
	for i := range 64 {
		keep = append(keep, make([]byte, 64<<10+i))
	}
	runtime.GC() // no collection between the two reads
	var peak uint64
	stop := watchHeap(&peak)
	stop()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	runtime.KeepAlive(keep)
	d := int64(peak) - int64(ms.HeapInuse)
	if d < -256<<10 || d > 256<<10 || ms.HeapInuse < 4<<20 { // HeapAlloc was 0.9 MiB below HeapInuse here
		t.Fatalf("watchHeap's peak %d, HeapInuse %d", peak, ms.HeapInuse)
	}
}
