package local

import (
	"math/bits"
	"math/rand/v2"

	"github.com/acbfjoin/acbfjoin/internal/freshmem"
)

// u64Set is a set of uint64s: open addressing with linear probing in a
// power-of-two table kept at most 3/4 full, slots found by Fibonacci
// hashing (the key times 2^64/phi, its top bits: Knuth, TAOCP vol. 3,
// 6.4), 0 held by a flag (an empty slot is 0). The build's local tables of
// integer keys: a Go map of [8]byte took 13% of a 10^6-key join's CPU in
// its inserts and merges (mapassign_fast64), where this takes a multiply
// and, mostly, one cache line a key. Not safe for concurrent use.
//
// Each set hashes with a seed of its own (the key XOR the seed, then
// Fibonacci hashing): merging one set into another walks the first in its
// slot order, which with one hash function for both is the second's order
// too, and linear probing then piles every key onto the end of one growing
// run (a merge of two sets of 5M keys took 350 s instead of a second).
type u64Set struct {
	slots []uint64
	n     int // keys held, the 0 flag included
	zero  bool
	shift uint   // 64 - log2(len(slots))
	seed  uint64 // set at the first grow
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
	for i := s.slot(k); ; i = (i + 1) & mask {
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

// addNew inserts k and reports whether it was not in the set. Amortised
// O(1).
func (s *u64Set) addNew(k uint64) bool {
	n := s.n
	s.add(k)
	return s.n > n
}

// reset empties the set and sizes it for n keys without a grow, reusing
// its table's memory when it is large enough. O(the table's new size).
func (s *u64Set) reset(n int) {
	size := 16
	for 4*(n+1) > 3*size {
		size *= 2
	}
	if s.slots == nil || cap(s.slots) < size {
		if s.slots == nil {
			s.seed = rand.Uint64()
		}
		s.slots = freshmem.Table[uint64](size) // probed at random (freshmem)
	} else {
		s.slots = s.slots[:size]
		clear(s.slots)
	}
	s.shift = uint(64 - bits.TrailingZeros(uint(size)))
	s.n, s.zero = 0, false
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
	for i := s.slot(k); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return true
		case 0:
			return false
		}
	}
}

// slot is k's first slot.
func (s *u64Set) slot(k uint64) uint64 { return ((k ^ s.seed) * fib) >> s.shift }

// grow doubles the table (16 slots at first) and re-inserts the keys.
func (s *u64Set) grow() {
	if s.slots == nil {
		s.seed = rand.Uint64()
	}
	old := s.slots
	size := max(16, 2*len(old))
	s.slots = freshmem.Table[uint64](size) // probed at random (freshmem)
	s.shift = uint(64 - bits.TrailingZeros(uint(size)))
	mask := uint64(size - 1)
	for _, k := range old {
		if k == 0 {
			continue
		}
		i := s.slot(k)
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
