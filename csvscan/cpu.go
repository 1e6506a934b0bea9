package csvscan

import (
	"fmt"
	"os"
)

// cpuEnv is the environment variable that chooses csvscan's CPU-specific
// code, read once when the package is initialised:
//
//   - unset, "" or "native": the fastest code the CPU runs (on amd64 with
//     AVX2, NextBatch's separator and line-break masks come from the AVX2
//     block scanner, masksBlockAVX2, and NextField's from masksQBlockAVX2,
//     with the quotes' too);
//   - "portable": the portable Go code on every CPU (the 8-byte word loop),
//     without rebuilding: to compare the two, or to step around a CPU on
//     which the assembly is slow;
//   - anything else: a typo must not pass unnoticed, nor pick the native
//     code by default: it is taken as "portable", and CPUWarning says so
//     (the command line prints it once, when it starts; the library
//     prints nothing).
//
// Both paths give the same records, bytes and errors (TestBatchMatchesNext,
// FuzzBatch, TestMasksBlock, TestNextFieldMatchesNext, FuzzNextField);
// only the speed differs. The switch covers
// csvscan's own assembly, not the CPU dispatch inside the Go runtime and
// standard library (bytes.IndexByte).
const cpuEnv = "ACBFJOIN_CPU"

// blockAsm says whether scanMasks, NextBatch and NextField (scanMasksQ)
// use the AVX2 block scanner:
// the CPU has it and ACBFJOIN_CPU does not ask for the portable code. Set
// once at init; tests may flip it to compare the two paths.
var blockAsm, cpuNote = chooseCPU(os.Getenv(cpuEnv), hasBlockAsm)

// CPUWarning is why ACBFJOIN_CPU's value was not understood (it is then
// taken as "portable"), or "" when it was. O(1).
func CPUWarning() string { return cpuNote }

// chooseCPU returns whether to use the assembly for the value v of
// ACBFJOIN_CPU on a CPU that has it (has), and a warning for a value it
// does not know (which means portable). O(1).
func chooseCPU(v string, has bool) (asm bool, note string) {
	switch v {
	case "", "native":
		return has, ""
	case "portable":
		return false, ""
	}
	return false, fmt.Sprintf("%s=%q is neither \"native\" nor \"portable\": using the portable code", cpuEnv, v)
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
