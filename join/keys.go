package join

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/acbfjoin/acbfjoin/datasets/nber"
)

// IntKey encodes an integer join key as the 8 bytes every filter hashes and
// the shuffle groups by: keys equal as integers ("0042" and "42") get the same
// bytes, and byte order is numeric order (big-endian with the sign bit
// flipped). dst must have room for 8 bytes.
func IntKey(dst []byte, field []byte) ([]byte, error) {
	v, err := nber.ParseInt(field)
	if err != nil {
		return nil, err
	}
	binary.BigEndian.PutUint64(dst[:8], uint64(v)^1<<63)
	return dst[:8], nil
}

// ReadKeys returns the distinct integer keys of column col of a CSV file with a
// header (the join's small side), in first-seen order, with the number of rows
// read. O(rows).
func ReadKeys(path, col string) (keys [][]byte, rows int64, err error) {
	rc, name, err := nber.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer rc.Close()
	r := nber.NewReader(rc, name)
	header, err := r.ReadHeader()
	if err != nil {
		return nil, 0, err
	}
	ci := slices.Index(header, col)
	if ci < 0 {
		return nil, 0, fmt.Errorf("%s has no column %q", name, col)
	}
	seen := map[uint64]struct{}{}
	var buf [8]byte
	for r.Next() {
		rows++
		k, err := IntKey(buf[:], r.Fields()[ci])
		if err != nil {
			return nil, 0, r.Errorf("%s: %v", col, err)
		}
		v := binary.BigEndian.Uint64(k)
		if _, ok := seen[v]; !ok {
			seen[v] = struct{}{}
			keys = append(keys, slices.Clone(k))
		}
	}
	return keys, rows, r.Err()
}

// ProbeResult counts what a filter let through from the large side.
type ProbeResult struct {
	Rows   int64 // large-side rows
	Passed int64 // rows whose key passed the filter (map output)
	Member int64 // rows whose key is a key (true join matches)
}

// FalsePositives returns the rows that passed without being members.
func (p ProbeResult) FalsePositives() int64 { return p.Passed - p.Member }

// FPP returns the measured false positive rate: false positives over rows
// whose key is not a key.
func (p ProbeResult) FPP() float64 {
	if p.Rows == p.Member {
		return 0
	}
	return float64(p.FalsePositives()) / float64(p.Rows-p.Member)
}

// ProbeFile streams column col of a CSV file with a header and tests every key
// against each filter and against the exact key set. One pass, one goroutine;
// no allocation per row.
func ProbeFile(path, col string, exact Filter, filters []Filter) ([]ProbeResult, error) {
	rc, name, err := nber.Open(path)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	r := nber.NewReader(rc, name)
	header, err := r.ReadHeader()
	if err != nil {
		return nil, err
	}
	ci := slices.Index(header, col)
	if ci < 0 {
		return nil, fmt.Errorf("%s has no column %q", name, col)
	}
	res := make([]ProbeResult, len(filters))
	var buf [8]byte
	for r.Next() {
		k, err := IntKey(buf[:], r.Fields()[ci])
		if err != nil {
			return nil, r.Errorf("%s: %v", col, err)
		}
		member := exact.Contains(k)
		for i, f := range filters {
			res[i].Rows++
			if member {
				res[i].Member++
				res[i].Passed++ // no false negatives: skip the test
			} else if f.Contains(k) {
				res[i].Passed++
			}
		}
	}
	return res, r.Err()
}
