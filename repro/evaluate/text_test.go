package evaluate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
)

func TestParseBits(t *testing.T) {
	for in, want := range map[string]string{"8,10, 16": "[8 10 16]", "4:10:2": "[4 6 8 10]", "1:1:1": "[1]", "0.5:1:0.25": "[0.5 0.75 1]"} {
		got, err := ParseBits(in)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("%q: %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "0", "-1,4", "4:2:1", "1:2:0", "0:4:1", "1:2000:1", "NaN", "1:Inf:1"} {
		if _, err := ParseBits(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// TestWriteMarkdown: a row a kind (an error row for one that cannot be
// built, its text rewritten), the churn column only with churn, and the
// JSON of the same results holds no NaN.
func TestWriteMarkdown(t *testing.T) {
	c, err := Config{N: 2000, Queries: 20000, Churn: 1, Seed: 3, Kinds: []filters.Kind{filters.Bloom, filters.Cuckoo}}.Validate()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	rs = append(rs, Result{Kind: "fuse", Err: "filters: Sizing.k 3: no"})
	var b bytes.Buffer
	WriteMarkdown(&b, c, rs, func(s string) string { return strings.ToUpper(s) })
	out := b.String()
	if !strings.Contains(out, "| bloom | k=") || !strings.Contains(out, "deleted keys' FP (z)") || !strings.Contains(out, "| fuse | cannot be built: FILTERS: SIZING.K 3: NO |") {
		t.Errorf("table:\n%s", out)
	}
	data, err := json.Marshal(JSONSafe(rs))
	if err != nil || strings.Contains(string(data), "NaN") || !math.IsNaN(rs[0].RemoveNs) {
		t.Errorf("JSONSafe: %v (and the original keeps its NaN: %v)", err, rs[0].RemoveNs)
	}
}
