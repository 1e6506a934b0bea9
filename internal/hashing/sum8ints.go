package hashing

import (
	"fmt"
	"math/bits"

	"github.com/acbfjoin/acbfjoin/internal/cpuswitch"
	"github.com/acbfjoin/acbfjoin/tuple"
)

// Sum8Ints sets h1s[i], h2s[i] to Sum8 of the little-endian word of the
// key.Of bytes of vals[i] (bits.ReverseBytes64(tuple.IntWord(v)), the
// word ContainsBatch hashes for those bytes), for every value; h1s and
// h2s must be at least as long as vals (else it panics, having written
// nothing: TestSum8IntsShortOutputCapacity). With AVX-512 (and ACBFJOIN_CPU
// not "portable") eight values a step; the same hashes either way
// (TestSum8Ints, FuzzSum8Ints). O(len(vals)), no allocation; safe for
// concurrent use on distinct outputs.
func Sum8Ints(vals []int64, h1s, h2s []uint64) {
	if len(h1s) < len(vals) || len(h2s) < len(vals) {
		// Before any work, and by the lengths: reslicing to len(vals)
		// checks only the capacity, and an output carved from a larger
		// buffer would be written past its end.
		panic(fmt.Sprintf("hashing: Sum8Ints of %d values into outputs of %d and %d", len(vals), len(h1s), len(h2s)))
	}
	h1s, h2s = h1s[:len(vals)], h2s[:len(vals)]
	i := 0
	if sum8IntsAsm && len(vals) >= 8 {
		i = len(vals) &^ 7
		sum8IntsAVX512(&vals[0], i, &h1s[0], &h2s[0])
	}
	sum8IntsGo(vals[i:], h1s[i:], h2s[i:])
}

// sum8IntsGo is Sum8Ints in Go, a value at a time.
func sum8IntsGo(vals []int64, h1s, h2s []uint64) {
	h1s, h2s = h1s[:len(vals)], h2s[:len(vals)]
	for i, v := range vals {
		h1s[i], h2s[i] = Sum8(bits.ReverseBytes64(tuple.IntWord(v)))
	}
}

// sum8IntsAsm says Sum8Ints uses the AVX-512 path: the CPU has it and
// ACBFJOIN_CPU (cpuswitch) does not ask for the portable code (set once
// at init; tests flip it to compare the two).
var sum8IntsAsm = hasSum8IntsAsm && cpuswitch.Native()

// IntsPath returns which code hashes integer keys in this process
// (Sum8Ints): "avx512" or "portable", as chosen at start-up by the CPU and
// ACBFJOIN_CPU. O(1).
func IntsPath() string {
	if sum8IntsAsm {
		return "avx512"
	}
	return "portable"
}
