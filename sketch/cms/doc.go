// Package cms is a count-min sketch (Cormode and Muthukrishnan, "An Improved
// Data Stream Summary: The Count-Min Sketch and its Applications", Journal of
// Algorithms 55(1), 2005; CM05 below): a summary of a stream of (key, count)
// updates in Width*Depth counters that answers point queries ("how often did
// key x occur?") and inner-product queries ("how many rows does the join of
// two streams on the key have?") with one-sided error.
//
// # Structure
//
// Depth rows of Width uint64 counters, stored row-major in one []uint64.
// Adding (x, c) adds c to one counter per row, column h_j(x) in row j. A point
// query returns the smallest of x's Depth counters (CM05 Sec. 4.1).
//
// The columns come from the probe scheme of internal/hashing: the key is
// hashed once with 128-bit MurmurHash3 into (h1, h2); both halves are mixed
// with Config.Seed (xor with a seed-derived constant, then the SplitMix64
// finalizer, so that sketches with different seeds place colliding keys
// apart); row j's column is hashing.Probe(g1, g2, j, Width), the double
// hashing of Kirsch and Mitzenmacher ("Less Hashing, Same Performance", ESA
// 2006) reduced to [0, Width) by multiply-high. CM05 asks for h_1..h_d drawn
// independently from a pairwise-independent family; double hashing of one
// 128-bit hash is not such a family (for one pair of keys the rows are not
// independent: if both halves of two keys' hashes are close, the keys collide
// in every row). TestErrorBound, the statistical test of the guarantee below,
// is what checks that this choice keeps the bound in practice, and the
// evaluation program repro/cmd/cmseval does the same at a million keys.
//
// # Guarantees
//
// With f the frequency vector of the stream (all entries non-negative) and
// N = |f|_1 = Total(), for every key x (CM05 Theorem 1):
//
//	f(x) <= Count(x)                          always
//	Count(x) <= f(x) + eps*N                  with probability >= 1 - delta
//
// where eps = e/Width and delta = e^-Depth (Config.Eps, Config.Delta). The
// proof: the excess of row j, X_j = sum of f(y) over y != x with h_j(y) =
// h_j(x), has E[X_j] <= N/Width = eps*N/e, so by Markov P[X_j > eps*N] <=
// 1/e, and the Depth rows are independent, so P[min_j X_j > eps*N] <= e^-Depth.
// ForError sizes a sketch from (eps, delta): Width = ceil(e/eps), Depth =
// ceil(ln(1/delta)) (CM05 Sec. 3).
//
// For two sketches of the same Config summarizing f and g, InnerProduct
// returns the smallest over rows of the dot product of the two rows, which
// satisfies (CM05 Theorem 3)
//
//	f·g <= InnerProduct <= f·g + eps*|f|_1*|g|_1   (the latter w.p. >= 1 - delta)
//
// where f·g = sum_x f(x)g(x) is the size of the equi-join of the two streams.
//
// # Linearity: Merge, Subtract, windows
//
// A plain sketch is a linear function of f: Merge (counter-wise sum) of the
// sketches of two streams is bit for bit the sketch of their concatenation,
// and Subtract (counter-wise difference) of the sketch of a sub-stream is bit
// for bit the sketch of what remains. A sliding window over batches is kept
// by adding each new batch and subtracting the sketch of the batch that
// expires (TestWindow). The guarantees above need a non-negative f: Subtract
// only what was added. Subtract refuses (ErrUnderflow) an o with a counter
// larger than the receiver's, which catches many but not all such mistakes.
//
// # Conservative update
//
// With Config.Conservative an Add raises x's counters only as far as needed:
// with m the current minimum of x's counters, each counter becomes max(counter,
// m+c) (Estan and Varghese, "New Directions in Traffic Measurement and
// Accounting", SIGCOMM 2002, Sec. 3.3, "conservative update"). By induction
// over the stream, every counter of a conservative sketch is at least the
// count of every key that hashes to it and at most the same counter of the
// plain sketch of the same stream, so Count stays an upper bound of f(x) and is
// never above the plain sketch's Count (TestConservativeBelowPlain): the
// error bound above still holds, and in practice the error is much smaller.
//
// The price is linearity. Subtract refuses conservative sketches
// (ErrConservative): a counter raised less than c by an Add cannot have c
// taken away. Merge of two conservative sketches (of streams A and B) sums the
// counters; the result is not in general the conservative sketch of the
// concatenated stream A·B, and not ordered with it either: some keys'
// estimates come out above it, others below (TestConservativeMerge finds
// both). It keeps both bounds, though: every key x has
//
//	f_A(x) + f_B(x) <= Count(x) <= the plain sketch's Count(x) for A·B,
//
// since each counter is at least the sum of the two streams' counts for x and
// at most the sum of the two plain counters. InnerProduct refuses
// conservative sketches (ErrConservative): a conservative counter holds the
// largest count hashed to it, not their sum, so a row's dot product can fall
// below f·g and the lower bound of Theorem 3 is lost.
//
// # Overflow
//
// Counters and Total are uint64 and saturate: an addition that would pass
// 2^64-1 leaves 2^64-1, which then sticks (Subtract leaves a saturated counter
// or Total at 2^64-1). A saturated counter is still an upper bound of every
// count hashed to it, so Count never falls below a true count; Total and
// the windows' bitwise equality are exact only while nothing has saturated.
//
// # Concurrency
//
// Count, CountHash, Total, InnerProduct, Equal, Clone, MemoryBytes, WriteTo
// and MarshalBinary only read and are safe for any number of concurrent
// callers while nobody mutates. Add, AddHash, Merge, Subtract, Reset, ReadFrom
// and UnmarshalBinary mutate and need exclusive access. For a parallel build,
// fill one Sketch per goroutine and Merge them (plain sketches only, for an
// exact result).
//
// # Serialization
//
// WriteTo/ReadFrom and MarshalBinary/UnmarshalBinary use a versioned,
// little-endian, CRC-32C checked format (see WriteTo) written with
// internal/wire. Decoders validate every size before allocating, check the
// sketch's invariants (each row of a plain sketch sums to Total), and return
// an error wrapping ErrFormat, never panic, on foreign, corrupt or truncated
// input.
package cms
