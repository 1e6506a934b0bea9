// Package topk reports the heavy hitters of a stream: the k keys with the
// largest total counts, with an estimate of each count, in memory that does
// not grow with the number of distinct keys.
//
// Two summaries with the same methods (the Summary interface) are provided,
// so that a caller, and bench/peers/topk, can compare them at equal memory:
//
//   - TopK is HeavyKeeper (Gong, Tian, Yang, Li, Uhlig, Fang, Zhou and Gong,
//     "HeavyKeeper: An Accurate Algorithm for Finding Top-k Elephant Flows",
//     USENIX ATC 2018; Yang, Gong, Tian et al., IEEE/ACM Transactions on
//     Networking 27(5), 2019): d arrays of w buckets, each bucket a key
//     fingerprint and a count. A key that finds its fingerprint increments the
//     count; a key that finds another fingerprint decays that count by one with
//     probability b^-C (count-with-exponential-decay, b = 1.08 by default), and
//     takes the bucket over when the count reaches zero. Mice rarely hold a
//     bucket, elephants almost never lose theirs. A min-heap keeps the k keys
//     with the largest estimates. Estimates never exceed the true counts
//     (except after a 24-bit fingerprint collision, probability 2^-24 per
//     arrival in a bucket held by another key).
//   - CMSHeap is the classic count-min sketch plus heap (Cormode and
//     Muthukrishnan, "An Improved Data Stream Summary: The Count-Min Sketch and
//     its Applications", Journal of Algorithms 55(1), 2005, Sec. 5.1 "heavy
//     hitters"): every key increments one counter in each of d rows of w
//     counters, its estimate is the minimum of its d counters, and the heap
//     keeps the k keys with the largest estimates. Estimates never fall below
//     the true counts; the excess is at most e*N/w with probability
//     1 - e^-d (N the total count; Theorem 1 of the paper).
//
// # Which to use
//
// At equal memory HeavyKeeper is the more accurate of the two on skewed
// streams: a count-min counter carries the whole mass of the mice that hash
// to it, a HeavyKeeper bucket only the net survivors of the decay. CMSHeap's
// advantage is Merge: summing two count-min sketches gives exactly the sketch
// of the concatenated stream, whereas a HeavyKeeper merge is an
// approximation (see TopK.Merge). The numbers are in bench/peers/topk.
//
// # Keys
//
// Keys are compared as bytes. A key longer than MaxKeyLen (1 KiB) is
// truncated to its first MaxKeyLen bytes, for counting and in the report:
// two long keys with the same first KiB count as one. Add copies the key
// when it enters the heap; the caller may reuse its buffer.
//
// # Concurrency
//
// Neither summary is safe for concurrent use with a writer. Top, Count,
// MemoryBytes, Equal and the encoders only read and may run concurrently
// with each other; Add, Merge, ReadFrom and UnmarshalBinary need exclusive
// access (HeavyKeeper's Add also advances its random generator). For a
// parallel build, fill one CMSHeap per goroutine and Merge them.
package topk
