#include "textflag.h"

// func snappyPairSteps(st *pairState) int
//
// Two Snappy blocks' tags, one of each an iteration (snappypair.go says
// why and which). Registers: AX and BX block A's input and output
// addresses, CX and DX block B's, SI pairTab, R12 pairAdv, DI st; R8-R11
// a tag's advance, offset, table entry and source, R13 and R14 a long
// copy's end and cursor.
TEXT ·snappyPairSteps(SB), NOSPLIT, $0-16
	MOVQ st+0(FP), DI
	MOVQ 0(DI), AX
	MOVQ 8(DI), CX
	MOVQ 16(DI), BX
	MOVQ 24(DI), DX
	MOVQ 80(DI), SI
	MOVQ 88(DI), R12

loop:
	CMPQ AX, 32(DI)
	JHI  limit
	CMPQ BX, 48(DI)
	JHI  limit
	CMPQ CX, 40(DI)
	JHI  limit
	CMPQ DX, 56(DI)
	JHI  limit

	// block A: AX its input, BX its output
	MOVBLZX (AX), R8
	MOVL    1(AX), R9
	MOVQ    (SI)(R8*8), R10
	MOVBQZX (R12)(R8*1), R8   // the advance
	ANDL    R10, R9           // the offset's low bits (a literal: 0)
	MOVQ    R10, R11
	SHRQ    $48, R11
	ORQ     R11, R9           // the offset (a literal: 8)
	MOVQ    BX, R11
	SUBQ    64(DI), R11  // the output's length so far
	CMPQ    R9, R11
	JHI     badA            // a copy from before the output's start
	CMPQ    R9, $8
	JLO     badA            // a copy at an offset under 8 (or of 0)
	MOVQ    BX, R11
	SUBQ    R9, R11           // the copy's source
	LEAQ    1(AX), R9       // the literal's
	TESTL   R10, R10
	CMOVQEQ R9, R11           // a literal (no offset mask): its bytes
	SHRQ    $40, R10
	ANDL    $0xff, R10        // the bytes made; 0: a tag not taken
	JEQ     badA
	CMPQ    R10, $32
	JHI     longA
	MOVQ    (R11), R9
	MOVQ    R9, (BX)
	MOVQ    8(R11), R9
	MOVQ    R9, 8(BX)
	MOVQ    16(R11), R9
	MOVQ    R9, 16(BX)
	MOVQ    24(R11), R9
	MOVQ    R9, 24(BX)
	ADDQ    R8, AX
	ADDQ    R10, BX

stepB:
	// block B: CX its input, DX its output
	MOVBLZX (CX), R8
	MOVL    1(CX), R9
	MOVQ    (SI)(R8*8), R10
	MOVBQZX (R12)(R8*1), R8   // the advance
	ANDL    R10, R9           // the offset's low bits (a literal: 0)
	MOVQ    R10, R11
	SHRQ    $48, R11
	ORQ     R11, R9           // the offset (a literal: 8)
	MOVQ    DX, R11
	SUBQ    72(DI), R11  // the output's length so far
	CMPQ    R9, R11
	JHI     badB            // a copy from before the output's start
	CMPQ    R9, $8
	JLO     badB            // a copy at an offset under 8 (or of 0)
	MOVQ    DX, R11
	SUBQ    R9, R11           // the copy's source
	LEAQ    1(CX), R9       // the literal's
	TESTL   R10, R10
	CMOVQEQ R9, R11           // a literal (no offset mask): its bytes
	SHRQ    $40, R10
	ANDL    $0xff, R10        // the bytes made; 0: a tag not taken
	JEQ     badB
	CMPQ    R10, $32
	JHI     longB
	MOVQ    (R11), R9
	MOVQ    R9, (DX)
	MOVQ    8(R11), R9
	MOVQ    R9, 8(DX)
	MOVQ    16(R11), R9
	MOVQ    R9, 16(DX)
	MOVQ    24(R11), R9
	MOVQ    R9, 24(DX)
	ADDQ    R8, CX
	ADDQ    R10, DX
	JMP     loop

	// A copy of 33-64 bytes: 8 at a time (right for an offset of 8 or
	// more: each 8 read were written before), within the output's limit.
longA:
	LEAQ (BX)(R10*1), R13
	CMPQ R13, 48(DI)
	JHI  badA
	MOVQ BX, R14

copyA:
	MOVQ (R11), R9
	MOVQ R9, (R14)
	ADDQ $8, R11
	ADDQ $8, R14
	CMPQ R14, R13
	JLO  copyA
	ADDQ R8, AX
	MOVQ R13, BX
	JMP  stepB

longB:
	LEAQ (DX)(R10*1), R13
	CMPQ R13, 56(DI)
	JHI  badB
	MOVQ DX, R14

copyB:
	MOVQ (R11), R9
	MOVQ R9, (R14)
	ADDQ $8, R11
	ADDQ $8, R14
	CMPQ R14, R13
	JLO  copyB
	ADDQ R8, CX
	MOVQ R13, DX
	JMP  loop

badA:
	MOVQ $1, R8
	JMP  save

badB:
	MOVQ $2, R8
	JMP  save

limit:
	XORL R8, R8

save:
	MOVQ AX, 0(DI)
	MOVQ CX, 8(DI)
	MOVQ BX, 16(DI)
	MOVQ DX, 24(DI)
	MOVQ R8, ret+8(FP)
	RET
