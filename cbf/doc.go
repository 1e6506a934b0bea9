// Package cbf is a standard counting Bloom filter (CBF) with 4-bit counters, the
// baseline of the ACBF paper (Li, Huang, Zhang and Qin, "Accurate Counting Bloom
// Filters for Large-Scale Data Processing", Mathematical Problems in Engineering,
// 2013, doi:10.1155/2013/516298; the CBF itself is from Fan, Cao, Almeida and
// Broder, "Summary Cache", IEEE/ACM Transactions on Networking, 2000).
//
// # Structure
//
// m counters of 4 bits each (4m bits, two counters per byte). Adding a key
// increments its k counters, removing it decrements them, and a query checks that
// all k are non-zero. The k positions come from the shared probe scheme of
// internal/hashing (murmur3 128-bit, Kirsch-Mitzenmacher double hashing,
// multiply-high reduction), so a CBF with m counters probes the same positions
// as an acbf.Filter whose first level has m bits.
//
// # False positives
//
// With n keys the false positive probability is
//
//	FPP = (1 - (1 - 1/m)^(kn))^k ≈ (1 - e^(-kn/m))^k      (Fan et al. 2000)
//
// minimised at k = (m/n) ln 2. See FPP.
//
// # Saturation
//
// A counter that reaches 15 saturates: it sticks at 15 and is never decremented
// again, so a later Remove cannot produce a false negative through an overflowed
// counter (the cost is that the counter never returns to zero). Saturations
// reports how many counters are stuck. With k near optimal a counter reaches 15
// with probability below 1.37e-15 per counter (Fan et al. 2000).
//
// # Removing non-members
//
// Remove refuses (ErrNotMember, filter unchanged) a key with a zero counter: such
// a key was certainly never added. A false positive passes that check, and
// removing it decrements counters of other keys: this can turn members into false
// negatives. Only remove keys that were added.
//
// # Concurrency
//
// Contains and Count are safe for concurrent readers while nobody writes. Add,
// Remove, Merge, ReadFrom and UnmarshalBinary need exclusive access. For a
// parallel build, fill one Filter per goroutine and Merge them.
//
// # Serialization
//
// WriteTo/ReadFrom and MarshalBinary/UnmarshalBinary use a versioned,
// little-endian, CRC-32C checked format (see WriteTo). Decoders validate every
// size before allocating and return an error wrapping ErrFormat, never panic, on
// foreign, corrupt or truncated input.
package cbf
