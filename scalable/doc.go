// Package scalable is the scalable Bloom filter (SBF) of Paulo Sérgio Almeida,
// Carlos Baquero, Nuno Preguiça and David Hutchison, "Scalable Bloom Filters",
// Information Processing Letters 101(6):255-261, 2007,
// doi:10.1016/j.ipl.2006.10.007: a Bloom filter that needs no key count in
// advance and grows with the keys while keeping a chosen bound on the false
// positive probability. (Our copy of the paper is not in the repository, so the
// formulas below are cited by the paper's names, not by equation number.)
//
// # Structure
//
// A Filter is a list of sub-filters, each a partitioned ("sliced") Bloom
// filter. Sub-filter i has k_i slices of s_i bits each; adding a key sets one
// bit in every slice, and a key is present in the sub-filter when its bit is
// set in all k_i slices. The key is hashed once, (h1, h2) = hashing.Sum(key)
// (MurmurHash3 x64 128, as every filter of acbfjoin), and the slices of the
// whole filter are numbered g = 0, 1, 2, ... oldest sub-filter first, so that
// slice j of sub-filter i is g = k_0 + ... + k_{i-1} + j. The key's bit in
// slice g is
//
//	Reduce(x_g, s_i),   x_g = mix((h1 + g*0x9e3779b97f4a7c15) XOR h2)
//	mix(z) = hi XOR lo, where hi*2^64 + lo = z * (z XOR 0x8bb84b93962eacc9)
//
// with mix the output function of wyrand (wyhash's generator: one 64x64 to
// 128-bit multiplication) and Reduce the multiply-high range reduction of
// internal/hashing. Every slice of the filter thus has a probe of its own,
// and the probes of one key in different slices, or of two keys in one slice,
// behave as independent uniform choices: mix makes x_g of related inputs
// unrelated, where the Kirsch-Mitzenmacher probes Reduce(h1 + j*h2, s) of
// internal/hashing are linear in (h1, h2) (see False positives in practice).
//
// Sub-filter i is designed for n_i keys at error p_i, with the paper's
// initial capacity n0, initial error P0, growth factor s and tightening ratio r
// (Config.InitialCapacity, FPP, Growth and Tightening; Growth is a float64,
// any finite s >= 1, 1.5 as well as 2 or 4):
//
//	n_i = floor(n0 * s^i)                       (float64, repeated multiplication)
//	p_i = P0 * r^i
//	k_i = ceil(log2(1/p_i))                     slices
//	m_i = ceil(n_i * |ln p_i| / (ln 2)^2)       bits in all
//	s_i = ceil(m_i / k_i)                       bits a slice
//
// This is the paper's sizing of a partitioned filter at fill ratio 1/2, the
// fill that minimises its error for a given memory: with c keys a slice of s
// bits has a fraction 1 - (1 - 1/s)^c of ones, which is 1/2 at c ≈ s ln 2, and
// a non-member passes all k slices with probability (1/2)^k = p.
//
// Adds go to the last sub-filter. When it holds n_i keys the next Add first
// appends sub-filter i+1. Contains asks every sub-filter, newest (largest)
// first, and stops at the first that has the key. Every Add counts: a key added
// twice takes two keys of capacity (and sets no new bit if both land in the
// same sub-filter). Where keys repeat, "if !f.Contains(k) { f.Add(k) }" keeps
// the capacity for distinct keys and is safe: a key once reported present
// stays present.
//
// # False positives
//
// A non-member is a false positive of the Filter when it is one of at least
// one sub-filter. The sub-filters hold disjoint keys, so for a filter of l
// sub-filters, each at its design error p_i = P0 r^i,
//
//	P = 1 - prod_{i=0}^{l-1} (1 - P0 r^i)
//	  <= sum_{i=0}^{l-1} P0 r^i                  (1 - prod(1 - x_i) <= sum x_i, 0 <= x_i <= 1)
//	  =  P0 (1 - r^l) / (1 - r)                  (geometric series)
//	  <  P0 / (1 - r)                            (for every l: Bound)
//
// so the error stays below Bound = P0/(1-r) however many sub-filters the keys
// need; the defaults P0 = 0.001 and r = 0.5 give 0.002. The cost is k_i, about
// k_0 + i log2(1/r) slices in sub-filter i: log2(1/r) more bits a key in each
// sub-filter than in the one before.
//
// FPP gives the formula at the current fill, the partitioned filter's own:
// sub-filter i with c_i keys has each slice receive c_i probes, so
//
//	FPP = 1 - prod_i (1 - (1 - (1 - 1/s_i)^{c_i})^{k_i})
//
// Because k_i is an integer the sizing above meets p_i only to first order:
// with m_i/n_i fixed, k_i = log2(1/p_i) minimises the error and the ceiling
// moves k_i off it, so for large n_i a full sub-filter's formula error exceeds
// p_i by a factor of at most (2 - 2^(-1/(k_i-1)))^(k_i) / 2: 9/8 at k_i = 2,
// about 1 + 0.21/k_i for large k_i, the worst case being log2(1/p_i) just
// above an integer (TestRoundingExcess). A small slice adds a factor of about
// 1 + k_i ln2 / (2 s_i), as (1 - 1/s)^c < e^(-c/s). For the defaults,
// log2(1/p_i) = 9.97 + i sits just below an integer and the first sub-filter
// full has 1.00127e-3 against its 1e-3; the products' cross terms make up for
// such excesses, and FPP() stays below Bound() with every sub-filter full
// until the filter is (TestBoundOverLifetime, four Configs). A Config whose
// log2(1/P0) is just above an integer can exceed Bound by up to the factor.
//
// # False positives in practice: independent probes
//
// FPP is an expectation over the random placement of the keys; a given
// filter's bits have their own rate, FillFPP:
//
//	FillFPP = 1 - prod_i (1 - prod_j ones_ij / s_i)
//
// the probability that a random non-member finds its bit set in every slice
// of some sub-filter, with ones_ij the set bits of slice j of sub-filter i.
// Given the bits it is exact when the probes are independent and uniform, and
// the measured rate of a filter differs from it only by the binomial noise of
// the queries (TestFillFPP). Measured with 10^7 queries on one default filter
// grown from 1,000 to 10^5 keys (7 sub-filters) and on to 10^6 (10), three
// seeds: -1.0 to +0.7 binomial sd from FillFPP. FillFPP differs from FPP by
// the chance of the fill, a few percent for one filter (sd about 2.5% at
// 100,000 keys with the defaults, 4.6% at 1,000), and its mean over filters
// is FPP (TestFPPIsMeanFillFPP).
//
// That needs the probes to be independent, and the Kirsch-Mitzenmacher
// double hashing that the package first used, slice j at Reduce(h1 + j*h2,
// s_i), is not, with small slices: the k_i probes of a key are all functions
// of one (h1, h2), so a member whose (h1, h2) lies near the query's matches
// it in many slices at once, a member matching three or more given slices
// with probability of order 1/s_i^2 rather than 1/s_i^3. That raised the
// measured rate above both FPP and the bits' own rate by a relative amount
// of order 2^k_i / (k_i s_i), about 1/(k_i n_i p_i), which the defaults'
// n_i p_i = n0 P0 (s r)^i = 1 keep from fading: +2% to +7% above FPP at
// 1,000 to 100,000 keys, the real rate passing Bound at 100,000 keys; on the
// filters above +1.5% to +4.8% above FillFPP (+2.1 to +6.7 sd); for k = 7
// slices of 137 bits +6%, of 28 bits +26%. The mixed probes measure within
// binomial noise of the bits' rate on the same keys and shapes, and
// TestDoubleHashingExcess keeps both, the double-hashing probes as the
// control that shows the test sees such an excess (about 20 and 80 sd).
//
// The cost is one mix, a 128-bit multiplication, a probe: a non-member at
// fill 1/2 needs about two probes a sub-filter, a member its k_i in the
// sub-filter that holds it. Against the double hashing, in paired runs of
// BenchmarkAdd and BenchmarkContains at 100,000 keys (grown from 1,000, 7
// sub-filters, or built at n0 = 100,000, 1): Add +21% to +26%, Contains +8%
// (non-members, 1 sub-filter) to +34% (members), ContainsBatch -9% to +13%.
//
// # No deletion
//
// There is no Remove. A bit may be shared: every key of the sub-filter whose
// probe lands on it set it, and a plain bit cannot tell how many did. Clearing
// a removed key's bits would clear bits of keys still present and create
// false negatives. Use the counting
// filters (cbf, acbf) where keys must be removed.
//
// # Limits
//
// Add returns ErrFull, and changes nothing, when the next sub-filter would
// take the filter past MaxFilters sub-filters or MaxBits bits in all. With the
// defaults that is after 20 sub-filters: 1,048,575,000 keys in 4.23e10 bits
// (5.3 GB, 40.3 bits a key; 27.5 bits a key at 100,000 keys).
//
// # Sizing before building
//
// Config.Plan(n) gives, without allocating, what a filter of that Config
// reports after n Adds: Filters(), MemoryBits() and FPP(), exactly (the same
// shape and formula code), or the ErrConfig that New would return, or the
// ErrFull that the first Add past the limits would.
//
// # Concurrency
//
// Contains, ContainsBatch, Len, Filters, MemoryBits, FPP, FillFPP, Bound,
// Config, Equal, SerializedSize, WriteTo and MarshalBinary only read and are
// safe for any number of concurrent callers while nobody calls Add, ReadFrom
// or UnmarshalBinary; those mutate and need exclusive access. Config.Plan is
// a pure function.
//
// # Serialization
//
// WriteTo/ReadFrom and MarshalBinary/UnmarshalBinary use a versioned,
// little-endian, CRC-32C checked format (see WriteTo). A decoder recomputes
// every sub-filter's shape from the stored Config and refuses one that
// differs, validates every size before allocating, and returns an error
// wrapping ErrFormat, never panics, on foreign, corrupt or truncated input.
package scalable
