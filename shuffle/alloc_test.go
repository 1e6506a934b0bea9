package shuffle

import (
	"testing"
	"unsafe"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func TestPoolAllocator(t *testing.T) {
	var a poolAllocator
	for _, size := range []int{1, 63, 64, 65, 1000, 4096, 300_000} {
		b := a.Allocate(size)
		if len(b) != size || cap(b) < size || uintptr(unsafe.Pointer(&b[0]))%align != 0 {
			t.Fatalf("Allocate(%d): len %d cap %d, aligned %v", size, len(b), cap(b), uintptr(unsafe.Pointer(&b[0]))%align == 0)
		}
		for i := range b {
			b[i] = 0xff
		}
		a.Free(b)
		c := a.Allocate(size) // possibly the same memory: must come back zeroed
		for i, x := range c {
			if x != 0 {
				t.Fatalf("Allocate(%d) after Free: byte %d = %x, want 0", size, i, x)
			}
		}
		g := a.Reallocate(size*3, c)
		if len(g) != size*3 {
			t.Fatalf("Reallocate: len %d", len(g))
		}
		for i, x := range g {
			if x != 0 {
				t.Fatalf("Reallocate(%d): byte %d = %x, want 0", size*3, i, x)
			}
		}
		a.Free(g)
	}
	if a.Allocate(0) != nil {
		t.Fatal("Allocate(0) != nil")
	}
	a.Free(make([]byte, 10)) // foreign memory is left alone
}

// TestPoolGivesWay: the buffers kept for reuse never take the allocator
// past its limit: a new buffer drops pooled ones first, so the most it
// ever holds is the limit or the buffers handed out, whichever is more.
func TestPoolGivesWay(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	const limit = 256 << 10
	a := newPoolAllocator(limit/2, limit)
	var held [][]byte
	var most int64 // of inUse
	for i := range 20000 {
		if len(held) > 0 && rng.IntN(2) == 0 {
			j := rng.IntN(len(held))
			a.Free(held[j])
			held[j] = held[len(held)-1]
			held = held[:len(held)-1]
		} else {
			held = append(held, a.Allocate(1+rng.IntN(40<<10)))
		}
		most = max(most, a.inUse)
		if a.inUse+a.pooled > max(limit, a.inUse) || a.pooled > a.keep {
			t.Fatalf("step %d: %d bytes handed out, %d pooled: past the limit %d (keep %d)", i, a.inUse, a.pooled, limit, a.keep)
		}
	}
	if want := max(limit, most); a.peakBytes() > want {
		t.Fatalf("peak %d bytes, want at most %d", a.peakBytes(), want)
	}
}
