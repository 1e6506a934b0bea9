package csvscan

import "golang.org/x/sys/cpu"

// hasBlockAsm says the CPU runs masksBlockAVX2 (it has AVX2). Whether it
// is used is blockAsm's decision, which ACBFJOIN_CPU can turn off (cpu.go).
var hasBlockAsm = cpu.X86.HasAVX2

// masksBlockAVX2 is masksBlockGo of the n 64-byte words at p, all 64n
// bytes of which must be readable, into seps[0:n] and nls[0:n], in AVX2
// with VEX encodings only (masks_amd64.s). Cost: one call, two 32-byte
// loads and four compares a word. Call it through scanMasks only.
//
//go:noescape
func masksBlockAVX2(p *byte, n int, sep byte, seps, nls *uint64)

// masksQBlockAVX2 is masksQBlockGo of the n 64-byte words at p (all 64n
// bytes readable): masksBlockAVX2's masks and the quotes' in qs[0:n].
// Cost: one call, two 32-byte loads and six compares a word. Call it
// through scanMasksQ only.
//
//go:noescape
func masksQBlockAVX2(p *byte, n int, sep byte, seps, nls, qs *uint64)

// parseLast8AVX2 is parseLast8 of the n records at recs (their fields in
// full, fullLen bytes), four at a time in AVX2 with VEX encodings only
// (parse_amd64.s): it returns how many it parsed, a multiple of 4, and
// stops before the first group of four with a record that is not an
// integer of 1 to 8 digits. Cost: one call, about 30 instructions a group.
// Call it through parseLast8 only.
//
//go:noescape
func parseLast8AVX2(full *byte, fullLen int, recs *batchRec, n int, out *int64) int
