//go:build amd64

package hashing

import "golang.org/x/sys/cpu"

// hasSum8IntsAsm says the CPU runs sum8IntsAVX512 (AVX-512 F, DQ, BW and
// the OS saves the ZMM registers: x/sys/cpu checks both).
var hasSum8IntsAsm = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512BW

// sum8IntsAVX512 is sum8IntsGo of n values (n a multiple of 8, n >= 8) in
// AVX-512: eight keys a step (sum8ints_amd64.s).
//
//go:noescape
func sum8IntsAVX512(vals *int64, n int, h1s, h2s *uint64)
