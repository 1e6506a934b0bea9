package join

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/key"
)

// TestKeyOutputNames: on random sides whose names come from a small
// alphabet (so that they collide, suffixed names among them), the output's
// names are the large side's unchanged, then each key-side column's but
// the key's: its own name when the large side has not that name, else the
// name with the suffix appended the fewest times that no other output
// column has; every output name is distinct. OutputHeader's line is the
// names as a CSV line.
func TestKeyOutputNames(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	pool := []string{"a", "b", "a_keys", "a_keys_keys", "b_x", "K", "c,d", `q"`}
	pick := func() []string {
		var out []string
		for _, n := range pool {
			if rng.IntN(2) == 0 {
				out = append(out, n)
			}
		}
		rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	for range 2000 {
		large, keys := pick(), pick()
		if len(keys) == 0 {
			continue
		}
		ks := key.Spec{Cols: []int{rng.IntN(len(keys))}, Types: []key.Type{key.String}}
		suffix := []string{"", "_keys", "_x"}[rng.IntN(3)]
		sfx := suffix
		if sfx == "" {
			sfx = DefaultSuffix
		}
		got := KeyOutputNames(large, keys, ks, suffix)
		h := OutputHeader(large, key.Spec{}, keys, ks, suffix)
		what := fmt.Sprintf("large %q keys %q key %d suffix %q: %q", large, keys, ks.Cols[0], suffix, got)
		if len(got) != len(keys) || !slices.Equal(h.Names[:len(large)], large) {
			t.Fatalf("%s; header %q", what, h.Names)
		}
		seen := map[string]bool{}
		for _, n := range h.Names {
			if seen[n] {
				t.Fatalf("%s: %q twice in %q", what, n, h.Names)
			}
			seen[n] = true
		}
		var rest []string
		for i, n := range keys {
			if ks.IsKeyCol(i) {
				if got[i] != "" {
					t.Fatalf("%s: the key column named %q", what, got[i])
				}
				continue
			}
			rest = append(rest, got[i])
			if !slices.Contains(large, n) {
				if got[i] != n {
					t.Fatalf("%s: %q renamed, the large side has not its name", what, n)
				}
				continue
			}
			base, ok := strings.CutPrefix(got[i], n)
			times := strings.Count(base, sfx)
			if !ok || times == 0 || base != strings.Repeat(sfx, times) {
				t.Fatalf("%s: %q is not %q and suffixes", what, got[i], n)
			}
			// Each shorter candidate is another output column's name.
			for k := 1; k < times; k++ {
				if c := n + strings.Repeat(sfx, k); !seen[c] || c == got[i] {
					t.Fatalf("%s: %q, when %q was free", what, got[i], c)
				}
			}
		}
		if !slices.Equal(h.Names[len(large):], rest) {
			t.Fatalf("%s: header %q", what, h.Names)
		}
		want := strings.Join(func() []string {
			q := make([]string, len(h.Names))
			for i, n := range h.Names {
				q[i] = n
				if strings.ContainsAny(n, ",\"") {
					q[i] = `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
				}
			}
			return q
		}(), ",") + "\n"
		if string(h.Line) != want {
			t.Fatalf("%s: line %q, want %q", what, h.Line, want)
		}
	}
}
