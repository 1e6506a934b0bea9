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
//	fuse      a binary fuse filter (package fuse): static, the fewest bits a key, cannot delete
//
// # Sizing
//
// Every sized kind gets a memory budget: Sizing.BitsPerKey b bits a key
// (DefaultBitsPerKey), or instead the least memory whose formula false
// positive rate is at most Sizing.FPP. The kinds made of counters (bloom,
// cbf and the ACBFs) share the budget of a 4-bit CBF with m = b*n/4
// counters, 4m bits in all, and differ in how they use it (counterBudget):
// a Bloom filter of 4m bits, m counters, or the ACBF's first level and
// counters. k defaults to the optimum of each kind's own formula: round((m/n)
// ln 2) for the counting kinds, round((4m/n) ln 2) for the bloom kind, whose
// 4m bits are all one Bloom filter. The other kinds size themselves: cuckoo
// chooses the fingerprint, blocked its k by the blocked formula, scalable
// the error of its first sub-filter. A kind's own parameters are options it
// declares (Spec.Options; Sizing.Options by name: OptionK, OptionBucketSize,
// ...); an option no kind declares is refused by Sizing.Validate, and one
// the kinds of a command do not read (Spec.Uses) by the command line.
// Errors name the Sizing field or option (option.Error wrapping ErrSizing:
// "Sizing.BitsPerKey", "Sizing.bucket-size").
//
// # Parameters
//
// Size returns a kind's parameters (Params) in the kind's own type: nothing
// outside its file reads their fields. Every other package asks them three
// things: String spells them ("cuckoo(b=4,f=12,slots=69632)"), Shape says
// them in a few words, and Summary gives the numbers every kind states
// alike (the m, k, first level and memory bits of a comparison and of a
// filter file's header).
//
// # Adding a kind
//
// Write one file: its Kind constant, its params type (String, Shape,
// Summary), and a family (size, build, encode, decode, fpp, paramsOf; and
// as it can, fillFPP, fillSpread, estimateFPP, add and remove), registered
// with its Spec (name, Doc, Order, Sized, Deletes, Grows, Options) in an
// init function; and its tests. Nothing else lists kinds or their options:
// every command line gets a flag for each option (cli.SizingFlags), bank
// files record options by name, and join filter eval and plot test the
// kind against its formula with no further code.
//
// # Concurrency
//
// Specs are immutable. A Filter's Contains is safe for concurrent readers.
package filters
