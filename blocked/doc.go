// Package blocked is a cache-line blocked Bloom filter (Putze, Sanders and
// Singler, "Cache-, Hash- and Space-Efficient Bloom Filters", WEA 2007, LNCS
// 4525; journal version in ACM JEA 14, 2009): a Bloom filter whose k probes
// for a key all fall in one 512-bit block, one 64-byte cache line, so that a
// query costs one cache miss instead of up to k.
//
// # Structure
//
// m bits (a multiple of 512) form B = m/512 blocks. A key is hashed once with
// the shared scheme of internal/hashing (murmur3 x64 128, halves h1 and h2);
// its block is Reduce(h1, B) and its k bit positions in the block are 9-bit
// slices of h2 (and, past 7 probes, of a splitmix64 remix of h2; see the
// layout comment in blocked.go). Adding a key sets its k bits, a query checks
// them: no false negatives for added keys. Keys cannot be removed (a bit may
// belong to several keys): use package cbf for a filter that deletes.
//
// # False positives
//
// A classic Bloom filter spreads every key's probes over all m bits, and
//
//	FPP_classic = (1 - e^(-kn/m))^k.
//
// Here a query only meets the keys of its own block, and their number X
// varies: X ~ Binomial(n, 1/B), close to Poisson with mean λ = 512n/m.
// Putze et al. take the block as a small classic filter at that load:
//
//	FPP_Putze = sum_x P(X = x) * (1 - (1 - 1/512)^(kx))^k.
//
// While a block is less than about half full the false positive rate is
// convex in its load: overloaded blocks cost more than underloaded ones save,
// and FPP_Putze > FPP_classic. At 10 bits per key and k = 6 it is 9.57e-3
// against 8.43e-3, +13.5%; at 16 bits per key and k = 9, 8.26e-4 against
// 5.05e-4, +64%. (Only an overfilled filter, a large k at a few bits per key,
// can do a little better than the classic formula.)
//
// FPP_Putze still puts the expected fill of the block in place of its actual
// fill: with S the number of set bits after kx probes, a query is a false
// positive with probability E[(S/512)^k], which by Jensen's inequality exceeds
// (E[S]/512)^k = (1 - (1-1/512)^(kx))^k, and in a 512-bit block S has a
// standard deviation of about 6 bits at half fill. (Bose et al., "On the
// false-positive rate of Bloom filters", IPL 108, 2008, and Christensen,
// Roginsky and Jimeno, "A new analysis of the false positive rate of a Bloom
// filter", IPL 110, 2010, show the same for classic filters, where with m in
// the millions it does not matter.) FPP computes the exact value
//
//	FPP = sum_x P(X = x) * E[(S_kx/512)^k],
//
// with the distribution of S_t from the occupancy chain (fpp.go). It is 0.9%
// above FPP_Putze at 10 bits per key, k = 6, and 2.2% above at 16 bits per
// key, k = 9.
//
// FPP is an expectation over key sets: what a filter of m bits and n keys is
// expected to give before its keys are known. One filter's keys are one draw
// of the block loads and fills, and its own rate, FillFPP, the mean over its
// blocks of (ones_b/512)^k, is exact for it (its k probes are independent and
// uniform in the block) and varies from filter to filter around FPP, its
// mean. The spread is 0.54% of FPP at 10^5 keys, 10 bits per key and k = 6,
// and 0.17% at 10^6: 1.7 times, and half, the binomial spread of a
// measurement with 10^7 queries. So a measured rate is compared with FillFPP
// within the binomial spread, and with FPP within both spreads together: at
// n = 10^6 and 10^7 queries FPP_Putze is 1.9 to 2.5 of these standard
// deviations below FPP at 8, 10 and 16 bits per key (1.3 to 1.5 at 10^5
// keys), and the classic formula 28 to 35 (15 to 24). See
// TestFalsePositiveRate, and TestFillFPPMean, which checks the mean and the
// variance of FillFPP over many small filters.
//
// The best k is lower than the classic (m/n) ln 2 (OptimalK): more probes
// fill the overloaded blocks faster. BitsFor inverts FPP: the least whole
// number of blocks for n keys at a target rate, at a given k or at the
// OptimalK of that size.
//
// # Concurrency
//
// Contains, ContainsBatch and FillFPP are safe for concurrent readers while
// nobody writes. Add, ReadFrom and UnmarshalBinary need exclusive access.
//
// # Serialization
//
// WriteTo/ReadFrom and MarshalBinary/UnmarshalBinary use a versioned,
// little-endian, CRC-32C checked format (see WriteTo). Decoders validate every
// size before allocating and return an error wrapping ErrFormat, never panic,
// on foreign, corrupt or truncated input.
package blocked
