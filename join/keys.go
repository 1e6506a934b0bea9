package join

import (
	"encoding/binary"

	"github.com/acbfjoin/acbfjoin/csvscan"
)

// intKey encodes an integer join key as the 8 bytes every filter hashes and
// the shuffle groups by: keys equal as integers ("0042" and "42") get the same
// bytes, and byte order is numeric order (big-endian with the sign bit
// flipped). dst must have room for 8 bytes.
func intKey(dst []byte, field []byte) ([]byte, error) {
	v, ok := csvscan.ParseDigits8(field) // inlined: the common case costs no call
	if !ok {
		var err error
		if v, err = csvscan.ParseInt(field); err != nil {
			return nil, err
		}
	}
	binary.BigEndian.PutUint64(dst[:8], uint64(v)^1<<63)
	return dst[:8], nil
}
