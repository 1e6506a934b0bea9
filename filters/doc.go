// Package filters is the registry of the filter kinds a join can broadcast:
// one Spec per kind, each in its own file, and everything that lists, sizes,
// builds, ships or decodes a filter goes through it (Lookup, Build, Decode).
// It is modelled on pebble's table filter policies: one policy and decoder
// per family, looked up by name.
//
// # Kinds
//
//	none   every key passes (no filter)
//	exact  the set of keys: a semi-join, no false positives
//	bloom  a plain Bloom filter (bits-and-blooms/bloom/v3), cannot delete
//	cbf    a counting Bloom filter of 4-bit counters (package cbf)
//	acbf   the ACBF with the optimal first level (package acbf)
//	acbf1, acbf2, acbf3   the paper's ACBF_j, a first level of j*m bits
//
// # Sizing
//
// Every sized kind gets the memory of a 4-bit CBF with m counters: with
// Sizing.BitsPerKey b and n keys, m = b*n/4 counters, 4m bits in all
// (Sizing.FPP instead sizes the kind for a formula false positive rate). The
// kinds differ in how they use the 4m bits (Spec.Layout): a Bloom filter of
// 4m bits, m counters, or the ACBF's first level and counters. k defaults to
// round((m/n) ln 2), the same for every kind. Errors name the Sizing field
// (option.Error wrapping ErrSizing).
//
// # Adding a kind
//
// Write one file with a Spec (its name, whether it deletes, its Layout,
// CountersFor, Build, Decode and formula FPP) registered in an init function,
// and its tests; nothing else lists kinds.
//
// # Concurrency
//
// Specs are immutable. A Filter's Contains is safe for concurrent readers.
package filters
