// Package mdbf is seed 001's "multi-dimension Bloom filter" (a course
// project): a filter over tuples made of one filter per attribute, each
// holding that attribute's values, which answers a tuple when every
// attribute's filter passes its value. A join with a composite key uses it as
// its per-column layout (join.LayoutPerColumn). The seed's experiments, its
// formulas and the comparison with one filter over the tuples (the
// composite layout, what a join does by default) are in repro/multikey.
//
// # What a per-column filter answers
//
// It answers "does every value occur in some tuple?", not "does this tuple
// occur?". A tuple whose values all occur, but in different tuples, (a1,
// b2, c3) when (a1, b1, c1), (a2, b2, c2) and (a3, b3, c3) were inserted,
// passes with probability 1: no filter of any size rejects it. Its formula
// false positive rate, the product of the columns', is the rate of a tuple
// whose values are all absent; on data whose values repeat across tuples (a
// join's key columns: country, year, class) most absent tuples are new
// combinations of present values, and the layout lets nearly all of them
// through (repro/multikey.Absent measures it).
//
// # Concurrency
//
// A Filter is safe for concurrent readers (its columns' filters are).
package mdbf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/tuple"
)

// MaxColumns is the most columns a Filter has (key.MaxColumns).
const MaxColumns = 16

// Filter is a per-column filter over tuples (package tuple): one
// filters.Filter per component. Safe for concurrent readers.
type Filter struct {
	types []tuple.Type
	cols  []filters.Filter
	built []*filters.Built // the columns as Build made them; nil otherwise
}

// New returns the per-column filter of tuples of types whose component i is
// tested by cols[i]: the one-column key of that component (an integer's 8
// bytes, a string's bytes), so cols[i] is the filter a one-column join on
// column i builds. The slices are not copied. len(types) must equal
// len(cols) and be 1..MaxColumns, and each type Int or String: New panics
// otherwise (a programming error; Decode checks its input).
func New(types []tuple.Type, cols []filters.Filter) *Filter {
	if len(types) != len(cols) || len(types) == 0 || len(types) > MaxColumns {
		panic(fmt.Sprintf("mdbf: %d types and %d filters (want as many, 1..%d)", len(types), len(cols), MaxColumns))
	}
	for _, t := range types {
		if t != tuple.Int && t != tuple.String {
			panic(fmt.Sprintf("mdbf: component type %v", t))
		}
	}
	return &Filter{types: types, cols: cols}
}

// Contains reports whether every column's filter passes its component of
// key, a tuple of the Filter's types, testing the columns in order and
// stopping at the first that fails. A key that is not such a tuple
// (tuple.Split fails) is passed, never rejected: a filter must not have a
// false negative, and a malformed key is not for the filter to judge. O(key
// bytes) to split plus each column's test; no allocation (but to unescape a
// string component holding a 0x00).
func (f *Filter) Contains(key []byte) bool {
	var arr [MaxColumns][]byte
	parts, _, err := tuple.Split(key, f.types, arr[:0], nil)
	if err != nil {
		return true
	}
	for i, p := range parts {
		if !f.cols[i].Contains(p) {
			return false
		}
	}
	return true
}

// Columns returns the columns' filters (the Filter's own slice: do not
// modify).
func (f *Filter) Columns() []filters.Filter { return f.cols }

// Types returns the components' types (the Filter's own slice).
func (f *Filter) Types() []tuple.Type { return f.types }

// Built returns the columns as Build made them, with each one's distinct
// values (N), parameters and formula false positive rate: what a report
// prints per column. Nil for a Filter made by New or Decode.
func (f *Filter) Built() []*filters.Built { return f.built }

// Columns returns the columns of b, a per-column filter made by Build, or
// nil if b is not one.
func Columns(b *filters.Built) []*filters.Built {
	if f, ok := b.Filter.(*Filter); ok {
		return f.built
	}
	return nil
}

// ErrKeys is wrapped by Build's errors about its keys.
var ErrKeys = errors.New("mdbf: keys")

// Build builds the per-column filter of kind over keys, distinct tuples of
// types: each column's filter is filters.Build(kind, that column's distinct
// values, s), sized for its own count of distinct values, as a one-column
// join on the column would build it. The result's Filter is a *Filter
// (Columns gives the columns' Built), N = len(keys), KeysFingerprint that of
// the tuples; M, FirstLevelBits, MemoryBits are the columns' sums, K their
// common k (0 if they differ), SerializedBytes the size of Spec.Encode's
// format. FPP is the product of the columns' FPP: the rate of a tuple whose
// components are all absent. A tuple of present values in a new combination
// passes with probability 1 whatever the formula says (see the package
// documentation). The Spec has the kind's name, Sized and Order, Deletes
// false, no Add, and encodes the columns in one format (Spec's Decode
// refuses any other input with an error). A key that is not a tuple of
// types is an error wrapping ErrKeys and tuple.ErrMalformed. No keys give
// empty column filters (filters.Build), which pass nothing.
// Sizing s applies to each column's filter, but for a Budget, which is
// the layout's: each column takes its distinct values' share of it
// (filters.Sizing.Share). Cost: O(total key bytes) to split and collect the values (a map of each
// column's distinct values) plus each column's build.
func Build(kind filters.Kind, types []tuple.Type, keys [][]byte, s filters.Sizing) (*filters.Built, error) {
	sp, err := filters.Lookup(string(kind))
	if err != nil {
		return nil, err
	}
	if len(types) == 0 || len(types) > MaxColumns {
		return nil, fmt.Errorf("%w: %d columns, want 1 to %d", ErrKeys, len(types), MaxColumns)
	}
	for i, t := range types {
		if t != tuple.Int && t != tuple.String {
			return nil, fmt.Errorf("%w: column %d: type %v", ErrKeys, i+1, t)
		}
	}
	comps, err := DistinctColumns(types, keys)
	if err != nil {
		return nil, err
	}
	cols := make([]*filters.Built, len(types))
	fs := make([]filters.Filter, len(types))
	out := &filters.Built{N: len(keys), KeysFingerprint: filters.KeysFingerprint(keys)}
	fpp := 1.0
	size := int64(4 + len(types))
	parts := filters.Parts{What: "per-column"}
	var values uint64
	for _, c := range comps {
		values += uint64(len(c))
	}
	for i := range types {
		// A budget is the layout's: each column takes its values' share.
		b, err := filters.Build(kind, comps[i], s.Share(uint64(len(comps[i])), values))
		if err != nil {
			return nil, fmt.Errorf("mdbf: column %d (%d distinct values): %w", i+1, len(comps[i]), err)
		}
		cols[i], fs[i] = b, b.Filter
		parts.Of = append(parts.Of, b.Params)
		size += 8 + b.SerializedBytes
		fpp *= b.FPP
	}
	f := New(types, fs)
	f.built = cols
	out.Filter = f
	out.Params, out.Summary = parts, parts.Summary()
	out.SerializedBytes = size
	out.FPP = fpp
	out.Spec = Spec(sp, fpp)
	return out, nil
}

// DistinctColumns splits keys, tuples of types, and returns each column's
// distinct components in the order of their first occurrence: an integer's
// 8 bytes, a string's bytes (slices of keys, or copies when a string holds
// a 0x00). A malformed key is an error wrapping ErrKeys and
// tuple.ErrMalformed. O(total key bytes), one map of strings a column.
func DistinctColumns(types []tuple.Type, keys [][]byte) ([][][]byte, error) {
	comps := make([][][]byte, len(types))
	seen := make([]map[string]struct{}, len(types))
	for i := range seen {
		seen[i] = make(map[string]struct{})
	}
	var parts [][]byte
	var scratch []byte
	for j, key := range keys {
		var err error
		parts, scratch, err = tuple.Split(key, types, parts, scratch[:0])
		if err != nil {
			return nil, fmt.Errorf("%w: key %d: %w", ErrKeys, j+1, err)
		}
		for i, p := range parts {
			if _, ok := seen[i][string(p)]; ok {
				continue
			}
			seen[i][string(p)] = struct{}{}
			if len(scratch) > 0 && bytes.IndexByte(p, 0) >= 0 { // a slice of scratch, which the next key reuses
				p = bytes.Clone(p)
			}
			comps[i] = append(comps[i], p)
		}
	}
	return comps, nil
}

// Spec returns the Spec of a per-column filter whose columns are of kind sp,
// whose formula false positive rate is fpp: the kind's name, Order and
// Sized, Deletes false, its format wrapped in a count, the types and the
// columns' lengths (little-endian: uint32 d, d type bytes (0 int, 1
// string), then d times a uint64 length and the kind's encoding of a
// column). FPP returns fpp; FillFPP the product of the columns' FillFPP
// when the kind has one, else fpp. Build sets it; a caller decoding a
// per-column filter it did not build uses Spec(kind's spec, its FPP).
func Spec(sp *filters.Spec, fpp float64) *filters.Spec {
	return filters.Wrap(sp, " (per column: one filter a key column, seed 001's multi-dimensional filter)", perColumn{sp: sp, fpp: fpp})
}

// perColumn is the filters.Wrapper of per-column filters of kind sp.
type perColumn struct {
	sp  *filters.Spec
	fpp float64
}

func (c perColumn) Encode(f filters.Filter, w io.Writer) error { return encode(c.sp, f.(*Filter), w) }
func (c perColumn) Decode(data []byte) (filters.Filter, filters.Params, error) {
	return decode(c.sp, data)
}
func (c perColumn) FPP() float64 { return c.fpp }

func (c perColumn) ParamsOf(f filters.Filter) filters.Params {
	ps := filters.Parts{What: "per-column"}
	for _, col := range f.(*Filter).cols {
		ps.Of = append(ps.Of, c.sp.ParamsOf(col))
	}
	return ps
}

// FillFPP is the product of the columns' own rates (a row passes when
// every column's filter passes its value), the formula's where the kind
// has none.
func (c perColumn) FillFPP(f filters.Filter) float64 {
	if !c.sp.HasFillFPP() {
		return c.fpp
	}
	pass := 1.0
	for _, col := range f.(*Filter).cols {
		pass *= c.sp.FillFPP(col)
	}
	return pass
}

func encode(sp *filters.Spec, f *Filter, w io.Writer) error {
	hdr := binary.LittleEndian.AppendUint32(nil, uint32(len(f.types)))
	for _, t := range f.types {
		hdr = append(hdr, byte(t))
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	var buf bytes.Buffer
	var l [8]byte
	for _, c := range f.cols {
		buf.Reset()
		if err := sp.Encode(c, &buf); err != nil {
			return err
		}
		binary.LittleEndian.PutUint64(l[:], uint64(buf.Len()))
		if _, err := w.Write(l[:]); err != nil {
			return err
		}
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

func decode(sp *filters.Spec, data []byte) (filters.Filter, filters.Params, error) {
	if len(data) < 4 {
		return nil, nil, fmt.Errorf("%s per-column filter: %d bytes, want at least 4", sp.Kind, len(data))
	}
	d := binary.LittleEndian.Uint32(data)
	if d == 0 || d > MaxColumns {
		return nil, nil, fmt.Errorf("%s per-column filter: %d columns, want 1 to %d", sp.Kind, d, MaxColumns)
	}
	data = data[4:]
	if uint64(len(data)) < uint64(d) {
		return nil, nil, fmt.Errorf("%s per-column filter: the types of its %d columns are missing", sp.Kind, d)
	}
	types := make([]tuple.Type, d)
	for i := range types {
		types[i] = tuple.Type(data[i])
		if types[i] != tuple.Int && types[i] != tuple.String {
			return nil, nil, fmt.Errorf("%s per-column filter: column %d: type %d, want 0 (int) or 1 (string)", sp.Kind, i+1, data[i])
		}
	}
	data = data[d:]
	cols := make([]filters.Filter, d)
	parts := filters.Parts{What: "per-column"}
	for i := range cols {
		if len(data) < 8 {
			return nil, nil, fmt.Errorf("%s per-column filter: column %d of %d is missing", sp.Kind, i+1, d)
		}
		l := binary.LittleEndian.Uint64(data)
		if l > uint64(len(data)-8) {
			return nil, nil, fmt.Errorf("%s per-column filter: column %d claims %d bytes, %d left", sp.Kind, i+1, l, len(data)-8)
		}
		c, p, err := sp.DecodeParams(data[8 : 8+l])
		if err != nil {
			return nil, nil, fmt.Errorf("%s per-column filter: column %d: %w", sp.Kind, i+1, err)
		}
		cols[i] = c
		parts.Of = append(parts.Of, p)
		data = data[8+l:]
	}
	if len(data) != 0 {
		return nil, nil, fmt.Errorf("%s per-column filter: %d bytes after its %d columns", sp.Kind, len(data), d)
	}
	return New(types, cols), parts, nil
}
