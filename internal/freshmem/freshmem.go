// Package freshmem makes the memory of hash tables written at random.
//
// Fresh memory from the operating system is mapped page by page on first
// touch. A table written at random touches its pages in random order, and a
// probe reads its slot before it writes it: the read maps the shared zero
// page, and the write faults a second time to copy it, which on a process
// with threads on other processors also flushes their TLBs (an
// inter-processor interrupt each; on a KVM guest an exit to the host). On an
// Intel Xeon KVM guest with 2 cores that second fault and its flush were
// most of the reduce's span index build (11-17 ms for 33,000 keys) and 7% of
// a `--filter auto` join's CPU (the build's key set, join/local's u64Set:
// perf, do_wp_page -> flush_tlb_mm_range). Writing the zeros in order takes
// one fault a page, no flush, and costs a pass over memory that the
// allocator may have zeroed already (about 0.1 ms a MiB).
//
// Used where perf found those faults: the reduce's span index and the
// build's key set. A filter's bit array is the same pattern, but writing
// the ACBF's first level in order measured within the noise
// (bench/join-tried.md), and a bitmap written in order is resident whole
// where one with gaps between its keys would not be: filters stay on
// plain make until a measurement says otherwise.
package freshmem

// Table returns make([]T, n) with its memory written in order, once: see
// the package comment. O(n), one allocation; the slice is the caller's.
func Table[T any](n int) []T {
	s := make([]T, n)
	clear(s)
	return s
}
