package cbf

import (
	"fmt"
	"io"
	"math/bits"

	"github.com/acbfjoin/acbfjoin/internal/wire"
)

// Serialized format, version 1 (all integers little-endian):
//
//	offset  size        field
//	0       4           magic "CBF4"
//	4       2           format version (1)
//	6       2           k
//	8       8           m, number of counters
//	16      8           Len (adds minus removes)
//	24      ceil(m/2)   counters, two per byte, counter 2i in the low nibble of byte i
//	...     4           CRC-32C (Castagnoli) of every byte before it
//
// The counter of an odd m's padding nibble must be zero.
const (
	magic         = "CBF4"
	formatVersion = 1
	headerSize    = 24
	trailerSize   = 4
)

// SerializedSize returns the number of bytes WriteTo writes.
func (f *Filter) SerializedSize() int64 {
	return headerSize + int64(len(f.counters)) + trailerSize
}

// WriteTo writes the filter in the format described above and returns the number
// of bytes written. It implements io.WriterTo. O(m).
func (f *Filter) WriteTo(w io.Writer) (int64, error) {
	ww := wire.NewWriter(w)
	ww.Header(magic, formatVersion)
	ww.U16(uint16(f.k))
	ww.U64(f.m)
	ww.U64(f.n)
	ww.Bytes(f.counters)
	return ww.Finish()
}

// ReadFrom replaces f with a filter read from r and returns the number of bytes
// consumed. It implements io.ReaderFrom. On any error (wrapping ErrFormat, and
// io.ErrUnexpectedEOF for a cut stream) f is unchanged. Parameters are validated
// before the payload is read, and the payload is read in bounded chunks, so a
// corrupt header cannot cause a large allocation. O(m).
func (f *Filter) ReadFrom(r io.Reader) (int64, error) { return wire.ReadInto(r, f, decode) }

func decode(rr *wire.Reader) (*Filter, error) {
	if _, err := rr.Header(magic, formatVersion, formatVersion); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	k := int(rr.U16())
	m := rr.U64()
	n := rr.U64()
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrFormat, err)
	}
	if err := validate(m, k); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	counters := rr.ByteSlice((m + 1) / 2)
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: counters: %w", ErrFormat, err)
	}
	if err := rr.Verify(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if m&1 == 1 && counters[len(counters)-1]>>4 != 0 {
		return nil, fmt.Errorf("%w: padding nibble is not zero", ErrFormat)
	}
	f := &Filter{m: m, k: k, counters: counters, n: n}
	f.saturations = countSaturated(counters)
	return f, nil
}

// countSaturated counts nibbles equal to 15 using SWAR: a nibble is 0xf iff the
// AND of its 4 bits is 1.
func countSaturated(b []byte) uint64 {
	var s uint64
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24 |
			uint64(b[i+4])<<32 | uint64(b[i+5])<<40 | uint64(b[i+6])<<48 | uint64(b[i+7])<<56
		x := w & (w >> 1) // bit j = b_j & b_{j+1}
		x &= x >> 2       // bit j = b_j & ... & b_{j+3}
		s += uint64(bits.OnesCount64(x & 0x1111111111111111))
	}
	for ; i < len(b); i++ {
		if b[i]&0xf == 0xf {
			s++
		}
		if b[i]>>4 == 0xf {
			s++
		}
	}
	return s
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
