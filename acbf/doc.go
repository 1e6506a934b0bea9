// Package acbf implements the multilevel Accurate Counting Bloom Filter (ACBF) of
// Wei Li, Kun Huang, Dafang Zhang and Zheng Qin, "Accurate Counting Bloom Filters
// for Large-Scale Data Processing", Mathematical Problems in Engineering, vol.
// 2013, Article ID 516298, doi:10.1155/2013/516298.
//
// # Structure (the paper's Section 3.1 and Algorithms 1-3)
//
// An ACBF gets the memory budget of a 4-bit counting Bloom filter with m
// counters: 4m bits. It splits them into levels B1, B2, ..., Bd and idle space.
// B1 has m1 bits and is queried like a Bloom filter. Level j+1 has exactly one
// bit for every one of level j, at index rank_j(p) (offset indexing). A counter
// of value c at position p of B1 is stored in unary down the levels: c ones then
// a terminating zero in level c+1 (c = 0 is a single zero in B1).
//
//   - Query (Algorithm 1): all k bits of B1 are one.
//   - Insert (Algorithm 2): per hash position, walk down the ones, set the
//     terminating zero, and insert a new zero in the next level at its rank.
//   - Delete (Algorithm 3): walk down to the terminating zero, remove it, and clear
//     the one above it.
//
// Two hash positions of one key may coincide: that counter moves by two.
//
// # Memory identity and sizing [derived]
//
// Every increment inserts exactly one bit below B1, so the levels below B1 hold
// exactly Len()*k bits and the filter uses m1 + Len()*k bits of its 4m. (This and
// the formulas below were rebuilt from the algorithms, because our copy of the
// paper lost its equations; see shared/docs/acbf-paper-notes.md.)
//
//   - ACBF_j (first optimisation): m1 = j*m, j = 1, 2, 3 (ConfigJ). ACBF_1 probes
//     the positions of the CBF and keeps the same counters. It needs
//     n*k <= (4-j)*m.
//   - Optimal ACBF (second optimisation): m1 = 4m - n*k, the largest first level
//     that leaves room for the counters of n elements (ConfigOptimal). It holds
//     exactly n elements: the next Add returns ErrFull.
//
// A counter never overflows as a 4-bit one does: it grows while idle space lasts.
//
// # False positives [derived]
//
// A query reads only B1, a Bloom filter of m1 bits, so with n elements
//
//	FPP = (1 - e^(-kn/m1))^k
//
// against (1 - e^(-kn/m))^k for the CBF of the same memory. For k = 3 and
// m/n = 8 this is 9.49e-4 for the optimal ACBF against 3.06e-2 for the CBF.
//
// # Removing non-members
//
// Remove of a key with a zero counter returns ErrNotMember and changes nothing. A
// false positive has no zero counter: removing it decrements counters that belong
// to other keys, which can turn members into false negatives. Remove only keys
// that were added.
//
// # Speed
//
// The paper reports 1.4-4.2 ms per update because every update shifts whole
// levels. This implementation stores the levels by blocks of W = 1024 or 2048
// first-level positions (offset indexing keeps each block's bits contiguous in
// every level), so an update shifts a few words of one block: see the layout
// comment in acbf.go and bench/results/filters.md for measurements; package
// levelshift keeps the paper's own layout to time it beside this one
// (docs/reproduction.md, Figure 7). Queries cost
// what a Bloom filter query on m1 bits costs. Build constructs a filter from a
// key set in O(m1/64 + n*k).
//
// # Concurrency
//
// Contains, Count, Len, Stats, Equal, WriteTo and MarshalBinary are safe for
// concurrent readers while nobody writes. Add, Remove, Merge, ReadFrom and
// UnmarshalBinary need exclusive access. A join broadcasts one filter by
// decoding a copy per worker, or shares one read-only filter.
//
// # Serialization
//
// WriteTo/ReadFrom and MarshalBinary/UnmarshalBinary store the paper's logical
// layout (B1, then levels 2..d concatenated) in a versioned, little-endian,
// CRC-32C checked format. Decoders check every size and the consistency of the
// levels, never allocate more than the input backs, and return an error wrapping
// ErrFormat on foreign, corrupt or truncated input.
package acbf
