// Package tuple encodes composite join keys: a row's key columns as one byte
// string that a filter hashes once, the shuffle partitions by and the
// reducer matches on.
//
// Each component is encoded by its type, and the encoding is injective and
// order-preserving:
//
//   - an integer as 8 big-endian bytes with the sign bit flipped (the bytes of
//     a one-column integer key): fixed width, byte order is numeric order;
//   - a string as its bytes with each 0x00 written 0x00 0xFF, then the
//     terminator 0x00 0x01: the end of a component is never ambiguous, so
//     ("1","23") and ("12","3") differ, and byte order is the order of the
//     tuples compared component by component (a shorter string first).
//
// Order-preserving rather than length-prefixed (a length prefix sorts by
// length first): the join's Sort orders rows by key bytes, which then orders
// composite keys as ORDER BY a, b, c does. The cost is one escape pass over a
// string, and Split copies a string only when it holds a 0x00.
//
// The functions are pure and safe for concurrent use; none allocates unless
// dst or scratch lacks room.
package tuple

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Type is a component's type.
type Type uint8

const (
	Int    Type = iota // a signed 64-bit integer
	String             // bytes
)

func (t Type) String() string {
	switch t {
	case Int:
		return "int"
	case String:
		return "string"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// ErrMalformed is wrapped by Split's errors: the bytes are not a tuple of
// the given types.
var ErrMalformed = errors.New("tuple: malformed key")

// IntBytes is the width of an integer component.
const IntBytes = 8

// AppendInt appends v's component: 8 bytes, big-endian, sign bit flipped
// (IntWord's).
func AppendInt(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, IntWord(v))
}

// IntWord is the word whose big-endian bytes are v's component: v with its
// sign bit flipped, so that the components order as the integers do.
func IntWord(v int64) uint64 { return uint64(v) ^ 1<<63 }

// AppendIntKey appends an integer component already in its 8-byte form (a
// one-column integer key, as key.Of makes it).
func AppendIntKey(dst, key8 []byte) []byte { return append(dst, key8[:IntBytes]...) }

// DecodeInt decodes an integer component (8 bytes).
func DecodeInt(b []byte) int64 { return int64(binary.BigEndian.Uint64(b) ^ 1<<63) }

// AppendString appends s's component: s with 0x00 escaped as 0x00 0xFF, then
// 0x00 0x01. O(len(s)).
func AppendString(dst, s []byte) []byte {
	for {
		i := bytes.IndexByte(s, 0)
		if i < 0 {
			break
		}
		dst = append(append(dst, s[:i]...), 0, 0xFF)
		s = s[i+1:]
	}
	return append(append(dst, s...), 0, 1)
}

// Split decodes key, a tuple of len(types) components, into parts: an
// integer's 8 bytes and a string's bytes, each a slice of key unless the
// string held an escaped 0x00 (then of scratch, which is returned grown).
// parts is reused if it has room. Errors wrap ErrMalformed.
func Split(key []byte, types []Type, parts [][]byte, scratch []byte) ([][]byte, []byte, error) {
	parts = parts[:0]
	scratch = scratch[:0]
	rest := key
	for i, t := range types {
		switch t {
		case Int:
			if len(rest) < IntBytes {
				return parts, scratch, fmt.Errorf("%w: component %d: %d bytes for an integer, want 8", ErrMalformed, i+1, len(rest))
			}
			parts = append(parts, rest[:IntBytes:IntBytes])
			rest = rest[IntBytes:]
		case String:
			// The common case: no escaped 0x00, the component ends at the
			// first 0x00, which is followed by 0x01.
			j := bytes.IndexByte(rest, 0)
			if j >= 0 && j+1 < len(rest) && rest[j+1] == 1 {
				parts = append(parts, rest[:j:j])
				rest = rest[j+2:]
				continue
			}
			start := len(scratch)
			for {
				if j < 0 || j+1 >= len(rest) {
					return parts, scratch, fmt.Errorf("%w: component %d: a string without its end", ErrMalformed, i+1)
				}
				switch rest[j+1] {
				case 1:
					scratch = append(scratch, rest[:j]...)
					rest = rest[j+2:]
				case 0xFF:
					scratch = append(append(scratch, rest[:j]...), 0)
					rest = rest[j+2:]
					j = bytes.IndexByte(rest, 0)
					continue
				default:
					return parts, scratch, fmt.Errorf("%w: component %d: byte 0x%02x after 0x00", ErrMalformed, i+1, rest[j+1])
				}
				break
			}
			parts = append(parts, scratch[start:len(scratch):len(scratch)])
		default:
			return parts, scratch, fmt.Errorf("%w: component %d: unknown type %d", ErrMalformed, i+1, t)
		}
	}
	if len(rest) != 0 {
		return parts, scratch, fmt.Errorf("%w: %d bytes after its %d components", ErrMalformed, len(rest), len(types))
	}
	return parts, scratch, nil
}
