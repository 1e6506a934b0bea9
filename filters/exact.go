package filters

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"
)

// keySet is the exact kind: a Go map of the keys.
type keySet struct {
	m     map[string]struct{}
	bytes int // payload: the keys' bytes plus a length byte each
}

func newKeySet(keys [][]byte) *keySet {
	s := &keySet{m: make(map[string]struct{}, len(keys))}
	for _, k := range keys {
		if _, ok := s.m[string(k)]; !ok {
			s.m[string(k)] = struct{}{}
			s.bytes += len(k) + 1
		}
	}
	return s
}

// Contains looks the key up; the string conversion in a map index does not
// allocate.
func (s *keySet) Contains(key []byte) bool {
	_, ok := s.m[string(key)]
	return ok
}

func init() {
	register(&Spec{
		Kind:  Exact,
		Doc:   "the set of keys: a semi-join, no false positives",
		Order: 1,
		Build: func(_ Params, keys [][]byte) (Filter, int64, error) {
			s := newKeySet(keys)
			return s, int64(s.bytes), nil
		},
		// The format: the keys in byte order, each after its uvarint length.
		Encode: func(f Filter, w io.Writer) error {
			s := f.(*keySet)
			keys := make([]string, 0, len(s.m))
			for k := range s.m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			var buf []byte
			for _, k := range keys {
				buf = binary.AppendUvarint(buf, uint64(len(k)))
				buf = append(buf, k...)
			}
			_, err := w.Write(buf)
			return err
		},
		Decode: func(data []byte) (Filter, error) {
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
		},
		FPP:            func(Params, uint64) float64 { return 0 },
		OverheadPerKey: 64, // a Go map entry and string header beyond the key's bytes
	})
}
