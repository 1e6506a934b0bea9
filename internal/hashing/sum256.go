package hashing

import (
	"encoding/binary"
	"math/bits"
)

// Sum256 returns the MurmurHash3 x64 128-bit hashes (seed 0) of key and of
// key followed by the byte 1, in one pass over key: (h1, h2) = Sum(key) and
// (h3, h4) = Sum(key + "\x01"). They are bits-and-blooms/bloom/v3's four base
// hashes (its digest128.sum256), from which a Bloom filter of that library
// derives its probes. O(len(key)), no allocation.
func Sum256(key []byte) (h1, h2, h3, h4 uint64) {
	n := len(key)
	if n == 8 { // an integer key: no block, a tail of 8 bytes, then of 9
		k := binary.LittleEndian.Uint64(key)
		h1, h2 = Sum8(k)
		h3, h4 = finish(0, 0, k, 1, 9, 9)
		return h1, h2, h3, h4
	}
	var a, b uint64 // the running state after the full 16-byte blocks
	for len(key) >= 16 {
		a, b = mixBlock(a, b, binary.LittleEndian.Uint64(key), binary.LittleEndian.Uint64(key[8:]))
		key = key[16:]
	}
	var tail [16]byte
	copy(tail[:], key)
	k1, k2 := binary.LittleEndian.Uint64(tail[:8]), binary.LittleEndian.Uint64(tail[8:])
	h1, h2 = finish(a, b, k1, k2, len(key), n)
	// key + "\x01": the byte 1 goes at the tail's end; a tail of 15 bytes
	// becomes a full block, mixed, and an empty tail.
	tail[len(key)] = 1
	k1, k2 = binary.LittleEndian.Uint64(tail[:8]), binary.LittleEndian.Uint64(tail[8:])
	if len(key) == 15 {
		a, b = mixBlock(a, b, k1, k2)
		h3, h4 = finish(a, b, 0, 0, 0, n+1)
	} else {
		h3, h4 = finish(a, b, k1, k2, len(key)+1, n+1)
	}
	return h1, h2, h3, h4
}

// mixBlock is MurmurHash3 x64 128's body step over one 16-byte block (k1,
// k2 its two little-endian words).
func mixBlock(h1, h2, k1, k2 uint64) (uint64, uint64) {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	k1 *= c1
	k1 = bits.RotateLeft64(k1, 31)
	k1 *= c2
	h1 ^= k1
	h1 = bits.RotateLeft64(h1, 27)
	h1 += h2
	h1 = h1*5 + 0x52dce729
	k2 *= c2
	k2 = bits.RotateLeft64(k2, 33)
	k2 *= c1
	h2 ^= k2
	h2 = bits.RotateLeft64(h2, 31)
	h2 += h1
	h2 = h2*5 + 0x38495ab5
	return h1, h2
}

// finish is MurmurHash3 x64 128's tail and finalization: the tail of tlen
// < 16 bytes as two zero-padded little-endian words k1, k2, and the key's
// length n.
func finish(h1, h2, k1, k2 uint64, tlen, n int) (uint64, uint64) {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	if tlen > 8 {
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
	}
	if tlen > 0 {
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
	}
	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1, h2 = fmix64(h1), fmix64(h2)
	h1 += h2
	h2 += h1
	return h1, h2
}
