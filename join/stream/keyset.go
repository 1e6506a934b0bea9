package stream

// hashSet is a set of 64-bit key hashes, each with a flag, for counting the
// distinct negative keys of a batch and how many of them the filter passed
// (a hot absent key repeated 10,000 times is one trial of the filter, not
// 10,000: the formula is the rate over distinct non-members). Open
// addressing with linear probing; 0 marks an empty slot (hashes are forced
// odd). A 64-bit hash of distinct keys collides with probability about
// n^2/2^65: nil at batch sizes. For one goroutine.
type hashSet struct {
	slots []uint64
	flags []bool
	n     int
}

// add inserts h with flag; it reports whether h was new.
func (s *hashSet) add(h uint64, flag bool) bool {
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	h |= 1
	mask := uint64(len(s.slots) - 1)
	for i := (h * 0x9e3779b97f4a7c15) >> 32 & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case 0:
			s.slots[i], s.flags[i] = h, flag
			s.n++
			return true
		case h:
			return false
		}
	}
}

func (s *hashSet) grow() {
	old, oldFlags := s.slots, s.flags
	size := max(1024, 2*len(old))
	s.slots, s.flags, s.n = make([]uint64, size), make([]bool, size), 0
	for i, h := range old {
		if h != 0 {
			s.add(h, oldFlags[i])
		}
	}
}

// reset empties the set, keeping its memory unless it grew past maxSlots.
func (s *hashSet) reset(maxSlots int) {
	if len(s.slots) > maxSlots {
		s.slots, s.flags = nil, nil
	} else {
		clear(s.slots)
	}
	s.n = 0
}

// each calls fn for every hash and flag.
func (s *hashSet) each(fn func(h uint64, flag bool)) {
	for i, h := range s.slots {
		if h != 0 {
			fn(h, s.flags[i])
		}
	}
}
