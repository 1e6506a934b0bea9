package bank

import (
	"bytes"
	"errors"
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
		// fuse has no rate of its own contents: "-", not 0.00000.
		if strings.Contains(out, "| - | - |") != (kind == filters.Fuse) || (kind == filters.Fuse && strings.Contains(out, "0.00000 |")) {
			t.Errorf("%s: the fill columns:\n%s", kind, out)
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

// TestValidationErr: a class with a false negative fails the validation,
// naming it; none, or no validation, does not.
func TestValidationErr(t *testing.T) {
	if (*Validation)(nil).Err() != nil || (&Validation{Classes: []ClassResult{{Label: "a"}}}).Err() != nil {
		t.Fatal("an error without a false negative")
	}
	err := (&Validation{Classes: []ClassResult{{Label: "a"}, {Label: "b", FN: 2}}}).Err()
	if !errors.Is(err, ErrBank) || !strings.Contains(err.Error(), `class "b": 2 false negatives`) {
		t.Fatalf("%v", err)
	}
	var w bytes.Buffer
	(&Bank{Classes: nil}).WriteClasses(&w)
	if strings.Count(w.String(), "\n") != 2 {
		t.Fatalf("%q", w.String())
	}
}
