package cpuswitch

import (
	"strings"
	"testing"
)

// TestChoose: "", "native" let the CPU's code run; "portable" does not;
// anything else does not either, with a warning naming the value.
func TestChoose(t *testing.T) {
	for _, c := range []struct {
		v      string
		native bool
		warn   bool
	}{{"", true, false}, {"native", true, false}, {"portable", false, false}, {"portabel", false, true}, {"NATIVE", false, true}} {
		native, note := Choose(c.v)
		if native != c.native || (note != "") != c.warn || c.warn && !strings.Contains(note, `"`+c.v+`"`) {
			t.Errorf("Choose(%q) = %v, %q; want %v, a warning %v", c.v, native, note, c.native, c.warn)
		}
	}
}
