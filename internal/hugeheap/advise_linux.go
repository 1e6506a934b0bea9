package hugeheap

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// Advise marks the Go heap's next bytes, at most limit of them,
// MADV_HUGEPAGE, when Plan says so on this system (see the package
// comment); it is meant to run once, early, with the heap still small.
// Its cost: one collection of that heap (0.9-1.6 ms measured at a join's
// start, more on a loaded machine), an mmap and an madvise. Not safe to
// call concurrently with itself.
func Advise(limit int64) Result {
	s := system()
	n, why := Plan(s, limit)
	if n == 0 {
		return Result{Why: why}
	}
	if _, _, err := advise(n, s.Page); err != nil {
		return Result{Why: "madvise: " + err.Error()}
	}
	return Result{Bytes: n}
}

// system reads the process's and the kernel's settings for Plan.
func system() System {
	s := System{Switch: os.Getenv(Env), GODEBUG: os.Getenv("GODEBUG"), Mode: sysfs("enabled"), Free: -1}
	if p, err := strconv.ParseInt(sysfs("hpage_pmd_size"), 10, 64); err == nil {
		s.Page = p
	}
	if o := BlockOrder(s.Page, int64(os.Getpagesize())); o >= 0 {
		if b, err := os.ReadFile("/proc/buddyinfo"); err == nil {
			s.Free = FreeBlocks(string(b), o)
		}
	}
	if b, err := os.ReadFile("/proc/sys/vm/overcommit_memory"); err == nil {
		s.Overcommit = strings.TrimSpace(string(b))
	}
	for _, r := range []int{syscall.RLIMIT_AS, syscall.RLIMIT_DATA} {
		var l syscall.Rlimit
		if err := syscall.Getrlimit(r, &l); err != nil || l.Cur != rlimInfinity {
			s.Limited = true
		}
	}
	return s
}

// advise makes the heap map n more bytes (a multiple of page) with one
// allocation it never touches (fresh memory is not zeroed by the
// runtime), marks its page-aligned n bytes MADV_HUGEPAGE, and lets a
// collection free it: the runtime's page allocator hands out its lowest
// free addresses first, which are those. The collection runs at GOGC
// 100 whatever the process's setting: at GOGC off its heap goal would be
// past the runtime's 1 GiB threshold for putting its own metadata on
// huge pages. It returns the block's first address and the region's (for
// the tests).
func advise(n, page int64) (block, region uintptr, err error) {
	// The collector off while the block is made: past the heap's goal,
	// its allocation would start a collection of its own, which
	// runtime.GC would wait for before running the one that frees it (two
	// collections, 1.7-7 ms at a join's start against 0.3-0.9 for one).
	pct := debug.SetGCPercent(-1)
	b := make([]byte, n+page)
	block = uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off := (page - int64(block%uintptr(page))) % page
	err = syscall.Madvise(b[off:off+n], syscall.MADV_HUGEPAGE)
	b = nil
	debug.SetGCPercent(100)
	runtime.GC()
	debug.SetGCPercent(pct)
	return block, block + uintptr(off), err
}

// rlimInfinity is RLIM_INFINITY as Rlimit's unsigned fields hold it.
const rlimInfinity = ^uint64(0)
