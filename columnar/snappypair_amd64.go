package columnar

// hasSnappyPair is true: snappyPairSteps uses amd64's base instructions.
const hasSnappyPair = true

// snappyPairSteps decodes tags of both of st's blocks, one of each an
// iteration, while both are at least pairInMargin and pairOutMargin from
// their ends; it returns 0 there, or 1 (2) where block A's (B's) next tag
// is one it does not take (snappyPair's comment), with st's positions
// just before that tag (A's before B's in an iteration: at 2, A's tag of
// the iteration is done). Cost: about 30 instructions a tag.
//
//go:noescape
func snappyPairSteps(st *pairState) int
