//go:build !amd64

package hashing

// hasSum8IntsAsm: no assembly off amd64.
const hasSum8IntsAsm = false

func sum8IntsAVX512(vals *int64, n int, h1s, h2s *uint64) { panic("hashing: no AVX-512 path") }
