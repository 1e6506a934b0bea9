package local

import (
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestU64Set checks u64Set against a map: random keys from small and
// large ranges (collisions, clusters, 0), has for members and not, each
// and len.
func TestU64Set(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(testutil.Seed(t))
	for _, n := range []int{0, 1, 13, 1000, 100_000} {
		for _, span := range []uint64{4, 1 << 20, 0} { // 0: any uint64
			var s u64Set
			model := map[uint64]bool{}
			for range n {
				k := rng.Uint64()
				if span > 0 {
					k %= span
				}
				s.add(k)
				model[k] = true
			}
			if s.len() != len(model) {
				t.Fatalf("n %d span %d: len %d, want %d", n, span, s.len(), len(model))
			}
			seen := map[uint64]bool{}
			s.each(func(k uint64) {
				if seen[k] || !model[k] {
					t.Fatalf("n %d span %d: each gave %d (seen %v, in the model %v)", n, span, k, seen[k], model[k])
				}
				seen[k] = true
			})
			if len(seen) != len(model) {
				t.Fatalf("n %d span %d: each gave %d keys, want %d", n, span, len(seen), len(model))
			}
			for k := range model {
				if !s.has(k) {
					t.Fatalf("n %d span %d: %d missing", n, span, k)
				}
			}
			for range 1000 {
				k := rng.Uint64()
				if span > 0 {
					k %= 2 * span
				}
				if s.has(k) != model[k] {
					t.Fatalf("n %d span %d: has(%d) = %v", n, span, k, !model[k])
				}
			}
		}
	}
}

// TestKeySetStrings checks keySet.has on 8-byte keys given as strings
// against add's byte order, and merge.
func TestKeySetStrings(t *testing.T) {
	var a, b keySet
	a.add([]byte("abcdefgh"))
	a.add([]byte("short"))
	b.add([]byte("12345678"))
	b.add([]byte("\x00\x00\x00\x00\x00\x00\x00\x00"))
	b.add([]byte("a longer key"))
	a.merge(&b)
	for _, k := range []string{"abcdefgh", "short", "12345678", "\x00\x00\x00\x00\x00\x00\x00\x00", "a longer key"} {
		if !a.has(k) {
			t.Fatalf("%q missing after merge", k)
		}
	}
	for _, k := range []string{"hgfedcba", "abcdefgi", "shor", "87654321"} {
		if a.has(k) {
			t.Fatalf("%q present", k)
		}
	}
	if a.len() != 5 || len(a.list()) != 5 {
		t.Fatalf("len %d, list %d, want 5", a.len(), len(a.list()))
	}
}

// TestU64SetMerge merges two sets each at load 0.6 of the same table
// size, walking one in slot order: with one hash function for both, its
// keys land in slot order in the other, whose local load passes 1 before
// it grows, and each insert walks a backlog of the ones before (a merge of
// two sets of 5M keys took 350 s instead of a second). The verdict is the
// probe count, not the time: stopped once past 8 probes an insert.
func TestU64SetMerge(t *testing.T) {
	testutil.SkipUnderRace(t)
	const n = 1_250_000 // 0.6 of 2^21 slots
	var a, b u64Set
	for i := range uint64(n) {
		a.add(3_000_000 + 2*i)
		b.add(3_000_001 + 2*i)
	}
	probes, inserted := 0, 0
	for _, k := range b.slots {
		if k == 0 {
			continue
		}
		mask := uint64(len(a.slots) - 1)
		for i := a.slot(k); a.slots[i] != 0; i = (i + 1) & mask {
			probes++
		}
		a.add(k)
		if inserted++; probes > 8*n {
			t.Fatalf("merge: %d probes after %d inserts of %d, want a few an insert", probes, inserted, n)
		}
	}
	if a.len() != 2*n {
		t.Fatalf("len %d, want %d", a.len(), 2*n)
	}
}
