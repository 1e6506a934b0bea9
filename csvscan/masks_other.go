//go:build !amd64

package csvscan

import "unsafe"

// hasMasks64 is false off amd64: the 8-byte word loop scans.
var hasMasks64 = false

// masks64 is masks64Go (never called where hasMasks64 is false).
func masks64(p *byte, sep byte) (seps, nls uint64) {
	return masks64Go(unsafe.Slice(p, 64), sep)
}
