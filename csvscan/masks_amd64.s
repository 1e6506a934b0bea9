#include "textflag.h"

// func masks64(p *byte, sep byte) (seps, nls uint64)
TEXT ·masks64(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVBLZX sep+8(FP), AX
	MOVD AX, X0
	VPBROADCASTB X0, Y0          // sep in every byte
	MOVL $0x0a, AX
	MOVD AX, X1
	VPBROADCASTB X1, Y1          // '\n' in every byte
	VMOVDQU (SI), Y2             // bytes 0..31
	VMOVDQU 32(SI), Y3           // bytes 32..63
	VPCMPEQB Y0, Y2, Y4
	VPCMPEQB Y0, Y3, Y5
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, seps+16(FP)
	VPCMPEQB Y1, Y2, Y4
	VPCMPEQB Y1, Y3, Y5
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, nls+24(FP)
	VZEROUPPER
	RET
