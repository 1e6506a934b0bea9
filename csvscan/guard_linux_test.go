package csvscan

import (
	"fmt"
	"syscall"
	"testing"
)

// guarded returns a slice of n bytes (n <= 4096) that ends where an
// unreadable page starts: reading past its end faults the test.
func guarded(t *testing.T, n int) []byte {
	t.Helper()
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	return mem[page-n : page : page]
}

// TestMasksNoOverread: the block scanner, and NextBatch over a chunk that
// ends at an unreadable page, read no byte past the end of their buffer,
// whatever its length (a fault would end the test binary).
func TestMasksNoOverread(t *testing.T) {
	for _, asm := range []bool{true, false} {
		withBlockAsm(t, asm)
		for n := range 300 {
			b := guarded(t, n)
			for i := range b {
				b[i] = ",\nx"[i%3]
			}
			checkBlock(t, b, ',')
		}
		file := citeLike(3000)
		for n := len(file) - 200; n <= len(file); n++ {
			b := guarded(t, n)
			copy(b, file[:n])
			r := newChunkReader(b, "guard", 0, 0, 2, ',')
			var bt Batch
			got := 0
			for r.NextBatch(1, 1000, &bt) {
				got += bt.Len()
			}
			// Next's count and error are the reference (a cut last line may
			// be short of fields).
			ref := newChunkReader(b, "guard", 0, 0, 2, ',')
			want := 0
			for ref.Next() {
				want++
			}
			if got != want || fmt.Sprint(r.Err()) != fmt.Sprint(ref.Err()) {
				t.Fatalf("len %d: %d records (err %v), Next read %d (err %v)", n, got, r.Err(), want, ref.Err())
			}
		}
	}
}
