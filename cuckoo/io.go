package cuckoo

import (
	"fmt"
	"io"

	"github.com/acbfjoin/acbfjoin/internal/wire"
)

// Serialized format, version 1 (all integers little-endian):
//
//	offset  size        field
//	0       4           magic "CKOO"
//	4       2           format version (1)
//	6       2           bucket size b (1..8)
//	8       2           fingerprint bits f (1..32)
//	10      2           reserved, 0
//	12      8           buckets, any number in 1..2^30
//	20      8           count, the number of stored fingerprints (Len)
//	28      8w          the table, w = ceil(buckets*b*f/64) words (see Filter)
//	...     4           CRC-32C (Castagnoli) of every byte before it
//
// The bits of the last word past buckets*b*f must be zero, and count must equal
// the number of non-zero slots. The kick generator is not stored: a decoded
// filter restarts it from its constant seed.
const (
	magic         = "CKOO"
	formatVersion = 1
	headerSize    = 28
	trailerSize   = 4
)

// SerializedSize returns the number of bytes WriteTo writes.
func (f *Filter) SerializedSize() int64 {
	return headerSize + 8*int64(len(f.words)) + trailerSize
}

// WriteTo writes the filter in the format described above and returns the number
// of bytes written. It implements io.WriterTo. O(MemoryBits).
func (f *Filter) WriteTo(w io.Writer) (int64, error) {
	ww := wire.NewWriter(w)
	ww.Header(magic, formatVersion)
	ww.U16(uint16(f.b))
	ww.U16(uint16(f.fbits))
	ww.U16(0)
	ww.U64(f.buckets)
	ww.U64(f.n)
	ww.Words(f.words)
	return ww.Finish()
}

// ReadFrom replaces f with a filter read from r and returns the number of bytes
// consumed. It implements io.ReaderFrom. On any error (wrapping ErrFormat, and
// io.ErrUnexpectedEOF for a cut stream) f is unchanged. Parameters are validated
// before the table is read, and the table is read in bounded chunks, so a
// corrupt header cannot cause a large allocation. O(MemoryBits).
func (f *Filter) ReadFrom(r io.Reader) (int64, error) { return wire.ReadInto(r, f, decode) }

func decode(rr *wire.Reader) (*Filter, error) {
	if _, err := rr.Header(magic, formatVersion, formatVersion); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	b := int(rr.U16())
	fbits := int(rr.U16())
	reserved := rr.U16()
	buckets := rr.U64()
	n := rr.U64()
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrFormat, err)
	}
	if reserved != 0 {
		return nil, fmt.Errorf("%w: reserved field %d, want 0", ErrFormat, reserved)
	}
	if err := validate(buckets, b, fbits); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if slots := buckets * uint64(b); n > slots {
		return nil, fmt.Errorf("%w: count %d, more than the %d slots", ErrFormat, n, slots)
	}
	words := rr.Words(wordCount(buckets, b, uint(fbits)))
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: table: %w", ErrFormat, err)
	}
	if err := rr.Verify(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if used := buckets * uint64(b) * uint64(fbits) % 64; used != 0 && words[len(words)-1]>>used != 0 {
		return nil, fmt.Errorf("%w: padding bits of the last word are not zero", ErrFormat)
	}
	f := &Filter{words: words, n: n}
	f.setShape(buckets, b, uint(fbits))
	if c := f.occupied(); c != n {
		return nil, fmt.Errorf("%w: count %d, but %d slots are occupied", ErrFormat, n, c)
	}
	return f, nil
}

// MarshalBinary returns the serialized filter (see WriteTo).
// It implements encoding.BinaryMarshaler.
func (f *Filter) MarshalBinary() ([]byte, error) {
	return wire.Marshal(f, f.SerializedSize())
}

// UnmarshalBinary replaces f with the filter serialized in data, which must hold
// exactly one filter and nothing else. It implements encoding.BinaryUnmarshaler.
// On error f is unchanged.
func (f *Filter) UnmarshalBinary(data []byte) error {
	return wire.UnmarshalInto(data, f, decode, ErrFormat)
}
