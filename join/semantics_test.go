package join

import "testing"

// TestForLarge: each join type's rows for a large-side row whose key met
// n key-side rows, against SQL's definitions written out as a table.
func TestForLarge(t *testing.T) {
	for _, tc := range []struct {
		t              JoinType
		none, one, two LargeRows
	}{
		{JoinInner, WritePairs, WritePairs, WritePairs}, // n = 0: no pairs
		{JoinSemi, 0, WriteAlone, WriteAlone},
		{JoinAnti, WriteAlone, 0, 0},
		{JoinLeft, WritePadded, WritePairs, WritePairs},
		{JoinRight, WritePairs, WritePairs, WritePairs},
		{JoinFull, WritePadded, WritePairs, WritePairs},
	} {
		for n, want := range []LargeRows{tc.none, tc.one, tc.two} {
			if got := tc.t.ForLarge(n); got != want {
				t.Errorf("%s.ForLarge(%d) = %b, want %b", tc.t, n, got, want)
			}
		}
		wantLarge := tc.t == JoinAnti || tc.t == JoinLeft || tc.t == JoinFull
		if tc.t.KeepsUnmatchedLarge() != wantLarge {
			t.Errorf("%s.KeepsUnmatchedLarge() = %v", tc.t, !wantLarge)
		}
	}
	if len(JoinTypes) != 6 {
		t.Errorf("%d join types: add the new one's rows here", len(JoinTypes))
	}
}
