package filters

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"slices"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/internal/parbuild"
	"github.com/acbfjoin/acbfjoin/keylist"
	"github.com/spaolacci/murmur3"
)

// Built is a filter built over a key set, with its parameters (its kind's
// own, Params) and their Summary.
type Built struct {
	Spec   *Spec
	Filter Filter
	N      int // distinct keys
	Params Params
	Summary
	// KeysFingerprint is KeysFingerprint of the keys it was built from.
	KeysFingerprint [2]uint64
	SerializedBytes int64   // what broadcasting it ships
	FPP             float64 // formula false positive rate with N keys
}

// Kind is the name of b's kind.
func (b *Built) Kind() Kind { return b.Spec.Kind }

// Build sizes kind for the distinct keys and builds it: O(n*k). The keys are
// not retained.
func Build(kind Kind, keys [][]byte, s Sizing) (*Built, error) {
	return BuildList(kind, keylist.Of(keys), s)
}

// BuildList is Build of a keylist.List (packed integer keys: 8 bytes a key
// where a [][]byte takes 32, but for cuckoo and scalable, Spec.BuildList).
func BuildList(kind Kind, keys keylist.List, s Sizing) (*Built, error) {
	sp, err := Lookup(string(kind))
	if err != nil {
		return nil, err
	}
	// No keys: the filter of one key's size, holding none, which passes
	// nothing (its formula FP at n = 0 is 0): the join of no keys is empty,
	// as SQL's is.
	p, err := sp.Size(max(uint64(keys.Len()), 1), s)
	if err != nil {
		return nil, err
	}
	f, p, size, err := sp.BuildList(p, keys)
	if err != nil {
		return nil, err
	}
	return NewBuilt(sp, f, p, keys.Len(), ListFingerprint(keys), size), nil
}

// NewBuilt describes a filter of sp built or decoded with parameters p over
// n keys of fingerprint fp, serialized in size bytes: its formula FPP with
// n keys. O(1) but for the kinds whose formula sums (scalable).
func NewBuilt(sp *Spec, f Filter, p Params, n int, fp [2]uint64, size int64) *Built {
	b := &Built{Spec: sp, Filter: f, N: n, Params: p, KeysFingerprint: fp, SerializedBytes: size}
	if p != nil {
		b.Summary = p.Summary()
	}
	b.FPP = sp.FPP(p, uint64(n))
	if b.FPP == 0 {
		b.FPP = 0 // not -0 (a formula's product with a negative zero)
	}
	return b
}

// Spell returns the parameters spelled with the kind's name
// ("bloom(m=3200000,k=22)"), the kind's name alone for a kind without any.
func (b *Built) Spell() string { return b.Spec.Spell(b.Params) }

// Marshal serializes the filter in its kind's format (what the broadcast
// ships and filter files hold), in one allocation of its known size.
func (b *Built) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(min(b.SerializedBytes, MaxFilterBytes+1<<20)))
	if err := b.Spec.Encode(b.Filter, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ResidentBytes estimates the memory of one decoded copy.
func (b *Built) ResidentBytes() uint64 { return b.MemoryBits / 8 }

// Decode decodes a filter of the named kind from data (Built.Marshal's
// output). Each call returns an independent copy.
func Decode(kind Kind, data []byte) (Filter, error) {
	sp, err := Lookup(string(kind))
	if err != nil {
		return nil, err
	}
	return sp.Decode(data)
}

// fingerprintSeed separates the fingerprint's hash from the filters' probe
// hash (murmur3 seed 0), so that the two are independent.
const fingerprintSeed = 0x6b657973 // "keys"

// KeysFingerprint returns a 128-bit fingerprint of a set of distinct keys,
// independent of their order: the sums mod 2^64 of the two halves of each
// key's murmur3 x64 128-bit hash (seed fingerprintSeed). Two different sets
// of random keys collide with probability about 2^-128 (not a defence
// against keys chosen to collide). O(total key bytes), no allocation
// beyond a goroutine each quarter of the keys when there are 2^16 or more
// (the sums do not depend on how they are cut).
func KeysFingerprint(keys [][]byte) [2]uint64 { return ListFingerprint(keylist.Of(keys)) }

// ListFingerprint is KeysFingerprint of a keylist.List.
func ListFingerprint(keys keylist.List) [2]uint64 {
	workers := 1
	if keys.Len() >= 1<<16 {
		workers = min(runtime.GOMAXPROCS(0), parbuild.MaxWorkers)
	}
	if workers == 1 {
		return keysFingerprint(keys)
	}
	fps := make([][2]uint64, workers)
	parbuild.Ranges(uint64(keys.Len()), workers, func(w int, lo, hi uint64) {
		fps[w] = keysFingerprint(keys.Slice(int(lo), int(hi)))
	})
	var fp [2]uint64
	for _, p := range fps {
		fp[0] += p[0]
		fp[1] += p[1]
	}
	return fp
}

// keysFingerprint is KeysFingerprint on one goroutine.
func keysFingerprint(keys keylist.List) [2]uint64 {
	var fp [2]uint64
	for i := range keys.Len() {
		k := keys.At(i)
		var h1, h2 uint64
		if len(k) == 8 { // every integer key: the library's hash, inlined
			h1, h2 = hashing.Sum8Seed(binary.LittleEndian.Uint64(k), fingerprintSeed)
		} else {
			h1, h2 = murmur3.Sum128WithSeed(k, fingerprintSeed)
		}
		fp[0] += h1
		fp[1] += h2
	}
	return fp
}

// inOrder returns keys sorted by their bytes (a sorted copy of the slice,
// the keys not copied), for the kinds whose structure depends on the order
// keys are added in (cuckoo, scalable): a built filter is a function of
// its key set, whatever order a map gave the keys in, so that a filter
// file is the same bytes from one run to the next. O(n log n).
func inOrder(keys [][]byte) [][]byte {
	if slices.IsSortedFunc(keys, bytes.Compare) {
		return keys
	}
	out := slices.Clone(keys)
	slices.SortFunc(out, bytes.Compare)
	return out
}
