// Package semijoin generates a key file and a large file for a semi-join with
// an exact, controlled selectivity and a choice of key shapes: the grid of
// key shape x selectivity on which `join run --filter auto` (package
// filters/choose) is benchmarked.
//
// # Keys and key shapes
//
// The generator has a key space of indexes 0, 1, 2, ...: the indexes
// 0..Keys-1 are the keys (the key file's), the indexes
// Keys..Keys+Distinct-1 are the non-member keys the large file's other rows
// draw from. An index i is written as a key by the Shape:
//
//   - Dense: the integer i itself. The keys are exactly 0..Keys-1 and the
//     non-member keys Keys..Keys+Distinct-1: an exact filter can be a bitmap.
//   - Sparse: V(i), in decimal, where V is a seeded bijection of the 62-bit
//     integers (rounds of an addition of a seeded constant, a multiplication
//     by an odd constant and a right xor-shift, all modulo 2^62, each a
//     bijection): distinct, pseudo-random, non-negative int64 values below
//     2^62.
//   - String: "k" and the 16 lowercase hexadecimal digits of V(i), with
//     leading zeros ("k03a94c1f00d2e6b7"): 17 bytes.
//
// Since the map from index to key is one to one, the keys are distinct and
// no non-member key is a key: members and non-members are disjoint by
// construction, without a set.
//
// # Key file (KeysFile)
//
// A header "K,PAY", then Keys lines "KEY,p<INDEX>" with LF line ends, one a
// key, in a seeded random order (the indexes 0..Keys-1 put through a seeded
// bijection of the smallest power-of-two range that holds them, walked
// along its cycles until it falls below Keys): "K,PAY\n41,p41\n7,p7\n..."
// for Dense, "k03a94c1f00d2e6b7,p41" for String. INDEX is the key's index, in
// decimal.
//
// # Input file (InputFile)
//
// A header "ID,K,PAD", then Rows lines "ROWNUMBER,KEY,xxxxxxxxxxxxxxxx"
// with LF line ends: ROWNUMBER 1..Rows in order, KEY the row's key in the
// Shape's text, and PAD the fixed 16 bytes Pad. No field holds a comma, a
// quote or a line break, so no field is quoted.
//
// Exactly MemberRows = round(Selectivity*Rows) rows (math.Round: halves
// away from zero, of the float64 product) are member rows, whose key is a
// key; the others are non-member rows. Which rows are members is a
// uniformly random subset of that size (selection sampling, Knuth's
// Algorithm S: row t of N is a member with probability
// need/(N-t+1), need being the members still to place, drawn exactly with
// integers), so the member rows are spread at random positions. A member
// row's key is uniform among the Keys keys; a non-member row's key uniform
// among the Distinct non-member keys (so at most Distinct distinct
// non-member keys appear). With Zipf s, they are skewed instead: the member
// key of index r and the non-member key of index Keys+r come with
// probability proportional to (1+r)^-s in their groups (math/rand/v2's
// Zipf), the large side of a join whose frequent keys carry most rows (the
// setting of Options.HotExclusions in package join).
//
// # Determinism and cost
//
// The key order, the bijection V and the row draws come from separate
// math/rand/v2 PCG streams of Seed, and only integer arithmetic is used: the
// same Options give byte-identical files on every platform, and another
// seed different ones (with Zipf, the draws use rand.Zipf's float64
// arithmetic: byte-identical on one platform). Both files stream through a 1 MiB buffer in constant
// memory, without an allocation a row: about 70 ns a row on one core,
// write system calls included (2,000,000 rows in about 0.15 s). Write
// checks ctx every 4,096 lines.
//
// # Files
//
// Write writes both files in a folder, each under a temporary name renamed
// into place when complete (package internal/atomicfile): on an error, or
// when ctx ends, neither is left (nor a folder Write made).
package semijoin
