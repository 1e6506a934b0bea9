package csvscan

import "golang.org/x/sys/cpu"

// hasTwoCol says the CPU runs twoColSteps (BMI1, POPCNT and PCLMULQDQ
// with AVX's VEX encodings). It is used where blockAsm is (lastBlocks),
// so ACBFJOIN_CPU=portable turns it off with the rest.
var hasTwoCol = cpu.X86.HasAVX && cpu.X86.HasBMI1 && cpu.X86.HasPOPCNT && cpu.X86.HasPCLMULQDQ

// twoColSteps is lastBlocks' two-column step over as many steps as pass
// its test, in assembly with the state in registers (twocol_amd64.s);
// it stops at the first step that does not, the end of the masks or of
// the buffer, or once s.recEnd is reached, and leaves the step it stopped
// at to the caller (lastBlocks' line loop). The same records as that
// loop (TestBatchTwoColumnSteps runs both, FuzzBatch against Next).
// Cost: about 20 instructions a line, 20 a step.
//
//go:noescape
func twoColSteps(s *twoColState)
