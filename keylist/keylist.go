// Package keylist holds the distinct keys a filter is built from in the
// least memory: keys of one width packed end to end (8 bytes an integer
// key, where a [][]byte of slices into an arena takes 32), in one arena or
// in blocks of a power of two keys, or any keys as a [][]byte. At 10^7
// integer keys that is 80 MB against 320.
package keylist

// List is a read-only list of keys: packed (every key the same width, end
// to end in one arena, Packed, or in blocks, Blocks), spans of arenas
// (Spans: 8 bytes a key of any length) or Of a [][]byte. The
// zero List is empty. A List is never changed once made, so any number of
// goroutines may read it at once; it does not copy what it is made from,
// which the caller must not change while the List is in use.
type List struct {
	// A packed List's keys: key j (j counted from the first key of
	// blocks[0]) is at (j & mask) * width in blocks[j >> shift]; its key i
	// is key start+i. One arena is one block of shift 62.
	blocks [][]byte
	shift  uint
	start  int
	width  int      // 0: the keys are spans or slices
	n      int      // keys
	slices [][]byte // the keys, when width is 0 and spans nil
	// Spans' keys: key i is spans[start+i] of arenas.
	arenas [][]byte
	spans  []Span
}

// Span is where a key of a Spans list lies: its arena, its offset in it
// and its length, in 64 bits (MakeSpan).
type Span uint64

// A Span's fields: the arena's index (9 bits), the offset (31), the
// length (24).
const (
	spanLenBits = 24
	spanOffBits = 31
	spanArenas  = 1 << (64 - spanLenBits - spanOffBits)
)

// MakeSpan is the Span of the key of length n at offset off of arena a;
// ok is false when one of them is beyond what a Span holds (a key of 16
// MiB or more, an offset of 2 GiB or more, an arena index of 512 or
// more), for the caller to keep such keys otherwise. O(1).
func MakeSpan(a, off, n int) (sp Span, ok bool) {
	if a < 0 || a >= spanArenas || off < 0 || off >= 1<<spanOffBits || n < 0 || n >= 1<<spanLenBits {
		return 0, false
	}
	return Span(uint64(a)<<(spanOffBits+spanLenBits) | uint64(off)<<spanLenBits | uint64(n)), true
}

// Spans returns the List of the keys spans says, each within its arena:
// a list of keys of any lengths in 8 bytes a key beside their bytes,
// where a [][]byte takes 24. ok is false (and the List empty) when a
// span lies outside its arena. O(len(spans)).
func Spans(arenas [][]byte, spans []Span) (l List, ok bool) {
	for _, sp := range spans {
		a, off, n := sp.fields()
		if a >= len(arenas) || off+n > len(arenas[a]) {
			return List{}, false
		}
	}
	return List{arenas: arenas, spans: spans, n: len(spans)}, true
}

func (sp Span) fields() (a, off, n int) {
	return int(sp >> (spanOffBits + spanLenBits)), int(sp >> spanLenBits & (1<<spanOffBits - 1)), int(sp & (1<<spanLenBits - 1))
}

// arenaShift is the shift of a List of one arena: no index reaches 1<<62.
const arenaShift = 62

// Of returns the List of keys, the slice itself (not copied). O(1).
func Of(keys [][]byte) List { return List{slices: keys, n: len(keys)} }

// Packed returns the List of the len(arena)/width keys of width bytes each
// that arena holds end to end; bytes beyond the last whole key are not
// part of it, and a width below 1 is an empty List. O(1).
func Packed(arena []byte, width int) List {
	if width < 1 {
		return List{}
	}
	n := len(arena) / width
	return List{blocks: [][]byte{arena[: n*width : n*width]}, shift: arenaShift, width: width, n: n}
}

// Blocks returns the List of the keys of width bytes each that blocks
// hold end to end, 1<<shift keys in each block but the last, which holds
// at most as many: a packed list that can be made a block at a time, with
// no arena of every key beside what it is made from. ok is false (and the
// List empty) when width is below 1, shift is not below 62, or a block is
// not of that shape. O(len(blocks)).
func Blocks(blocks [][]byte, width int, shift uint) (l List, ok bool) {
	if width < 1 || shift >= arenaShift {
		return List{}, false
	}
	full := width << shift
	n := 0
	for i, b := range blocks {
		if len(b) != full && (i < len(blocks)-1 || len(b) > full || len(b)%width != 0) {
			return List{}, false
		}
		n += len(b) / width
	}
	return List{blocks: blocks, shift: shift, width: width, n: n}, true
}

// Len returns the number of keys. O(1).
func (l List) Len() int { return l.n }

// At returns key i (0 <= i < Len), a slice of the List's memory capped at
// its length, so that appending to it copies. O(1), no allocation.
func (l List) At(i int) []byte {
	if l.width != 0 {
		j := l.start + i
		o := (j & (1<<l.shift - 1)) * l.width
		return l.blocks[j>>l.shift][o : o+l.width : o+l.width]
	}
	if l.spans != nil {
		a, off, n := l.spans[l.start+i].fields()
		return l.arenas[a][off : off+n : off+n]
	}
	return l.slices[i]
}

// Slice returns the List of keys lo to hi-1 (0 <= lo <= hi <= Len),
// sharing l's memory. O(1).
func (l List) Slice(lo, hi int) List {
	if l.width == 0 && l.spans == nil {
		return Of(l.slices[lo:hi])
	}
	l.start += lo
	l.n = hi - lo
	return l
}

// Slices returns the keys as a [][]byte: the slice a List of one was made
// from, or, for a packed List, a new slice of Len slices into its memory
// (24 bytes a key). O(1) or O(n).
func (l List) Slices() [][]byte {
	if l.width == 0 && l.spans == nil {
		return l.slices
	}
	out := make([][]byte, l.n)
	for i := range out {
		out[i] = l.At(i)
	}
	return out
}

// Runs calls f with the List's keys in order and stops when f returns
// false: for a packed List (Width > 0) as runs of its memory, each holding
// whole keys end to end (one run a block it spans); for a List of spans or
// slices a key a call. A loop over a packed List's keys without At's
// arithmetic a key. A run is capped at its length (appending to it
// copies). O(Len) bytes, O(blocks) calls for a packed List.
func (l List) Runs(f func(run []byte) bool) {
	if l.width == 0 {
		for i := range l.n {
			if !f(l.At(i)) {
				return
			}
		}
		return
	}
	per := 1 << l.shift
	for j, end := l.start, l.start+l.n; j < end; {
		o := j & (per - 1)
		m := min(per-o, end-j)
		if !f(l.blocks[j>>l.shift][o*l.width : (o+m)*l.width : (o+m)*l.width]) { // capped, as At's keys
			return
		}
		j += m
	}
}

// AllWidth reports whether every key is w bytes long: at once for a
// packed List (Width), by a look at each key for a List of spans or
// slices. True for an empty List. O(1) or O(Len).
func (l List) AllWidth(w int) bool {
	if l.width != 0 {
		return l.width == w
	}
	for i := range l.n {
		if len(l.At(i)) != w {
			return false
		}
	}
	return true
}

// Width returns the width of every key of a packed List, 0 for a List of
// spans or slices (whose keys may be of any lengths).
func (l List) Width() int { return l.width }
