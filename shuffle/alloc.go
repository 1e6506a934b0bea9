package shuffle

import (
	"math/bits"
	"sync"
	"unsafe"
)

// poolAllocator is an Arrow memory.Allocator that recycles freed buffers by
// power-of-two size class and counts every byte it hands out. Arrow frees a
// batch's buffers when its reference count drops to zero (after a spill write,
// at every Next of the IPC reader, at Release), so the shuffle reuses a few
// buffers instead of leaving each batch to the garbage collector, whose pacing
// would otherwise let the heap run far past the shuffle's budget.
//
// The free lists are plain slices, not sync.Pools: a collection does not empty
// them, and they hold at most keep bytes (freed buffers beyond that go to the
// collector). Nor do they take the allocator past limit: a buffer freed
// past it is not kept, and one that is not reused from them first drops
// pooled ones until the buffers handed out and the pooled ones fit in
// limit again (inUse + pooled <= max(limit, inUse)), so the shuffle's
// bound is that of the buffers it holds. Buffers are 64-byte aligned, as Arrow wants. Allocate,
// Reallocate and Free are O(1) (plus zeroing the buffer; making room scans
// the 48 size classes a buffer dropped) and safe for concurrent use.
type poolAllocator struct {
	mu     sync.Mutex
	free   [48][][]byte // free[c] holds buffers of capacity 1<<c
	pooled int64        // bytes in free
	keep   int64        // most bytes free may hold
	limit  int64        // inUse + pooled past this drops pooled buffers
	inUse  int64        // bytes handed out and not yet freed
	peak   int64        // most of inUse + pooled ever
}

const align = 64

func newPoolAllocator(keep, limit int64) *poolAllocator {
	return &poolAllocator{keep: keep, limit: limit}
}

func sizeClass(n int) int {
	if n <= align {
		return 6
	}
	return bits.Len(uint(n - 1))
}

// classBytes is the memory a buffer of n bytes takes from the allocator:
// its size class, 0 for none. O(1).
func classBytes(n int) int64 {
	if n == 0 {
		return 0
	}
	return 1 << sizeClass(n)
}

func (a *poolAllocator) Allocate(size int) []byte {
	b, reused := a.allocate(size)
	if reused {
		clear(b) // Arrow expects zeroed memory, as make gives
	}
	return b
}

// allocateDirty is Allocate without zeroing a reused buffer: for a
// batch's buffers, whose every byte in use is written before it is read.
func (a *poolAllocator) allocateDirty(size int) []byte {
	b, _ := a.allocate(size)
	return b
}

// allocate is a buffer of size bytes (nil for 0), reused from the free
// lists when one of its size class is there.
func (a *poolAllocator) allocate(size int) (b []byte, reused bool) {
	if size == 0 {
		return nil, false
	}
	c := sizeClass(size)
	if c >= len(a.free) {
		panic("shuffle: allocation too large")
	}
	var buf []byte
	a.mu.Lock()
	if n := len(a.free[c]); n > 0 {
		buf = a.free[c][n-1]
		a.free[c][n-1] = nil
		a.free[c] = a.free[c][:n-1]
		a.pooled -= 1 << c
	} else {
		// New memory: the pool gives way to it rather than count past
		// limit.
		for a.inUse+a.pooled+1<<c > a.limit && a.dropPooled(-1) {
		}
	}
	a.inUse += 1 << c
	a.peak = max(a.peak, a.inUse+a.pooled)
	a.mu.Unlock()
	if buf == nil {
		raw := make([]byte, 1<<c+align)
		shift := (align - int(uintptr(unsafe.Pointer(&raw[0]))%align)) % align
		return raw[shift : shift+size : shift+1<<c], false
	}
	return buf[:size], true
}

func (a *poolAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
	return nb
}

func (a *poolAllocator) Free(b []byte) {
	if cap(b) == 0 {
		return
	}
	c := bits.Len(uint(cap(b))) - 1
	if 1<<c != cap(b) || c >= len(a.free) {
		return // not one of ours: leave it to the collector
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inUse -= 1 << c
	if 1<<c > a.keep {
		return // bigger than the free lists may hold
	}
	// Make room by dropping buffers of other sizes, the most pooled first: the
	// buffers freed last are the likeliest to be wanted again (the builders'
	// small early buffers, say, are not once the reduce phase reads batches).
	for a.pooled+1<<c > a.keep || a.inUse+a.pooled+1<<c > a.limit {
		if !a.dropPooled(c) {
			return // only buffers of this size are pooled: leave b to the collector
		}
	}
	a.free[c] = append(a.free[c], b[:cap(b)])
	a.pooled += 1 << c
}

// dropPooled leaves one pooled buffer, of the size class other than but
// with the most bytes pooled, to the collector, and reports whether there
// was one. Called with mu held. O(size classes).
func (a *poolAllocator) dropPooled(but int) bool {
	big := -1
	for d := range a.free {
		if d != but && len(a.free[d]) > 0 && (big < 0 || len(a.free[d])<<d > len(a.free[big])<<big) {
			big = d
		}
	}
	if big < 0 {
		return false
	}
	n := len(a.free[big])
	a.free[big][n-1] = nil
	a.free[big] = a.free[big][:n-1]
	a.pooled -= 1 << big
	return true
}

// drop lets the buffers kept for reuse go to the collector. O(size
// classes).
func (a *poolAllocator) drop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	clear(a.free[:])
	a.pooled = 0
}

// peakBytes is the most the allocator ever held: handed out plus kept for
// reuse. O(1); safe for concurrent use.
func (a *poolAllocator) peakBytes() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.peak
}
