package filters

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/bits-and-blooms/bloom/v3"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

// SumFilter is a Filter whose probes derive from hashing.Sum of the key (the
// cbf, acbf and blocked kinds): ContainsSum(hashing.Sum(key)) equals
// Contains(key), so a key tested against many such filters is hashed once.
type SumFilter interface {
	Filter
	ContainsSum(h1, h2 uint64) bool
}

// Multi tests a key against several filters of one kind, hashing it once
// where the kind allows: one hashing.Sum for the SumFilter kinds, one
// bits-and-blooms location list for the Bloom kind (its probes do not
// depend on the filter's size either); the other kinds hash once a filter.
// A filter bank's validation asks every key of every class of it. Safe for
// concurrent use; it holds the filters, not copies.
type Multi struct {
	fs     []Filter
	sums   []SumFilter          // all of fs, when each is a SumFilter
	blooms []*bloom.BloomFilter // all of fs, when each is of the Bloom kind
	maxK   uint
}

// NewMulti returns a Multi over fs (not copied).
func NewMulti(fs []Filter) *Multi {
	m := &Multi{fs: fs}
	sums := make([]SumFilter, 0, len(fs))
	blooms := make([]*bloom.BloomFilter, 0, len(fs))
	for _, f := range fs {
		if s, ok := f.(SumFilter); ok {
			sums = append(sums, s)
		}
		if b, ok := f.(bloomFilter); ok {
			blooms = append(blooms, b.f)
			m.maxK = max(m.maxK, b.f.K())
		}
	}
	switch {
	case len(fs) > 0 && len(sums) == len(fs):
		m.sums = sums
	case len(fs) > 0 && len(blooms) == len(fs):
		m.blooms = blooms
	}
	return m
}

// Len returns the number of filters.
func (m *Multi) Len() int { return len(m.fs) }

// Filters returns the filters (the Multi's own slice: do not modify).
func (m *Multi) Filters() []Filter { return m.fs }

// ContainsAll sets out[i] to the i-th filter's Contains(key); len(out) must
// be at least Len(). One hash of the key for the SumFilter kinds, one hash
// and an allocation of k words for the Bloom kind, a hash a filter for the
// others; then O(k) a filter.
func (m *Multi) ContainsAll(key []byte, out []bool) {
	switch {
	case m.sums != nil:
		h1, h2 := hashing.Sum(key)
		for i, f := range m.sums {
			out[i] = f.ContainsSum(h1, h2)
		}
	case m.blooms != nil:
		// Locations are bits-and-blooms' probes before the reduction mod m:
		// the same for any m, and the first k of them are a filter's k.
		locs := bloom.Locations(key, m.maxK)
		for i, f := range m.blooms {
			out[i] = f.TestLocations(locs[:f.K()])
		}
	default:
		for i, f := range m.fs {
			out[i] = f.Contains(key)
		}
	}
}

// Contains reports whether any of the filters may hold key: their union,
// with no false negative for a key of any of them. O(k) a filter; the
// SumFilter kinds hash once, the others once a filter (no allocation).
func (m *Multi) Contains(key []byte) bool {
	if m.sums != nil {
		h1, h2 := hashing.Sum(key)
		for _, f := range m.sums {
			if f.ContainsSum(h1, h2) {
				return true
			}
		}
		return false
	}
	for _, f := range m.fs {
		if f.Contains(key) {
			return true
		}
	}
	return false
}

// maxUnionParts bounds the filters of a decoded union.
const maxUnionParts = 1 << 16

// Union returns the union of parts, filters of one kind: a Built whose
// Filter is a Multi answering true when any part does, which serializes as
// its parts (a count, then each part's length and the kind's format) and
// decodes as a Multi, so that a join broadcasts and probes it as any filter.
// Its FPP is 1 - prod(1 - FPP_i) (a non-member passes when any part lets
// it through; each part's probes fall in its own memory, so their answers
// are close to independent), its N the sum of the
// parts' and its KeysFingerprint their sum: the fingerprint of the union
// when the parts' key sets are disjoint. Cost: O(parts).
func Union(parts []*Built) (*Built, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("filters: a union of no filters")
	}
	if len(parts) > maxUnionParts {
		return nil, fmt.Errorf("filters: a union of %d filters, at most %d", len(parts), maxUnionParts)
	}
	kind := parts[0].Spec
	fs := make([]Filter, len(parts))
	u := &Built{}
	pass := 1.0
	size := int64(4)
	for i, p := range parts {
		if p.Spec.Kind != kind.Kind {
			return nil, fmt.Errorf("filters: a union of %s and %s filters", kind.Kind, p.Spec.Kind)
		}
		fs[i] = p.Filter
		u.N += p.N
		u.KeysFingerprint[0] += p.KeysFingerprint[0]
		u.KeysFingerprint[1] += p.KeysFingerprint[1]
		u.M += p.M
		u.FirstLevelBits += p.FirstLevelBits
		u.MemoryBits += p.MemoryBits
		size += 8 + p.SerializedBytes
		pass *= 1 - p.FPP
	}
	u.K = parts[0].K
	for _, p := range parts {
		if p.K != u.K {
			u.K = 0 // no one k
		}
	}
	u.Filter = NewMulti(fs)
	u.SerializedBytes = size
	u.FPP = 1 - pass
	u.Spec = unionSpec(kind, u.FPP)
	return u, nil
}

// unionSpec is the Spec of a union of filters of kind sp: the kind's name
// and documentation, its format wrapped in a count and lengths.
func unionSpec(sp *Spec, fpp float64) *Spec {
	return &Spec{
		Kind: sp.Kind, Doc: sp.Doc + " (a union of several)", Order: sp.Order, Sized: sp.Sized, Deletes: false,
		Encode: func(f Filter, w io.Writer) error {
			m := f.(*Multi)
			var hdr [8]byte
			binary.LittleEndian.PutUint32(hdr[:4], uint32(len(m.fs)))
			if _, err := w.Write(hdr[:4]); err != nil {
				return err
			}
			var buf bytes.Buffer
			for _, part := range m.fs {
				buf.Reset()
				if err := sp.Encode(part, &buf); err != nil {
					return err
				}
				binary.LittleEndian.PutUint64(hdr[:], uint64(buf.Len()))
				if _, err := w.Write(hdr[:]); err != nil {
					return err
				}
				if _, err := w.Write(buf.Bytes()); err != nil {
					return err
				}
			}
			return nil
		},
		Decode: func(data []byte) (Filter, error) {
			if len(data) < 4 {
				return nil, fmt.Errorf("%s union: %d bytes, want at least 4", sp.Kind, len(data))
			}
			n := binary.LittleEndian.Uint32(data)
			if n == 0 || n > maxUnionParts {
				return nil, fmt.Errorf("%s union: %d filters", sp.Kind, n)
			}
			data = data[4:]
			fs := make([]Filter, 0, min(int(n), len(data)/8))
			for i := range n {
				if len(data) < 8 {
					return nil, fmt.Errorf("%s union: filter %d of %d is missing", sp.Kind, i+1, n)
				}
				l := binary.LittleEndian.Uint64(data)
				if l > uint64(len(data)-8) {
					return nil, fmt.Errorf("%s union: filter %d claims %d bytes, %d left", sp.Kind, i+1, l, len(data)-8)
				}
				f, err := sp.Decode(data[8 : 8+l])
				if err != nil {
					return nil, fmt.Errorf("%s union: filter %d: %w", sp.Kind, i+1, err)
				}
				fs = append(fs, f)
				data = data[8+l:]
			}
			if len(data) != 0 {
				return nil, fmt.Errorf("%s union: %d bytes after its %d filters", sp.Kind, len(data), n)
			}
			return NewMulti(fs), nil
		},
		FPP: func(Params, uint64) float64 { return fpp },
		FillFPP: func(f Filter) float64 {
			if sp.FillFPP == nil {
				return fpp
			}
			pass := 1.0
			for _, part := range f.(*Multi).fs {
				pass *= 1 - sp.FillFPP(part)
			}
			return 1 - pass
		},
	}
}
