package keylist

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestPackedEqualsSlices: a packed List and a List of the same keys as
// slices answer alike (Len, At, Slice, Slices), on random widths and
// counts, with arenas that carry a partial key past the last whole one.
func TestPackedEqualsSlices(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		width := 1 + rng.IntN(16)
		n := rng.IntN(50)
		arena := make([]byte, n*width+rng.IntN(width)) // a partial key at the end
		for i := range arena {
			arena[i] = byte(rng.Uint32())
		}
		var keys [][]byte
		for i := range n {
			keys = append(keys, arena[i*width:(i+1)*width])
		}
		p, s := Packed(arena, width), Of(keys)
		if p.Len() != n || s.Len() != n || p.Width() != width || s.Width() != 0 {
			t.Fatalf("trial %d: len %d/%d width %d, want %d keys of %d", trial, p.Len(), s.Len(), p.Width(), n, width)
		}
		lo := rng.IntN(n + 1)
		hi := lo + rng.IntN(n-lo+1)
		for _, l := range []struct {
			name string
			a, b List
		}{{"whole", p, s}, {"slice", p.Slice(lo, hi), s.Slice(lo, hi)}} {
			if l.a.Len() != l.b.Len() {
				t.Fatalf("trial %d %s: %d keys against %d", trial, l.name, l.a.Len(), l.b.Len())
			}
			ps := l.a.Slices()
			for i := range l.a.Len() {
				if !bytes.Equal(l.a.At(i), l.b.At(i)) || !bytes.Equal(ps[i], l.b.At(i)) {
					t.Fatalf("trial %d %s: key %d %x, want %x", trial, l.name, i, l.a.At(i), l.b.At(i))
				}
			}
		}
	}
}

// TestAtIsCapped: appending to a key of a packed List copies it rather
// than writing over the next key.
func TestAtIsCapped(t *testing.T) {
	arena := binary.LittleEndian.AppendUint64(nil, 1)
	arena = binary.LittleEndian.AppendUint64(arena, 2)
	l := Packed(arena, 8)
	_ = append(l.At(0), 0xff)
	if binary.LittleEndian.Uint64(l.At(1)) != 2 {
		t.Fatal("appending to key 0 changed key 1")
	}
}

func TestEmpty(t *testing.T) {
	for _, l := range []List{{}, Of(nil), Packed(nil, 8), Packed([]byte{1, 2, 3}, 8), Packed([]byte{1}, 0)} {
		if l.Len() != 0 || len(l.Slices()) != 0 {
			t.Errorf("%+v: %d keys", l, l.Len())
		}
	}
}
