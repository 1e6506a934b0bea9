//go:build !amd64

package csvscan

import "unsafe"

// hasBlockAsm is false off amd64: the portable code scans.
var hasBlockAsm = false

// masksBlockAVX2 is masksBlockGo (never called where hasBlockAsm is
// false). O(64n).
func masksBlockAVX2(p *byte, n int, sep byte, seps, nls *uint64) {
	masksBlockGo(unsafe.Slice(p, 64*n), sep, unsafe.Slice(seps, n), unsafe.Slice(nls, n))
}

// masksQBlockAVX2 is masksQBlockGo (never called where hasBlockAsm is
// false). O(64n).
func masksQBlockAVX2(p *byte, n int, sep byte, seps, nls, qs *uint64) {
	masksQBlockGo(unsafe.Slice(p, 64*n), sep, unsafe.Slice(seps, n), unsafe.Slice(nls, n), unsafe.Slice(qs, n))
}

// parseLast8AVX2 parses nothing off amd64 (never called where blockAsm is
// false): parseLast8's loop does it all. O(1).
func parseLast8AVX2(full *byte, fullLen int, recs *batchRec, n int, out *int64) int {
	return 0
}
