package columnar

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// The DELTA encodings of parquet-format's Encodings.md, decoded here as
// the pages decoders' other encodings are: DELTA_BINARY_PACKED (INT32 and
// INT64 values), DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY (byte
// arrays). arrow-go's readers of them spun on a damaged byte-array page
// (a review, issue 44), and a chunk of them was read whole at chosen
// rows. A damaged page here is an error; no allocation goes beyond the
// page's value count or maxPageBytes.

// deltaInts decodes a DELTA_BINARY_PACKED stream at the start of data
// (O(values) time; it allocates out's growth and a miniblock's scratch):
// a header (the block size, a multiple of 128; the miniblocks a block,
// each of a multiple of 32 values; the value count, at least min and at
// most max; the first value, zigzag), then blocks (a zigzag min delta, a
// bit width a miniblock, the miniblocks' deltas over the min bit-packed
// LSB first). Each value is the one before plus its delta plus the min,
// wrapping. An INT32's (int32s) are taken modulo 2^32, sign-extended:
// exact whether the writer computed in 32 bits (arrow-go, parquet-mr) or
// in 64 (DuckDB 1.4 writes an INT32's min deltas, first values and widths
// beyond 32 bits, which Encodings.md does not allow and arrow-go refuses;
// a review found its UINTEGER ids over 2^31 refused so). The values are
// appended to out; rest is the bytes after the stream (a miniblock partly
// used is there whole, padded; the unused miniblocks of the last block
// are not).
func deltaInts(data []byte, int32s bool, minCount, maxCount int, out []int64) (_ []int64, rest []byte, err error) {
	r := deltaReader{b: data}
	blockSize := r.uvarint()
	minis := r.uvarint()
	total := r.uvarint()
	first := r.zigzag()
	if r.err != nil {
		return out, nil, fmt.Errorf("a DELTA_BINARY_PACKED header: %w", r.err)
	}
	switch {
	case total == 0 && minCount == 0:
		// No values: only the header, whose block size and miniblocks
		// describe no block. arrow-go writes a page of none (its lengths,
		// when every value of a DELTA_LENGTH_BYTE_ARRAY page is NULL) with
		// a block size and miniblock count of 0, which its reader takes.
		return out, r.b[r.pos:], nil
	case blockSize == 0 || blockSize%128 != 0 || blockSize > math.MaxUint32:
		return out, nil, fmt.Errorf("a DELTA_BINARY_PACKED block of %d values", blockSize)
	case minis == 0 || blockSize%minis != 0 || (blockSize/minis)%32 != 0:
		return out, nil, fmt.Errorf("a DELTA_BINARY_PACKED block of %d values in %d miniblocks", blockSize, minis)
	case total < uint64(minCount) || total > uint64(max(maxCount, 0)):
		return out, nil, fmt.Errorf("%d DELTA_BINARY_PACKED values where the page has %d to %d", total, minCount, maxCount)
	}
	perMini := int(blockSize / minis)
	const maxWidth = 64
	if total == 0 {
		return out, r.b[r.pos:], nil
	}
	start := len(out)
	defer func() {
		if int32s {
			for j := start; j < len(out); j++ {
				out[j] = int64(int32(out[j]))
			}
		}
	}()
	out = slices.Grow(out, int(total)) // total is at most maxCount: bounded by the caller
	out = append(out, first)
	last, left := first, int(total)-1
	var deltas []uint64
	for left > 0 {
		minDelta := r.zigzag()
		if r.err != nil {
			return out, nil, fmt.Errorf("a DELTA_BINARY_PACKED block: %w", r.err)
		}
		if uint64(len(r.b)-r.pos) < minis {
			return out, nil, fmt.Errorf("%d miniblock bit widths with %d bytes left", minis, len(r.b)-r.pos)
		}
		widths := r.b[r.pos : r.pos+int(minis)]
		r.pos += int(minis)
		for _, w := range widths {
			if left == 0 {
				break
			}
			if w > maxWidth {
				return out, nil, fmt.Errorf("a DELTA_BINARY_PACKED bit width of %d", w)
			}
			n := perMini * int(w) / 8 // a miniblock's bytes, padded where partly used
			if n > len(r.b)-r.pos {
				return out, nil, fmt.Errorf("a miniblock of %d bytes with %d left", n, len(r.b)-r.pos)
			}
			take := min(perMini, left)
			if w == 0 {
				for range take {
					last += minDelta
					out = append(out, last)
				}
			} else {
				deltas = unpackWide(r.b[r.pos:r.pos+n], int(w), take, deltas[:0])
				for _, d := range deltas {
					last += int64(d) + minDelta
					out = append(out, last)
				}
			}
			r.pos += n
			left -= take
		}
	}
	return out, r.b[r.pos:], nil
}

// unpackWide appends the first n values of w bits each (1 to 64), packed
// LSB first, of data (which holds at least n*w bits) to out: a value a
// load of the 8 bytes it starts in (and the 9th where it spans it), but
// near data's end, where its bytes are copied out first.
func unpackWide(data []byte, w, n int, out []uint64) []uint64 {
	mask := uint64(1)<<w - 1
	if w == 64 {
		mask = math.MaxUint64
	}
	start := len(out)
	out = slices.Grow(out, n)[:start+n]
	o := out[start:]
	bit := 0
	for k := range o {
		at, shift := bit>>3, uint(bit&7)
		var v uint64
		if at+9 <= len(data) {
			v = binary.LittleEndian.Uint64(data[at:]) >> shift
			if shift > 0 && w+int(shift) > 64 {
				v |= uint64(data[at+8]) << (64 - shift)
			}
		} else {
			var word [9]byte
			copy(word[:], data[at:])
			v = binary.LittleEndian.Uint64(word[:8]) >> shift
			if shift > 0 && w+int(shift) > 64 {
				v |= uint64(word[8]) << (64 - shift)
			}
		}
		o[k] = v & mask
		bit += w
	}
	return out
}

// deltaBytes decodes a page's byte arrays of encoding DELTA_LENGTH_BYTE_ARRAY
// (their lengths DELTA_BINARY_PACKED, then their bytes one after another)
// or, prefixed, DELTA_BYTE_ARRAY (each value's length of the value before
// that it starts with, DELTA_BINARY_PACKED, then the rest of it as
// DELTA_LENGTH_BYTE_ARRAY; the first value of a page follows none). At
// least present values and at most nv; the first present are returned:
// value j is vals[pos[j]:pos[j+1]]. vals is data's own bytes for
// DELTA_LENGTH_BYTE_ARRAY, else made in buf, at most maxPageBytes.
func deltaBytes(prefixed bool, data []byte, present, nv int, lens []int64, buf []byte, pos []int) (vals []byte, _ []int, _ []int64, _ []byte, err error) {
	var prefixes []int64
	if prefixed {
		start := len(lens)
		if lens, data, err = deltaInts(data, true, present, nv, lens); err != nil {
			return nil, pos, lens, buf, fmt.Errorf("prefix lengths: %w", err)
		}
		prefixes = lens[start:]
	}
	start := len(lens)
	if lens, data, err = deltaInts(data, true, present, nv, lens); err != nil {
		return nil, pos, lens, buf, fmt.Errorf("lengths: %w", err)
	}
	sizes := lens[start:]
	if prefixed && len(prefixes) != len(sizes) {
		return nil, pos, lens, buf, fmt.Errorf("%d prefix lengths and %d suffixes", len(prefixes), len(sizes))
	}
	// The suffixes (or values), one after another in data.
	at := 0
	for _, l := range sizes {
		if l < 0 || l > int64(len(data)-at) {
			return nil, pos, lens, buf, fmt.Errorf("a byte array of %d bytes with %d left", l, len(data)-at)
		}
		at += int(l)
	}
	pos = append(slices.Grow(pos[:0], present+1), 0)
	if !prefixed {
		for _, l := range sizes[:present] {
			pos = append(pos, pos[len(pos)-1]+int(l))
		}
		return data, pos, lens, buf, nil
	}
	// The values' lengths first (each its prefix, at most the value
	// before it, and its suffix), checked, so that buf is sized once.
	size, prevLen := int64(0), int64(0)
	for j := range present {
		p := prefixes[j]
		if p < 0 || p > prevLen {
			return nil, pos, lens, buf, fmt.Errorf("a prefix of %d bytes of a value of %d", p, prevLen)
		}
		prevLen = p + sizes[j]
		if size += prevLen; size > maxPageBytes {
			return nil, pos, lens, buf, errors.New("DELTA_BYTE_ARRAY values of over 256 MiB in a page")
		}
	}
	buf = slices.Grow(buf[:0], int(size))
	at, prev := 0, 0 // prev: where the value before starts in buf
	for j := range present {
		p, l := prefixes[j], int(sizes[j])
		if p < 0 || p > int64(len(buf)-prev) {
			return nil, pos, lens, buf, fmt.Errorf("a prefix of %d bytes of a value of %d", p, len(buf)-prev)
		}
		if int64(len(buf))+p+int64(l) > maxPageBytes {
			return nil, pos, lens, buf, errors.New("DELTA_BYTE_ARRAY values of over 256 MiB in a page")
		}
		start := len(buf)
		buf = append(buf, buf[prev:prev+int(p)]...)
		buf = append(buf, data[at:at+l]...)
		at += l
		prev = start
		pos = append(pos, len(buf))
	}
	return buf, pos, lens, buf, nil
}

// deltaReader reads the ULEB128 and zigzag integers of the DELTA
// encodings; the first error stops it (err).
type deltaReader struct {
	b   []byte
	pos int
	err error
}

// uvarint reads a ULEB128 integer.
func (r *deltaReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.pos:])
	if n <= 0 {
		r.err = errors.New("a truncated or overlong varint")
		return 0
	}
	r.pos += n
	return v
}

// zigzag reads a zigzag ULEB128 integer: 0, -1, 1, -2, ... as 0, 1, 2, 3.
func (r *deltaReader) zigzag() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}
