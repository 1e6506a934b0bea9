package bank

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

// A key may be in several classes (its rows in the key file say so). The
// filters cannot tell which of a class's positives are its own keys, so a
// bank records, exactly, the keys held by more than one class and their
// classes (Bank.Shared): a move (Apply) needs to know whether the class a
// key goes to holds it already (then that class is unchanged), and a key
// in one class only is, by this record, in no other. Key files of one
// class a key (a title's rating, a patent's category) record nothing.

// findShared returns the keys of the classes' lists held by more than one, with the
// indexes of their classes, ascending. O(K log K) for K keys in all: each
// key's 64-bit hash and class are sorted, and keys of equal hash compared
// by their bytes.
func findShared(lists [][][]byte) map[string][]int {
	type entry struct {
		h     uint64
		class int32
		i     int32
	}
	if len(lists) < 2 {
		return nil
	}
	total := 0
	for _, keys := range lists {
		total += len(keys)
	}
	all := make([]entry, 0, total)
	for c, keys := range lists {
		for i, k := range keys {
			h, _ := hashing.Sum(k)
			all = append(all, entry{h, int32(c), int32(i)})
		}
	}
	slices.SortFunc(all, func(a, b entry) int { return cmp.Compare(a.h, b.h) })
	var shared map[string][]int
	for lo := 0; lo < len(all); {
		hi := lo + 1
		for hi < len(all) && all[hi].h == all[lo].h {
			hi++
		}
		if hi-lo > 1 {
			// Equal hashes: group by the keys' bytes (a class holds a key
			// once, so a group of two or more is one key in several classes).
			run := all[lo:hi]
			key := func(e entry) []byte { return lists[e.class][e.i] }
			slices.SortFunc(run, func(a, b entry) int {
				return cmp.Or(bytes.Compare(key(a), key(b)), cmp.Compare(a.class, b.class))
			})
			for s := 0; s < len(run); {
				e := s + 1
				for e < len(run) && bytes.Equal(key(run[e]), key(run[s])) {
					e++
				}
				if e-s > 1 {
					if shared == nil {
						shared = map[string][]int{}
					}
					cs := make([]int, 0, e-s)
					for _, x := range run[s:e] {
						cs = append(cs, int(x.class))
					}
					shared[string(key(run[s]))] = cs
				}
				s = e
			}
		}
		lo = hi
	}
	return shared
}
