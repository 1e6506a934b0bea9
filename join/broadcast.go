package join

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/bits-and-blooms/bloom/v3"

	"github.com/acbfjoin/acbfjoin/acbf"
	"github.com/acbfjoin/acbfjoin/cbf"
)

// Marshal serializes the filter as the broadcast ships it: the filter's own
// WriteTo format for cbf, acbf and bloom; for exact, the sorted keys, each with
// a uvarint length; nothing for none.
func (b *Built) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(min(b.SerializedBytes, MaxFilterBytes+1<<20))) // one allocation, not a doubling series
	switch f := b.Filter.(type) {
	case passAll:
		return nil, nil
	case *keySet:
		keys := make([]string, 0, len(f.m))
		for k := range f.m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			buf.Write(binary.AppendUvarint(nil, uint64(len(k))))
			buf.WriteString(k)
		}
	case bloomFilter:
		if _, err := f.f.WriteTo(&buf); err != nil {
			return nil, err
		}
	case *cbf.Filter:
		if _, err := f.WriteTo(&buf); err != nil {
			return nil, err
		}
	case *acbf.Filter:
		if _, err := f.WriteTo(&buf); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("filter %s cannot be serialized", b.Kind)
	}
	return buf.Bytes(), nil
}

// Unmarshal decodes a broadcast filter of the given kind: each map worker gets
// its own copy, as each node of a cluster would.
func Unmarshal(kind Kind, data []byte) (Filter, error) {
	switch kind {
	case None:
		return passAll{}, nil
	case Exact:
		s := &keySet{m: map[string]struct{}{}}
		for len(data) > 0 {
			n, w := binary.Uvarint(data)
			if w <= 0 || uint64(len(data)-w) < n {
				return nil, fmt.Errorf("exact filter: corrupt key list")
			}
			s.m[string(data[w:w+int(n)])] = struct{}{}
			s.bytes += int(n) + 1
			data = data[w+int(n):]
		}
		return s, nil
	case Bloom:
		// bits-and-blooms allocates whatever its header claims before reading
		// (found by FuzzUnmarshal: a claim of 2^40 bits); check the sizes
		// against the data first. Its format, big-endian: m, k, then the
		// bitset's length in bits and its words.
		if len(data) < 24 {
			return nil, fmt.Errorf("bloom filter: %d bytes, want at least 24", len(data))
		}
		m, k, bitsLen := binary.BigEndian.Uint64(data), binary.BigEndian.Uint64(data[8:]), binary.BigEndian.Uint64(data[16:])
		if k < 1 || k > 64 || bitsLen != m || m == 0 || uint64(len(data)-24) != 8*((m+63)/64) {
			return nil, fmt.Errorf("bloom filter: header (m=%d, k=%d, %d bits) does not match its %d bytes", m, k, bitsLen, len(data))
		}
		var f bloom.BloomFilter
		if _, err := f.ReadFrom(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("bloom filter: %w", err)
		}
		return bloomFilter{&f}, nil
	case CBF:
		var f cbf.Filter
		if err := f.UnmarshalBinary(data); err != nil {
			return nil, err
		}
		return &f, nil
	case ACBF, ACBF1, ACBF2, ACBF3:
		var f acbf.Filter
		if err := f.UnmarshalBinary(data); err != nil {
			return nil, err
		}
		return &f, nil
	}
	return nil, fmt.Errorf("unknown filter %q", kind)
}
