// Package stream is the streaming join: a key side that changes (key
// events, "+row" inserts and "-key" deletes, or timed key rows that expire
// out of a window) against a probe side read once, front to back, in
// batches (docs/stream.md). The live keys are kept in a filter that
// deletes (the ACBF by default: filters.Spec.Deletes) beside an exact table
// of the live key rows; each probe batch is tested against the filter and
// only its survivors are looked up, so the filter's false positive rate is
// measured batch by batch against its formula (Report.BatchesBeyond4SD).
// Count-min sketches of the live keys and of each batch estimate a batch's
// output before it is joined.
//
// A probe row meets the rows live when its batch is probed; what a join
// type writes is join.JoinType.ForLarge, as in every engine (inner, semi,
// anti: a stream has no end at which a row is known to have no match to
// come, so left, right and full are refused). Keys follow the rules of
// every engine too: key.Decide's types, key.Spec.IsNull's NULLs.
//
// Cost: memory is the live key rows, their filter and sketches, and a few
// batches of rows, whatever the streams' length; two reader goroutines
// parse the sides ahead of the batch being joined and Options.Workers
// goroutines probe it. Run is safe to call concurrently on different
// options.
package stream
