// Package wire holds the little-endian, checksummed binary framing shared by the
// serialized filters (cbf, acbf).
//
// A serialized filter is: a 4-byte magic, a uint16 format version, fixed-size
// parameters, a payload, and a CRC-32C (Castagnoli) of every byte before it. All
// integers are little-endian. The Reader reads large payloads in bounded chunks,
// so a header that claims a huge size on a short stream fails with
// io.ErrUnexpectedEOF after allocating no more than the bytes actually present
// (plus one chunk): a corrupt input can never force a huge allocation.
//
// Writer and Reader are not safe for concurrent use.
package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"slices"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// chunkWords is the most words the Reader allocates ahead of the data it has
// actually received (1 MiB).
const chunkWords = 1 << 17

// Writer writes fields to an io.Writer while accumulating the checksum and the
// number of bytes written. The first error sticks: later calls do nothing and
// Finish returns it.
type Writer struct {
	w   io.Writer
	crc hash.Hash32
	n   int64
	err error
	buf [8]byte
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, crc: crc32.New(castagnoli)}
}

func (w *Writer) write(p []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(p)
	w.n += int64(n)
	if err != nil {
		w.err = err
		return
	}
	w.crc.Write(p)
}

// Bytes writes p as is.
func (w *Writer) Bytes(p []byte) { w.write(p) }

// Header writes a format's header: its 4-byte magic and its version.
func (w *Writer) Header(magic string, version uint16) {
	w.Bytes([]byte(magic))
	w.U16(version)
}

// Str writes s as a uint16 length and its bytes (Reader.Str); a string of
// 64 KiB or more is an error (ErrLength) that sticks.
func (w *Writer) Str(s string) {
	if len(s) > 0xffff {
		if w.err == nil {
			w.err = fmt.Errorf("%w: a string of %d bytes, at most 65535", ErrLength, len(s))
		}
		return
	}
	w.U16(uint16(len(s)))
	w.Bytes([]byte(s))
}

// U16 writes v as 2 little-endian bytes.
func (w *Writer) U16(v uint16) {
	binary.LittleEndian.PutUint16(w.buf[:2], v)
	w.write(w.buf[:2])
}

// U32 writes v as 4 little-endian bytes.
func (w *Writer) U32(v uint32) {
	binary.LittleEndian.PutUint32(w.buf[:4], v)
	w.write(w.buf[:4])
}

// U64 writes v as 8 little-endian bytes.
func (w *Writer) U64(v uint64) {
	binary.LittleEndian.PutUint64(w.buf[:], v)
	w.write(w.buf[:])
}

// Words writes ws as little-endian uint64s, in batches to limit write calls.
func (w *Writer) Words(ws []uint64) {
	var batch [512 * 8]byte
	for len(ws) > 0 && w.err == nil {
		n := min(len(ws), 512)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint64(batch[8*i:], ws[i])
		}
		w.write(batch[:8*n])
		ws = ws[n:]
	}
}

// Finish writes the checksum of everything written so far and returns the total
// number of bytes written and the first error.
func (w *Writer) Finish() (int64, error) {
	w.U32(w.crc.Sum32())
	return w.n, w.err
}

// Reader reads fields from an io.Reader while accumulating the checksum. The first
// error sticks; a stream that ends early gives io.ErrUnexpectedEOF.
type Reader struct {
	r   io.Reader
	crc hash.Hash32
	n   int64
	err error
	buf [8]byte
}

// NewReader returns a Reader on r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r, crc: crc32.New(castagnoli)}
}

func (r *Reader) read(p []byte) bool {
	if r.err != nil {
		return false
	}
	n, err := io.ReadFull(r.r, p)
	r.n += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		r.err = err
		return false
	}
	r.crc.Write(p)
	return true
}

// Err returns the first error met, if any.
func (r *Reader) Err() error { return r.err }

// N returns the number of bytes consumed so far.
func (r *Reader) N() int64 { return r.n }

// Bytes reads exactly len(p) bytes into p.
func (r *Reader) Bytes(p []byte) { r.read(p) }

// ErrMagic and ErrVersion are wrapped by Header's errors: a file of
// another format, or of a version this reader does not read.
var (
	ErrMagic   = errors.New("magic")
	ErrVersion = errors.New("format version")
)

// Header reads a format's header (Writer.Header: a 4-byte magic and a
// version) and checks it: the magic must be magic, the version from min to
// max. Its errors say what was found (`magic "PK\x03\x04", want "CBF4"`,
// "format version 7, want 1") and wrap ErrMagic or ErrVersion, or are the
// read's ("header: unexpected EOF"); callers wrap them in their format's
// error.
func (r *Reader) Header(magic string, min, max uint16) (uint16, error) {
	var mg [4]byte
	r.Bytes(mg[:])
	version := r.U16()
	switch {
	case r.err != nil:
		return 0, fmt.Errorf("header: %w", r.err)
	case string(mg[:]) != magic:
		return 0, fmt.Errorf("%w %q, want %q", ErrMagic, mg[:], magic)
	case version < min || version > max:
		if min == max {
			return version, fmt.Errorf("%w %d, want %d", ErrVersion, version, min)
		}
		return version, fmt.Errorf("%w %d, want %d to %d", ErrVersion, version, min, max)
	}
	return version, nil
}

// U16 reads a little-endian uint16; 0 after an error.
func (r *Reader) U16() uint16 {
	if !r.read(r.buf[:2]) {
		return 0
	}
	return binary.LittleEndian.Uint16(r.buf[:2])
}

// U32 reads a little-endian uint32; 0 after an error.
func (r *Reader) U32() uint32 {
	if !r.read(r.buf[:4]) {
		return 0
	}
	return binary.LittleEndian.Uint32(r.buf[:4])
}

// U64 reads a little-endian uint64; 0 after an error.
func (r *Reader) U64() uint64 {
	if !r.read(r.buf[:]) {
		return 0
	}
	return binary.LittleEndian.Uint64(r.buf[:])
}

// Str reads a string written by Writer.Str: a uint16 length, then the
// bytes. A length above max is an error (ErrLength) that sticks, read
// before anything is allocated; "" after an error.
func (r *Reader) Str(max int) string {
	n := r.U16()
	if r.err == nil && int(n) > max {
		r.err = fmt.Errorf("%w: a string of %d bytes, at most %d", ErrLength, n, max)
	}
	return string(r.ByteSlice(uint64(n)))
}

// ErrLength reports a length field above what the format allows.
var ErrLength = errors.New("length out of range")

// Words reads n little-endian uint64s. It allocates at most one chunk (1 MiB)
// beyond the data actually received, so a false n on a short stream cannot cause
// a huge allocation; from a source that says how much it holds (a Len method,
// as bytes.Reader's) and holds them, it allocates the n words at once, and
// otherwise it returns them in a slice of about their size (a copy when
// growing left more than an eighth spare), so that a filter decoded from a
// broadcast holds no slack: 22 MB of a 32 MB first level before. It returns
// nil after an error.
func (r *Reader) Words(n uint64) []uint64 {
	if r.err != nil {
		return nil
	}
	first := min(n, chunkWords)
	if l, ok := r.r.(interface{ Len() int }); ok && n <= uint64(l.Len())/8 {
		first = n
	}
	out := make([]uint64, 0, first)
	var batch [512 * 8]byte
	for uint64(len(out)) < n {
		c := int(min(n-uint64(len(out)), 512))
		if !r.read(batch[:8*c]) {
			return nil
		}
		for i := 0; i < c; i++ {
			out = append(out, binary.LittleEndian.Uint64(batch[8*i:]))
		}
	}
	if cap(out)-len(out) > len(out)/8 {
		out = slices.Clone(out)
	}
	return out
}

// ByteSlice reads n bytes with the same bounded-allocation rule as Words.
func (r *Reader) ByteSlice(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	out := make([]byte, 0, min(n, 8*chunkWords))
	var batch [4096]byte
	for uint64(len(out)) < n {
		c := int(min(n-uint64(len(out)), uint64(len(batch))))
		if !r.read(batch[:c]) {
			return nil
		}
		out = append(out, batch[:c]...)
	}
	return out
}

// ErrChecksum reports a checksum mismatch.
var ErrChecksum = errors.New("checksum mismatch")

// Verify reads the stored checksum and compares it with the checksum of
// everything read before it. It returns the first error of the Reader, or
// ErrChecksum.
func (r *Reader) Verify() error {
	want := r.crc.Sum32()
	if !r.read(r.buf[:4]) {
		return r.err
	}
	if got := binary.LittleEndian.Uint32(r.buf[:4]); got != want {
		return ErrChecksum
	}
	return nil
}

// Marshal returns what w.WriteTo writes, in a buffer of the given size.
func Marshal(w io.WriterTo, size int64) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(size))
	if _, err := w.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ReadInto decodes one value from r into *dst (an io.ReaderFrom's body):
// on an error *dst is unchanged. It returns the bytes consumed.
func ReadInto[T any](r io.Reader, dst *T, decode func(*Reader) (*T, error)) (int64, error) {
	rr := NewReader(r)
	v, err := decode(rr)
	if err != nil {
		return rr.N(), err
	}
	*dst = *v
	return rr.N(), nil
}

// UnmarshalInto decodes data, which must hold exactly one value, into
// *dst (an encoding.BinaryUnmarshaler's body): on an error *dst is
// unchanged (DecodeExact).
func UnmarshalInto[T any](data []byte, dst *T, decode func(*Reader) (*T, error), errFormat error) error {
	v, err := DecodeExact(data, decode, errFormat)
	if err != nil {
		return err
	}
	*dst = *v
	return nil
}

// DecodeExact decodes data, which must hold exactly one value: bytes left over
// give an error wrapping errFormat.
func DecodeExact[T any](data []byte, decode func(*Reader) (T, error), errFormat error) (T, error) {
	rr := NewReader(bytes.NewReader(data))
	v, err := decode(rr)
	if err != nil {
		return v, err
	}
	if rr.N() != int64(len(data)) {
		var zero T
		return zero, fmt.Errorf("%w: %d trailing bytes", errFormat, int64(len(data))-rr.N())
	}
	return v, nil
}
