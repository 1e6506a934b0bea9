#include "textflag.h"

// Offsets of twoColState's fields (twocol_amd64.go; TestTwoColStateLayout).
#define SEPS 0
#define NLS 8
#define SEPSEND 16
#define BUF 24
#define PEND 32
#define P 40
#define LS 48
#define LASTSEP 56
#define NF 64
#define LINE 72
#define LINEMASK 80
#define REC 88
#define RECEND 96
#define MAXREC 104
#define SH 112

// func twoColSteps(s *twoColState)
//
// lastBlocks' two-column step (batch.go) over as many 64-byte steps as
// pass its test, in scalar code with the state in registers: a step's
// separators and line breaks must alternate (their union's prefix XOR,
// one carry-less multiplication by all ones; its complement when the line
// under way has its separator), the first line break must end a line of
// at most MAXREC bytes, and the step's lines must fit before RECEND. Each
// line break j then makes a record (rs ls, re and fe j less a CR before
// it, fs one past the line's separator, line LINE&LINEMASK). A step that
// starts SH bytes into a mask word takes the rest of its masks from the
// next word, which must be below SEPSEND too. It returns
// at the first step that fails a test, at the end of the masks or of the
// buffer, or once RECEND is reached, with the state written back; the
// caller does the step it stopped at. BMI1, POPCNT and PCLMULQDQ with
// VEX encodings only (no YMM: no VZEROUPPER needed).
//
// Registers: R14 s, SI seps, DI nls, R8 nf, BX buf, R11 p, R12 ls,
// R13 lastSep, R15 line, DX the next record, R9 the separators' mask,
// R10 the line breaks', AX and CX scratch, X1 all ones.
TEXT ·twoColSteps(SB), NOSPLIT, $0-8
	MOVQ s+0(FP), R14
	MOVQ SEPS(R14), SI
	MOVQ NLS(R14), DI
	MOVQ NF(R14), R8
	MOVQ BUF(R14), BX
	MOVQ P(R14), R11
	MOVQ LS(R14), R12
	MOVQ LASTSEP(R14), R13
	MOVQ LINE(R14), R15
	MOVQ REC(R14), DX
	VPCMPEQQ X1, X1, X1

step:
	CMPQ R11, PEND(R14)
	JGT  out
	CMPQ SI, SEPSEND(R14)
	JAE  out
	MOVQ (SI), R9
	MOVQ (DI), R10
	MOVQ SH(R14), CX
	TESTQ CX, CX
	JZ   aligned

	// The step starts SH bytes into word SI: its masks are this word's
	// upper bits and the next word's lower ones (SHRD).
	MOVQ 8(SI), AX
	SHRQ CX, AX, R9
	MOVQ 8(DI), AX
	SHRQ CX, AX, R10

aligned:

	// The step's lines fit: DX + 24*popcount(mn) <= RECEND. (Each
	// POPCNT and TZCNT writes a register zeroed first: some Intel cores
	// make them wait for the old value, which here is the last line's.)
	XORL    AX, AX
	POPCNTQ R10, AX
	LEAQ    (AX)(AX*2), AX
	SHLQ    $3, AX
	ADDQ    DX, AX
	CMPQ    AX, RECEND(R14)
	JHI     out

	// Alternation: mc == m & par, par the prefix XOR of m = mc|mn.
	MOVQ       R9, AX
	ORQ        R10, AX
	VMOVQ      AX, X0
	VPCLMULQDQ $0x00, X1, X0, X0
	VMOVQ      X0, CX
	TESTQ      R8, R8
	JZ         parity
	NOTQ       CX

parity:
	ANDQ AX, CX
	CMPQ CX, R9
	JNE  out
	TESTQ R10, R10
	JZ   tail

	// The step's first line at most MAXREC bytes.
	XORL   AX, AX
	TZCNTQ R10, AX
	ADDQ   R11, AX
	MOVQ   AX, CX
	SUBQ   R12, CX
	CMPQ   CX, MAXREC(R14)
	JGT    out
	TESTQ  R8, R8
	JZ     lines

	// The line under way has its separator (lastSep): its record is the
	// first line break's (AX) with the field past lastSep.
	BLSRQ R10, R10
	LEAQ  1(R13), CX
	XORQ  R8, R8
	JMP   emit

lines:
	TESTQ  R10, R10
	JZ     tail
	XORL   AX, AX
	TZCNTQ R10, AX
	ADDQ   R11, AX
	BLSRQ  R10, R10
	XORL   CX, CX
	TZCNTQ R9, CX
	ADDQ   R11, CX
	BLSRQ  R9, R9
	INCQ   CX

emit:
	// The record of the line ending at AX (less a CR before it) whose
	// last field starts at CX.
	MOVL R12, 0(DX)
	MOVL CX, 8(DX)
	MOVQ AX, CX
	CMPB -1(BX)(AX*1), $13
	JNE  noCR
	DECQ CX

noCR:
	MOVL CX, 4(DX)
	MOVL CX, 12(DX)
	INCQ R15
	MOVQ R15, CX
	ANDQ LINEMASK(R14), CX
	MOVQ CX, 16(DX)
	ADDQ $24, DX
	LEAQ 1(AX), R12
	MOVQ AX, R13
	JMP  lines

tail:
	// A separator left: the step ends in a line's separator.
	TESTQ  R9, R9
	JZ     next
	MOVQ   $1, R8
	TZCNTQ R9, R13
	ADDQ   R11, R13

next:
	ADDQ $64, R11
	ADDQ $8, SI
	ADDQ $8, DI
	CMPQ DX, RECEND(R14)
	JB   step

out:
	MOVQ SI, SEPS(R14)
	MOVQ DI, NLS(R14)
	MOVQ R8, NF(R14)
	MOVQ R11, P(R14)
	MOVQ R12, LS(R14)
	MOVQ R13, LASTSEP(R14)
	MOVQ R15, LINE(R14)
	MOVQ DX, REC(R14)
	RET
