//go:build linux || darwin || freebsd || netbsd || openbsd

package columnar

import (
	"os"
	"sync/atomic"
	"syscall"
)

// mapFile maps a local Parquet file read-only for the pages decoders: a
// chunk's bytes are then read where the page cache holds them, not copied
// by pread into a buffer (the copy was a fifth of the 20-key Bloom join's
// CPU). nil where it cannot be mapped (the reads then use ReadAt). A
// file truncated while mapped faults on the pages gone (SIGBUS): the
// decoders read the mapping with debug.SetPanicOnFault on and recover,
// so that is an error of the row group and column being read.
func mapFile(f *os.File, size int64) []byte {
	if noMap || size <= 0 || size != int64(int(size)) {
		return nil
	}
	if mappedFiles.Add(1) > maxMappedFiles {
		mappedFiles.Add(-1)
		return nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		mappedFiles.Add(-1)
		return nil
	}
	return b
}

// maxMappedFiles bounds the files mapped at once (a side of many files
// opens them all): the kernel's map count (vm.max_map_count, 65,530 by
// default) is the Go runtime's too, which fails fatally where it runs
// out. The files beyond it are read with pread.
const maxMappedFiles = 4096

// mappedFiles counts the files mapped now.
var mappedFiles atomic.Int64

// unmapFile undoes mapFile.
func unmapFile(b []byte) error {
	if b == nil {
		return nil
	}
	mappedFiles.Add(-1)
	return syscall.Munmap(b)
}

// dropSpan lets the kernel take back the pages of the addresses
// [lo, hi), a range of a mapping (mapFile) read and done with
// (mapDrops): they count in the process's resident memory until then (the
// NBER twins' peak RSS was 201 MB mapped against 98 read), and a later
// read of them faults them in again from the page cache. The range is
// widened to whole pages; a neighbouring chunk that another reader is
// reading then faults its first or last page in again, nothing more.
func dropSpan(lo, hi uintptr) {
	if hi <= lo {
		return
	}
	page := uintptr(os.Getpagesize())
	lo &^= page - 1
	hi = (hi + page - 1) &^ (page - 1)
	_ = madvise(lo, hi-lo)
}

// madvise is madvise(2) with MADV_DONTNEED.
func madvise(addr, n uintptr) error {
	_, _, e := syscall.Syscall(syscall.SYS_MADVISE, addr, n, syscall.MADV_DONTNEED)
	if e != 0 {
		return e
	}
	return nil
}
