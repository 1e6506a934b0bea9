package csvscan

import "golang.org/x/sys/cpu"

// hasMasks64 says masks64 runs as AVX2 instructions: two 32-byte compares
// against sep and '\n' a mask, where the 8-byte word loop (zeroBytes) takes
// eight steps for the same 64 bytes.
var hasMasks64 = cpu.X86.HasAVX2

// masks64 is masks64Go of the 64 bytes at p (which must be readable), in
// AVX2 (masks_amd64.s). Call it only when hasMasks64.
//
//go:noescape
func masks64(p *byte, sep byte) (seps, nls uint64)
