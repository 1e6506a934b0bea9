package hugeheap

import (
	"math/bits"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"
)

// Advise marks the Go heap's next bytes, at most limit of them,
// MADV_HUGEPAGE, when Plan says so with the kernel's settings (see the
// package comment); it is meant to run once, early, with the heap still
// small. Its cost: a collection of that heap (well under a millisecond
// at a command's start), an mmap and an madvise. Not safe to call
// concurrently with itself.
func Advise(limit int64) Result {
	page, err := strconv.ParseInt(sysfs("hpage_pmd_size"), 10, 64)
	if err != nil {
		page = 0
	}
	free := int64(-1)
	if small := int64(os.Getpagesize()); page > small && page%small == 0 {
		if b, err := os.ReadFile("/proc/buddyinfo"); err == nil {
			free = FreeBlocks(string(b), bits.Len64(uint64(page/small))-1)
		}
	}
	n, why := Plan(os.Getenv(Env), sysfs("enabled"), page, free, limit)
	if n == 0 {
		return Result{Why: why}
	}
	if _, err := advise(n, page); err != nil {
		return Result{Why: "madvise: " + err.Error()}
	}
	return Result{Bytes: n}
}

// advise makes the heap map n more bytes (a multiple of page) with one
// allocation it never touches (fresh memory is not zeroed by the
// runtime), marks its page-aligned n bytes MADV_HUGEPAGE, and lets a
// collection free it: the runtime's page allocator hands out its lowest
// free addresses first, which are those. It returns the region's first
// address (for the tests).
func advise(n, page int64) (uintptr, error) {
	b := make([]byte, n+page)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off := (page - int64(base%uintptr(page))) % page
	err := syscall.Madvise(b[off:off+n], syscall.MADV_HUGEPAGE)
	b = nil
	runtime.GC()
	return base + uintptr(off), err
}
