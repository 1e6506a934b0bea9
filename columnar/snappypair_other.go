//go:build !amd64

package columnar

// hasSnappyPair is false: snappyPairSteps is amd64 assembly.
const hasSnappyPair = false

// snappyPairSteps is never called without hasSnappyPair.
func snappyPairSteps(st *pairState) int { return 0 }
