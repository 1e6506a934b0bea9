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
			// Runs gives every key once, in order, in whole keys; a
			// false from f stops it.
			for _, x := range []List{l.a, l.b} {
				var all []byte
				calls := 0
				x.Runs(func(run []byte) bool {
					calls++
					if x.Width() > 0 && cap(run) != len(run) { // a packed list's runs are capped; Of's keys are the caller's slices
						t.Fatalf("trial %d %s: a run of %d bytes has capacity %d", trial, l.name, len(run), cap(run))
					}
					if w := x.Width(); w > 0 && len(run)%w != 0 {
						t.Fatalf("trial %d %s: a run of %d bytes, keys of %d", trial, l.name, len(run), w)
					}
					all = append(all, run...)
					return true
				})
				var want []byte
				for i := range x.Len() {
					want = append(want, x.At(i)...)
				}
				if !bytes.Equal(all, want) {
					t.Fatalf("trial %d %s: runs give %x, want %x", trial, l.name, all, want)
				}
				stopped := 0
				x.Runs(func([]byte) bool { stopped++; return false })
				if calls > 0 && stopped != 1 {
					t.Fatalf("trial %d %s: %d calls after a false", trial, l.name, stopped)
				}
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

// TestSpansEqualSlices: a Spans list of keys of any lengths, laid out in
// several arenas with bytes between them, answers as the List of the
// same keys as slices (Len, At, Slice, Slices), and Spans refuses a span
// past its arena or of an arena it was not given.
func TestSpansEqualSlices(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		arenas := make([][]byte, 1+rng.IntN(5))
		var keys [][]byte
		var spans []Span
		for range rng.IntN(60) {
			a := rng.IntN(len(arenas))
			arenas[a] = append(arenas[a], make([]byte, rng.IntN(3))...) // a gap
			k := make([]byte, rng.IntN(12))
			for j := range k {
				k[j] = byte(rng.Uint32())
			}
			sp, ok := MakeSpan(a, len(arenas[a]), len(k))
			if !ok {
				t.Fatal("MakeSpan refused a small span")
			}
			arenas[a] = append(arenas[a], k...)
			keys, spans = append(keys, k), append(spans, sp)
		}
		l, ok := Spans(arenas, spans)
		if !ok {
			t.Fatalf("trial %d: Spans refused its own spans", trial)
		}
		s := Of(keys)
		n := len(keys)
		lo := rng.IntN(n + 1)
		hi := lo + rng.IntN(n-lo+1)
		for _, c := range []struct {
			name string
			a, b List
		}{{"whole", l, s}, {"slice", l.Slice(lo, hi), s.Slice(lo, hi)}} {
			if c.a.Len() != c.b.Len() || c.a.Width() != 0 {
				t.Fatalf("trial %d %s: %d keys (width %d), want %d", trial, c.name, c.a.Len(), c.a.Width(), c.b.Len())
			}
			all := c.a.Slices()
			for i := range c.a.Len() {
				if !bytes.Equal(c.a.At(i), c.b.At(i)) || !bytes.Equal(all[i], c.b.At(i)) || cap(c.a.At(i)) != len(c.a.At(i)) {
					t.Fatalf("trial %d %s: key %d %x, want %x", trial, c.name, i, c.a.At(i), c.b.At(i))
				}
			}
		}
	}
	past, _ := MakeSpan(0, 2, 3)
	other, _ := MakeSpan(1, 0, 1)
	for _, sp := range []Span{past, other} {
		if _, ok := Spans([][]byte{make([]byte, 4)}, []Span{sp}); ok {
			t.Errorf("Spans took span %x of a 4-byte arena", uint64(sp))
		}
	}
	for _, c := range [][3]int{{512, 0, 0}, {0, 1 << 31, 0}, {0, 0, 1 << 24}, {-1, 0, 0}} {
		if _, ok := MakeSpan(c[0], c[1], c[2]); ok {
			t.Errorf("MakeSpan(%d, %d, %d) made a span", c[0], c[1], c[2])
		}
	}
	if sp, ok := MakeSpan(511, 1<<31-1, 1<<24-1); !ok {
		t.Error("MakeSpan refused the largest span")
	} else if a, off, n := sp.fields(); a != 511 || off != 1<<31-1 || n != 1<<24-1 {
		t.Errorf("the largest span reads back as %d, %d, %d", a, off, n)
	}
}

// TestAllWidth: a packed List answers by its width, a List of slices by
// its keys, an empty one yes.
func TestAllWidth(t *testing.T) {
	arena := make([]byte, 24)
	for _, tc := range []struct {
		l    List
		w    int
		want bool
	}{
		{Packed(arena, 8), 8, true},
		{Packed(arena, 8), 4, false},
		{Packed(arena, 4), 8, false},
		{Of([][]byte{make([]byte, 8), make([]byte, 8)}), 8, true},
		{Of([][]byte{make([]byte, 8), make([]byte, 7)}), 8, false},
		{Of([][]byte{make([]byte, 3)}), 3, true},
		{Of(nil), 8, true},
	} {
		if got := tc.l.AllWidth(tc.w); got != tc.want {
			t.Errorf("%d keys (width %d): AllWidth(%d) %v, want %v", tc.l.Len(), tc.l.Width(), tc.w, got, tc.want)
		}
	}
}
