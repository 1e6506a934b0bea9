package shuffle

import (
	"testing"
	"unsafe"
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
