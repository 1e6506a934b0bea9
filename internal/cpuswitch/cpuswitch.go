// Package cpuswitch is ACBFJOIN_CPU, the one switch between the
// CPU-specific code of every package and its portable code, read once
// when the process starts:
//
//   - unset, "" or "native": the fastest code the CPU runs (csvscan's AVX2
//     block scanner, hashing's AVX-512 or AVX2 hash of integer keys), where the CPU
//     has it;
//   - "portable": the portable Go code on every CPU, without rebuilding:
//     to compare the two, or to step around a CPU on which the assembly is
//     slow;
//   - anything else: a typo must not pass unnoticed, nor pick the native
//     code by default: it is taken as "portable", and Warning says so (the
//     command line prints it once, when it starts; the library prints
//     nothing).
//
// Each package that has CPU-specific code asks Native and checks the CPU
// itself; both paths give the same results, which each package's tests
// check against each other. The switch covers this module's assembly, not
// the CPU dispatch inside the Go runtime and standard library.
package cpuswitch

import (
	"fmt"
	"os"
)

// Env is the environment variable of the switch.
const Env = "ACBFJOIN_CPU"

var native, note = Choose(os.Getenv(Env))

// Native reports whether CPU-specific code may run in this process (the
// CPU must still have it). O(1).
func Native() bool { return native }

// Warning is why ACBFJOIN_CPU's value was not understood (it is then taken
// as "portable"), or "" when it was. O(1).
func Warning() string { return note }

// Choose returns whether the value v of ACBFJOIN_CPU lets CPU-specific code
// run, and a warning for a value it does not know (which means portable).
// O(1).
func Choose(v string) (native bool, note string) {
	switch v {
	case "", "native":
		return true, ""
	case "portable":
		return false, ""
	}
	return false, fmt.Sprintf("%s=%q is neither \"native\" nor \"portable\": using the portable code", Env, v)
}
