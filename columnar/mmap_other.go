//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package columnar

import "os"

// mapFile does not map a file here: the reads use ReadAt.
func mapFile(*os.File, int64) []byte { return nil }

// unmapFile undoes mapFile.
func unmapFile([]byte) error { return nil }

// dropSpan does nothing without a mapping.
func dropSpan(lo, hi uintptr) {}
