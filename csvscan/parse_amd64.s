#include "textflag.h"

// Constants of parseLast8AVX2, each broadcast to the four quadwords.
DATA parseK<>+0(SB)/8, $0x3030303030303030  // '0' in every byte
DATA parseK<>+8(SB)/8, $0x0909090909090909  // 9 in every byte
DATA parseK<>+16(SB)/8, $0x010a010a010a010a // byte pairs: 10 x first + second
DATA parseK<>+24(SB)/8, $0x0001006400010064 // word pairs: 100 x first + second
DATA parseK<>+32(SB)/8, $10000              // dword pairs: 10000 x first + second
DATA parseK<>+40(SB)/8, $64
DATA parseK<>+48(SB)/8, $0xfffffffffffffff8 // ^7
DATA parseK<>+56(SB)/8, $1
DATA parseK<>+64(SB)/8, $8
DATA parseK<>+72(SB)/8, $0x00000000ffffffff
GLOBL parseK<>(SB), RODATA|NOPTR, $80

// func parseLast8AVX2(full *byte, fullLen int, recs *batchRec, n int, out *int64) int
//
// parseLast8 of n records, four at a time: for each group of four, their
// fields' starts and ends (batchRec.fs, .fe: int32s at offsets 8 and 12
// of its 24 bytes) are checked (1 to 8 bytes, an 8-byte load from the
// start within fullLen), the four 8-byte loads are put in one YMM, each
// shifted so that its field's digits end at the top byte with '0's below
// (VPSLLVQ, VPSRLVQ: a count of 64 gives 0), every byte checked to be a
// digit, and the digits combined by pairs (VPMADDUBSW), pairs of pairs
// (VPMADDWD) and halves (VPMULUDQ): Lemire's SIMD integer parsing. It
// returns the records parsed, a multiple of 4: it stops before the first
// group with a record that is not an integer of 1-8 digits (the caller
// finds which, and parses the last n%4). VEX encodings only; one
// VZEROUPPER before RET (issue 43: no SSE/AVX transition on Intel).
TEXT ·parseLast8AVX2(SB), NOSPLIT, $0-48
	MOVQ full+0(FP), DI
	MOVQ fullLen+8(FP), SI
	MOVQ recs+16(FP), BX
	MOVQ n+24(FP), CX
	MOVQ out+32(FP), DX
	XORQ AX, AX
	VPBROADCASTQ parseK<>+0(SB), Y15  // '0'
	VPBROADCASTQ parseK<>+8(SB), Y14  // 9
	VPBROADCASTQ parseK<>+16(SB), Y13 // 10, 1
	VPBROADCASTQ parseK<>+24(SB), Y12 // 100, 1
	VPBROADCASTQ parseK<>+32(SB), Y11 // 10000
	VPBROADCASTQ parseK<>+40(SB), Y10 // 64
	VPBROADCASTQ parseK<>+48(SB), Y9  // ^7
	VPBROADCASTQ parseK<>+56(SB), Y8  // 1
	VPBROADCASTQ parseK<>+72(SB), Y7  // the low dword
	SUBQ $8, SI
	VMOVQ SI, X6
	VPBROADCASTQ X6, Y6               // fullLen-8: the greatest start
	SUBQ $3, CX                       // groups while AX < n-3

loop:
	CMPQ AX, CX
	JGE done
	// fs | fe<<32 of the four records.
	VMOVQ 8(BX), X0
	VPINSRQ $1, 32(BX), X0, X0
	VMOVQ 56(BX), X1
	VPINSRQ $1, 80(BX), X1, X1
	VINSERTI128 $1, X1, Y0, Y0
	VPAND Y7, Y0, Y1                  // fs
	VPSRLQ $32, Y0, Y2                // fe
	VPSUBQ Y1, Y2, Y2                 // w = fe - fs
	VPSUBQ Y8, Y2, Y3                 // w - 1: 0..7 where w is 1..8
	VPAND Y9, Y3, Y3                  // nonzero where it is not
	VPCMPGTQ Y6, Y1, Y4               // fs > fullLen-8: the load would pass the end
	VPOR Y4, Y3, Y3
	VPTEST Y3, Y3
	JNZ done
	// The four 8-byte loads.
	MOVL 8(BX), R8
	MOVL 32(BX), R9
	MOVL 56(BX), R10
	MOVL 80(BX), R11
	VMOVQ (DI)(R8*1), X4
	VPINSRQ $1, (DI)(R9*1), X4, X4
	VMOVQ (DI)(R10*1), X5
	VPINSRQ $1, (DI)(R11*1), X5, X5
	VINSERTI128 $1, X5, Y4, Y4
	// Keep each field's w bytes at the top, '0's below.
	VPSLLQ $3, Y2, Y2                 // 8w
	VPSUBQ Y2, Y10, Y3                // 64 - 8w
	VPSLLVQ Y3, Y4, Y4
	VPSRLVQ Y2, Y15, Y5               // '0's >> 8w (0 for w = 8)
	VPOR Y5, Y4, Y4
	// Digits only.
	VPSUBB Y15, Y4, Y4
	VPMINUB Y14, Y4, Y5
	VPCMPEQB Y5, Y4, Y5
	VPMOVMSKB Y5, R12
	CMPL R12, $0xffffffff
	JNE done
	// 8 digits to a number: pairs, quads, halves.
	VPMADDUBSW Y13, Y4, Y4
	VPMADDWD Y12, Y4, Y4
	VPMULUDQ Y11, Y4, Y5              // the high 4 digits x 10000
	VPSRLQ $32, Y4, Y4                // the low 4 digits
	VPADDQ Y5, Y4, Y4
	VMOVDQU Y4, (DX)(AX*8)
	ADDQ $4, AX
	ADDQ $96, BX
	JMP loop

done:
	VZEROUPPER
	MOVQ AX, ret+40(FP)
	RET
