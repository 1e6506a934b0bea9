package local

import (
	"slices"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestMatchScreen: matchScreen finds, in row order, exactly the values of
// a column that a screen of 1 to 7 values holds (the naive loop's rows),
// appending after what vals and rows held.
func TestMatchScreen(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	for trial := range 300 {
		n := rng.IntN(300)
		vs := make([]int64, n)
		for i := range vs {
			vs[i] = int64(rng.IntN(20)) - 5
		}
		screen := make([]int64, 1+rng.IntN(7))
		for i := range screen {
			screen[i] = int64(rng.IntN(30)) - 5
		}
		base := rng.IntN(1000)
		wantV, wantR := []int64{-99}, []int{-1}
		for j, v := range vs {
			if slices.Contains(screen, v) {
				wantV, wantR = append(wantV, v), append(wantR, base+j)
			}
		}
		gotV, gotR := matchScreen(vs, base, screen, []int64{-99}, []int{-1})
		if !slices.Equal(gotV, wantV) || !slices.Equal(gotR, wantR) {
			t.Fatalf("trial %d, screen %v: got %v at %v, want %v at %v", trial, screen, gotV, gotR, wantV, wantR)
		}
	}
}
