// Package keylist holds the distinct keys a filter is built from in the
// least memory: keys of one width packed end to end in one arena (8 bytes
// an integer key, where a [][]byte of slices into an arena takes 32), or
// any keys as a [][]byte. At 10^7 integer keys that is 80 MB against 320.
package keylist

// List is a read-only list of keys: either Packed (every key the same
// width, end to end in one arena) or Of a [][]byte. The zero List is
// empty. A List is never changed once made, so any number of goroutines
// may read it at once; it does not copy what it is made from, which the
// caller must not change while the List is in use.
type List struct {
	packed []byte   // n keys of width bytes, end to end (width > 0)
	width  int      // 0: the keys are slices
	n      int      // keys
	slices [][]byte // the keys, when width is 0
}

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
	return List{packed: arena[: n*width : n*width], width: width, n: n}
}

// Len returns the number of keys. O(1).
func (l List) Len() int { return l.n }

// At returns key i (0 <= i < Len), a slice of the List's memory capped at
// its length, so that appending to it copies. O(1), no allocation.
func (l List) At(i int) []byte {
	if l.width == 0 {
		return l.slices[i]
	}
	o := i * l.width
	return l.packed[o : o+l.width : o+l.width]
}

// Slice returns the List of keys lo to hi-1 (0 <= lo <= hi <= Len),
// sharing l's memory. O(1).
func (l List) Slice(lo, hi int) List {
	if l.width == 0 {
		return Of(l.slices[lo:hi])
	}
	return List{packed: l.packed[lo*l.width : hi*l.width : hi*l.width], width: l.width, n: hi - lo}
}

// Slices returns the keys as a [][]byte: the slice a List of one was made
// from, or, for a packed List, a new slice of Len slices into the arena
// (24 bytes a key). O(1) or O(n).
func (l List) Slices() [][]byte {
	if l.width == 0 {
		return l.slices
	}
	out := make([][]byte, l.n)
	for i := range out {
		out[i] = l.At(i)
	}
	return out
}

// Width returns the width of every key of a packed List, 0 for a List of
// slices (whose keys may be of any lengths).
func (l List) Width() int { return l.width }
