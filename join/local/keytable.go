package local

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"unsafe"

	"github.com/acbfjoin/acbfjoin/internal/freshmem"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// keyTable holds one partition's key-side records for the reduce: their bytes
// in one arena and a fixed-size entry each, then, once sealed, an index from
// key to its entries in row order. Compared with a map of per-record slices it
// makes no allocation per record and holds about 120 bytes less per record
// (the reduce holds every key-side record of the partitions being reduced).
// add is amortised O(len(key)+len(row)), seal O(n log n) (O(n) for 8-byte
// keys but for duplicates), lookup O(1) plus the matches. Not safe for concurrent use.
type keyTable struct {
	arena   []byte
	ents    []keyEnt
	index   map[string][2]int // key -> ents[lo:hi]; keys point into arena
	index8  spanIndex         // the same when every key is 8 bytes (integer keys): no string hashing
	not8    bool              // some key is not 8 bytes
	scratch []shuffle.Record
}

type keyEnt struct {
	// prefix is the key's first 8 bytes big-endian, zero-padded: keys
	// whose prefixes differ compare as them (seal sorts without reading
	// the arena, a cache miss a comparison); an 8-byte key is all of it.
	prefix     uint64
	seq        int64
	off        int
	klen, rlen uint32
}

// keyPrefix is keyEnt.prefix of key.
func keyPrefix(key []byte) uint64 {
	if len(key) >= 8 {
		return binary.BigEndian.Uint64(key)
	}
	var b [8]byte
	copy(b[:], key)
	return binary.BigEndian.Uint64(b[:])
}

// keyHint is what the build counted of a partition's key-side records.
type keyHint struct{ records, bytes int64 }

// reserve sizes an empty table for h, so that it does not grow by
// doubling (at 10^7 key rows, a copy of a gigabyte and twice the memory at
// the last step). A zero hint reserves nothing.
func (t *keyTable) reserve(h keyHint) {
	if h.records > 0 && h.records < math.MaxInt32 {
		t.ents = make([]keyEnt, 0, h.records)
	}
	if h.bytes > 0 && h.bytes < 1<<40 {
		t.arena = make([]byte, 0, h.bytes)
	}
}

func (t *keyTable) key(e keyEnt) []byte { return t.arena[e.off : e.off+int(e.klen)] }

func (t *keyTable) add(key []byte, seq int64, row []byte) {
	off := len(t.arena)
	t.arena = append(append(t.arena, key...), row...)
	t.ents = append(t.ents, keyEnt{prefix: keyPrefix(key), seq: seq, off: off, klen: uint32(len(key)), rlen: uint32(len(row))})
	t.not8 = t.not8 || len(key) != 8
}

// seal groups the entries by key, each key's in row order, and builds the
// index. No add after seal. Keys of 8 bytes (integer keys) are grouped by
// seal8 without a comparison sort; others are sorted by key, then row
// order.
func (t *keyTable) seal() {
	if !t.not8 && len(t.ents) < 1<<29 { // seal8's places and slots are int32
		t.seal8()
		return
	}
	slices.SortFunc(t.ents, func(a, b keyEnt) int {
		if a.prefix != b.prefix {
			return cmp.Compare(a.prefix, b.prefix)
		}
		if t.not8 {
			if c := bytes.Compare(t.key(a), t.key(b)); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.seq, b.seq)
	})
	if len(t.ents) > math.MaxInt32 { // spanIndex holds int32 spans
		t.not8 = true
	}
	if t.not8 {
		// Sized for the distinct prefixes (at most the distinct keys; a
		// pass over the sorted entries' prefixes alone): grown from
		// empty, the map's rehashes took a third of sealing 100,000
		// string keys (20 of 64 ms of CPU, profilejoin, AMD EPYC).
		n := 0
		for i := range t.ents {
			if i == 0 || t.ents[i].prefix != t.ents[i-1].prefix {
				n++
			}
		}
		t.index = make(map[string][2]int, n)
	} else {
		t.index8.init(len(t.ents))
	}
	for lo := 0; lo < len(t.ents); {
		k := t.key(t.ents[lo])
		hi := lo + 1
		if t.not8 {
			for hi < len(t.ents) && bytes.Equal(t.key(t.ents[hi]), k) {
				hi++
			}
			// The arena no longer grows, so the key's bytes can back the
			// map's string without a copy.
			t.index[unsafe.String(unsafe.SliceData(k), len(k))] = [2]int{lo, hi}
		} else {
			for hi < len(t.ents) && t.ents[hi].prefix == t.ents[lo].prefix {
				hi++
			}
			t.index8.put(t.ents[lo].prefix, lo, hi)
		}
		lo = hi
	}
}

// seal8 is seal for 8-byte keys: a counting sort over the index's slots
// instead of a comparison sort. Each entry's key is found or placed in the
// index, whose slot counts the key's entries; the slots in index order
// then give each key its span of places, in arrival order within it; the
// entries move to their places in place, cycle by cycle (a 4-byte place an
// entry beside them, not a second copy); last, a span of more than one
// entry is sorted by row order (seq). O(n) but for duplicates, against
// the comparison sort's O(n log n) through a closure: a partition of
// 450,000 keys took 33 ms against 55 (arriving in key order, as a sorted
// key file's do) and 40 against 94 (in random order); the 10^7-key join
// sorted 22 such partitions (Intel Xeon, one core). Spans come out in
// index order, not key order: nothing reads them in order (the unmatched
// keys of a right or full join are written in table order, which a
// --sort output sorts).
func (t *keyTable) seal8() {
	x := &t.index8
	x.init(len(t.ents))
	mask := uint64(len(x.slots) - 1)
	place := make([]int32, len(t.ents)) // each entry's slot, then its place
	for i := range t.ents {
		k := t.ents[i].prefix
		s := x.slot(k)
		for x.slots[s].hi != 0 && x.slots[s].k != k {
			s = (s + 1) & mask
		}
		x.slots[s].k = k
		x.slots[s].hi++ // the key's entries, for now
		place[i] = int32(s)
	}
	// Each key's span: lo its first place, hi the next place to give
	// (after the loop below, the span's end: hi >= 1 marks a used slot).
	var next int32
	for s := range x.slots {
		if c := x.slots[s].hi; c != 0 {
			x.slots[s].lo, x.slots[s].hi = next, next
			next += c
		}
	}
	for i, s := range place {
		place[i] = x.slots[s].hi
		x.slots[s].hi++
	}
	for i := range t.ents {
		for p := place[i]; p != int32(i); p = place[i] {
			t.ents[i], t.ents[p] = t.ents[p], t.ents[i]
			place[i], place[p] = place[p], p
		}
	}
	for s := range x.slots {
		if sp := x.slots[s]; sp.hi-sp.lo > 1 {
			slices.SortFunc(t.ents[sp.lo:sp.hi], func(a, b keyEnt) int { return cmp.Compare(a.seq, b.seq) })
		}
	}
}

// span returns the entries of key: ents[lo:hi].
func (t *keyTable) span(key []byte) (lo, hi int, ok bool) {
	if !t.not8 {
		if len(key) != 8 {
			return 0, 0, false
		}
		return t.index8.get(binary.BigEndian.Uint64(key))
	}
	sp, ok := t.index[string(key)]
	return sp[0], sp[1], ok
}

// record is entry i as a shuffle record; its bytes are the arena's.
func (t *keyTable) record(i int) shuffle.Record {
	e := t.ents[i]
	return shuffle.Record{Key: t.key(e), Tag: join.TagKeys, Seq: e.seq, Row: t.arena[e.off+int(e.klen) : e.off+int(e.klen)+int(e.rlen)]}
}

// rowOffset reads entry i, so that a later record(i) finds it in the
// cache, and returns where its row starts in the arena (for touchRow).
func (t *keyTable) rowOffset(i int) int {
	e := &t.ents[i]
	return e.off + int(e.klen)
}

// touchRow reads the arena's byte at off (a rowOffset), so that a later
// record finds its row in the cache; its result is of no use but to keep
// the load. An empty last row's offset is the arena's end: 0 then.
func (t *keyTable) touchRow(off int) byte {
	if uint(off) >= uint(len(t.arena)) {
		return 0
	}
	return t.arena[off]
}

// lookup returns the key-side records of key, in row order. The slice and the
// records' bytes are valid until the next lookup.
func (t *keyTable) lookup(key []byte) []shuffle.Record {
	lo, hi, ok := t.span(key)
	if !ok {
		return nil
	}
	t.scratch = t.scratch[:0]
	for i := lo; i < hi; i++ {
		t.scratch = append(t.scratch, t.record(i))
	}
	return t.scratch
}

// spanIndex maps an 8-byte key (as its big-endian uint64) to its entries'
// span [lo, hi): open addressing with linear probing in a power-of-two
// table at most half full, slots found by Fibonacci hashing (as u64Set); a
// slot with hi 0 is empty (every span has hi >= 1). A Go map of uint64 took
// 8% of a 10^6-key join's CPU in its lookups. Not safe for concurrent
// writes; get is safe for concurrent use after the puts.
type spanIndex struct {
	slots []spanSlot
	shift uint
	seed  uint64 // XORed into a key before its hash, as u64Set's: keys made to collide under Fibonacci hashing alone do not collide under an unknown seed
}

type spanSlot struct {
	k      uint64
	lo, hi int32
}

// init sizes the index for at most n keys.
func (x *spanIndex) init(n int) {
	size := 16
	for size < 2*n {
		size *= 2
	}
	// Written in order first (freshmem): a put reads its slot, then writes
	// it; the paper-size join's seal of 33,000 keys (an index of 1 MiB)
	// took 11-17 ms, mostly in page faults, and 3.3-8 ms so (Intel Xeon).
	x.slots = freshmem.Table[spanSlot](size)
	x.shift = uint(64 - bits.TrailingZeros(uint(size)))
	x.seed = rand.Uint64()
}

// slot is k's first slot.
func (x *spanIndex) slot(k uint64) uint64 { return ((k ^ x.seed) * fib) >> x.shift }

// put records k's span; each k once.
func (x *spanIndex) put(k uint64, lo, hi int) {
	mask := uint64(len(x.slots) - 1)
	i := x.slot(k)
	for x.slots[i].hi != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = spanSlot{k, int32(lo), int32(hi)}
}

// get returns k's span.
func (x *spanIndex) get(k uint64) (lo, hi int, ok bool) {
	if len(x.slots) == 0 {
		return 0, 0, false
	}
	mask := uint64(len(x.slots) - 1)
	for i := x.slot(k); ; i = (i + 1) & mask {
		s := &x.slots[i]
		if s.hi == 0 {
			return 0, 0, false
		}
		if s.k == k {
			return int(s.lo), int(s.hi), true
		}
	}
}
