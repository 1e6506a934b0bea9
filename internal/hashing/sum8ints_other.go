//go:build !amd64

package hashing

// No assembly off amd64.
const hasSum8IntsAVX512, hasSum8IntsAVX2 = false, false

func sum8IntsAVX512(vals *int64, n int, h1s, h2s *uint64) { panic("hashing: no AVX-512 path") }

func sum8IntsAVX2(vals *int64, n int, h1s, h2s *uint64) { panic("hashing: no AVX2 path") }
