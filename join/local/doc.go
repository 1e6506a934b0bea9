// Package local runs a join plan (join.Options) on one machine: goroutines
// for the mappers and reducers, an Arrow shuffle between them with a memory
// budget and spill files, and a Sink for the output.
//
// # Phases
//
// Run is a short sequence of phase operators, each a method in its own file
// that returns its typed stats, from which the Report is assembled
// (report.go):
//
//  1. build (build.go): the key file is read in parts, one goroutine per
//     mapper; each keeps the distinct keys of its parts in a local hash table
//     and ships its key-side rows (join.MapKeyRow) to the shuffle; the tables
//     merge by union into the key set, and the filter is built from it
//     (filters.Build) or read from a filter file and checked against it.
//  2. broadcast (broadcast.go): the filter is serialized once and every
//     mapper decodes its own copy (as many as fit in MaxBroadcastBytes).
//  3. map (mapper.go): the large file is read in parts (4 per mapper for a
//     regular file); each row's join key is tested (join.MapInputRow) and the
//     survivors go to their partition (join.Partition) of the shuffle.
//  4. shuffle (package shuffle): Arrow record batches per partition under the
//     memory budget, spilled to IPC files beyond it; sealing counts the IPC
//     bytes.
//  5. reduce (reduce.go): per partition, the key-side rows are indexed by key
//     (keytable.go) and every large-side row is joined against them
//     (join.JoinType.ForLarge): the cross product per key, so duplicate keys on either
//     side join correctly. A large-side row with no partner is a false
//     positive of the filter and is counted. Each reducer writes its rows
//     (join.AppendOutputRow) through its own RowWriter of the sink.
//  6. finish (finish.go): with Sort, the external merge sort's runs are
//     merged into the sink; the sink completes the output.
//
// # Sinks
//
// NewCSV and NewParquet write the output; with Options.Sort, Run puts the
// external sort of internal/extsort in front of the sink (sorted.go), which
// orders rows by key, then the large-side row's position in its file, then
// the key-side row's: outputs of any mapper and reducer counts compare byte
// for byte. Without it, the order depends on scheduling.
//
// # Memory
//
// Options.MemBudget bounds the shuffle's Arrow memory (its batches being
// built, buffered and recycled; Report.ShufflePeakBytes), but for the
// excess shuffle.PeakBound states (a record that outgrows a builder's
// share of the budget; with one mapper, the reduce's reads of spilled
// batches) and, with Sort, a
// quarter of it bounds the sort's buffers and run readers. Beyond the budget
// Run holds the key side twice over (the key set for the filter, the
// key-side rows of the partitions being reduced), the filter copies, a 1 MiB
// output buffer and 256 KiB per reducer.
//
// # Concurrency and cleanup
//
// Run is safe to call concurrently with different sinks. It stops at the
// first error or when ctx is cancelled (every loop looks at ctx at least every
// few milliseconds of work); the shuffle's spill folder and the sort's run
// folder are removed in every case.
package local
