package local

import "math/bits"

// u64Set is a set of uint64s: open addressing with linear probing in a
// power-of-two table kept at most 3/4 full, slots found by Fibonacci
// hashing (the key times 2^64/phi, its top bits: Knuth, TAOCP vol. 3,
// 6.4), 0 held by a flag (an empty slot is 0). The build's local tables of
// integer keys: a Go map of [8]byte took 13% of a 10^6-key join's CPU in
// its inserts and merges (mapassign_fast64), where this takes a multiply
// and, mostly, one cache line a key. Not safe for concurrent use.
type u64Set struct {
	slots []uint64
	n     int // keys held, the 0 flag included
	zero  bool
	shift uint // 64 - log2(len(slots))
}

const fib = 0x9e3779b97f4a7c15

// add inserts k. Amortised O(1).
func (s *u64Set) add(k uint64) {
	if k == 0 {
		if !s.zero {
			s.zero = true
			s.n++
		}
		return
	}
	if 4*(s.n+1) > 3*len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := (k * fib) >> s.shift; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return
		case 0:
			s.slots[i] = k
			s.n++
			return
		}
	}
}

// has reports whether k is in the set. O(1) expected.
func (s *u64Set) has(k uint64) bool {
	if k == 0 {
		return s.zero
	}
	if len(s.slots) == 0 {
		return false
	}
	mask := uint64(len(s.slots) - 1)
	for i := (k * fib) >> s.shift; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return true
		case 0:
			return false
		}
	}
}

// grow doubles the table (16 slots at first) and re-inserts the keys.
func (s *u64Set) grow() {
	old := s.slots
	size := max(16, 2*len(old))
	s.slots = make([]uint64, size)
	s.shift = uint(64 - bits.TrailingZeros(uint(size)))
	mask := uint64(size - 1)
	for _, k := range old {
		if k == 0 {
			continue
		}
		i := (k * fib) >> s.shift
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = k
	}
}

// each calls f with every key, in no order.
func (s *u64Set) each(f func(uint64)) {
	if s.zero {
		f(0)
	}
	for _, k := range s.slots {
		if k != 0 {
			f(k)
		}
	}
}

// len returns the number of keys.
func (s *u64Set) len() int { return s.n }
