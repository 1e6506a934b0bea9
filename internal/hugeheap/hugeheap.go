// Package hugeheap puts the first part of the Go heap on the kernel's
// transparent huge pages, for a command whose heap grows from nothing to
// tens of MiB in a fraction of a second: a join.
//
// The Go runtime maps its heap with plain mmap and, since Go 1.21.4, never
// asks for huge pages (golang/go#61718: a fault in a MADV_HUGEPAGE region
// may stall while the kernel compacts memory for a huge page). On a kernel
// whose transparent_hugepage/enabled is "madvise" (the default of Debian
// and of the machines this project runs on), every 4 KiB page of the heap
// is then a page fault on its first touch: about 12,500 of them in the
// NBER join, 40% of the key side's build's CPU, where a fault on a KVM
// guest costs about a microsecond (perf: do_anonymous_page, the memory
// cgroup's charge, TLB flushes). With its first 64 MiB on 2 MiB pages the
// same join took 2,500 faults and 0.94x the wall time, Parquet joins
// 0.88-0.97x, for 15-27 MiB more resident memory (docs/design.md has the
// measurements).
//
// Advise maps the heap's next bytes up front (one allocation, never
// touched, then a collection, so the runtime hands those addresses out
// next) and marks them MADV_HUGEPAGE. It does nothing, and says why, unless
// every one of these holds: the kernel's mode is "madvise" (under "always"
// the heap has huge pages already); /proc/buddyinfo, read once at the
// call, shows free 2 MiB blocks for twice the region (so that the faults
// need not wait for a compaction, the stall of golang/go#61718, unless
// memory runs short later); the process may map the region (no finite
// RLIMIT_AS or RLIMIT_DATA, no strict overcommit: an allocation the
// runtime cannot make is a fatal error, not an error); GODEBUG has no
// disablethp=1. The region keeps its advice for the life of the process:
// khugepaged may put back, whole, a 2 MiB page of it of which the runtime
// returned a part (golang/go#64332), so the region bounds what it can
// add to the resident memory. ACBFJOIN_HUGEPAGES=off turns it off without
// a rebuild.
//
// It is process-wide and for a main program: the library never calls it.
package hugeheap

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Env is the environment variable of the switch: "" or "on" lets Advise
// work, "off" turns it off; anything else is taken as "off" and Advise's
// Why says so.
const Env = "ACBFJOIN_HUGEPAGES"

// Result is what Advise did.
type Result struct {
	Bytes int64  // the bytes marked MADV_HUGEPAGE (0: none)
	Why   string // why none were, or "" when some were
}

// String is the result in a report's words: the bytes on huge pages, or
// none and why.
func (r Result) String() string {
	if r.Bytes > 0 {
		return fmt.Sprintf("%d MiB", r.Bytes>>20)
	}
	return "none: " + r.Why
}

// System is what Plan decides by: the process's environment and limits,
// and the kernel's settings.
type System struct {
	Switch     string // ACBFJOIN_HUGEPAGES
	GODEBUG    string
	Mode       string // transparent_hugepage/enabled ("always [madvise] never")
	Page       int64  // transparent_hugepage/hpage_pmd_size in bytes (0: unknown)
	Free       int64  // free memory in blocks of Page or larger, counted in Pages (-1: unknown)
	Overcommit string // /proc/sys/vm/overcommit_memory ("2": strict)
	Limited    bool   // a finite RLIMIT_AS or RLIMIT_DATA
}

// minPages is the fewest huge pages a region is worth an allocation and
// a collection for.
const minPages = 4

// Plan decides the region Advise marks on system s for a bound of limit
// bytes: its size (a multiple of s.Page; 0: none) and why it is none.
// Pure; O(len of s's texts).
func Plan(s System, limit int64) (int64, string) {
	switch s.Switch {
	case "", "on":
	case "off":
		return 0, Env + "=off"
	default:
		return 0, fmt.Sprintf("%s=%q is neither \"on\" nor \"off\": taken as off", Env, s.Switch)
	}
	for _, kv := range strings.Split(s.GODEBUG, ",") {
		if strings.TrimSpace(kv) == "disablethp=1" {
			return 0, "GODEBUG=disablethp=1"
		}
	}
	switch chosen(s.Mode) {
	case "madvise":
	case "always":
		return 0, "the kernel puts every heap on huge pages already (transparent_hugepage/enabled: always)"
	case "":
		return 0, "the kernel has no transparent huge pages"
	default:
		return 0, "the kernel's transparent huge pages are " + chosen(s.Mode)
	}
	if s.Page <= 0 {
		return 0, "the kernel does not say its huge page size"
	}
	if s.Limited {
		return 0, "the process's address space or data is limited (ulimit -v, -d)"
	}
	if s.Overcommit == "2" {
		return 0, "the kernel does not overcommit memory (vm.overcommit_memory 2)"
	}
	pages := limit / s.Page
	if pages < minPages {
		return 0, fmt.Sprintf("a bound of %d bytes is under %d huge pages", limit, minPages)
	}
	if s.Free < 0 {
		return 0, "the kernel's free huge pages are unknown (/proc/buddyinfo)"
	}
	if s.Free < 2*pages {
		return 0, fmt.Sprintf("the kernel has %d free huge pages, fewer than twice the %d asked for (a fault would wait for compaction)", s.Free, pages)
	}
	return pages * s.Page, ""
}

// chosen is the bracketed word of a sysfs choice ("always [madvise]
// never": madvise), or "" without one.
func chosen(mode string) string {
	i := strings.IndexByte(mode, '[')
	j := strings.IndexByte(mode, ']')
	if i < 0 || j < i {
		return ""
	}
	return mode[i+1 : j]
}

// FreeBlocks is the free memory of /proc/buddyinfo's text in blocks of
// 2^order pages or larger, counted in blocks of 2^order pages (a free
// block of order o > order holds 2^(o-order) of them), over every zone;
// -1 when the text has no zone line. O(len(text)).
func FreeBlocks(text string, order int) int64 {
	var n int64
	seen := false
	for line := range strings.Lines(text) {
		f := strings.Fields(line)
		// "Node 0, zone Normal c0 c1 ... c10"
		if len(f) < 5 || f[0] != "Node" || f[2] != "zone" {
			continue
		}
		seen = true
		for o, s := range f[4:] {
			c, err := strconv.ParseInt(s, 10, 64)
			if err != nil || c < 0 {
				break
			}
			if o >= order && o-order < 62 {
				n += c << (o - order)
			}
		}
	}
	if !seen {
		return -1
	}
	return n
}

// BlockOrder is the buddy allocator's order of a huge page of page bytes
// over base pages of small bytes (2 MiB over 4 KiB: 9), or -1 when page is
// not a power-of-two multiple of small. O(1).
func BlockOrder(page, small int64) int {
	if small <= 0 || page < small || page%small != 0 {
		return -1
	}
	q := page / small
	if q&(q-1) != 0 {
		return -1
	}
	o := 0
	for ; q > 1; q >>= 1 {
		o++
	}
	return o
}

// Warning is why ACBFJOIN_HUGEPAGES's value was not understood (it is
// then taken as "off"), or "" when it was. O(1).
func Warning() string {
	if v := os.Getenv(Env); v != "" && v != "on" && v != "off" {
		_, why := Plan(System{Switch: v}, 0)
		return why
	}
	return ""
}

// sysfs reads one of the kernel's transparent huge page settings, "" when
// there is none.
func sysfs(name string) string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/" + name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
