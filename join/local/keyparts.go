package local

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/internal/parbuild"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// The build's distinct keys are found in 1<<keyPartBits parts, a key's
// part by the top bits of its hash (hashing.Sum's h1, which the build
// computes for the shuffle anyway): each worker appends the keys it reads
// to its own buffer of their part, and when the workers are done each
// part's buffers are made distinct by one goroutine, the parts in
// parallel, with no lock a key (keyMerge). A part of 10^7 keys is about
// 40,000 keys, whose table stays in the L2 cache, where one table a
// worker took a cache miss a row, grew by rehashing, and was merged into
// the others' on one core.
const (
	keyPartBits = 8
	keyParts    = 1 << keyPartBits
)

// keyPartOf is the part of a key whose hashing.Sum is h1.
func keyPartOf(h1 uint64) int { return int(h1 >> (64 - keyPartBits)) }

// minCompact is the fewest keys a worker's buffer holds before it drops
// its repeats.
const minCompact = 1 << 12

// keyBufKeys is the keys a part's buffer first has room for, then twice
// its room each time it is full (its arena of strings 8 bytes a key):
// append's growth from 8 made ten copies of a part of 200 keys, and
// growslice, its copies and its fresh memory took 29 ms of the 2 cores'
// 94 ms reading 100,000 string keys (a tenth of the join's CPU where the
// key side and 2 million rows are joined; profilejoin, AMD EPYC). At most
// 256 parts x 1 KiB a worker for a key side of few keys.
const keyBufKeys = 128

// keyBuf is one part of a worker's keys: 8-byte keys (every integer key)
// as uint64s (their bytes little-endian), others' bytes one after another
// in arena, ends[i] the end of the i-th. A buffer drops its repeats when
// it has doubled since it last did (compact), so that a key side of few
// distinct keys in many rows holds about twice its distinct keys, not a
// key a row.
type keyBuf struct {
	ints           []uint64
	arena          []byte
	ends           []int
	intsAt, strsAt int // compact when ints (ends) reach this length
}

// keyCollector is a build worker's keys, in parts, and the scratch table
// its buffers drop repeats with.
type keyCollector struct {
	parts   [keyParts]keyBuf
	scratch u64Set
	strs    map[string]struct{}
}

// add appends key, whose hashing.Sum is h1, to its part. Amortised O(1)
// and O(len(key)).
func (c *keyCollector) add(key []byte, h1 uint64) {
	b := &c.parts[keyPartOf(h1)]
	if len(key) == 8 {
		if len(b.ints) == cap(b.ints) {
			b.ints = slices.Grow(b.ints, max(cap(b.ints), keyBufKeys))
		}
		b.ints = append(b.ints, binary.LittleEndian.Uint64(key))
		if len(b.ints) >= max(b.intsAt, minCompact) {
			b.ints = distinctInts(b.ints, &c.scratch)
			b.intsAt = 2 * len(b.ints)
		}
		return
	}
	if len(b.arena)+len(key) > cap(b.arena) {
		b.arena = slices.Grow(b.arena, max(len(key), cap(b.arena), 8*keyBufKeys))
	}
	if len(b.ends) == cap(b.ends) {
		b.ends = slices.Grow(b.ends, max(cap(b.ends), keyBufKeys))
	}
	b.arena = append(b.arena, key...)
	b.ends = append(b.ends, len(b.arena))
	if len(b.ends) >= max(b.strsAt, minCompact) {
		if c.strs == nil {
			c.strs = map[string]struct{}{}
		}
		b.arena, b.ends = distinctStrs(b.arena, b.ends, c.strs)
		b.strsAt = 2 * len(b.ends)
	}
}

// distinctInts drops the repeats of ks in place, keeping each key's first
// place, with set as scratch (emptied and sized for ks). O(len(ks)).
func distinctInts(ks []uint64, set *u64Set) []uint64 {
	set.reset(len(ks))
	out := ks[:0]
	for _, k := range ks {
		if set.addNew(k) {
			out = append(out, k)
		}
	}
	return out
}

// distinctStrs drops the repeats of the keys in arena (ends[i] the end of
// the i-th), keeping each key's first place, into a new arena; seen is
// scratch (emptied). O(the keys' bytes).
func distinctStrs(arena []byte, ends []int, seen map[string]struct{}) ([]byte, []int) {
	clear(seen)
	out := make([]byte, 0, len(arena))
	outEnds := ends[:0]
	start := 0
	for _, end := range ends {
		k := arena[start:end]
		start = end
		// The map's key points into the old arena, which stays as it is
		// until seen is cleared. One assignment, not a lookup and an
		// assignment: a key already there leaves the map's length.
		if n := len(seen); addStr(seen, k) == n {
			continue
		}
		out = append(out, k...)
		outEnds = append(outEnds, len(out))
	}
	clear(seen)
	return out, outEnds
}

// addStr adds k, as a string over its bytes (no copy: they must stay as
// they are while seen holds them), to seen and returns seen's length:
// unchanged when k was there. For a set of 100,000 string keys a lookup
// before the assignment was a third of the merge's map work.
func addStr(seen map[string]struct{}, k []byte) int {
	seen[unsafe.String(unsafe.SliceData(k), len(k))] = struct{}{}
	return len(seen)
}

// builtKeys is the build's distinct keys, in parts: what the later phases
// ask whether a key is one (has: Filter auto, the hot exclusions) when the
// build kept them.
type builtKeys struct {
	ints [keyParts]u64Set
	strs [keyParts]map[string]struct{} // keys point into their part's arena, which never changes
	n    int
	// strHashes: each part's string keys' maphash.Bytes(strSeed, key),
	// which hashHasBatch asks in place of the part's map (hashedStrs: made when
	// the key side has at most strHashMax string keys).
	strHashes  [keyParts]u64Set
	strSeed    maphash.Seed
	hashedStrs bool
}

// strHashMax is the most string keys (the build's, repeats counted)
// for which mergeKeys makes builtKeys' strHashes. A lookup in a part's
// map of strings took 200-300 ns here (AMD EPYC, a miss a lookup: the
// swiss table's group, then the arena's bytes), most of it on the
// decision's critical path (--filter auto looks up its 16,384 sampled
// keys: 4-6 ms of a 15 ms decision at 100,000 string keys); a set of
// their 64-bit hashes, whose slots a chunk of lookups loads together,
// answers a key that is none (most of them) without the map. Making it
// costs about 10 ns a key on the merge's workers: at 2^18 keys about 1.3
// ms on 2 cores, a third of what it saves; beyond, it would cost more than
// it saves. A variable so that tests take the map alone too.
var strHashMax = 1 << 18

// has reports whether key is one of the keys. No allocation.
func (k *builtKeys) has(key string) bool {
	h1, _ := hashing.Sum(unsafe.Slice(unsafe.StringData(key), len(key)))
	p := keyPartOf(h1)
	if len(key) == 8 {
		var v uint64
		for i := 7; i >= 0; i-- { // little-endian, as keyCollector.add reads a key
			v = v<<8 | uint64(key[i])
		}
		return k.ints[p].has(v)
	}
	_, ok := k.strs[p][key]
	return ok
}

// len returns the number of keys.
func (k *builtKeys) len() int { return k.n }

// hashHasBatch sets out[i] to has(keys[i]) for each key (out at least as
// long), but for a string key whose hash is in its part's strHashes,
// which it takes for a key without reading the part's map: a string that
// is no key answers true when its 64-bit hash is a key's, with
// probability about n/2^64 (1 in 10^14 at 100,000 keys). For an estimate
// (Filter auto's selectivity over its sample, a statistic of 16,384
// rows): at selectivity 0.9 the map's confirming reads (a miss for the
// key's group, one for its bytes) took 6-9 ms of a 15-18 ms decision
// (100,000 string keys, AMD EPYC). Exact without strHashes (has). The
// integer keys of each chunk of hasChunk, and the string keys' hashes,
// are hashed and their first slots loaded in a pass of their own, so
// that the loads' cache misses overlap: the 16,384 lookups in the set of
// 100,000 keys took 80 ns each one by one, each a miss that waited for the
// last. No allocation.
func (k *builtKeys) hashHasBatch(keys [][]byte, out []bool) {
	var part [hasChunk]uint8
	var val [hasChunk]uint64
	var touched uint64
	for lo := 0; lo < len(keys); lo += hasChunk {
		chunk := keys[lo:min(len(keys), lo+hasChunk)]
		for i, key := range chunk {
			if len(key) != 8 && !k.hashedStrs {
				continue
			}
			h1, _ := hashing.Sum(key)
			p := keyPartOf(h1)
			s := &k.ints[p]
			var v uint64
			if len(key) == 8 {
				v = binary.LittleEndian.Uint64(key) // as keyCollector.add reads a key
			} else {
				v, s = maphash.Bytes(k.strSeed, key), &k.strHashes[p]
			}
			part[i], val[i] = uint8(p), v
			if len(s.slots) > 0 {
				touched += s.slots[s.slot(v)]
			}
		}
		for i, key := range chunk {
			switch {
			case len(key) == 8:
				out[lo+i] = k.ints[part[i]].has(val[i])
			case !k.hashedStrs:
				out[lo+i] = k.has(unsafe.String(unsafe.SliceData(key), len(key)))
			default: // whether a key hashes to it
				out[lo+i] = k.strHashes[part[i]].has(val[i])
			}
		}
	}
	warmed.Add(touched)
}

// hasChunk is the keys of hashHasBatch whose first slots are loaded together.
const hasChunk = 64

// keyIndex is a set of keys that a phase asks about: builtKeys, or a
// keySet made for it.
type keyIndex interface {
	has(key string) bool
	// hashHasBatch sets out[i] to has(keys[i]), but may answer true for
	// a string that is no key, with probability about len()/2^64
	// (builtKeys.hashHasBatch): for estimates.
	hashHasBatch(keys [][]byte, out []bool)
	len() int
}

// mergeBlockShift is the keys of a block of mergeKeys' 8-byte keys: 8192,
// 64 KiB. The blocks are made as each part is merged, while the workers'
// buffers it reads are let go, so that the merge needs about one copy of
// the keys, not two (an arena of every key beside the buffers: 80 MB more
// at 10^7 keys). A variable so that tests make blocks of a few keys.
var mergeBlockShift uint = 13

// mergeKeys makes the workers' keys distinct, a part at a time on up to
// workers goroutines, and returns them as a list (in no order: by part,
// in each the first worker's first, as the workers appended them; the
// 8-byte keys packed in blocks of 1<<mergeBlockShift) and, with index, as
// a builtKeys to ask (nil without). The collectors are spent. O(keys
// read), parallel.
func mergeKeys(ctx context.Context, cols []*keyCollector, workers int, index bool) (keylist.List, *builtKeys, error) {
	blockShift := mergeBlockShift
	blockKeys := 1 << blockShift
	// A part's 8-byte keys go in blocks of their own, the last partly
	// full; its strings in an arena of its own.
	intBlocks := make([][][]byte, keyParts)
	var nInts, nStrs [keyParts]int
	strArenas := make([][]byte, keyParts)
	strEnds := make([][]int, keyParts)
	var bk *builtKeys
	if index {
		bk = &builtKeys{strSeed: maphash.MakeSeed()}
		strs := 0
		for _, c := range cols {
			for p := range c.parts {
				strs += len(c.parts[p].ends)
			}
		}
		bk.hashedStrs = strs > 0 && strs <= strHashMax
	}
	var next atomic.Int32
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var set u64Set
			var seen map[string]struct{}
			for {
				p := int(next.Add(1) - 1)
				if p >= keyParts || ctx.Err() != nil {
					return
				}
				cands := 0
				for _, c := range cols {
					cands += len(c.parts[p].ints)
				}
				s := &set
				if bk != nil {
					s = &bk.ints[p]
				}
				s.reset(cands)
				var blocks [][]byte
				var cur []byte
				for _, c := range cols {
					b := &c.parts[p]
					for i, k := range b.ints {
						if !s.addNew(k) {
							continue
						}
						if len(cur) == cap(cur) {
							if cur != nil {
								blocks = append(blocks, cur)
							}
							// No bigger than the candidates left can fill.
							cur = make([]byte, 0, 8*min(blockKeys, cands-i))
						}
						cur = binary.LittleEndian.AppendUint64(cur, k)
					}
					cands -= len(b.ints)
					b.ints = nil
				}
				if cur != nil {
					blocks = append(blocks, cur)
				}
				intBlocks[p] = blocks
				for _, blk := range blocks {
					nInts[p] += len(blk) / 8
				}
				var bytes, keys int
				for _, c := range cols {
					bytes += len(c.parts[p].arena)
					keys += len(c.parts[p].ends)
				}
				if keys == 0 {
					continue
				}
				var hashes *u64Set
				if bk != nil {
					seen = make(map[string]struct{}, keys)
					bk.strs[p] = seen
					if bk.hashedStrs {
						hashes = &bk.strHashes[p]
						hashes.reset(keys)
					}
				} else if seen == nil {
					seen = map[string]struct{}{}
				} else {
					clear(seen)
				}
				// Sized for every key, the arena never moves: the map's
				// keys and the list's point into it.
				sa := make([]byte, 0, bytes)
				var ends []int
				for _, c := range cols {
					b := &c.parts[p]
					start := 0
					for _, end := range b.ends {
						k := b.arena[start:end]
						start = end
						if bk == nil {
							// seen is cleared before the next part: its
							// keys may point into the workers' buffers
							// (one assignment a key, not a lookup and
							// an assignment).
							if n := len(seen); addStr(seen, k) == n {
								continue
							}
							sa = append(sa, k...)
						} else {
							// The index keeps seen: its keys point into
							// sa, which never changes. (An assignment of
							// a key already there would point the map's
							// key at a copy of it.)
							if _, ok := seen[unsafe.String(unsafe.SliceData(k), len(k))]; ok {
								continue
							}
							sa = append(sa, k...)
							seen[unsafe.String(unsafe.SliceData(sa[len(sa)-len(k):]), len(k))] = struct{}{}
							if hashes != nil {
								hashes.add(maphash.Bytes(bk.strSeed, k))
							}
						}
						ends = append(ends, len(sa))
					}
					b.arena, b.ends = nil, nil
				}
				strArenas[p], strEnds[p], nStrs[p] = sa, ends, len(ends)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return keylist.List{}, nil, err
	}
	total, strs := 0, 0
	for p := range keyParts {
		total += nInts[p] + nStrs[p]
		strs += nStrs[p]
	}
	if bk != nil {
		bk.n = total
	}
	if strs == 0 {
		// Every key 8 bytes (an integer key): the parts' full blocks as
		// they are, the keys of their last blocks packed into full ones
		// after them, in the order the list below would have them.
		var blocks [][]byte
		var tail []byte
		for p := range keyParts {
			for _, blk := range intBlocks[p] {
				if len(blk) == 8*blockKeys {
					blocks = append(blocks, blk)
					continue
				}
				tail = append(tail, blk...)
			}
		}
		for len(tail) > 0 {
			n := min(len(tail), 8*blockKeys)
			blocks = append(blocks, slices.Clone(tail[:n]))
			tail = tail[n:]
		}
		list, ok := keylist.Blocks(blocks, 8, blockShift)
		if !ok {
			return keylist.List{}, nil, errors.New("internal: the merged keys' blocks are not of one shape")
		}
		return list, bk, nil
	}
	// The list: each part's keys at the sum of the parts' before it, as
	// spans of the parts' arenas (8 bytes a key: a [][]byte took 24, 240
	// MB at 10^7 string keys): part p's strings in arena p, its 8-byte
	// keys copied into arena keyParts+p. Keys a span cannot hold (one of
	// 16 MiB or more; a part of 2 GiB) make it a [][]byte.
	var listOff [keyParts + 1]int
	for p := range keyParts {
		listOff[p+1] = listOff[p] + nInts[p] + nStrs[p]
	}
	if mergeSpans && spansHold(strArenas, strEnds, nInts[:]) {
		arenas := make([][]byte, 2*keyParts)
		spans := make([]keylist.Span, listOff[keyParts])
		parbuild.Ranges(keyParts, max(workers, 1), func(_ int, lo, hi uint64) {
			for p := int(lo); p < int(hi); p++ {
				out := spans[listOff[p]:listOff[p+1]]
				if nInts[p] > 0 {
					ints := make([]byte, 0, 8*nInts[p])
					for _, blk := range intBlocks[p] {
						ints = append(ints, blk...)
					}
					intBlocks[p] = nil
					arenas[keyParts+p] = ints
					for at := 0; at < len(ints); at += 8 {
						out[0], _ = keylist.MakeSpan(keyParts+p, at, 8) // spansHold: they fit
						out = out[1:]
					}
				}
				arenas[p] = strArenas[p]
				start := 0
				for i, end := range strEnds[p] {
					out[i], _ = keylist.MakeSpan(p, start, end-start)
					start = end
				}
				strEnds[p] = nil
			}
		})
		list, ok := keylist.Spans(arenas, spans)
		if !ok {
			return keylist.List{}, nil, errors.New("internal: the merged keys' spans are out of their arenas")
		}
		return list, bk, nil
	}
	keys := make([][]byte, listOff[keyParts])
	parbuild.Ranges(keyParts, max(workers, 1), func(_ int, lo, hi uint64) {
		for p := int(lo); p < int(hi); p++ {
			out := keys[listOff[p]:listOff[p+1]]
			for _, blk := range intBlocks[p] {
				for at := 0; at < len(blk); at += 8 {
					out[0] = blk[at : at+8 : at+8]
					out = out[1:]
				}
			}
			start := 0
			for i, end := range strEnds[p] {
				out[i] = strArenas[p][start:end:end]
				start = end
			}
		}
	})
	return keylist.Of(keys), bk, nil
}

// mergeSpans is whether mergeKeys makes a list of keys of several lengths
// as keylist spans (a variable so that tests take the other way too).
var mergeSpans = true

// spansHold reports whether every key of the parts fits a keylist.Span:
// each part's arena of strings (ends) and of its nInts 8-byte keys under
// 2 GiB, every string under 16 MiB. O(strings).
func spansHold(arenas [][]byte, ends [][]int, nInts []int) bool {
	for p := range arenas {
		if _, ok := keylist.MakeSpan(keyParts+p, 8*nInts[p], 0); !ok {
			return false
		}
		if _, ok := keylist.MakeSpan(p, len(arenas[p]), 0); !ok {
			return false
		}
		start := 0
		for _, end := range ends[p] {
			if _, ok := keylist.MakeSpan(p, start, end-start); !ok {
				return false
			}
			start = end
		}
	}
	return true
}
