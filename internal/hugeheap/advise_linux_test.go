package hugeheap

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestAdviseMarksRegion: advise's region is a mapping of its own whose
// VmFlags carry "hg" (MADV_HUGEPAGE), whatever the kernel's mode (the
// flag is the mapping's; the mode decides whether the kernel uses it),
// and, at the process's first call (as a command makes it, its heap
// small), the heap's next large allocation lands in the freed block: the
// premise that the runtime hands the region out next (a later call may
// find lower free memory, which the allocator takes first). A kernel may
// refuse the advice only where it has no transparent huge pages.
func TestAdviseMarksRegion(t *testing.T) {
	const page = 2 << 20
	first := !advised
	advised = true
	block, lo, err := advise(4*page, page)
	if err != nil {
		if sysfs("enabled") != "" {
			t.Fatalf("madvise refused by a kernel with transparent huge pages: %v", err)
		}
		return
	}
	if lo%page != 0 || lo < block || lo >= block+page {
		t.Fatalf("region at %#x, block at %#x", lo, block)
	}
	next := make([]byte, 3*page)
	if p := uintptr(unsafe.Pointer(unsafe.SliceData(next))); first && (p < block || p+uintptr(len(next)) > block+5*page) {
		t.Fatalf("the next allocation at %#x, outside the freed block %#x..%#x", p, block, block+5*page)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	in := false
	for s.Scan() {
		line := s.Text()
		if a, b, ok := vmaRange(line); ok {
			in = a <= lo && lo+4*page <= b
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			if !strings.Contains(line, " hg") {
				t.Fatalf("the region's mapping has %q, no hg", line)
			}
			return
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("no mapping holds the region %#x..%#x whole", lo, lo+4*page)
}

// advised is whether a test of this process called advise already.
var advised bool

// vmaRange parses smaps' "start-end perms ..." header line.
func vmaRange(line string) (lo, hi uintptr, ok bool) {
	f := strings.Fields(line)
	if len(f) < 2 || strings.HasSuffix(f[0], ":") {
		return 0, 0, false
	}
	a, b, ok := strings.Cut(f[0], "-")
	if !ok {
		return 0, 0, false
	}
	x, err1 := strconv.ParseUint(a, 16, 64)
	y, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return uintptr(x), uintptr(y), true
}

// TestAdviseRefuses: with the switch off nothing is marked, and Why
// names the switch; an unknown value is warned about.
func TestAdviseRefuses(t *testing.T) {
	t.Setenv(Env, "off")
	if r := Advise(64 << 20); r.Bytes != 0 || !strings.Contains(r.Why, "off") || !strings.HasPrefix(r.String(), "none: ") {
		t.Fatalf("Advise with %s=off: %+v (%s)", Env, r, r)
	}
	t.Setenv(Env, "maybe")
	if w := Warning(); !strings.Contains(w, `"maybe"`) {
		t.Fatalf("Warning for maybe: %q", w)
	}
}

// TestSystem: this machine's settings read as Plan wants them: a huge
// page size the buddy allocator has an order for, its free blocks known,
// wherever the kernel has transparent huge pages.
func TestSystem(t *testing.T) {
	s := system()
	if s.Mode == "" {
		return // no transparent huge pages: nothing else is read
	}
	if s.Page <= 0 || BlockOrder(s.Page, int64(os.Getpagesize())) < 0 {
		t.Fatalf("huge page size %d", s.Page)
	}
	if s.Free < 0 {
		t.Fatalf("free huge pages unknown with /proc/buddyinfo %v", func() error { _, err := os.Stat("/proc/buddyinfo"); return err }())
	}
	t.Logf("%+v", s)
}
