// Package filters is the registry of the filter kinds a join can broadcast:
// one Spec per kind, each in its own file, and everything that lists, sizes,
// builds, ships or decodes a filter goes through it (Lookup, Build, Decode).
// It is modelled on pebble's table filter policies: one policy and decoder
// per family, looked up by name.
//
// # Kinds
//
//	none      every key passes (no filter)
//	exact     the set of keys: a semi-join, no false positives
//	bloom     a plain Bloom filter (bits-and-blooms/bloom/v3), cannot delete
//	cbf       a counting Bloom filter of 4-bit counters (package cbf)
//	acbf      the ACBF with the optimal first level (package acbf)
//	acbf1, acbf2, acbf3   the paper's ACBF_j, a first level of j*m bits
//	cuckoo    a cuckoo filter (package cuckoo): deletes, fewer bits a key at low FP
//	scalable  a scalable Bloom filter (package scalable): built without a key count, cannot delete
//	blocked   a cache-line blocked Bloom filter (package blocked): one cache miss a query
//
// # Sizing
//
// Every sized kind gets a memory budget: Sizing.BitsPerKey b bits a key
// (DefaultBitsPerKey), or instead the least memory whose formula false
// positive rate is at most Sizing.FPP. The kinds made of counters (bloom,
// cbf and the ACBFs) share the budget of a 4-bit CBF with m = b*n/4
// counters, 4m bits in all, and differ in how they use it (Spec.Layout): a
// Bloom filter of 4m bits, m counters, or the ACBF's first level and
// counters. k defaults to the optimum of each kind's own formula: round((m/n)
// ln 2) for the counting kinds, round((4m/n) ln 2) for the bloom kind, whose
// 4m bits are all one Bloom filter (Spec.DefaultK). The other kinds size
// themselves (Spec.SizeFor): cuckoo chooses the fingerprint, blocked its k by
// the blocked formula, scalable the error of its first sub-filter. A Sizing
// field a kind does not read (Spec.Fields) is an error at the command line.
// Errors name the Sizing field (option.Error wrapping ErrSizing).
//
// # Adding a kind
//
// Write one file with a Spec (its name, whether it deletes, its sizing by
// Layout and CountersFor or by SizeFor, Build, Add and Remove, Encode and
// Decode, the formula FPP and the FillFPP of a built filter) registered in an
// init function, and its tests; nothing else lists kinds. join filter eval
// and plot test it against its formula with no further code.
//
// # Concurrency
//
// Specs are immutable. A Filter's Contains is safe for concurrent readers.
package filters
