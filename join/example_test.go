package join_test

import (
	"fmt"

	"github.com/acbfjoin/acbfjoin/join"
)

// What each join type writes for a large-side row that met no key row, one,
// or two: the one definition every engine asks.
func ExampleJoinType_ForLarge() {
	name := map[join.LargeRows]string{0: "nothing", join.WritePairs: "its pairs", join.WriteAlone: "itself", join.WritePadded: "itself, padded"}
	for _, t := range join.JoinTypes {
		fmt.Printf("%-5s  none: %-14s  one: %-9s  unmatched key rows: %v\n", t, name[t.ForLarge(0)], name[t.ForLarge(1)], t.KeepsUnmatchedKeys())
	}
	// Output:
	// inner  none: its pairs       one: its pairs  unmatched key rows: false
	// semi   none: nothing         one: itself     unmatched key rows: false
	// anti   none: itself          one: nothing    unmatched key rows: false
	// left   none: itself, padded  one: its pairs  unmatched key rows: false
	// right  none: its pairs       one: its pairs  unmatched key rows: true
	// full   none: itself, padded  one: its pairs  unmatched key rows: true
}
