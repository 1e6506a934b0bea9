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
// nothing: TestSum8IntsShortOutputCapacity). With AVX-512 eight values a
// step, else with AVX2 four (ACBFJOIN_CPU not "portable"); the same hashes
// on every path (TestSum8Ints, FuzzSum8Ints). O(len(vals)), no
// allocation; safe for concurrent use on distinct outputs.
func Sum8Ints(vals []int64, h1s, h2s []uint64) {
	if len(h1s) < len(vals) || len(h2s) < len(vals) {
		// Before any work, and by the lengths: reslicing to len(vals)
		// checks only the capacity, and an output carved from a larger
		// buffer would be written past its end.
		panic(fmt.Sprintf("hashing: Sum8Ints of %d values into outputs of %d and %d", len(vals), len(h1s), len(h2s)))
	}
	h1s, h2s = h1s[:len(vals)], h2s[:len(vals)]
	i := 0
	switch {
	case intsPath == pathAVX512 && len(vals) >= 8:
		i = len(vals) &^ 7
		sum8IntsAVX512(&vals[0], i, &h1s[0], &h2s[0])
	case intsPath == pathAVX2 && len(vals) >= 4:
		i = len(vals) &^ 3
		sum8IntsAVX2(&vals[0], i, &h1s[0], &h2s[0])
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

// The paths of Sum8Ints, by the names IntsPath gives them.
const (
	pathGo     = "portable"
	pathAVX2   = "avx2"
	pathAVX512 = "avx512"
)

// intsPaths are the paths of Sum8Ints this CPU runs, the portable one
// first and the fastest last (tests compare each with the library).
var intsPaths = func() []string {
	p := []string{pathGo}
	if hasSum8IntsAVX2 {
		p = append(p, pathAVX2)
	}
	if hasSum8IntsAVX512 {
		p = append(p, pathAVX512)
	}
	return p
}()

// intsPath is the path Sum8Ints takes: the fastest the CPU has, or the
// portable one where ACBFJOIN_CPU (cpuswitch) asks for it (set once at
// init; tests change it to compare the paths).
var intsPath = func() string {
	if !cpuswitch.Native() {
		return pathGo
	}
	return intsPaths[len(intsPaths)-1]
}()

// IntsPath returns which code hashes integer keys in this process
// (Sum8Ints): "avx512", "avx2" or "portable", as chosen at start-up by the
// CPU and ACBFJOIN_CPU. O(1).
func IntsPath() string { return intsPath }
