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
		// The same keys in blocks of 1<<shift keys, each block its own
		// allocation.
		shift := uint(rng.IntN(4))
		var blocks [][]byte
		for i := 0; i < n; i += 1 << shift {
			blocks = append(blocks, bytes.Clone(arena[i*width:min(n, i+1<<shift)*width]))
		}
		b, ok := Blocks(blocks, width, shift)
		if !ok {
			t.Fatalf("trial %d: Blocks refused %d blocks of width %d, shift %d", trial, len(blocks), width, shift)
		}
		if p.Len() != n || s.Len() != n || b.Len() != n || p.Width() != width || b.Width() != width || s.Width() != 0 {
			t.Fatalf("trial %d: len %d/%d/%d width %d/%d, want %d keys of %d", trial, p.Len(), s.Len(), b.Len(), p.Width(), b.Width(), n, width)
		}
		lo := rng.IntN(n + 1)
		hi := lo + rng.IntN(n-lo+1)
		mid := lo + rng.IntN(hi-lo+1)
		for _, l := range []struct {
			name string
			a, b List
		}{
			{"whole", p, s}, {"slice", p.Slice(lo, hi), s.Slice(lo, hi)},
			{"blocks", b, s}, {"blocks slice", b.Slice(lo, hi), s.Slice(lo, hi)},
			{"blocks slice of a slice", b.Slice(lo, hi).Slice(mid-lo, hi-lo), s.Slice(mid, hi)},
		} {
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

// TestBlocksShape: Blocks takes only blocks of 1<<shift keys but the
// last, which holds whole keys and at most as many.
func TestBlocksShape(t *testing.T) {
	k := func(n int) []byte { return make([]byte, n) }
	for _, c := range []struct {
		blocks [][]byte
		width  int
		shift  uint
		n      int
		ok     bool
	}{
		{nil, 8, 3, 0, true},
		{[][]byte{k(64), k(64), k(8)}, 8, 3, 17, true},
		{[][]byte{k(64), k(0)}, 8, 3, 8, true},
		{[][]byte{k(8), k(64)}, 8, 3, 0, false},  // a short block before the last
		{[][]byte{k(64), k(72)}, 8, 3, 0, false}, // a last block too long
		{[][]byte{k(64), k(12)}, 8, 3, 0, false}, // a partial key
		{[][]byte{k(64)}, 0, 3, 0, false},
		{[][]byte{k(64)}, 8, 62, 0, false},
	} {
		l, ok := Blocks(c.blocks, c.width, c.shift)
		if ok != c.ok || l.Len() != c.n {
			t.Errorf("Blocks(%d blocks, width %d, shift %d): %d keys, ok %v; want %d, %v", len(c.blocks), c.width, c.shift, l.Len(), ok, c.n, c.ok)
		}
	}
}

func TestEmpty(t *testing.T) {
	for _, l := range []List{{}, Of(nil), Packed(nil, 8), Packed([]byte{1, 2, 3}, 8), Packed([]byte{1}, 0)} {
		if l.Len() != 0 || len(l.Slices()) != 0 {
			t.Errorf("%+v: %d keys", l, l.Len())
		}
	}
}
