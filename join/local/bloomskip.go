package local

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// fileBloom is the map phase's skipping of a Parquet large side's row
// groups by the file's own split-block Bloom filters of the join column
// (columnar.Table.BloomFilter; DuckDB, Spark, DataFusion and arrow-rs
// write them): a row group whose filter says that none of the key side's
// distinct keys can be in it holds no row that joins, and is counted as
// read and dropped unread, as one its statistics skip (skipChunk). A
// Bloom filter has no false negatives, so no row that joins is ever
// skipped; a filter's false positive only leaves a row group to be read.
//
// When it pays: K keys probed into a filter of false positive rate p pass
// a row group holding none of them with probability 1 - (1-p)^K. The
// first filter read gives p (its bits: columnar.BloomFilter.FPP); when
// that survival is over maxBloomSurvival, almost no row group could be
// skipped, and no more filters are read or probed (a filter read costs a
// read of the file and K probes; K, a few microseconds a thousand keys,
// against a row group's key column decoded). With few keys, as a lookup
// of 20 keys in 100 row groups, the survival is about 20p, and every row
// group holding none of them but about 20p of them is skipped.
//
// A row group whose filter passes a key or two (a false positive, or a
// key it holds) is skipped all the same when its dictionary proves that it
// holds none of them (columnar.Table.DictionaryMisses: every data page
// dictionary-encoded, no entry equal to one): with 20 keys and DuckDB's
// filters (p = 0.01) about 15 of 80 row groups holding none passed their
// filter and were read (issue 44); every such row group is skipped now.
//
// Safe for concurrent use by the mappers: the keys' hashes are made once,
// by the first mapper that finds a filter.
type fileBloom struct {
	x    *execution
	col  int
	keys keylist.List // the key side's distinct keys (the keys phase's list), until hashed
	once sync.Once
	// hashes are the keys' hashes as the column's filters take them, the
	// keys that no value of the column can equal left out; usable false
	// when the filters cannot decide for the join's key type.
	hashes []uint64
	usable bool
	// byHash is the string keys of each hash (the screen's values,
	// screenValues: two keys may share one, and both are then screened
	// in), where the keys are text and at most maxScreenKeys; an integer
	// key's are the hashes inverted (columnar.Table.BloomValues).
	byHash map[uint64][][]byte
	off    atomic.Bool  // the rule: no more filters read
	byDict atomic.Int64 // the row groups a filter passed that their dictionaries proved keyless
	mu     sync.Mutex   // guards the rest
	// decided says the first filter was weighed; survival is its
	// estimated survival of a row group holding no key.
	decided  bool
	survival float64
	maxProof int // dictProofs of the first filter's rate
}

// maxBloomSurvival: above this estimated share of row groups without a
// key passing their filter anyway, the filters are not read.
const maxBloomSurvival = 0.9

// dictProofs is the most keys a row group's Bloom filter may pass for
// its dictionary to be read to prove that it holds none of them
// (columnar.Table.DictionaryMisses), for K keys probed into filters of
// false positive rate p: 8 + 2Kp. A row group holding no key passes Kp
// keys on average (its filter's false positives; DuckDB's p = 0.01 and 20
// keys passed up to 3 at a row group, bench/parquet-bloom.sh), where many
// more say that it holds some, and its dictionary would be read for
// nothing: at most one read a row group, a fraction of decoding it.
func dictProofs(k int, p float64) int { return 8 + int(2*float64(k)*p) }

// newFileBloom is the Bloom skipping of the large side for keys, the key
// side's distinct keys, or nil where it cannot apply: not a Parquet table,
// a composite key, or asked not to (Options.IgnoreFileBloom).
func (x *execution) newFileBloom(keys keylist.List) *fileBloom {
	if x.input.Tab == nil || x.input.Tab.Format != columnar.Parquet || x.joinSpec.Composite() || x.opt.IgnoreFileBloom {
		return nil
	}
	return &fileBloom{x: x, col: x.joinSpec.Cols[0], keys: keys}
}

// skips reports whether chunk c (a row group) holds none of the keys by
// its Bloom filter, and its NULL keys (from its statistics: a row group
// whose NULLs are not known is not skipped, so that the report's NULL
// count stays exact). A row group read after its filter was (checked,
// not skip) can hold only the keys whose hashes it passed: passed, for
// the map phase's screen (skipChunk). O(K) probes and a read of its
// filter.
func (b *fileBloom) skips(c *source.Chunk) (nulls int64, skip, checked bool, passed []uint64) {
	if b == nil || b.off.Load() {
		return 0, false, false, nil
	}
	tab := b.x.input.Tab
	nulls, ok := tab.NullCount(c.Index, b.col)
	if !ok {
		return 0, false, false, nil
	}
	b.once.Do(func() {
		kt := b.x.joinSpec.Types[0]
		keys := b.keys.Slices()
		b.hashes, b.usable = tab.BloomHashes(b.col, kt, keys)
		// A string key's hash is its own, key by key, where every key has
		// one (a FIXED_LEN_BYTE_ARRAY column leaves out the keys of
		// another length: then no screen).
		if b.usable && kt == key.String && len(b.hashes) == len(keys) && len(keys) <= maxScreenKeys {
			b.byHash = make(map[uint64][][]byte, len(keys))
			for i, k := range keys {
				b.byHash[b.hashes[i]] = append(b.byHash[b.hashes[i]], slices.Clone(k))
			}
		}
		b.keys = keylist.List{} // the hashes are all it needs: the list's memory goes back
	})
	if !b.usable {
		b.off.Store(true)
		return 0, false, false, nil
	}
	var maybe []uint64 // the keys the filter passes
	b.mu.Lock()
	decided := b.decided
	b.mu.Unlock()
	if !decided {
		// The first filter is read whole: its bits say its false positive
		// rate, which decides whether the filters are worth reading.
		f := tab.BloomFilter(c.Index, b.col)
		if f == nil {
			return 0, false, false, nil
		}
		b.mu.Lock()
		if !b.decided {
			b.decided = true
			p := f.FPP()
			b.survival = 1 - math.Pow(1-p, float64(len(b.hashes)))
			b.maxProof = dictProofs(len(b.hashes), p)
			if b.survival > maxBloomSurvival {
				b.off.Store(true)
			}
		}
		b.mu.Unlock()
		for _, h := range b.hashes {
			if f.MightContainHash(h) {
				maybe = append(maybe, h)
			}
		}
	} else {
		var ok bool
		if maybe, ok = tab.BloomPasses(c.Index, b.col, b.hashes, nil); !ok {
			return 0, false, false, nil
		}
	}
	b.mu.Lock()
	limit := b.maxProof
	b.mu.Unlock()
	if len(maybe) > limit {
		return nulls, false, true, maybe
	}
	if len(maybe) == 0 {
		return nulls, true, true, nil
	}
	if tab.DictionaryMisses(c.Index, b.col, maybe) {
		b.byDict.Add(1)
		return nulls, true, true, nil
	}
	return nulls, false, true, maybe
}

// maxScreenKeys bounds the string keys kept by their hashes for the
// screen: with more, a filter of any usual false positive rate passes
// nearly every row group (1-(1-p)^K), so the filters are turned off
// (maxBloomSurvival) and the screen would never be asked; keeping a
// million keys took a join of 1M keys from 0.7 to 1.5 s (a review).
const maxScreenKeys = 1 << 16

// screenValues returns the string keys whose hashes passed a row
// group's filter (skips' passed), every key of a hash two share,
// appended to dst; ok false where a hash is no key's or there are more
// than maxScreen (the screen then does not apply).
func (b *fileBloom) screenValues(passed []uint64, dst [][]byte) (_ [][]byte, ok bool) {
	for _, h := range passed {
		ks, ok := b.byHash[h]
		if !ok {
			return dst, false
		}
		dst = append(dst, ks...)
	}
	return dst, len(dst) <= maxScreen
}

// report is what the rule decided: the estimated survival of the first
// filter read (-1: none read) and whether it turned the filters off, and
// the row groups skipped by their dictionaries after their filter passed
// a key.
func (b *fileBloom) report() (survival float64, off bool, byDict int64) {
	if b == nil {
		return -1, false, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.decided {
		return -1, false, 0
	}
	return b.survival, b.survival > maxBloomSurvival, b.byDict.Load()
}
