// Package hugeheap puts the first part of the Go heap on the kernel's
// transparent huge pages, for a command whose heap grows from nothing to
// tens of MiB in a fraction of a second: a join.
//
// The Go runtime maps its heap with plain mmap and, since Go 1.21.4, never
// asks for huge pages (golang/go#61718: a fault in a MADV_HUGEPAGE region
// may stall while the kernel compacts memory for a huge page). On a kernel
// whose transparent_hugepage/enabled is "madvise" (the default of Debian
// and of the machines this project runs on), every 4 KiB page of the heap
// is then a page fault on its first touch: 12,500 of them in the NBER
// join (72 MiB peak RSS), 40% of the key side's build's CPU, where a
// fault on a KVM guest costs about a microsecond (perf: do_anonymous_page,
// the memory cgroup's charge, TLB flushes). With its first 64 MiB on 2
// MiB pages the same join took 2,500 faults and 0.94x the wall time,
// Parquet joins 0.88-0.97x, for 15-27 MiB more resident memory
// (docs/design.md has the measurements).
//
// Advise maps the heap's next bytes up front (one allocation, never
// touched, then collected, so the runtime hands those addresses out
// next) and marks them MADV_HUGEPAGE. It does nothing, and says why,
// unless the kernel's mode is "madvise" (under "always" the heap has huge
// pages already) and the kernel has free 2 MiB blocks for twice the
// region (/proc/buddyinfo), so that no fault waits for a compaction: the
// stall of golang/go#61718. The region is the caller's bound on the
// resident memory it may add (a huge page is resident whole once any of
// it is touched). ACBFJOIN_HUGEPAGES=off turns it off without a rebuild.
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

// minPages is the fewest huge pages a region is worth an allocation and
// a collection for.
const minPages = 4

// Plan decides the region Advise marks, from the switch's value env, the
// kernel's transparent_hugepage/enabled text mode, its huge page size
// page (bytes; 0: unknown) and its free blocks of that size or larger,
// free (in huge pages; -1: unknown), for a bound of limit bytes. It
// returns the region's size (a multiple of page; 0: none) and why it is
// none. Pure; O(len(mode)).
func Plan(env, mode string, page, free, limit int64) (int64, string) {
	switch env {
	case "", "on":
	case "off":
		return 0, Env + "=off"
	default:
		return 0, fmt.Sprintf("%s=%q is neither \"on\" nor \"off\": taken as off", Env, env)
	}
	switch chosen(mode) {
	case "madvise":
	case "always":
		return 0, "the kernel puts every heap on huge pages already (transparent_hugepage/enabled: always)"
	case "":
		return 0, "the kernel has no transparent huge pages"
	default:
		return 0, "the kernel's transparent huge pages are " + chosen(mode)
	}
	if page <= 0 {
		return 0, "the kernel does not say its huge page size"
	}
	pages := limit / page
	if pages < minPages {
		return 0, fmt.Sprintf("a bound of %d bytes is under %d huge pages", limit, minPages)
	}
	if free >= 0 && free < 2*pages {
		return 0, fmt.Sprintf("the kernel has %d free huge pages, fewer than twice the %d asked for (a fault would wait for compaction)", free, pages)
	}
	return pages * page, ""
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

// sysfs reads one of the kernel's transparent huge page settings, "" when
// there is none.
func sysfs(name string) string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/" + name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Warning is why ACBFJOIN_HUGEPAGES's value was not understood (it is
// then taken as "off"), or "" when it was. O(1).
func Warning() string {
	if v := os.Getenv(Env); v != "" && v != "on" && v != "off" {
		_, why := Plan(v, "", 0, 0, 0)
		return why
	}
	return ""
}
