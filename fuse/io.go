package fuse

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"

	"github.com/FastFilter/xorfilter"

	"github.com/acbfjoin/acbfjoin/internal/wire"
)

// Serialized format, version 1 (all integers little-endian):
//
//	offset  size        field
//	0       4           magic "FUSE"
//	4       2           format version (1)
//	6       2           fingerprint bits f (8, 16 or 32)
//	8       8           keys n (Len), at most MaxKeys
//	16      8           seed
//	24      4           segment length L, a power of two from 1 to 2^18
//	28      4           segment count c, at least 1
//	32      (c+2)L f/8  the array: (c+2)L entries of f bits
//	...     4           CRC-32C (Castagnoli) of every byte before it
//
// A filter of no keys has n, seed, L and c all 0 and no array. The other
// fields of xorfilter's BinaryFuse follow: mask L-1, c*L.
const (
	magic         = "FUSE"
	formatVersion = 1
	headerSize    = 32
	trailerSize   = 4
	maxSegment    = 1 << 18
)

// SerializedSize returns the number of bytes WriteTo writes.
func (f *Filter) SerializedSize() int64 {
	return headerSize + int64(f.Slots())*int64(f.bits/8) + trailerSize
}

// shape is the library filter's header fields.
func (f *Filter) shape() (seed uint64, length, count uint32) {
	switch {
	case f.f8 != nil:
		return f.f8.Seed, f.f8.SegmentLength, f.f8.SegmentCount
	case f.f16 != nil:
		return f.f16.Seed, f.f16.SegmentLength, f.f16.SegmentCount
	case f.f32 != nil:
		return f.f32.Seed, f.f32.SegmentLength, f.f32.SegmentCount
	}
	return 0, 0, 0
}

// WriteTo writes the filter in the format above. It implements
// io.WriterTo. O(MemoryBits).
func (f *Filter) WriteTo(w io.Writer) (int64, error) {
	ww := wire.NewWriter(w)
	ww.Header(magic, formatVersion)
	ww.U16(uint16(f.bits))
	ww.U64(f.n)
	seed, length, count := f.shape()
	ww.U64(seed)
	ww.U32(length)
	ww.U32(count)
	switch {
	case f.f8 != nil:
		ww.Bytes(f.f8.Fingerprints)
	case f.f16 != nil:
		writeEntries(ww, f.f16.Fingerprints, 2, func(b []byte, v uint16) { binary.LittleEndian.PutUint16(b, v) })
	case f.f32 != nil:
		writeEntries(ww, f.f32.Fingerprints, 4, func(b []byte, v uint32) { binary.LittleEndian.PutUint32(b, v) })
	}
	return ww.Finish()
}

// writeEntries writes entries of size bytes each, little-endian, through
// a buffer of 64 KiB.
func writeEntries[T uint16 | uint32](ww *wire.Writer, es []T, size int, put func([]byte, T)) {
	var buf [1 << 16]byte
	for len(es) > 0 {
		c := min(len(es), len(buf)/size)
		for i, v := range es[:c] {
			put(buf[i*size:], v)
		}
		ww.Bytes(buf[:c*size])
		es = es[c:]
	}
}

// ReadFrom replaces f with a filter read from r and returns the bytes
// consumed. It implements io.ReaderFrom. On any error (wrapping ErrFormat,
// and io.ErrUnexpectedEOF for a cut stream) f is unchanged. The header is
// validated before the array is read, in bounded chunks. O(MemoryBits).
func (f *Filter) ReadFrom(r io.Reader) (int64, error) { return wire.ReadInto(r, f, decode) }

func decode(rr *wire.Reader) (*Filter, error) {
	if _, err := rr.Header(magic, formatVersion, formatVersion); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	fbits := int(rr.U16())
	n := rr.U64()
	seed := rr.U64()
	length, count := rr.U32(), rr.U32()
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrFormat, err)
	}
	slots := (uint64(count) + 2) * uint64(length)
	switch {
	case !ValidBits(fbits):
		return nil, fmt.Errorf("%w: %d-bit fingerprints, want 8, 16 or 32", ErrFormat, fbits)
	case n > MaxKeys:
		return nil, fmt.Errorf("%w: %d keys, at most %d", ErrFormat, n, uint64(MaxKeys))
	case n == 0 && (seed != 0 || length != 0 || count != 0):
		return nil, fmt.Errorf("%w: a filter of no keys with an array", ErrFormat)
	case n == 0:
		return verify(rr, &Filter{bits: fbits})
	case length == 0 || length > maxSegment || bits.OnesCount32(length) != 1:
		return nil, fmt.Errorf("%w: segment length %d, want a power of two from 1 to %d", ErrFormat, length, maxSegment)
	case count == 0:
		return nil, fmt.Errorf("%w: no segments", ErrFormat)
	case slots > 1<<32-1:
		return nil, fmt.Errorf("%w: %d entries, more than 32-bit positions reach", ErrFormat, slots)
	case n > slots:
		return nil, fmt.Errorf("%w: %d keys in %d entries", ErrFormat, n, slots)
	}
	data := rr.ByteSlice(slots * uint64(fbits/8))
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("%w: array: %w", ErrFormat, err)
	}
	f := &Filter{bits: fbits, n: n}
	switch fbits {
	case 8:
		f.f8 = library(data, seed, length, count)
	case 16:
		f.f16 = library(entries(data, 2, binary.LittleEndian.Uint16), seed, length, count)
	default:
		f.f32 = library(entries(data, 4, binary.LittleEndian.Uint32), seed, length, count)
	}
	return verify(rr, f)
}

func verify(rr *wire.Reader, f *Filter) (*Filter, error) {
	if err := rr.Verify(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return f, nil
}

func entries[T uint16 | uint32](data []byte, size int, get func([]byte) T) []T {
	out := make([]T, len(data)/size)
	for i := range out {
		out[i] = get(data[i*size:])
	}
	return out
}

// library is the xorfilter filter of an array and its header: every
// position Contains computes is below (count+2)*length = len(es).
func library[T xorfilter.Unsigned](es []T, seed uint64, length, count uint32) *xorfilter.BinaryFuse[T] {
	return &xorfilter.BinaryFuse[T]{Seed: seed, SegmentLength: length, SegmentLengthMask: length - 1,
		SegmentCount: count, SegmentCountLength: count * length, Fingerprints: es}
}

// MarshalBinary returns the serialized filter (see WriteTo). It implements
// encoding.BinaryMarshaler.
func (f *Filter) MarshalBinary() ([]byte, error) { return wire.Marshal(f, f.SerializedSize()) }

// UnmarshalBinary replaces f with the filter serialized in data, which must
// hold exactly one filter and nothing else. It implements
// encoding.BinaryUnmarshaler. On error f is unchanged.
func (f *Filter) UnmarshalBinary(data []byte) error {
	return wire.UnmarshalInto(data, f, decode, ErrFormat)
}
