package local

import (
	"encoding/binary"
	"slices"
	"sort"

	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// keyPoints are the key side's distinct keys in order, for a table large
// side's chunk statistics (skipChunk): a chunk (a Parquet row group) whose
// least and greatest join-column values have none of the keys between
// them holds no row that can match. The key side's range alone (its least
// and greatest key) skips only a chunk beyond all of the keys; the points
// skip one between two keys too, as most row groups of a file sorted or
// clustered by the join column are when the key side is small (a fact
// table ordered by its id or its date, joined to a few of them). A chunk
// is then skipped unread, its Bloom filter too: O(log K) a chunk.
//
// Integer keys are kept as key.Of's 8 bytes read big-endian (their order
// is the integers'), text as its bytes (Parquet orders text bytewise, as
// the statistics' bounds compare). Read-only once made: safe for
// concurrent use by the mappers.
type keyPoints struct {
	ints []uint64
	strs []string
}

// maxKeyPointBytes caps the points' memory (and, at 16 bytes a key for
// text, their count): above it they are not made, and the range alone
// decides. A sixteenth of the memory budget, at most 8 MiB: a million
// integer keys.
func maxKeyPointBytes(budget int64) int64 { return min(8<<20, budget/16) }

// newKeyPoints returns keys (the key side's distinct keys, key.Of's bytes)
// as keyPoints, or nil where they cannot serve: a large side that is no
// table (no statistics), a composite key, a key type other than integer
// and text, or more keys than maxKeyPointBytes allows. O(K log K).
func (x *execution) newKeyPoints(keys keylist.List) *keyPoints {
	n := keys.Len()
	if x.input.Tab == nil || x.joinSpec.Composite() || n == 0 {
		return nil
	}
	limit := maxKeyPointBytes(x.opt.MemBudget)
	switch x.joinSpec.Types[0] {
	case key.Int:
		if int64(n)*8 > limit || !keys.AllWidth(8) {
			return nil
		}
		p := &keyPoints{ints: make([]uint64, n)}
		for i := range n {
			p.ints[i] = binary.BigEndian.Uint64(keys.At(i))
		}
		slices.Sort(p.ints)
		return p
	case key.String:
		size := int64(n) * 16
		for i := range n {
			size += int64(len(keys.At(i)))
		}
		if size > limit {
			return nil
		}
		p := &keyPoints{strs: make([]string, n)}
		for i := range n {
			p.strs[i] = string(keys.At(i))
		}
		slices.Sort(p.strs)
		return p
	}
	return nil
}

// anyInt reports whether a key lies in [lo, hi] (integers). O(log K).
func (p *keyPoints) anyInt(lo, hi int64) bool {
	ulo, uhi := uint64(lo)^1<<63, uint64(hi)^1<<63 // key.Of's order
	i := sort.Search(len(p.ints), func(i int) bool { return p.ints[i] >= ulo })
	return i < len(p.ints) && p.ints[i] <= uhi
}

// anyText reports whether a key lies in [lo, hi] (bytewise). O(log K).
func (p *keyPoints) anyText(lo, hi []byte) bool {
	i := sort.Search(len(p.strs), func(i int) bool { return p.strs[i] >= string(lo) })
	return i < len(p.strs) && p.strs[i] <= string(hi)
}
