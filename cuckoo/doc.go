// Package cuckoo is a cuckoo filter with partial-key cuckoo hashing (Fan,
// Andersen, Kaminsky and Mitzenmacher, "Cuckoo Filter: Practically Better Than
// Bloom", CoNEXT 2014, doi:10.1145/2674005.2674994): an approximate multiset
// that, unlike a counting Bloom filter (package cbf), stores one short
// fingerprint per key.
//
// # Structure
//
// A table of m buckets of b slots (b = 1..8, 4 recommended; m any number from
// 1 to MaxBuckets, not necessarily a power of two); a slot holds an f-bit
// fingerprint (f = 1..32) or 0 for empty, packed into 64-bit words (see
// Filter for the layout). A key is hashed once with internal/hashing (murmur3
// x64 128-bit, halves h1 and h2) and has two candidate buckets
// (partial-key cuckoo hashing, paper Sec. 3.1):
//
//	i1 = floor(h1 * m / 2^64)                      (Lemire's multiply-shift, hashing.Reduce)
//	fp = the top f bits of h2, or 1 if those are all 0
//	H  = floor(x * m / 2^32), x = the top 32 bits of fp * 0x9e3779b97f4a7c15 mod 2^64
//	i2 = (H - i1) mod m
//
// The paper takes i2 = i1 XOR hash(fp), which needs m to be a power of two
// (XOR may leave any other range), and rounding the table up to one wastes up
// to half of it. Here the two buckets sum to H modulo m instead, a value that
// depends on the fingerprint alone: the map i -> (H - i) mod m is an involution
// for every m, so a stored fingerprint can be moved to its other bucket without
// the key, from either bucket. (FastFilter/fastfilter_java's Cuckoo8 derives
// its second bucket by a variant of the same subtraction; see Filter.alt.)
// The two buckets coincide for about one key in m, when 2*i1 = H mod m, as
// they do with XOR when the offset is 0. Neither mapping needs a division.
//
// Add puts the fingerprint in an empty slot of i1 or i2, or evicts a
// fingerprint to its own other bucket, and so on up to MaxKicks relocations
// (paper Algorithm 1, plus a one-step lookahead before each eviction, see
// Add); Contains looks in both buckets (Algorithm 2); Remove clears one copy
// (Algorithm 3).
//
// Mapping fingerprint 0 to 1 gives fingerprint 1 probability 2^(1-f) and every
// other non-zero value 2^-f: two fingerprints then match with probability
// (2^f + 2)/4^f instead of 1/(2^f - 1), a relative excess below 2^-f (0.4% at
// f = 8, 0.002% at f = 16). Given its first bucket, a key's second bucket is
// one of only 2^f - 1: with a small f on a large table the reachable load
// drops (paper Sec. 4); f >= 8 is advised for tables of millions of slots.
//
// # False positives and sizing
//
// At load α (LoadFactor) a non-member is a false positive with probability
//
//	FPP = 1 - (1 - 1/(2^f - 1))^(2bα) ≈ 2bα/2^f
//
// (see FPP for the derivation; the paper's bound for a full table is
// 2b/2^f, Sec. 5.1). New(capacity, b, f) takes the least number of buckets
// whose b-slot buckets hold capacity keys at MaxLoad(b, f), the load such a
// table measurably reaches: 95% for the paper's b = 4 with f >= 7 (Sec. 5.1),
// 98% for b = 8, 84% for b = 2, 25% for b = 1, less with short fingerprints.
// BucketsFor(capacity, b, f) = ceil(capacity / (MaxLoad b)), so a filter
// filled to the capacity it was made for is at load MaxLoad (to within one
// bucket) and costs f/MaxLoad bits a key; Cap reports the exact capacity.
// FingerprintBitsFor(p, b) gives the least f whose FPP at that load is at most
// p, about log2(2b/p).
//
// # Failure
//
// Add fails with ErrFull when MaxKicks relocations find no free slot. The
// relocations are then undone, so the filter is exactly as before the call: no
// stored fingerprint is ever dropped. (The paper's insertion drops the last
// evicted fingerprint; implementations that do so lose keys, e.g.
// seiflotfy/cuckoofilter issue #50, false negatives after deleting and
// re-inserting near capacity.)
//
// # Multisets and removing non-members
//
// A key added twice is stored twice and needs two Removes; one key fits at
// most 2b times. Remove of a key whose fingerprint is in neither bucket returns
// ErrNotMember and changes nothing. A false positive passes that check: removing
// it removes a copy of another key's fingerprint, which can turn that key into
// a false negative. Only remove keys that were added.
//
// # Determinism
//
// Kick victims come from a xorshift64 generator held in the Filter and seeded
// by a constant, so the same sequence of operations on New filters gives the
// same table, on every machine. The generator is part of the state but is not
// serialized: a decoded filter restarts it from the seed, and Equal ignores it.
//
// # Concurrency
//
// Contains, ContainsBatch, Len, Cap, LoadFactor, FPP, Equal, WriteTo and
// MarshalBinary are safe for concurrent readers while nobody writes. Add,
// Remove, ReadFrom and UnmarshalBinary need exclusive access (Add also
// advances the kick generator).
//
// # Serialization
//
// WriteTo/ReadFrom and MarshalBinary/UnmarshalBinary use a versioned,
// little-endian, CRC-32C checked format (see io.go). Decoders validate every
// parameter before allocating, check the count against the table, and return
// an error wrapping ErrFormat, never panic, on foreign, corrupt or truncated
// input.
package cuckoo
