package ipstream

import "math/rand/v2"

// Event is one key event: an insert of Addr, numbered Since (1-based; the
// insert line's SINCE field), or a delete of Addr (Insert false; Since is
// its number too, not written).
type Event struct {
	Insert bool
	Addr   uint32
	Since  int64
}

// Walk is the event stream of Options (see the package documentation): the
// file's events in order. Not safe for concurrent use.
type Walk struct {
	rng    *rand.Rand
	dom    *Domain
	target float64 // Live, the walk's centre
	n      int64   // events drawn so far
	set    liveSet
}

// NewWalk returns the events of opt (whose Distinct and Live must be valid;
// Write checks them).
func NewWalk(opt Options) *Walk {
	size := uint64(opt.Distinct)
	return &Walk{
		rng:    rand.New(rand.NewPCG(opt.Seed, streamEvents)),
		dom:    NewDomain(opt.Seed, size),
		target: float64(opt.Live),
		set:    newLiveSet(size, uint64(max(opt.Events, 0))),
	}
}

// Live returns the number of live addresses.
func (w *Walk) Live() int64 { return int64(w.set.live) }

// Next returns the next event. O(1) (a map access or two for a large
// domain; see liveSet).
func (w *Walk) Next() Event {
	w.n++
	live := w.set.live
	p := min(max(0.5+0.5*(w.target-float64(live))/w.target, 0.05), 0.95)
	u := w.rng.Float64() // drawn for every event, forced or not: one stream
	insert := live == 0 || (live < w.set.size && u < p)
	var r uint32
	if insert {
		r = w.set.insert(w.rng)
	} else {
		r = w.set.remove(w.rng)
	}
	return Event{Insert: insert, Addr: w.dom.Addr(r), Since: w.n}
}

// liveSet holds the ranks 0..size-1 as a permutation perm whose first live
// entries are the live ranks and whose others are the ranks not live (the
// "partial Fisher-Yates" layout). Insert swaps a uniform entry of
// perm[live:] to perm[live] and grows live; remove swaps a uniform entry of
// perm[:live] to perm[live-1] and shrinks live. Both are O(1) and exactly
// uniform, for any live share (rejection sampling would slow down as the
// live set fills the domain).
//
// The permutation is a dense []uint32 (4*size bytes) when that is at most
// about what the sparse form could cost, else a map of the entries that
// differ from the identity (perm[i] = i for the others): each event touches
// two entries, so it never holds more than 2*events entries, about 40 bytes
// each. Memory: min(4*size, about 80*events) bytes.
type liveSet struct {
	size   uint64
	live   uint64
	dense  []uint32
	sparse map[uint32]uint32
}

func newLiveSet(size, events uint64) liveSet {
	s := liveSet{size: size}
	if size <= 1<<16 || size <= 20*events {
		s.dense = make([]uint32, size)
		for i := range s.dense {
			s.dense[i] = uint32(i)
		}
	} else {
		s.sparse = make(map[uint32]uint32)
	}
	return s
}

func (s *liveSet) get(i uint64) uint32 {
	if s.dense != nil {
		return s.dense[i]
	}
	if v, ok := s.sparse[uint32(i)]; ok {
		return v
	}
	return uint32(i)
}

func (s *liveSet) put(i uint64, v uint32) {
	switch {
	case s.dense != nil:
		s.dense[i] = v
	case uint64(v) == i:
		delete(s.sparse, uint32(i)) // back to the identity: keep the map small
	default:
		s.sparse[uint32(i)] = v
	}
}

// swap exchanges perm[i] and perm[j] and returns the new perm[i].
func (s *liveSet) swap(i, j uint64) uint32 {
	a, b := s.get(i), s.get(j)
	s.put(i, b)
	s.put(j, a)
	return b
}

// insert makes a uniformly drawn rank that is not live live and returns it.
// The caller ensures live < size.
func (s *liveSet) insert(rng *rand.Rand) uint32 {
	j := s.live + rng.Uint64N(s.size-s.live)
	r := s.swap(s.live, j)
	s.live++
	return r
}

// remove makes a uniformly drawn live rank not live and returns it. The
// caller ensures live > 0.
func (s *liveSet) remove(rng *rand.Rand) uint32 {
	j := rng.Uint64N(s.live)
	r := s.swap(s.live-1, j)
	s.live--
	return r
}
