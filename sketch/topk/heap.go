package topk

import (
	"bytes"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

// entry is one key of a keyHeap.
type entry struct {
	key   []byte // owned by the heap; its buffer is reused when the entry is replaced
	count uint64 // the summary's estimate of key's count
	h     uint64 // hashing.Sum(key) h1, the key's home in the index
	slot  int32  // position of this entry in keyHeap.index
}

// entryBytes is the memory of one entry, key bytes excluded.
const entryBytes = uint64(unsafe.Sizeof(entry{}))

// keyHeap is a min-heap of at most k keys ordered by estimate, with an
// open-addressing index from key to heap position, so that finding a key is
// O(1) expected and raising its estimate O(log k), without allocation.
//
// The heap order is (count ascending, key descending): the root is the entry
// that Top lists last. The index is a linear-probing table of int32 slots
// (0 empty, else heap position + 1), at least twice as large as k so that
// probes stay short (Knuth's analysis of linear probing at load 1/2: 1.5
// probes for a hit, 2.5 for a miss); deletion shifts later slots back
// (Knuth, TAOCP vol. 3, Algorithm 6.4R) instead of leaving tombstones.
type keyHeap struct {
	k     int
	e     []entry // heap order; len <= k, cap k
	index []int32 // len a power of two >= 2k
	mask  uint64
}

// indexSlots returns the index size for k keys: the smallest power of two
// >= 2k.
func indexSlots(k int) uint64 {
	return 1 << bits.Len64(uint64(2*k-1))
}

// heapBytes returns the memory of a keyHeap of k keys whose key buffers hold
// keyBytes bytes in all.
func heapBytes(k int, keyBytes uint64) uint64 {
	return uint64(k)*entryBytes + 4*indexSlots(k) + keyBytes
}

func newKeyHeap(k int) keyHeap {
	n := indexSlots(k)
	return keyHeap{k: k, e: make([]entry, 0, k), index: make([]int32, n), mask: n - 1}
}

// memoryBytes returns the heap's memory: entries, index and key buffers.
func (q *keyHeap) memoryBytes() uint64 {
	var keys uint64
	all := q.e[:cap(q.e)] // entries beyond len keep buffers for reuse
	for i := range all {
		keys += uint64(cap(all[i].key))
	}
	return heapBytes(q.k, keys)
}

// less orders the heap: a before b if a has the smaller count, or the same
// count and the larger key.
func less(a, b *entry) bool {
	return a.count < b.count || a.count == b.count && bytes.Compare(a.key, b.key) > 0
}

// find returns the heap position of key (hash h), or -1. O(1) expected.
func (q *keyHeap) find(key []byte, h uint64) int {
	for i := h & q.mask; ; i = (i + 1) & q.mask {
		p := q.index[i]
		if p == 0 {
			return -1
		}
		if e := &q.e[p-1]; e.h == h && bytes.Equal(e.key, key) {
			return int(p - 1)
		}
	}
}

// offer records that key (hash h) has estimate count: it raises the key's
// heap count if the key is there (counts never decrease), else inserts the
// key if the heap has room, or replaces the minimum if count is strictly
// larger than the minimum's. O(log k); it allocates only when a key enters
// the heap and is longer than the buffer it reuses.
func (q *keyHeap) offer(key []byte, h, count uint64) {
	if p := q.find(key, h); p >= 0 {
		if count > q.e[p].count {
			q.e[p].count = count
			q.down(p)
		}
		return
	}
	if len(q.e) < q.k {
		q.e = q.e[:len(q.e)+1]
		p := len(q.e) - 1
		e := &q.e[p]
		e.key = append(e.key[:0], key...) // a buffer left by reset, if any
		e.count, e.h = count, h
		q.insertIndex(p)
		q.up(p)
		return
	}
	if count <= q.e[0].count {
		return
	}
	q.removeIndex(int(q.e[0].slot))
	e := &q.e[0]
	e.key = append(e.key[:0], key...)
	e.count, e.h = count, h
	q.insertIndex(0)
	q.down(0)
}

// insertIndex records heap position p in the index.
func (q *keyHeap) insertIndex(p int) {
	i := q.e[p].h & q.mask
	for q.index[i] != 0 {
		i = (i + 1) & q.mask
	}
	q.index[i] = int32(p + 1)
	q.e[p].slot = int32(i)
}

// removeIndex empties index slot i and shifts back the entries of the probe
// run after it that may move (Algorithm 6.4R): an entry at j whose home is
// cyclically outside (i, j] would no longer be found across the new hole.
func (q *keyHeap) removeIndex(i int) {
	for {
		q.index[i] = 0
		j := i
		for {
			j = (j + 1) & int(q.mask)
			p := q.index[j]
			if p == 0 {
				return
			}
			home := int(q.e[p-1].h & q.mask)
			var stays bool
			if i <= j {
				stays = i < home && home <= j
			} else {
				stays = i < home || home <= j
			}
			if !stays {
				q.index[i] = p
				q.e[p-1].slot = int32(i)
				i = j
				break
			}
		}
	}
}

func (q *keyHeap) swap(i, j int) {
	q.e[i], q.e[j] = q.e[j], q.e[i]
	q.index[q.e[i].slot] = int32(i + 1)
	q.index[q.e[j].slot] = int32(j + 1)
}

func (q *keyHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(&q.e[i], &q.e[p]) {
			return
		}
		q.swap(i, p)
		i = p
	}
}

func (q *keyHeap) down(i int) {
	n := len(q.e)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && less(&q.e[r], &q.e[l]) {
			m = r
		}
		if !less(&q.e[m], &q.e[i]) {
			return
		}
		q.swap(i, m)
		i = m
	}
}

// top returns copies of the heap's keys and counts sorted by count
// descending, then key ascending. O(k log k).
func (q *keyHeap) top() []Item {
	out := make([]Item, len(q.e))
	for i := range q.e {
		out[i] = Item{Key: bytes.Clone(q.e[i].key), Count: q.e[i].count}
	}
	sortItems(out)
	return out
}

// sortItems sorts by count descending, then key ascending.
func sortItems(items []Item) {
	slices.SortFunc(items, func(a, b Item) int {
		switch {
		case a.Count > b.Count:
			return -1
		case a.Count < b.Count:
			return 1
		}
		return bytes.Compare(a.Key, b.Key)
	})
}

// rebuild empties the heap and fills it with the K largest of items (by
// count descending, then key ascending), which it sorts and copies.
// O(len(items) log len(items)).
func (q *keyHeap) rebuild(items []Item) {
	sortItems(items)
	q.reset()
	for _, it := range items[:min(len(items), q.k)] {
		h, _ := hashing.Sum(it.Key)
		q.offer(it.Key, h, it.Count)
	}
}

// reset empties the heap, keeping the key buffers for reuse.
func (q *keyHeap) reset() {
	q.e = q.e[:0]
	clear(q.index)
}

// equal reports whether q and o hold the same keys with the same counts.
func (q *keyHeap) equal(o *keyHeap) bool {
	if q.k != o.k || len(q.e) != len(o.e) {
		return false
	}
	for i := range q.e {
		p := o.find(q.e[i].key, q.e[i].h)
		if p < 0 || o.e[p].count != q.e[i].count {
			return false
		}
	}
	return true
}
