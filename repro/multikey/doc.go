// Package multikey holds seed 001's experiments on its "multi-dimension
// Bloom filter" (package mdbf, one filter a key column) and their formulas,
// and compares that layout with one filter over the key's tuples (the
// composite layout a join uses by default): Sequential reproduces the
// seed's run, FreshFP measures both layouts on fresh tuples, Absent on the
// absent combinations of present values that a per-column filter cannot
// reject. `join multikey` prints them (docs/multikey.md).
//
// On random all-distinct values (the seed's) the two layouts are
// comparable: with each column at its optimal k the per-column layout of m
// bits a column ties the composite filter of the same total bits: (1 -
// e^(-k n/m))^(dk) with k = (m/n) ln 2 is 2^(-(m/n) d ln 2), the
// composite's rate at dm bits.
//
// # Formulas
//
// SeedFPP is the seed's formula: a column of m bits holding n values with k
// hashes has a given bit set with probability 1 - (1 - 1/m)^(kn) (Bloom
// 1970's standard approximation, treating the bits as independent), and a
// tuple of d absent values passes when its dk probes all hit ones. Bose et
// al. ("On the false-positive rate of Bloom filters", IPL 2008) show the
// formula is a slight underestimate for small filters; at the sizes here
// (m >= 10^5) the difference is far below the measurements' noise.
// ExpectedSequential is the expectation of the seed's experiment, which
// tests each triple before inserting it (element i meets a filter of i
// elements); CompositeFPP is one filter over the tuples.
//
// # Concurrency
//
// The experiments run on every core (GOMAXPROCS) and give the same result
// for a seed whatever the number of cores.
package multikey
