package local

import "github.com/acbfjoin/acbfjoin/columnar"

// The buffers a column gives back (columnar.Column.Release) are filled
// with garbage in tests: a column used after its release, or its values
// seen through another, shows in the output the tests compare.
func init() { columnar.PoisonReleased(true) }
