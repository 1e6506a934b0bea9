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

// The AVX2 path's constants, each in the four 64-bit lanes of a YMM
// register (VPMULUDQ multiplies the low 32 bits of each lane): the sign
// bit, 8, then MurmurHash3's multipliers c1, c2 and fmix64's two, each
// followed by its high 32 bits. The byte reversal is bswap64's first 32
// bytes.
DATA avx2k<>+0(SB)/8, $0x8000000000000000
DATA avx2k<>+8(SB)/8, $0x8000000000000000
DATA avx2k<>+16(SB)/8, $0x8000000000000000
DATA avx2k<>+24(SB)/8, $0x8000000000000000
DATA avx2k<>+32(SB)/8, $8
DATA avx2k<>+40(SB)/8, $8
DATA avx2k<>+48(SB)/8, $8
DATA avx2k<>+56(SB)/8, $8
DATA avx2k<>+64(SB)/8, $0x87c37b91114253d5
DATA avx2k<>+72(SB)/8, $0x87c37b91114253d5
DATA avx2k<>+80(SB)/8, $0x87c37b91114253d5
DATA avx2k<>+88(SB)/8, $0x87c37b91114253d5
DATA avx2k<>+96(SB)/8, $0x87c37b91
DATA avx2k<>+104(SB)/8, $0x87c37b91
DATA avx2k<>+112(SB)/8, $0x87c37b91
DATA avx2k<>+120(SB)/8, $0x87c37b91
DATA avx2k<>+128(SB)/8, $0x4cf5ad432745937f
DATA avx2k<>+136(SB)/8, $0x4cf5ad432745937f
DATA avx2k<>+144(SB)/8, $0x4cf5ad432745937f
DATA avx2k<>+152(SB)/8, $0x4cf5ad432745937f
DATA avx2k<>+160(SB)/8, $0x4cf5ad43
DATA avx2k<>+168(SB)/8, $0x4cf5ad43
DATA avx2k<>+176(SB)/8, $0x4cf5ad43
DATA avx2k<>+184(SB)/8, $0x4cf5ad43
DATA avx2k<>+192(SB)/8, $0xff51afd7ed558ccd
DATA avx2k<>+200(SB)/8, $0xff51afd7ed558ccd
DATA avx2k<>+208(SB)/8, $0xff51afd7ed558ccd
DATA avx2k<>+216(SB)/8, $0xff51afd7ed558ccd
DATA avx2k<>+224(SB)/8, $0xff51afd7
DATA avx2k<>+232(SB)/8, $0xff51afd7
DATA avx2k<>+240(SB)/8, $0xff51afd7
DATA avx2k<>+248(SB)/8, $0xff51afd7
DATA avx2k<>+256(SB)/8, $0xc4ceb9fe1a85ec53
DATA avx2k<>+264(SB)/8, $0xc4ceb9fe1a85ec53
DATA avx2k<>+272(SB)/8, $0xc4ceb9fe1a85ec53
DATA avx2k<>+280(SB)/8, $0xc4ceb9fe1a85ec53
DATA avx2k<>+288(SB)/8, $0xc4ceb9fe
DATA avx2k<>+296(SB)/8, $0xc4ceb9fe
DATA avx2k<>+304(SB)/8, $0xc4ceb9fe
DATA avx2k<>+312(SB)/8, $0xc4ceb9fe
GLOBL avx2k<>(SB), RODATA|NOPTR, $320

// MULC sets each 64-bit lane x of X to the low 64 bits of x * c, for the
// constant c whose low 32 bits are the lanes' of LO and high 32 bits the
// lanes' of HI (AVX2 has no 64-bit multiply: x*c mod 2^64 is
// xlo*clo + (xhi*clo + xlo*chi) << 32). T1, T2 are scratch.
#define MULC(X, LO, HI, T1, T2) \
	VPSRLQ $32, X, T1; \
	VPMULUDQ LO, T1, T1; \
	VPMULUDQ HI, X, T2; \
	VPADDQ T1, T2, T1; \
	VPSLLQ $32, T1, T1; \
	VPMULUDQ LO, X, X; \
	VPADDQ T1, X, X

// FMIXSTEP is x ^= x >> 33 of each lane of X (T scratch).
#define FMIXSTEP(X, T) \
	VPSRLQ $33, X, T; \
	VPXOR T, X, X

// HASH4 is Sum8 of the four little-endian words of H1 (made from the
// values' key.Of bytes before it: the sign bit flipped, the bytes
// reversed), into H1 and H2: Sum8's steps on each 64-bit lane, fmix64's
// multipliers from memory. T1-T4 are scratch; Y13 holds 8 in each lane.
#define HASH4(H1, H2, T1, T2, T3, T4) \
	MULC(H1, avx2k<>+64(SB), avx2k<>+96(SB), T1, T2); \
	VPSLLQ $31, H1, T1; \
	VPSRLQ $33, H1, H1; \
	VPOR T1, H1, H1; \
	MULC(H1, avx2k<>+128(SB), avx2k<>+160(SB), T1, T2); \
	VPXOR Y13, H1, H1; \
	VPADDQ Y13, H1, H1; \
	VPADDQ Y13, H1, H2; \
	FMIXSTEP(H1, T1); \
	FMIXSTEP(H2, T3); \
	MULC(H1, avx2k<>+192(SB), avx2k<>+224(SB), T1, T2); \
	MULC(H2, avx2k<>+192(SB), avx2k<>+224(SB), T3, T4); \
	FMIXSTEP(H1, T1); \
	FMIXSTEP(H2, T3); \
	MULC(H1, avx2k<>+256(SB), avx2k<>+288(SB), T1, T2); \
	MULC(H2, avx2k<>+256(SB), avx2k<>+288(SB), T3, T4); \
	FMIXSTEP(H1, T1); \
	FMIXSTEP(H2, T3); \
	VPADDQ H2, H1, H1; \
	VPADDQ H1, H2, H2

// func sum8IntsAVX2(vals *int64, n int, h1s, h2s *uint64)
//
// sum8IntsAVX512 in AVX2, for CPUs without AVX-512 (AMD Zen 3 among them):
// four values a step, each 64-bit multiply made of three VPMULUDQ (MULC),
// the rotation of two shifts; n a multiple of 4, at least 4. Only VEX
// encodings, the constants loaded once, one VZEROUPPER before RET. (Two
// independent groups of four a step measured the same on an AMD EPYC
// family 25: the vector units, not the chain of one group, set the pace.)
TEXT ·sum8IntsAVX2(SB), NOSPLIT, $0-32
	MOVQ vals+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ h1s+16(FP), DI
	MOVQ h2s+24(FP), DX
	VMOVDQU avx2k<>+0(SB), Y15  // the sign bit
	VMOVDQU bswap64<>+0(SB), Y14 // the byte reversal
	VMOVDQU avx2k<>+32(SB), Y13 // 8

avx2loop:
	VMOVDQU (SI), Y0
	VPXOR Y15, Y0, Y0   // tuple.IntWord
	VPSHUFB Y14, Y0, Y0 // bits.ReverseBytes64
	HASH4(Y0, Y1, Y2, Y3, Y4, Y5)
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, (DX)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, DX
	SUBQ $4, CX
	JG avx2loop
	VZEROUPPER
	RET
