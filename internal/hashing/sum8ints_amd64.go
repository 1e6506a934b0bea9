//go:build amd64

package hashing

import "golang.org/x/sys/cpu"

// hasSum8IntsAVX512 says the CPU runs sum8IntsAVX512 (AVX-512 F, DQ, BW
// and the OS saves the ZMM registers: x/sys/cpu checks both).
var hasSum8IntsAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512BW

// hasSum8IntsAVX2 says the CPU runs sum8IntsAVX2 (AVX2, and the OS saves
// the YMM registers).
var hasSum8IntsAVX2 = cpu.X86.HasAVX2

// sum8IntsAVX512 is sum8IntsGo of n values (n a multiple of 8, n >= 8) in
// AVX-512: eight keys a step (sum8ints_amd64.s).
//
//go:noescape
func sum8IntsAVX512(vals *int64, n int, h1s, h2s *uint64)

// sum8IntsAVX2 is sum8IntsGo of n values (n a multiple of 4, n >= 4) in
// AVX2: four keys a step (sum8ints_amd64.s).
//
//go:noescape
func sum8IntsAVX2(vals *int64, n int, h1s, h2s *uint64)
