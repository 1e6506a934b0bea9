package blocked

import (
	"fmt"
	"io"
	"math/bits"

	"github.com/acbfjoin/acbfjoin/internal/wire"
)

// Serialized format, version 1 (all integers little-endian):
//
//	offset  size      field
//	0       4         magic "BBF1"
//	4       2         format version (1)
//	6       2         k, 1..MaxK
//	8       4         reserved, 0
//	12      8         m, number of bits: a multiple of 512, 512..MaxBits
//	20      8         Len, number of Adds
//	28      m/8       the bits as m/64 words, bit j of block b at bit j%64 of word 8b+j/64
//	...     4         CRC-32C (Castagnoli) of every byte before it
//
// The words carry at most k*Len ones (each Add sets at most k bits).
const (
	magic         = "BBF1"
	formatVersion = 1
	headerSize    = 28
	trailerSize   = 4
)

// SerializedSize returns the number of bytes WriteTo writes.
func (f *Filter) SerializedSize() int64 {
	return headerSize + 8*int64(len(f.words)) + trailerSize
}

// WriteTo writes the filter in the format described above and returns the number
// of bytes written. It implements io.WriterTo. O(m). The zero Filter, which
// has no bits and k = 0, writes nothing and returns an error wrapping
// ErrConfig: its encoding would not decode.
func (f *Filter) WriteTo(w io.Writer) (int64, error) {
	if f.blocks == 0 {
		return 0, fmt.Errorf("%w: the zero Filter (create one with New)", ErrConfig)
	}
	ww := wire.NewWriter(w)
	ww.Header(magic, formatVersion)
	ww.U16(uint16(f.k))
	ww.U32(0)
	ww.U64(f.bits)
	ww.U64(f.n)
	ww.Words(f.words)
	return ww.Finish()
}

// ReadFrom replaces f with a filter read from r and returns the number of bytes
// consumed. It implements io.ReaderFrom. On any error (wrapping ErrFormat, and
// io.ErrUnexpectedEOF for a cut stream) f is unchanged. The header is validated
// before the bits are read, and they are read in bounded chunks, so a corrupt
// header cannot cause a large allocation. A filter over 1 MiB is read into a
// growing buffer and then copied into a cache-line aligned one: about twice its
// size for a moment. O(m).
func (f *Filter) ReadFrom(r io.Reader) (int64, error) { return wire.ReadInto(r, f, decode) }

func decode(rr *wire.Reader) (*Filter, error) {
	if _, err := rr.Header(magic, formatVersion, formatVersion); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	k := int(rr.U16())
	reserved := rr.U32()
	m := rr.U64()
	n := rr.U64()
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrFormat, err)
	}
	if reserved != 0 {
		return nil, fmt.Errorf("%w: reserved field %#x, want 0", ErrFormat, reserved)
	}
	if err := validate(m, k); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if m == 0 || m%BlockBits != 0 {
		return nil, fmt.Errorf("%w: %d bits, want a positive multiple of %d", ErrFormat, m, BlockBits)
	}
	words := rr.Words(m / 64)
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: bits: %w", ErrFormat, err)
	}
	if err := rr.Verify(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	var ones uint64
	for _, w := range words {
		ones += uint64(bits.OnesCount64(w))
	}
	// ones <= k*n, written so that it cannot overflow: ceil(ones/k) <= n.
	if (ones+uint64(k)-1)/uint64(k) > n {
		return nil, fmt.Errorf("%w: %d bits set, more than k*Len = %d*%d", ErrFormat, ones, k, n)
	}
	f := &Filter{bits: m, blocks: m / BlockBits, k: k, n: n}
	if aligned(words) && cap(words) == len(words) {
		f.words = words
	} else {
		f.words, f.padWords = newWords(uint64(len(words)))
		copy(f.words, words)
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
