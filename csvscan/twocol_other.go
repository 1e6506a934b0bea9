//go:build !amd64

package csvscan

// hasTwoCol is false: twoColSteps is amd64 assembly.
const hasTwoCol = false

// twoColSteps does no step, which its contract allows: the caller does
// the step it stopped at. Never called without hasTwoCol.
func twoColSteps(s *twoColState) {}
