package bank

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestWriteMarkdown: a row a class, its label escaped, the note on the
// spread for a kind without it, and the optimal memory of a target p,
// which a p-sized bank's Bloom filters exceed by little.
func TestWriteMarkdown(t *testing.T) {
	classes := randomClasses(t, 9, []int{400, 300})
	classes[0].Label = "a|b"
	cl, _ := ParseClassing("value")
	for _, kind := range []filters.Kind{filters.Bloom, filters.Fuse} {
		b, err := Build(Meta{Kind: kind, Sizing: filters.Sizing{FPP: 0.01}, KeyCol: "k", ClassCol: "c", KeyType: "string", Classing: cl}, classes)
		testutil.Check(t, err)
		v, err := Validate(b, classes, 0)
		testutil.Check(t, err)
		var w bytes.Buffer
		v.WriteMarkdown(&w, b)
		out := w.String()
		if strings.Count(out, "\n| ") != 3 || !strings.Contains(out, `| a\|b | 400 |`) || !strings.Contains(out, "target p 0.01") {
			t.Errorf("%s:\n%s", kind, out)
		}
		if strings.Contains(out, "no closed form") != (kind == filters.Fuse) {
			t.Errorf("%s: the spread note:\n%s", kind, out)
		}
		var opt float64
		for _, c := range b.Classes {
			opt += -float64(c.Built.N) * math.Log(0.01) / (math.Ln2 * math.Ln2) / 8
		}
		if kind == filters.Bloom && (!strings.Contains(out, "the optimal m_i") || float64(b.MemoryBytes()) > 1.05*opt) {
			t.Errorf("bloom at p: %d bytes, optimal %.0f:\n%s", b.MemoryBytes(), opt, out)
		}
	}
}
