#include "textflag.h"

// STEP decodes the tag at sp (a block's input address) into dp (its
// output address), the block's output starting at dbase(DI): a literal
// of up to 32 bytes or a copy of up to 32 at an offset of 8 or more
// within the output, 32 bytes moved whatever its length. A tag it does
// not take goes to bad with sp and dp unmoved; a copy of 33-64 bytes to
// long, with R8 the advance, R10 the length and R11 the source.
#define STEP(sp, dp, dbase, bad, long) \
	MOVBLZX (sp), R8          \ // the tag
	MOVL    1(sp), R9         \
	MOVQ    (SI)(R8*8), R10   \ // its pairTab entry
	MOVBQZX (R12)(R8*1), R8   \ // its advance
	ANDL    R10, R9           \ // the offset's low bits (a literal: 0)
	MOVQ    R10, R11          \
	SHRQ    $48, R11          \
	ORQ     R11, R9           \ // the offset (a literal: 8)
	MOVQ    dp, R11           \
	SUBQ    dbase(DI), R11    \ // the output's length so far
	CMPQ    R9, R11           \
	JHI     bad               \ // a copy from before the output's start
	CMPQ    R9, $8            \
	JLO     bad               \ // a copy at an offset under 8 (or of 0)
	MOVQ    dp, R11           \
	SUBQ    R9, R11           \ // the copy's source
	LEAQ    1(sp), R9         \ // the literal's
	TESTL   R10, R10          \
	CMOVQEQ R9, R11           \ // a literal (no offset mask): its bytes
	SHRQ    $40, R10          \
	ANDL    $0xff, R10        \ // the bytes made; 0: a tag not taken
	JEQ     bad               \
	CMPQ    R10, $32          \
	JHI     long              \
	MOVQ    (R11), R9         \
	MOVQ    R9, (dp)          \
	MOVQ    8(R11), R9        \
	MOVQ    R9, 8(dp)         \
	MOVQ    16(R11), R9       \
	MOVQ    R9, 16(dp)        \
	MOVQ    24(R11), R9       \
	MOVQ    R9, 24(dp)        \
	ADDQ    R8, sp            \
	ADDQ    R10, dp

// LONG is STEP's copy of 33-64 bytes: 8 at a time (right for an offset
// of 8 or more: each 8 read were written before), within the output's
// limit dlim(DI) (else bad, nothing moved), then on to next.
#define LONG(sp, dp, dlim, bad, next, again) \
	LEAQ (dp)(R10*1), R13 \
	CMPQ R13, dlim(DI)    \
	JHI  bad              \
	MOVQ dp, R14          \
again:                    \
	MOVQ (R11), R9        \
	MOVQ R9, (R14)        \
	ADDQ $8, R11          \
	ADDQ $8, R14          \
	CMPQ R14, R13         \
	JLO  again            \
	ADDQ R8, sp           \
	MOVQ R13, dp          \
	JMP  next

// func snappyPairSteps(st *pairState) int
//
// Two Snappy blocks' tags, one of each an iteration (snappypair.go says
// why and which). Registers: AX and BX block A's input and output
// addresses, CX and DX block B's, SI pairTab, R12 pairAdv, DI st; R8-R11
// a tag's advance, offset, table entry and source, R13 and R14 a long
// copy's end and cursor. st's offsets: sp 0 and 8, dp 16 and 24, slim
// 32 and 40, dlim 48 and 56, dbase 64 and 72, tab 80, adv 88.
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
	STEP(AX, BX, 64, badA, longA)

stepB:
	STEP(CX, DX, 72, badB, longB)
	JMP loop

longA:
	LONG(AX, BX, 48, badA, stepB, copyA)

longB:
	LONG(CX, DX, 56, badB, loop, copyB)

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
