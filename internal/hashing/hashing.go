// Package hashing is the one probe scheme shared by every filter of acbfjoin.
//
// A key is hashed once with MurmurHash3 x64 128-bit (seed 0), giving two 64-bit
// halves (h1, h2). Probe i of k is g_i = h1 + i*h2 (mod 2^64), the double-hashing
// construction of Kirsch and Mitzenmacher ("Less Hashing, Same Performance",
// ESA 2006), which keeps the asymptotic false-positive rate of k independent
// hashes. g_i is mapped to [0, size) with Lemire's multiply-high range reduction
// (floor(g_i * size / 2^64)), which needs no division and, unlike g_i mod size,
// uses the high bits of g_i.
//
// Because the scheme depends only on the key and the size, a counting Bloom filter
// with m counters and an ACBF whose first level has m bits probe exactly the same
// positions for every key: that is what makes ACBF_1 behave like the CBF.
//
// All functions are pure and safe for concurrent use. Cost: one murmur3 pass over
// the key (O(len(key))) plus O(1) per probe; no allocation.
package hashing

import (
	"encoding/binary"
	"math/bits"

	"github.com/spaolacci/murmur3"
)

// Sum returns the two 64-bit halves of the MurmurHash3 x64 128-bit hash of key.
// It does not allocate. An 8-byte key (every integer join key) takes Sum8,
// the same function written out for that length: 3.3 ns against the
// library's 11.7 (bench/results/join.md).
func Sum(key []byte) (h1, h2 uint64) {
	if len(key) == 8 {
		return Sum8(binary.LittleEndian.Uint64(key))
	}
	return murmur3.Sum128(key)
}

// Sum8 is Sum of an 8-byte key whose bytes, read little-endian, are k: the
// MurmurHash3 x64 128-bit hash (seed 0; Appleby's MurmurHash3.cpp) of a key
// with no 16-byte block and an 8-byte tail, which all goes into k1. Equal to
// murmur3.Sum128 on every such key (TestSum8). O(1), no allocation.
func Sum8(k uint64) (h1, h2 uint64) {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	// The tail: k1 *= c1; k1 = ROTL64(k1, 31); k1 *= c2; h1 ^= k1. Then
	// the finalization with len = 8: h1 ^= len; h2 ^= len (h2 is 0 before);
	// h1 += h2; h2 += h1; h1 = fmix64(h1); h2 = fmix64(h2); h1 += h2;
	// h2 += h1. Written in few statements so that it inlines.
	h1 = bits.RotateLeft64(k*c1, 31)*c2 ^ 8 + 8
	h1, h2 = fmix64(h1), fmix64(h1+8)
	h1 += h2
	return h1, h2 + h1
}

// Sum8Seed is murmur3.Sum128WithSeed of an 8-byte key whose bytes, read
// little-endian, are k: Sum8's hash with both halves starting at seed
// (h1 = h2 = seed before the tail) instead of 0. Equal to the library's on
// every such key (TestSum8Seed), at Sum8's cost rather than the library's
// (filters.ListFingerprint hashes every distinct key with it). O(1), no
// allocation.
func Sum8Seed(k uint64, seed uint32) (h1, h2 uint64) {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	// Sum8's steps with h1 = h2 = seed before the tail: with s = seed ^ 8,
	// h1 = (s ^ k1) + s and h2 = s + h1 before the finalizers.
	s := uint64(seed) ^ 8
	h1 = s ^ bits.RotateLeft64(k*c1, 31)*c2 + s
	h1, h2 = fmix64(h1), fmix64(h1+s)
	h1 += h2
	return h1, h2 + h1
}

// fmix64 is MurmurHash3's 64-bit finalizer.
func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// Probe returns probe i of the Kirsch-Mitzenmacher sequence for (h1, h2) reduced
// to [0, size). size must be > 0. O(1), no allocation.
func Probe(h1, h2 uint64, i int, size uint64) uint64 {
	return Reduce(h1+uint64(i)*h2, size)
}

// Reduce maps a uniformly distributed 64-bit value x to [0, size) by taking the
// high 64 bits of the 128-bit product x*size (Lemire, "Fast Random Integer
// Generation in an Interval", ACM TOMACS 2019). O(1).
func Reduce(x, size uint64) uint64 {
	hi, _ := bits.Mul64(x, size)
	return hi
}

// Positions appends the k probe positions of key in [0, size) to dst and returns
// the extended slice. With a dst of capacity >= k it does not allocate.
func Positions(dst []uint64, key []byte, k int, size uint64) []uint64 {
	h1, h2 := Sum(key)
	for i := 0; i < k; i++ {
		dst = append(dst, Probe(h1, h2, i, size))
	}
	return dst
}
