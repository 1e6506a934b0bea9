package local

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sort"

	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/keylist"
	"github.com/acbfjoin/acbfjoin/tuple"
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
	// b, where the keys are too many for the points (maxKeyPointBytes),
	// summarizes them in keyBuckets' fixed room instead (ints and strs
	// nil).
	b *keyBuckets
}

// maxKeyPointBytes caps the points' memory (and, at 16 bytes a key for
// text, their count): above it they are not made, and the range alone
// decides. A sixteenth of the memory budget, at most 8 MiB: a million
// integer keys (twice that while they are sorted: sortUint64s' scratch).
func maxKeyPointBytes(budget int64) int64 { return min(8<<20, budget/16) }

// newKeyPoints returns keys (the key side's distinct keys, key.Of's bytes;
// lo and hi its least and greatest) as keyPoints, or nil where they cannot
// serve: a large side that is no table (no statistics), a composite key, a
// key type other than integer and text, more keys than maxKeyPointBytes
// allows, or no chunk whose statistics lie strictly between lo and hi
// (pointsPay). O(K log K), and O(chunks) for the test.
func (x *execution) newKeyPoints(keys keylist.List, lo, hi []byte) *keyPoints {
	n := keys.Len()
	if x.input.Tab == nil || x.joinSpec.Composite() || n == 0 || !x.pointsPay(lo, hi) {
		return nil
	}
	kt := x.joinSpec.Types[0]
	if p := makeKeyPoints(keys, kt, maxKeyPointBytes(x.opt.MemBudget)); p != nil {
		return p
	}
	if b := makeKeyBuckets(keys, kt, lo, hi); b != nil {
		return &keyPoints{b: b}
	}
	return nil
}

// makeKeyPoints returns keys (of type kt) sorted, or nil when kt is
// neither integer nor text or they would take more than limit bytes.
func makeKeyPoints(keys keylist.List, kt key.Type, limit int64) *keyPoints {
	n := keys.Len()
	switch kt {
	case key.Int:
		if int64(n)*8 > limit || !keys.AllWidth(8) {
			return nil
		}
		p := &keyPoints{ints: make([]uint64, n)}
		for i := range n {
			p.ints[i] = binary.BigEndian.Uint64(keys.At(i))
		}
		sortUint64s(p.ints)
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

// pointsPay reports whether some chunk of the large side has statistics
// that lie strictly between the key side's least and greatest key (lo and
// hi, key.Of's bytes): only such a chunk can be skipped by the points and
// not by the range, so without one the keys are not sorted for nothing (a
// file whose row groups each span the keys' range, as the NBER
// citations' do, or a large side of no statistics). O(chunks).
func (x *execution) pointsPay(lo, hi []byte) bool {
	tab, col := x.input.Tab, x.joinSpec.Cols[0]
	if lo == nil || hi == nil {
		return false
	}
	for i := range tab.Chunks() {
		switch x.joinSpec.Types[0] {
		case key.Int:
			if clo, chi, _, ok := tab.KeyRange(i, col); ok && clo > keyInt(lo) && chi < keyInt(hi) {
				return true
			}
		case key.String:
			if clo, chi, _, ok := tab.TextRange(i, col); ok && string(clo) > string(lo) && string(chi) < string(hi) {
				return true
			}
		}
	}
	return false
}

// anyInt reports whether a key lies in [lo, hi] (integers); with
// buckets, whether one may. O(log K), or O(keyBuckets' words).
func (p *keyPoints) anyInt(lo, hi int64) bool {
	ulo, uhi := tuple.IntWord(lo), tuple.IntWord(hi) // key.Of's order
	if p.b != nil {
		return p.b.anyWord(ulo, uhi)
	}
	i := sort.Search(len(p.ints), func(i int) bool { return p.ints[i] >= ulo })
	return i < len(p.ints) && p.ints[i] <= uhi
}

// anyText reports whether a key lies in [lo, hi] (bytewise); with
// buckets, whether one may. O(log K), or O(keyBuckets' words).
func (p *keyPoints) anyText(lo, hi []byte) bool {
	if p.b != nil {
		return p.b.anyText(lo, hi)
	}
	i := sort.Search(len(p.strs), func(i int) bool { return p.strs[i] >= string(lo) })
	return i < len(p.strs) && p.strs[i] <= string(hi)
}

// keyBuckets summarizes a key side too large for its points in a fixed
// room: the range between its least and greatest key cut into
// bucketCount buckets, one bit each, set where a key falls. A chunk whose
// statistics' range meets no set bucket holds no key, as with the points;
// one that meets a set bucket may hold none (the summary is coarser, never
// wrong). Integer keys (key.Of's order words) fall by their offset from
// the least key, in equal parts of the range; text by two bytes after the
// prefix the least and greatest keys share (which every key and every
// text between them has): a prefix range, the summary of string keys
// that a chunk's min and max can test where the keys are too many to list.
// 8 KiB; made in O(K), a test O(bucketCount/64) at most. Read-only once
// made.
type keyBuckets struct {
	lo, hi uint64 // integers: the least and greatest key's words
	shift  uint   // integers: a key's bucket is (word - lo) >> shift
	// text: the least and greatest key, and the length of their shared
	// prefix
	slo, shi []byte
	common   int
	bits     [bucketCount / 64]uint64
}

// bucketCount is keyBuckets' buckets.
const bucketCount = 1 << 16

// makeKeyBuckets returns keys (of type kt; lo and hi the least and
// greatest, key.Of's bytes) as keyBuckets, or nil when kt is neither
// integer nor text. O(K).
func makeKeyBuckets(keys keylist.List, kt key.Type, lo, hi []byte) *keyBuckets {
	b := &keyBuckets{}
	switch kt {
	case key.Int:
		if len(lo) != 8 || len(hi) != 8 || !keys.AllWidth(8) {
			return nil
		}
		b.lo, b.hi = binary.BigEndian.Uint64(lo), binary.BigEndian.Uint64(hi)
		for (b.hi-b.lo)>>b.shift >= bucketCount {
			b.shift++
		}
		for i := range keys.Len() {
			if q, ok := b.wordBucket(binary.BigEndian.Uint64(keys.At(i))); ok {
				b.bits[q>>6] |= 1 << (q & 63)
			}
		}
	case key.String:
		b.slo, b.shi = slices.Clone(lo), slices.Clone(hi)
		for b.common < min(len(lo), len(hi)) && lo[b.common] == hi[b.common] {
			b.common++
		}
		for i := range keys.Len() {
			if q, ok := b.textBucket(keys.At(i)); ok {
				b.bits[q>>6] |= 1 << (q & 63)
			}
		}
	default:
		return nil
	}
	return b
}

// wordBucket is the bucket of the integer key word w, false outside the
// keys' range.
func (b *keyBuckets) wordBucket(w uint64) (uint64, bool) {
	if w < b.lo || w > b.hi {
		return 0, false
	}
	return (w - b.lo) >> b.shift, true
}

// textBucket is the bucket of the text t: its two bytes after the keys'
// shared prefix (zero where it ends: the smallest byte, so that the
// buckets keep the texts' order), false outside the keys' range.
func (b *keyBuckets) textBucket(t []byte) (uint64, bool) {
	if bytes.Compare(t, b.slo) < 0 || bytes.Compare(t, b.shi) > 0 {
		return 0, false
	}
	var q uint64
	for j := b.common; j < b.common+2; j++ {
		q <<= 8
		if j < len(t) {
			q |= uint64(t[j])
		}
	}
	return q, true
}

// anyWord reports whether a key may lie in [lo, hi] (integer key words).
func (b *keyBuckets) anyWord(lo, hi uint64) bool {
	if lo > hi || hi < b.lo || lo > b.hi {
		return false
	}
	qa, _ := b.wordBucket(max(lo, b.lo))
	qb, _ := b.wordBucket(min(hi, b.hi))
	return b.anyBit(qa, qb)
}

// anyText reports whether a key may lie in [lo, hi] (bytewise).
func (b *keyBuckets) anyText(lo, hi []byte) bool {
	if bytes.Compare(lo, hi) > 0 || bytes.Compare(hi, b.slo) < 0 || bytes.Compare(lo, b.shi) > 0 {
		return false
	}
	if bytes.Compare(lo, b.slo) < 0 {
		lo = b.slo
	}
	if bytes.Compare(hi, b.shi) > 0 {
		hi = b.shi
	}
	qa, _ := b.textBucket(lo)
	qb, _ := b.textBucket(hi)
	return b.anyBit(qa, qb)
}

// anyBit reports whether a bit from qa to qb (qa <= qb) is set.
func (b *keyBuckets) anyBit(qa, qb uint64) bool {
	wa, wb := qa>>6, qb>>6
	ma, mb := ^uint64(0)<<(qa&63), ^uint64(0)>>(63-qb&63)
	if wa == wb {
		return b.bits[wa]&ma&mb != 0
	}
	if b.bits[wa]&ma != 0 || b.bits[wb]&mb != 0 {
		return true
	}
	for _, w := range b.bits[wa+1 : wb] {
		if w != 0 {
			return true
		}
	}
	return false
}

// sortUint64s sorts a in increasing order: a least-significant-digit radix
// sort a byte a pass, the passes of a byte every value shares skipped
// (integer keys of one sign and a few million values share their five
// high bytes: three passes), through a scratch copy of a; slices.Sort
// below 256 values. The 10^6 keys of a join against a Parquet side
// sorted by its key took 50-60 ms of its broadcast phase in slices.Sort
// (pdqsort, one core); BenchmarkSortUint64s. O(passes x len(a)), len(a)
// words of scratch.
func sortUint64s(a []uint64) {
	if len(a) < 256 {
		slices.Sort(a)
		return
	}
	var or, and uint64 = 0, ^uint64(0)
	for _, v := range a {
		or |= v
		and &= v
	}
	varies := or ^ and // the bits that are not the same in every value
	src, dst := a, make([]uint64, len(a))
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		if varies>>shift&0xff == 0 {
			continue
		}
		clear(count[:])
		for _, v := range src {
			count[v>>shift&0xff]++
		}
		sum := 0
		for b, c := range count {
			count[b] = sum
			sum += c
		}
		for _, v := range src {
			b := v >> shift & 0xff
			dst[count[b]] = v
			count[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}
