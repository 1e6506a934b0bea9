// Package ipstream generates the IP address stream of seed 003 (a course
// project's "Bloom filter and count-min sketch in Apache Spark"): a probe
// stream of IPv4 addresses with a Zipf popularity, and a stream of key events
// (inserts and deletes of addresses) for `join stream` in event mode
// (stream-spec.md). The seed wrote its addresses "without dots", so that
// 1.11.1.1 and 11.1.1.1 were the same text; here an address is a uint32 and is
// always printed dotted.
//
// # Domain
//
// The D addresses of the domain are Addr(0), ..., Addr(D-1): the ranks
// 0..D-1 put through a 4-round Feistel network on 32 bits (16-bit halves,
// round keys from the seed). A Feistel network is a bijection whatever its
// round function (Luby and Rackoff, 1988), so the D addresses are distinct,
// and Rank inverts it: an address is in the domain iff its rank is below D.
// Rank 0 is the most popular address.
//
// # Probe file (ProbeFile)
//
// A header "IP,SEQ", then Rows lines "a.b.c.d,SEQ" with LF line ends: SEQ is
// the row number, 1..Rows, and the address is Addr(k-1) for k drawn from
// Zipf(s) on 1..D, P(k) = k^-s / H(D, s), with H(D, s) = sum of j^-s for j
// = 1..D. The draws are our own finite-domain sampler (Zipf, below), for any
// s > 0, not math/rand/v2's Zipf, which needs s > 1.
//
// # Events file (EventsFile)
//
// The key-event format of `join stream`'s event mode: a header "IP,SINCE",
// then Events lines, each an insert "+a.b.c.d,SINCE", SINCE being the
// event's number 1..Events (the spec's 0-based idx is SINCE-1), or a delete
// "-a.b.c.d". The live set (the addresses inserted and not yet deleted; its
// keys are distinct) performs a random walk around Live: with live addresses
// live in it, the next event is an insert with probability
// clamp(0.5 + 0.5*(Live-live)/Live, 0.05, 0.95), else a delete; always an
// insert when the set is empty and a delete when it holds the whole domain.
// An insert takes an address uniformly among the domain's addresses that
// are not live; a delete a uniformly random live one. So a delete never names
// an address that is not live. The walk's drift is -(live-Live)/Live per
// event: from empty it reaches Live(1-e^(-t/Live)) after t events, and then
// stays within a few sqrt(Live/2) of Live (the stationary standard deviation
// of this AR(1) walk with unit steps).
//
// # Determinism and cost
//
// The domain's round keys, the probe draws and the event draws come from
// separate math/rand/v2 PCG streams of Seed: the same Options give
// byte-identical files on one architecture. (The sampler uses math.Log and
// math.Exp, which have assembly versions on amd64 and s390x that may differ
// from the pure Go ones in the last bit: across architectures a draw can,
// rarely, land on the neighbouring rank.) The
// probe file costs about 140 ns a row on one core (two thirds of it the Zipf
// draw's log1p and exp; then a Feistel, a table lookup per octet) through a
// 256 KiB buffer, without allocation per row;
// the events file O(Events) time and min(4*D, about 80*Events) bytes for the
// live set (see liveSet).
package ipstream
