#include "textflag.h"

// func masksBlockAVX2(p *byte, n int, sep byte, seps, nls *uint64)
//
// For each of the n 64-byte words at p (n >= 1, all 64n bytes readable):
// seps[i] gets a bit a byte equal to sep, nls[i] one a '\n'. Every vector
// instruction is VEX-encoded (VPBROADCASTB from memory, VMOVD, VMOVDQU,
// VPCMPEQB, VPMOVMSKB): no legacy SSE instruction runs while the YMM upper
// halves are in use, which Intel CPUs charge as an SSE/AVX transition
// (issue 43: 237 ns a call for one MOVD after a VPBROADCASTB). The two
// broadcasts are done once a call, and VZEROUPPER once, before RET.
TEXT ·masksBlockAVX2(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ seps+24(FP), DI
	MOVQ nls+32(FP), DX
	VPBROADCASTB sep+16(FP), Y0  // sep in every byte (VEX, from memory)
	MOVL $0x0a, AX
	VMOVD AX, X1                 // VEX: zeroes the upper bits, no transition
	VPBROADCASTB X1, Y1          // '\n' in every byte
	TESTQ CX, CX
	JLE done

loop:
	VMOVDQU (SI), Y2             // bytes 0..31
	VMOVDQU 32(SI), Y3           // bytes 32..63
	VPCMPEQB Y0, Y2, Y4
	VPCMPEQB Y0, Y3, Y5
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, (DI)
	VPCMPEQB Y1, Y2, Y4
	VPCMPEQB Y1, Y3, Y5
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, (DX)
	ADDQ $64, SI
	ADDQ $8, DI
	ADDQ $8, DX
	DECQ CX
	JNZ loop

done:
	VZEROUPPER
	RET

// func masksQBlockAVX2(p *byte, n int, sep byte, seps, nls, qs *uint64)
//
// masksBlockAVX2 with a third mask: qs[i] gets a bit a '"' of word i
// (NextField's quoted records). VEX encodings only, as above.
TEXT ·masksQBlockAVX2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ seps+24(FP), DI
	MOVQ nls+32(FP), DX
	MOVQ qs+40(FP), R8
	VPBROADCASTB sep+16(FP), Y0  // sep in every byte (VEX, from memory)
	MOVL $0x0a, AX
	VMOVD AX, X1                 // VEX: zeroes the upper bits, no transition
	VPBROADCASTB X1, Y1          // '\n' in every byte
	MOVL $0x22, AX
	VMOVD AX, X6
	VPBROADCASTB X6, Y6          // '"' in every byte
	TESTQ CX, CX
	JLE qdone

qloop:
	VMOVDQU (SI), Y2             // bytes 0..31
	VMOVDQU 32(SI), Y3           // bytes 32..63
	VPCMPEQB Y0, Y2, Y4
	VPCMPEQB Y0, Y3, Y5
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, (DI)
	VPCMPEQB Y1, Y2, Y4
	VPCMPEQB Y1, Y3, Y5
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, (DX)
	VPCMPEQB Y6, Y2, Y4
	VPCMPEQB Y6, Y3, Y5
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, (R8)
	ADDQ $64, SI
	ADDQ $8, DI
	ADDQ $8, DX
	ADDQ $8, R8
	DECQ CX
	JNZ qloop

qdone:
	VZEROUPPER
	RET
