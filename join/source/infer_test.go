package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/key"
)

// TestInferQuotedInParts: a key side whose every line holds quotes (the
// NBER patents' "US","TX") is inferred in as many parts as the side is cut
// into when the join stops at bad rows (the parity of quotes proves the
// cuts), in one part when it skips them (the window rule alone), and the
// evidence is the same either way: the count of keys and the first
// non-canonical one, by its line.
func TestInferQuotedInParts(t *testing.T) {
	var b strings.Builder
	b.WriteString(`"PATENT","COUNTRY","POSTATE"` + "\n")
	const rows, at = 20000, 15000
	for i := range rows {
		k := fmt.Sprint(3070801 + i)
		switch {
		case i == at:
			k = "0042" // line at+2: no canonical integer
		case i == at+100:
			k = "x"
		case i%97 == 0:
			k = "" // NULL: not counted
		}
		fmt.Fprintf(&b, "%s,\"US\",\"TX\"\n", k)
	}
	path := filepath.Join(t.TempDir(), "keys.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(f func(int)) { inferParts = f }(inferParts)
	var want []key.Evidence
	for _, skipBad := range []bool{false, true} {
		s, err := Open(context.Background(), Options{Option: "Keys", Path: path, Parts: 8, SkipBad: skipBad})
		if err != nil {
			t.Fatal(err)
		}
		ks, err := s.KeySpec("KeyCol", []string{"PATENT"}, []key.Type{key.Auto})
		if err != nil {
			t.Fatal(err)
		}
		parts := 0
		inferParts = func(n int) { parts = n }
		ev, err := inferText(context.Background(), s, ks, []int{0}, 4)
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		if skipBad && parts != 1 || !skipBad && parts < 4 {
			t.Errorf("skip bad rows %v: %d parts", skipBad, parts)
		}
		if want == nil {
			want = ev
			nulls := (rows + 96) / 97
			if len(ev) != 1 || !ev[0].Found || ev[0].Value != "0042" || ev[0].At != fmt.Sprintf("line %d", at+2) || ev[0].Keys != int64(rows-nulls) {
				t.Fatalf("evidence %+v", ev)
			}
		} else if fmt.Sprint(ev) != fmt.Sprint(want) {
			t.Errorf("skip bad rows %v: evidence %+v, want %+v", skipBad, ev, want)
		}
	}
}
