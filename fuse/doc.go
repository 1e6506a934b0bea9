// Package fuse is a binary fuse filter (Graf and Lemire, "Binary Fuse
// Filters: Fast and Smaller Than Xor Filters", ACM JEA 27, 2022,
// doi:10.1145/3510449) over byte keys, with fingerprints of 8, 16 or 32
// bits: a static set, built once from all its keys, that takes no key after
// and deletes none.
//
// # Structure
//
// A key is reduced to 64 bits (an 8-byte key, every integer join key, is
// its own value, read little-endian: no collision; a key of another length
// is the first half of its MurmurHash3 x64 128-bit hash, internal/hashing).
// The construction, the three positions and the query are those of
// FastFilter/xorfilter's BinaryFuse (arity 3), a dependency: the key's
// fingerprint is the XOR of the f-bit entries at its three positions, which
// fall in three consecutive segments of the array. The array holds about
// 1.125 n entries for n >= 10^6 keys and more below (the paper's size
// factor max(1.125, 0.875 + 0.25 ln(10^6)/ln n)), so a filter takes about
// 1.125 f bits a key: 9 bits at f = 8, where a Bloom filter of the same
// rate takes 11.5. Slots gives the exact count for n keys.
//
// # False positives
//
// A non-member passes when its f-bit fingerprint equals the XOR of three
// entries that its hash does not determine: with probability FPP(f) = 2^-f
// (Graf and Lemire, Sec. 2), whatever the load (the array's size does not
// enter), 0.39% at f = 8, 1.5e-5 at f = 16, 2.3e-10 at f = 32.
//
// # Determinism and duplicates
//
// Build sorts the reduced keys, and the construction's seeds come from a
// fixed sequence, so a filter is a function of its key set: the same keys
// give the same bytes in any order. Two keys whose reduced values collide
// (about n^2/2^65 for random keys of other than 8 bytes) are stored once;
// both are members, so no key is ever lost.
//
// # Format
//
// WriteTo/ReadFrom and MarshalBinary/UnmarshalBinary use a versioned,
// checksummed format (see io.go); a decoder validates every field before it
// allocates, so that no input can make Contains read outside the array.
//
// # Concurrency
//
// A Filter is immutable once built or decoded: Contains is safe for any
// number of concurrent callers.
package fuse
