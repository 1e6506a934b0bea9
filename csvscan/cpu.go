package csvscan

import (
	"os"

	"github.com/acbfjoin/acbfjoin/internal/cpuswitch"
)

// blockAsm says whether scanMasks, NextBatch and NextField (scanMasksQ)
// use the AVX2 block scanner (on amd64 with AVX2, NextBatch's separator
// and line-break masks come from masksBlockAVX2, and NextField's from
// masksQBlockAVX2, with the quotes' too, and the last column's integers
// are parsed four at a time by parseLast8AVX2; where the CPU has BMI1,
// POPCNT and PCLMULQDQ too, the two-column steps of lastBlocks are
// twoColSteps' assembly): the CPU has it and
// ACBFJOIN_CPU (cpuswitch) does not ask for the portable code, the 8-byte
// word loop. Both paths give the same records, bytes, integers and errors
// (TestBatchMatchesNext, FuzzBatch, TestMasksBlock,
// TestNextFieldMatchesNext, FuzzNextField, TestParseLast8,
// FuzzParseLast8, TestBatchTwoColumnSteps); only the speed differs. Set
// once at init; tests may flip it to compare the two paths.
var blockAsm, cpuNote = chooseCPU(os.Getenv(cpuswitch.Env), hasBlockAsm)

// CPUWarning is why ACBFJOIN_CPU's value was not understood (it is then
// taken as "portable"), or "" when it was (cpuswitch.Warning). O(1).
func CPUWarning() string { return cpuNote }

// chooseCPU returns whether to use the assembly for the value v of
// ACBFJOIN_CPU on a CPU that has it (has), and a warning for a value it
// does not know (which means portable): cpuswitch.Choose's. O(1).
func chooseCPU(v string, has bool) (asm bool, note string) {
	native, note := cpuswitch.Choose(v)
	return native && has, note
}

// CPUPath returns which code scans CSV in this process: "avx2" (the AVX2
// block scanner) or "portable" (the Go word loop), as chosen at start-up by
// the CPU and ACBFJOIN_CPU. O(1).
func CPUPath() string {
	if blockAsm {
		return "avx2"
	}
	return "portable"
}
