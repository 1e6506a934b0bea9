#include "textflag.h"

// Byte indexes that reverse each 8-byte lane (VPSHUFB works within 16-byte
// lanes): bytes 7..0, then 15..8, in each of the four 16-byte lanes.
DATA bswap64<>+0(SB)/8, $0x0001020304050607
DATA bswap64<>+8(SB)/8, $0x08090a0b0c0d0e0f
DATA bswap64<>+16(SB)/8, $0x0001020304050607
DATA bswap64<>+24(SB)/8, $0x08090a0b0c0d0e0f
DATA bswap64<>+32(SB)/8, $0x0001020304050607
DATA bswap64<>+40(SB)/8, $0x08090a0b0c0d0e0f
DATA bswap64<>+48(SB)/8, $0x0001020304050607
DATA bswap64<>+56(SB)/8, $0x08090a0b0c0d0e0f
GLOBL bswap64<>(SB), RODATA|NOPTR, $64

// func sum8IntsAVX512(vals *int64, n int, h1s, h2s *uint64)
//
// For each of the n values (n a multiple of 8, at least 8): Sum8 of the
// little-endian word of its key.Of bytes, bits.ReverseBytes64(v ^ 1<<63),
// h1 into h1s[i] and h2 into h2s[i]. Eight lanes a step, AVX-512F, DQ
// (VPMULLQ) and BW (VPSHUFB on ZMM); the constants broadcast once, one
// VZEROUPPER before RET.
TEXT ·sum8IntsAVX512(SB), NOSPLIT, $0-32
	MOVQ vals+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ h1s+16(FP), DI
	MOVQ h2s+24(FP), DX
	MOVQ $0x8000000000000000, AX
	VPBROADCASTQ AX, Z10
	MOVQ $0x87c37b91114253d5, AX
	VPBROADCASTQ AX, Z11
	MOVQ $0x4cf5ad432745937f, AX
	VPBROADCASTQ AX, Z12
	MOVQ $0xff51afd7ed558ccd, AX
	VPBROADCASTQ AX, Z13
	MOVQ $0xc4ceb9fe1a85ec53, AX
	VPBROADCASTQ AX, Z14
	MOVQ $8, AX
	VPBROADCASTQ AX, Z15
	VMOVDQU64 bswap64<>(SB), Z9

loop:
	VMOVDQU64 (SI), Z0
	VPXORQ Z10, Z0, Z0 // tuple.IntWord
	VPSHUFB Z9, Z0, Z0 // bits.ReverseBytes64
	VPMULLQ Z11, Z0, Z0 // k * c1
	VPROLQ $31, Z0, Z0
	VPMULLQ Z12, Z0, Z0 // * c2
	VPXORQ Z15, Z0, Z0 // ^ 8
	VPADDQ Z15, Z0, Z0 // + 8: h1 before fmix64
	VPADDQ Z15, Z0, Z1 // h1 + 8: h2 before fmix64

	// fmix64 of Z0 and of Z1, interleaved
	VPSRLQ $33, Z0, Z2
	VPSRLQ $33, Z1, Z3
	VPXORQ Z2, Z0, Z0
	VPXORQ Z3, Z1, Z1
	VPMULLQ Z13, Z0, Z0
	VPMULLQ Z13, Z1, Z1
	VPSRLQ $33, Z0, Z2
	VPSRLQ $33, Z1, Z3
	VPXORQ Z2, Z0, Z0
	VPXORQ Z3, Z1, Z1
	VPMULLQ Z14, Z0, Z0
	VPMULLQ Z14, Z1, Z1
	VPSRLQ $33, Z0, Z2
	VPSRLQ $33, Z1, Z3
	VPXORQ Z2, Z0, Z0
	VPXORQ Z3, Z1, Z1

	VPADDQ Z1, Z0, Z0 // h1 += h2
	VPADDQ Z0, Z1, Z1 // h2 += h1
	VMOVDQU64 Z0, (DI)
	VMOVDQU64 Z1, (DX)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, DX
	SUBQ $8, CX
	JG loop
	VZEROUPPER
	RET
