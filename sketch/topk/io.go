package topk

import (
	"bytes"
	"fmt"
	"io"
	"math"

	"github.com/acbfjoin/acbfjoin/internal/wire"
)

// Serialized format of a TopK, version 1 (all integers little-endian):
//
//	offset  size        field
//	0       4           magic "TOPK"
//	4       2           format version (1)
//	6       2           Depth
//	8       4           K
//	12      8           Width
//	20      8           Decay, IEEE 754 bits
//	28      8           Seed
//	36      8           random generator state
//	44      8           Total
//	52      4           n, keys in the heap (<= K)
//	56      8*W*D       buckets, array by array: fingerprint<<40 | count
//	...                 n heap entries in Top order: count (8), key length (2), key
//	...     4           CRC-32C (Castagnoli) of every byte before it
//
// The payload is canonical, so that decoding and re-encoding gives the same
// bytes: a bucket of count 0 is the zero word; heap entries are in strictly
// decreasing (count, then increasing key) order, so distinct, with counts >= 1
// and keys of at most MaxKeyLen bytes.
const (
	magic         = "TOPK"
	formatVersion = 1
	headerSize    = 56
	trailerSize   = 4
)

// SerializedSize returns the number of bytes WriteTo writes. O(K).
func (t *TopK) SerializedSize() int64 {
	n := int64(headerSize + 8*len(t.buckets) + trailerSize)
	for i := range t.heap.e {
		n += 10 + int64(len(t.heap.e[i].key))
	}
	return n
}

// WriteTo writes t in the format described above and returns the number of
// bytes written. It implements io.WriterTo. O(Width*Depth + K log K).
func (t *TopK) WriteTo(w io.Writer) (int64, error) {
	top := t.Top()
	ww := wire.NewWriter(w)
	ww.Header(magic, formatVersion)
	ww.U16(uint16(t.cfg.Depth))
	ww.U32(uint32(t.cfg.K))
	ww.U64(uint64(t.cfg.Width))
	ww.U64(math.Float64bits(t.cfg.Decay))
	ww.U64(t.cfg.Seed)
	ww.U64(t.rng)
	ww.U64(t.total)
	ww.U32(uint32(len(top)))
	ww.Words(t.buckets)
	for _, it := range top {
		ww.U64(it.Count)
		ww.Str(string(it.Key))
	}
	return ww.Finish()
}

// ReadFrom replaces t with a TopK read from r and returns the number of bytes
// consumed. It implements io.ReaderFrom. On any error (wrapping ErrFormat, and
// io.ErrUnexpectedEOF for a cut stream) t is unchanged. The parameters are
// validated before the payload is read, and the payload is read in bounded
// chunks, so a corrupt header cannot cause a large allocation (beyond the
// heap of K <= MaxK keys, allocated after the checksum is verified).
// O(Width*Depth + K log K).
func (t *TopK) ReadFrom(r io.Reader) (int64, error) { return wire.ReadInto(r, t, decode) }

func decode(rr *wire.Reader) (*TopK, error) {
	if _, err := rr.Header(magic, formatVersion, formatVersion); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	var c Config
	c.Depth = int(rr.U16())
	c.K = int(rr.U32())
	width := rr.U64()
	c.Decay = math.Float64frombits(rr.U64())
	c.Seed = rr.U64()
	rng := rr.U64()
	total := rr.U64()
	n := rr.U32()
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrFormat, err)
	}
	if width > MaxBuckets {
		return nil, fmt.Errorf("%w: width %d", ErrFormat, width)
	}
	c.Width = int(width)
	if c.Decay == 0 { // normalize would take it for the default
		return nil, fmt.Errorf("%w: decay 0", ErrFormat)
	}
	c, err := c.normalize()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if uint64(n) > uint64(c.K) {
		return nil, fmt.Errorf("%w: %d heap entries, K = %d", ErrFormat, n, c.K)
	}
	buckets := rr.Words(width * uint64(c.Depth))
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: buckets: %w", ErrFormat, err)
	}
	for i, b := range buckets {
		if b&countMax == 0 && b != 0 {
			return nil, fmt.Errorf("%w: bucket %d has count 0 and fingerprint %#x", ErrFormat, i, b>>countBits)
		}
	}
	var items []Item // grown as entries arrive: n is not trusted for allocation
	for i := range n {
		count := rr.U64()
		key := rr.Str(MaxKeyLen)
		if err := rr.Err(); err != nil {
			return nil, fmt.Errorf("%w: heap entry %d: %w", ErrFormat, i, err)
		}
		it := Item{Key: []byte(key), Count: count}
		if count == 0 {
			return nil, fmt.Errorf("%w: heap entry %d has count 0", ErrFormat, i)
		}
		if i > 0 {
			if p := items[i-1]; p.Count < count || p.Count == count && bytes.Compare(p.Key, it.Key) >= 0 {
				return nil, fmt.Errorf("%w: heap entry %d out of order", ErrFormat, i)
			}
		}
		items = append(items, it)
	}
	if err := rr.Verify(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	t := newTopK(c, buckets)
	t.rng, t.total = rng, total
	t.heap.rebuild(items)
	return t, nil
}

// MarshalBinary returns the serialized TopK (see WriteTo). It implements
// encoding.BinaryMarshaler.
func (t *TopK) MarshalBinary() ([]byte, error) {
	return wire.Marshal(t, t.SerializedSize())
}

// UnmarshalBinary replaces t with the TopK serialized in data, which must
// hold exactly one and nothing else. It implements
// encoding.BinaryUnmarshaler. On error t is unchanged.
func (t *TopK) UnmarshalBinary(data []byte) error {
	return wire.UnmarshalInto(data, t, decode, ErrFormat)
}
