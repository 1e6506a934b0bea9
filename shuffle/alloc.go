package shuffle

import (
	"math/bits"
	"sync"
	"unsafe"
)

// poolAllocator is an Arrow memory.Allocator that recycles freed buffers by
// power-of-two size class. Arrow frees a batch's buffers when its reference
// count drops to zero (the IPC reader does so at every Next), so reading a
// spilled partition reuses a few buffers instead of allocating 300 KB per batch
// for the garbage collector, whose pacing otherwise lets the heap run far past
// the shuffle's budget. Buffers are 64-byte aligned, as Arrow wants. Safe for
// concurrent use.
type poolAllocator struct {
	pools [48]sync.Pool // pools[c] holds *[]byte of capacity 1<<c (plus alignment slack)
}

const align = 64

func sizeClass(n int) int {
	if n <= align {
		return 6
	}
	return bits.Len(uint(n - 1))
}

func (a *poolAllocator) Allocate(size int) []byte {
	if size == 0 {
		return nil
	}
	c := sizeClass(size)
	if c >= len(a.pools) {
		panic("shuffle: allocation too large")
	}
	var buf []byte
	if p, ok := a.pools[c].Get().(*[]byte); ok {
		buf = *p
	} else {
		raw := make([]byte, 1<<c+align)
		shift := (align - int(uintptr(unsafe.Pointer(&raw[0]))%align)) % align
		buf = raw[shift : shift+1<<c : shift+1<<c]
	}
	b := buf[:size]
	clear(b) // Arrow expects zeroed memory, as make gives
	return b
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
	if 1<<c != cap(b) || c >= len(a.pools) {
		return // not one of ours: leave it to the collector
	}
	b = b[:cap(b)]
	a.pools[c].Put(&b)
}
