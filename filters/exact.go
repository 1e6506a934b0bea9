package filters

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/acbfjoin/acbfjoin/internal/freshmem"
	"github.com/acbfjoin/acbfjoin/keylist"
	"github.com/acbfjoin/acbfjoin/tuple"
)

// The exact kind: the set of keys itself, a semi-join without false
// positives. Its form is chosen by the keys, as a database chooses a join's
// hash table:
//   - every key 8 bytes (integer join keys: IntKey's big-endian bytes, whose
//     order is numeric order) and their range dense enough: a bitmap over
//     [min, max], one bit a value (the NBER patent numbers span 3M values:
//     367 KB for 65,771 keys);
//   - every key 8 bytes, sparse: an open-addressing table of the uint64s,
//     at most half full, linear probing;
//   - otherwise: a Go map of the byte strings.
// All three answer Contains with one or two memory accesses and no
// allocation. The format is the sorted keys, each after its uvarint length
// (9 bytes an integer key), but for a bitmap, which is written compact:
// two bytes 0x80 0x00 (an overlong uvarint, which the key list never
// starts with), the count, the first value and each next value's gap less
// one, as uvarints (about a byte a key where the keys are dense: the 10^6
// sampled patent numbers, 9 MB in the key list, take about 1.1 MB).
// Either form decodes, whatever the keys.

// exactBitmapFactor: a bitmap is chosen when it takes at most this many times
// the bytes of the table (bitmaps need no hashing and no probing).
const exactBitmapFactor = 4

// newExact returns the exact filter of distinct keys.
func newExact(keys keylist.List) Filter {
	n := keys.Len()
	payload := 0
	all8 := true
	if keys.Width() == 8 {
		payload = 9 * n // a one-byte length and the key's 8 bytes
	} else {
		for i := range n {
			k := keys.At(i)
			payload += uvarintLen(uint64(len(k))) + len(k)
			all8 = all8 && len(k) == 8
		}
	}
	if !all8 || n == 0 {
		return newKeySet(keys.Slices(), payload)
	}
	// The values read from the list where they are, run by run: a copy of
	// them was 8 bytes a key beside the list's own (80 MB at 10^7 keys,
	// half of the build's peak heap under --mem 64MiB).
	return newExact64(n, values8(keys), payload)
}

// values8 is the big-endian values of a list of 8-byte keys.
func values8(keys keylist.List) iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		keys.Runs(func(run []byte) bool {
			for o := 0; o+8 <= len(run); o += 8 {
				if !yield(binary.BigEndian.Uint64(run[o:])) {
					return false
				}
			}
			return true
		})
	}
}

// newExact64 is newExact of n distinct 8-byte keys given as their values
// (vals, n of them; payload: their encoding's size): a bitmap over a dense
// range, else a table. O(n) (two passes over vals), one allocation besides
// the set's.
func newExact64(n int, vals iter.Seq[uint64], payload int) Filter {
	lo, hi := uint64(1<<64-1), uint64(0)
	for v := range vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	slots := tableSlots(n)
	if span := hi - lo; exactBitmapFits(span, n) {
		b := &keyBitmap{lo: lo, span: span + 1, words: make([]uint64, (span+64)/64)}
		for v := range vals {
			v -= lo
			b.words[v>>6] |= 1 << (v & 63)
		}
		b.payload = b.compactSize()
		return b
	}
	t := &keyTable64{slots: make([]uint64, slots), shift: uint(64 - bits.TrailingZeros64(slots)), payload: payload}
	for v := range vals {
		t.add(v)
	}
	return t
}

// exactBitmapFits reports whether n distinct 8-byte keys whose values
// span span (the greatest less the least) take a bitmap rather than a
// table: the rule of newExact64 and ExactBound.
func exactBitmapFits(span uint64, n int) bool {
	return span < 1<<40 && (span/8+8) <= exactBitmapFactor*8*tableSlots(n)
}

// exactTableBits is the memory of the exact kind over n sparse 8-byte keys
// (integer keys): a table of 64-bit slots at most half full. A dense range
// of integers takes less (a bitmap), keys of other lengths more (a map).
func exactTableBits(n int) uint64 { return 64 * tableSlots(n) }

// tableSlots is the power of two at least twice n: a table at most half
// full.
func tableSlots(n int) uint64 {
	return max(16, uint64(1)<<bits.Len64(uint64(2*n-1)))
}

// keyBitmap is the exact filter of 8-byte keys in a dense range: bit v-lo of
// words for each key's value v.
type keyBitmap struct {
	lo, span uint64
	words    []uint64
	payload  int
}

func (b *keyBitmap) Contains(key []byte) bool {
	if len(key) != 8 {
		return false
	}
	return b.has(binary.BigEndian.Uint64(key))
}

// has reports whether the value v (a key's big-endian word) is in the set.
func (b *keyBitmap) has(v uint64) bool {
	v -= b.lo // wraps to a huge value below lo
	return v < b.span && b.words[v>>6]&(1<<(v&63)) != 0
}

func (b *keyBitmap) ContainsBatch(keys [][]byte, out []bool) {
	for i, k := range keys {
		out[i] = b.Contains(k)
	}
}

// ContainsInts is filters.IntBatchFilter's: Contains of each value's
// key.Of bytes, whose big-endian value is tuple.IntWord's, without them.
// O(1) a key.
func (b *keyBitmap) ContainsInts(keys []int64, out []bool) {
	out = out[:len(keys)]
	for i, k := range keys {
		out[i] = b.has(tuple.IntWord(k))
	}
}

func (b *keyBitmap) MemoryBits() uint64 { return 64 * uint64(len(b.words)) }

// compactMagic opens the compact form: an overlong uvarint of 0, which the
// key list (each key after its shortest uvarint length) never starts with.
var compactMagic = [2]byte{0x80, 0x00}

// gaps calls fn with the count of the bitmap's keys, then with its
// first value and each next value's gap from the one before less one: the
// numbers of the compact form, after compactMagic. O(span/64 + n).
func (b *keyBitmap) gaps(fn func(uint64)) {
	n := 0
	for _, x := range b.words {
		n += bits.OnesCount64(x)
	}
	fn(uint64(n))
	first, prev := true, uint64(0)
	for w, x := range b.words {
		for ; x != 0; x &= x - 1 {
			v := b.lo + uint64(w*64+bits.TrailingZeros64(x))
			if first {
				fn(v)
			} else {
				fn(v - prev - 1)
			}
			first, prev = false, v
		}
	}
}

// compactSize is the bytes of the bitmap's compact form.
func (b *keyBitmap) compactSize() int {
	size := len(compactMagic)
	b.gaps(func(d uint64) { size += uvarintLen(d) })
	return size
}

// appendCompact appends the bitmap's compact form to dst: compactMagic,
// the count, the first value, then each value's gap from the one before
// less one, as uvarints.
func (b *keyBitmap) appendCompact(dst []byte) []byte {
	dst = append(dst, compactMagic[:]...)
	b.gaps(func(d uint64) { dst = binary.AppendUvarint(dst, d) })
	return dst
}

// decodeCompact decodes the compact form (after compactMagic) into the
// values it lists, strictly increasing, or reports false: a count beyond
// what the bytes can hold, a value past 2^64, bytes after the last.
func decodeCompact(data []byte) ([]uint64, bool) {
	n, w := binary.Uvarint(data)
	if w <= 0 || n == 0 || n > uint64(len(data)-w) {
		return nil, false
	}
	data = data[w:]
	vals := make([]uint64, 0, n)
	for i := range n {
		d, w := binary.Uvarint(data)
		if w <= 0 {
			return nil, false
		}
		data = data[w:]
		if i == 0 {
			vals = append(vals, d)
			continue
		}
		prev := vals[len(vals)-1]
		if d >= 1<<64-1-prev { // prev + d + 1 would pass 2^64 - 1
			return nil, false
		}
		vals = append(vals, prev+d+1)
	}
	return vals, len(data) == 0
}

// keyTable64 is the exact filter of sparse 8-byte keys: an open-addressing
// table of their values (Fibonacci hashing, linear probing; 0 marks an empty
// slot, the key 0 is held by zero).
type keyTable64 struct {
	slots   []uint64
	shift   uint
	zero    bool
	payload int
}

func (t *keyTable64) slot(v uint64) uint64 { return (v * 0x9e3779b97f4a7c15) >> t.shift }

func (t *keyTable64) add(v uint64) {
	if v == 0 {
		t.zero = true
		return
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.slot(v); ; i = (i + 1) & mask {
		switch t.slots[i] {
		case 0:
			t.slots[i] = v
			return
		case v:
			return
		}
	}
}

func (t *keyTable64) Contains(key []byte) bool {
	if len(key) != 8 {
		return false
	}
	return t.has(binary.BigEndian.Uint64(key))
}

func (t *keyTable64) ContainsBatch(keys [][]byte, out []bool) {
	for i, k := range keys {
		out[i] = t.Contains(k)
	}
}

// ContainsInts is filters.IntBatchFilter's: Contains of each value's
// key.Of bytes (tuple.IntWord's value), without them. O(1) expected a key.
func (t *keyTable64) ContainsInts(keys []int64, out []bool) {
	out = out[:len(keys)]
	for i, k := range keys {
		out[i] = t.has(tuple.IntWord(k))
	}
}

// has reports whether v is in the table.
func (t *keyTable64) has(v uint64) bool {
	if v == 0 {
		return t.zero
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.slot(v); ; i = (i + 1) & mask {
		switch t.slots[i] {
		case v:
			return true
		case 0:
			return false
		}
	}
}

func (t *keyTable64) MemoryBits() uint64 { return 64 * uint64(len(t.slots)) }

// keySet is the exact filter of keys of any length: a Go map.
type keySet struct {
	m       map[string]struct{}
	payload int
}

func newKeySet(keys [][]byte, payload int) *keySet {
	s := &keySet{m: make(map[string]struct{}, len(keys)), payload: payload}
	for _, k := range keys {
		s.m[string(k)] = struct{}{}
	}
	return s
}

// Contains looks the key up; the string conversion in a map index does not
// allocate.
func (s *keySet) Contains(key []byte) bool {
	_, ok := s.m[string(key)]
	return ok
}

// MemoryBits estimates the map: the keys' bytes and about 64 bytes an entry
// (its slot, string header and the table's slack).
func (s *keySet) MemoryBits() uint64 { return 8 * uint64(s.payload-len(s.m)+64*len(s.m)) }

// exactKeys returns the keys of an exact filter, sorted.
func exactKeys(f Filter) [][]byte {
	var keys [][]byte
	switch s := f.(type) {
	case *keySet:
		for k := range s.m {
			keys = append(keys, []byte(k))
		}
	case *keyBitmap:
		for w, x := range s.words {
			for ; x != 0; x &= x - 1 {
				keys = append(keys, binary.BigEndian.AppendUint64(nil, s.lo+uint64(w*64+bits.TrailingZeros64(x))))
			}
		}
	case *keyTable64:
		if s.zero {
			keys = append(keys, make([]byte, 8))
		}
		for _, v := range s.slots {
			if v != 0 {
				keys = append(keys, binary.BigEndian.AppendUint64(nil, v))
			}
		}
	}
	slices.SortFunc(keys, bytes.Compare)
	return keys
}

// exactValues returns the values of a bitmap's or a table's keys in
// increasing order (their big-endian bytes' order), and false for a map of
// byte strings. O(n) for a bitmap, O(n log n) for a table.
func exactValues(f Filter) ([]uint64, bool) {
	switch s := f.(type) {
	case *keyBitmap:
		vals := make([]uint64, 0, s.payload) // the compact form takes at least a byte a key
		for w, x := range s.words {
			for ; x != 0; x &= x - 1 {
				vals = append(vals, s.lo+uint64(w*64+bits.TrailingZeros64(x)))
			}
		}
		return vals, true
	case *keyTable64:
		vals := make([]uint64, 0, s.payload/9)
		if s.zero {
			vals = append(vals, 0)
		}
		for _, v := range s.slots {
			if v != 0 {
				vals = append(vals, v)
			}
		}
		slices.Sort(vals)
		return vals, true
	}
	return nil, false
}

// Exact is the set of keys itself: a semi-join, no false positives.
const Exact Kind = "exact"

// exactParams are the exact set's: its form, which the keys decide
// ("bitmap", "table", "map"), and its memory. Size, without the keys,
// gives the table of n 8-byte keys.
type exactParams struct {
	Form   string `json:"form"`
	Memory uint64 `json:"memory_bits"`
}

func (p exactParams) String() string   { return "exact(" + p.Form + ")" }
func (p exactParams) Shape() string    { return p.Form }
func (p exactParams) Summary() Summary { return Summary{MemoryBits: p.Memory} }

type exactKind struct{}

func init() {
	register(&Spec{Kind: Exact, Doc: "the set of keys: a semi-join, no false positives", Order: 1, f: exactKind{},
		Note: "no false positives; its memory depends on the keys: integer keys in a dense range take a bitmap (less than the table), other keys a map (more)"})
}

// size, without the keys, is the table of n 8-byte keys (integer keys).
func (exactKind) size(n uint64, _ Sizing) (Params, error) {
	return exactParams{Form: "table", Memory: exactTableBits(int(n))}, nil
}

func (exactKind) build(_ Params, keys keylist.List) (Filter, Params, int64, error) {
	f := newExact(keys)
	return f, exactParamsOf(f), int64(exactPayload(f)), nil
}

func exactParamsOf(f Filter) exactParams {
	p := exactParams{Memory: f.(interface{ MemoryBits() uint64 }).MemoryBits()}
	switch f.(type) {
	case *keyBitmap:
		p.Form = "bitmap"
	case *keyTable64:
		p.Form = "table"
	default:
		p.Form = "map"
	}
	return p
}

// encode writes the format: a bitmap's compact form, else the keys in byte
// order, each after its uvarint length.
func (exactKind) encode(f Filter, w io.Writer) error {
	if b, ok := f.(*keyBitmap); ok {
		_, err := w.Write(b.appendCompact(make([]byte, 0, b.payload)))
		return err
	}
	if vals, ok := exactValues(f); ok { // 9 bytes a key, no sort of byte strings
		buf := make([]byte, 0, 9*len(vals))
		for _, v := range vals {
			buf = append(buf, 8)
			buf = binary.BigEndian.AppendUint64(buf, v)
		}
		_, err := w.Write(buf)
		return err
	}
	var buf []byte
	for _, k := range exactKeys(f) {
		buf = binary.AppendUvarint(buf, uint64(len(k)))
		buf = append(buf, k...)
	}
	_, err := w.Write(buf)
	return err
}

func (exactKind) decode(data []byte) (Filter, Params, error) {
	if len(data) >= len(compactMagic) && [2]byte(data[:2]) == compactMagic {
		vals, ok := decodeCompact(data[2:])
		if !ok {
			return nil, nil, fmt.Errorf("exact filter: corrupt compact key list")
		}
		f := newExact64(len(vals), slices.Values(vals), 9*len(vals)) // a bitmap counts its compact form; a table (keys too sparse for one) writes 9 bytes a key
		return f, exactParamsOf(f), nil
	}
	if f, ok := decodeExact64(data); ok {
		return f, exactParamsOf(f), nil
	}
	var keys [][]byte
	sorted := true
	for len(data) > 0 {
		n, w := binary.Uvarint(data)
		if w <= 0 || uint64(len(data)-w) < n {
			return nil, nil, fmt.Errorf("exact filter: corrupt key list")
		}
		k := data[w : w+int(n)]
		sorted = sorted && (len(keys) == 0 || bytes.Compare(keys[len(keys)-1], k) < 0)
		keys = append(keys, k)
		data = data[w+int(n):]
	}
	if !sorted { // not encode's: sort, and drop repeated keys
		slices.SortFunc(keys, bytes.Compare)
		keys = slices.CompactFunc(keys, bytes.Equal)
	}
	f := newExact(keylist.Of(keys))
	return f, exactParamsOf(f), nil
}

func (exactKind) fpp(Params, uint64) float64 { return 0 }

// decodeExact64 decodes Encode's format when every key is 8 bytes and they
// are in increasing order (what Encode writes for integer keys) straight
// into values: no slice of keys for the collector to scan, about 4 times
// faster at 100,000 keys. Anything else (other lengths, disorder, a corrupt
// list) gives false, for the general decoder to read or refuse.
func decodeExact64(data []byte) (Filter, bool) {
	if len(data) == 0 || len(data)%9 != 0 {
		return nil, false
	}
	vals := make([]uint64, 0, len(data)/9)
	for off := 0; off < len(data); off += 9 {
		if data[off] != 8 {
			return nil, false
		}
		v := binary.BigEndian.Uint64(data[off+1 : off+9])
		if len(vals) > 0 && v <= vals[len(vals)-1] {
			return nil, false
		}
		vals = append(vals, v)
	}
	return newExact64(len(vals), slices.Values(vals), len(data)), true
}

// ExactCopyExtra is what one copy of the exact filter f takes in memory
// beyond its encoding: a bitmap's memory less its compact form where that
// is more (10^6 dense integer keys: a 2.3 MB bitmap, about 1.1 MB
// encoded), else 0. A broadcast budget counts a copy by both: --filter
// auto compares the encoding plus this with it. O(1).
func ExactCopyExtra(f Filter) int64 {
	if b, ok := f.(*keyBitmap); ok {
		return max(0, int64(b.MemoryBits()/8)-int64(b.payload))
	}
	return 0
}

// ExactStandIn returns, for --filter auto's timing of the exact set's
// probes without building it over every key, the table the exact filter
// takes for n distinct sparse 8-byte keys (integer keys too spread for a
// bitmap), holding only keys (distinct 8-byte keys, at most n of them):
// its memory, and so its probes' cache misses, are those of the whole
// table, its chains a little shorter. It also returns the time its
// memory took to make (faulted in, in order) and its keys to add (the
// fastest of standInPasses passes), each read from now (the
// calibration's clock). ok is false when keys are not all 8 bytes or more
// than n. O(n) memory, O(tableSlots(n) + len(keys)) time.
func ExactStandIn(keys keylist.List, n int, now func() time.Duration) (f Filter, alloc, adds time.Duration, ok bool) {
	m := keys.Len()
	if m > n || !keys.AllWidth(8) {
		return nil, 0, 0, false
	}
	start := now()
	slots := tableSlots(n)
	// Its memory faulted in here, in order (freshmem): left to the adds,
	// a few thousand of them faulted most pages of the table, twice each
	// (a read maps the zero page, the write copies it), and the caller's
	// scaling of an add to all n keys multiplied the faults by n/len(keys)
	// (a helper's review: 66-144 ms predicted at 100,000 keys for a build
	// of 3-9 ms).
	t := &keyTable64{slots: freshmem.Table[uint64](int(slots)), shift: uint(64 - bits.TrailingZeros64(slots)), payload: 9 * n}
	made := now()
	// The adds in standInPasses passes, the fastest counting (a pass
	// slowed by an interrupt is scaled as much), the slots a pass filled
	// emptied before the next.
	adds = -1
	at := make([]uint64, 0, m)
	for pass := range standInPasses {
		if pass > 0 {
			for _, i := range at {
				t.slots[i] = 0
			}
			t.zero, at = false, at[:0]
		}
		p0 := now()
		for v := range values8(keys) {
			t.add(v)
		}
		if d := now() - p0; adds < 0 || d < adds {
			adds = d
		}
		if pass < standInPasses-1 {
			for v := range values8(keys) {
				if i, ok := t.slotOf(v); ok {
					at = append(at, i)
				}
			}
		}
	}
	return t, made - start, adds, true
}

// standInPasses is the passes of ExactStandIn's adds.
const standInPasses = 3

// slotOf returns the slot that holds v, if one does (not the key 0, held
// by a flag).
func (t *keyTable64) slotOf(v uint64) (uint64, bool) {
	if v == 0 {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.slot(v); ; i = (i + 1) & mask {
		switch t.slots[i] {
		case v:
			return i, true
		case 0:
			return 0, false
		}
	}
}

// exactRange is the least and the greatest of 8-byte keys' values.
func exactRange(keys keylist.List) (lo, hi uint64) {
	lo, hi = uint64(1<<64-1), uint64(0)
	// A loop over each run, not values8's iterator: a call a key
	// through its yield took 0.67 ms at 100,000 keys, this 0.2 (--filter
	// auto asks twice before every decision).
	keys.Runs(func(run []byte) bool {
		for o := 0; o+8 <= len(run); o += 8 {
			v := binary.BigEndian.Uint64(run[o:])
			lo, hi = min(lo, v), max(hi, v)
		}
		return true
	})
	return lo, hi
}

// ExactBitmapBits is the memory in bits of the exact filter of the
// distinct keys when it is a bitmap (8-byte keys of a range dense enough:
// newExact64's choice), with ExactBytesBound's bytes, from one pass over
// the keys; false when it is not a bitmap (a table, or keys of other
// lengths). O(n) for 8-byte keys; for others O(1) in practice (up to the
// first key of another length: --filter auto asks before every decision,
// and summing the bytes of 100,000 string keys took 1.7-2 ms of a 15 ms
// decision).
func ExactBitmapBits(keys keylist.List) (bits uint64, bytes int64, ok bool) {
	if keys.Len() == 0 || !keys.AllWidth(8) {
		return 0, 0, false
	}
	bytes, _, bits = exactBound(keys)
	return bits, bytes, bits > 0
}

// ExactBytesBound is at least the bytes the exact filter of the distinct
// keys encodes to, plus ExactCopyExtra, without building it (--filter
// auto's test of the budget before it builds): for 8-byte keys the form
// newExact would pick, from their range, and for a bitmap the larger of
// its memory and a bound on its compact form (a gap g takes at most 1 +
// log2(g+1)/7 bytes, and by Jensen's inequality n-1 gaps within a span S
// take at most (n-1)(1 + log2(S/(n-1))/7)); else the key list's bytes.
// O(n).
func ExactBytesBound(keys keylist.List) int64 {
	b, _ := ExactBound(keys)
	return b
}

// ExactBound is ExactBytesBound, and whether the exact filter of the
// distinct keys would be a table (8-byte keys too spread for a bitmap:
// ExactStandIn's case), from one pass over the keys. O(n).
func ExactBound(keys keylist.List) (bytes int64, table bool) {
	bytes, table, _ = exactBound(keys)
	return bytes, table
}

// exactBound is ExactBound, and the bitmap's memory in bits where the
// filter is a bitmap (0 where it is not).
func exactBound(keys keylist.List) (bytes int64, table bool, bitmapBits uint64) {
	n := keys.Len()
	if n == 0 || !keys.AllWidth(8) {
		var s int64
		for i := range n {
			l := len(keys.At(i))
			s += int64(uvarintLen(uint64(l)) + l)
		}
		return s, false, 0
	}
	lo, hi := exactRange(keys)
	span := hi - lo
	if !exactBitmapFits(span, n) {
		return 9 * int64(n), true, 0 // a table: the key list
	}
	gaps := float64(n - 1)
	bound := float64(len(compactMagic)+2*binary.MaxVarintLen64) + gaps
	if n > 1 {
		bound += gaps * math.Log2(max(1, float64(span)/gaps)) / 7
	}
	words := (span + 64) / 64
	return int64(math.Ceil(max(bound, float64(words)*8))) + 1, false, 64 * words
}

// uvarintLen is the length of x as a uvarint.
func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// exactPayload is the size of an exact filter's encoding.
func exactPayload(f Filter) int {
	switch s := f.(type) {
	case *keySet:
		return s.payload
	case *keyBitmap:
		return s.payload
	case *keyTable64:
		return s.payload
	}
	return 0
}

func (exactKind) paramsOf(f Filter) Params { return exactParamsOf(f) }
