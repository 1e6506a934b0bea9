package columnar

import (
	"encoding/binary"
	"errors"
	"os"
	"runtime"
	"unsafe"

	"github.com/acbfjoin/acbfjoin/internal/cpuswitch"
)

// Two Snappy blocks decoded at once (snappyPair), for two row groups'
// pages of one column (readFixedPair).
//
// Why: a Snappy block is a chain of tags, each tag's place in the input
// known only once the tag before it is read, and the NBER twins' key
// column is about one tag every four bytes of output (a literal of one
// or two bytes, then a copy of six or seven: each INT64's low bytes, then
// its zeros), of the two copy kinds at random, which a decoder's
// branches do not predict: klauspost's s2 decoder (assembly) takes 2.2 ns
// a tag on an AMD EPYC family 26, about ten cycles (bench/parquet-why.md).
// One block cannot be decoded faster than its chain, but two blocks'
// chains are independent: snappyPairSteps steps through both in one loop
// without a branch on a tag's kind (the kind's length, advance and offset
// mask come from tables), so the processor overlaps the two, and each
// iteration copies 32 bytes of either block whatever the tag's length (a
// literal read from the input, a copy from the output 8 bytes at a time,
// right for an offset of at least 8). Tags it does not take (a literal
// of more than 32 bytes, a copy at an offset under 8, one of more than 32
// bytes too near the end, anything near a block's end) are decoded by
// snappyTag, the format's every rule checked. A pair is decoded in about
// half the time of the two alone on that data (BenchmarkSnappyPair).

// snappyPairAsm says readFixedPair decodes two pages at once: the
// assembly is there (amd64; it uses only the base instruction set) and
// ACBFJOIN_CPU does not ask for the portable code, which decodes each
// page alone with arrow-go's codec, as every other page is. Both give the
// same values or the same errors (a pair that does not decode is decoded
// again page by page: TestReadPairSame, FuzzSnappyPair).
var snappyPairAsm = hasSnappyPair && cpuswitch.Native() && os.Getenv("ACBFJOIN_PAIR") != "off"

// errSnappy is a block snappyPair cannot decode: not Snappy, or not of
// its length.
var errSnappy = errors.New("a Snappy block that does not decode")

// pairTab holds, for each tag byte: the offset's mask of its next 4 bytes
// (0 for a literal), the tag's advance over the input (0: not taken by
// the assembly), the bytes it makes (0: not taken), and the offset's
// high bits (a 1-byte-offset copy's 3 bits in the tag; 8 for a literal,
// so that its unused copy source passes the offset test).
// Layout: mask | advance<<32 | length<<40 | high<<48. pairAdv is the
// advance alone, read on its own to keep the chain from one tag to the
// next to two loads and an add.
var (
	pairTab [256]uint64
	pairAdv [256]uint8
)

func init() {
	for t := range 256 {
		var mask, adv, n, hi uint64
		switch t & 3 {
		case 0: // a literal of t>>2 + 1 bytes (60 and up: its length follows)
			n, hi = uint64(t>>2)+1, 8
			adv = n + 1
			if t>>2 >= 60 || n > 32 {
				n, adv = 0, 0
			}
		case 1: // a copy of 4-11 bytes, an 11-bit offset
			mask, adv, n, hi = 0xff, 2, uint64(4+(t>>2)&7), uint64(t>>5)<<8
		case 2: // a copy of 1-64 bytes, a 16-bit offset
			mask, adv, n = 0xffff, 3, uint64(1+t>>2)
		case 3: // a copy of 1-64 bytes, a 32-bit offset
			mask, adv, n = 0xffffffff, 5, uint64(1+t>>2)
		}
		pairTab[t] = mask | adv<<32 | n<<40 | hi<<48
		pairAdv[t] = uint8(adv)
	}
}

// pairState is snappyPairSteps' state: each block's input and output
// positions (addresses), the last addresses at which an iteration may
// start (inputs: 33 bytes before their ends, so that a tag, its offset
// and a 32-byte literal read stay within; outputs: 32 bytes before
// theirs, the 32 bytes written), and the outputs' starts (a copy's
// source must not lie before them). The offsets are fixed: the assembly
// reads them.
type pairState struct {
	sp, dp            [2]uintptr // 0, 16
	slim, dlim, dbase [2]uintptr // 32, 48, 64
	tab               *[256]uint64
	adv               *[256]uint8 // 80, 88
}

// Margins of pairState's limits.
const (
	pairInMargin  = 33
	pairOutMargin = 32
)

// snappyPair decodes Snappy blocks srcA and srcB into dstA and dstB,
// which must be their decoded lengths exactly; errSnappy if either does
// not decode (or is not of its length). Strict Snappy (a copy at offset
// 0 is an error). Cost: O(len(dstA) + len(dstB)); where both blocks are
// long, about the time of the longer alone. Uses no memory of its own.
func snappyPair(dstA, srcA, dstB, srcB []byte) error {
	src := [2][]byte{srcA, srcB}
	dst := [2][]byte{dstA, dstB}
	var s, d [2]int
	for i := range 2 {
		n, k := binary.Uvarint(src[i])
		if k <= 0 || k > 5 || n > 0xffffffff || n != uint64(len(dst[i])) {
			return errSnappy
		}
		s[i] = k
	}
	st := pairState{tab: &pairTab, adv: &pairAdv}
	var err error
	for hasSnappyPair {
		if s[0]+pairInMargin > len(src[0]) || d[0]+pairOutMargin > len(dst[0]) ||
			s[1]+pairInMargin > len(src[1]) || d[1]+pairOutMargin > len(dst[1]) {
			break
		}
		for i := range 2 {
			sb, db := uintptr(unsafe.Pointer(unsafe.SliceData(src[i]))), uintptr(unsafe.Pointer(unsafe.SliceData(dst[i])))
			st.sp[i], st.dp[i] = sb+uintptr(s[i]), db+uintptr(d[i])
			st.slim[i], st.dlim[i] = sb+uintptr(len(src[i])-pairInMargin), db+uintptr(len(dst[i])-pairOutMargin)
			st.dbase[i] = db
		}
		stop := snappyPairSteps(&st)
		for i := range 2 {
			s[i] = int(st.sp[i] - uintptr(unsafe.Pointer(unsafe.SliceData(src[i]))))
			d[i] = int(st.dp[i] - uintptr(unsafe.Pointer(unsafe.SliceData(dst[i]))))
		}
		runtime.KeepAlive(&src)
		runtime.KeepAlive(&dst)
		if stop == 1 || stop == 2 { // that block's next tag is not the assembly's
			i := stop - 1
			if s[i], d[i], err = snappyTag(dst[i], src[i], s[i], d[i]); err != nil {
				return err
			}
		}
	}
	for i := range 2 {
		for s[i] < len(src[i]) {
			if s[i], d[i], err = snappyTag(dst[i], src[i], s[i], d[i]); err != nil {
				return err
			}
		}
		if d[i] != len(dst[i]) {
			return errSnappy
		}
	}
	return nil
}

// snappyTag decodes the tag at src[s] into dst[d:] and returns the
// positions after it: the Snappy format's every rule checked (the
// literal within src, the copy's offset within what dst holds and not 0,
// its length within dst). O(the tag's bytes).
func snappyTag(dst, src []byte, s, d int) (int, int, error) {
	t := src[s]
	var n, off int
	switch t & 3 {
	case 0:
		n = int(t >> 2)
		k := 1
		if n >= 60 {
			nb := n - 59
			if nb > len(src)-s-1 {
				return 0, 0, errSnappy
			}
			n = 0
			for i := range nb {
				n |= int(src[s+1+i]) << (8 * i)
			}
			k += nb
		}
		n++
		if n > len(src)-s-k || n > len(dst)-d {
			return 0, 0, errSnappy
		}
		copy(dst[d:], src[s+k:s+k+n])
		return s + k + n, d + n, nil
	case 1:
		if len(src)-s < 2 {
			return 0, 0, errSnappy
		}
		n, off = 4+int(t>>2)&7, int(t>>5)<<8|int(src[s+1])
		s += 2
	case 2:
		if len(src)-s < 3 {
			return 0, 0, errSnappy
		}
		n, off = 1+int(t>>2), int(binary.LittleEndian.Uint16(src[s+1:]))
		s += 3
	default:
		if len(src)-s < 5 {
			return 0, 0, errSnappy
		}
		n, off = 1+int(t>>2), int(binary.LittleEndian.Uint32(src[s+1:]))
		s += 5
	}
	if off <= 0 || off > d || n > len(dst)-d {
		return 0, 0, errSnappy
	}
	if off >= n {
		copy(dst[d:d+n], dst[d-off:])
	} else {
		for i := range n { // a run: each byte may be one this copy wrote
			dst[d+i] = dst[d-off+i]
		}
	}
	return s, d + n, nil
}
