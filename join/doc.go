// Package join is the Bloom-filtered reduce-side join of the ACBF paper
// (Li, Huang, Zhang and Qin 2013, Section 4.2), run in one process with real
// byte-level accounting of what a cluster would ship.
//
// # Steps
//
//  1. Build: the key file (small side) is read in line-aligned ranges, one
//     goroutine each; every goroutine keeps the distinct keys of its ranges in
//     a local hash table and ships its key-side rows, tagged TagKeys, to the
//     shuffle. The tables merge by union into the global key set (n distinct
//     keys) and BuildFilter builds the filter from it.
//  2. Broadcast: the filter is serialized (Built.Marshal: the filter's WriteTo
//     format) and every map goroutine decodes its own copy (Unmarshal).
//  3. Map: the large file is cut into 4 ranges per map goroutine; each row's
//     join key is tested (MapInputRow); survivors, tagged TagInput, go to the
//     partition Partition(key) of the shuffle.
//  4. Shuffle: package shuffle buffers Arrow record batches per partition under
//     a memory budget, spills to IPC files, and measures the IPC bytes.
//  5. Reduce: per partition, the key-side rows are indexed by key and every
//     large-side row is joined against them (JoinRow): the cross product per
//     key, so duplicate keys on either side join correctly. A large-side row
//     with no partner is a false positive of the filter and is counted. With
//     Sort, the rows go through an external merge sort (sorted runs on disk
//     when its buffers fill, merged at the end).
//
// # Memory
//
// Options.MemBudget bounds the shuffle's Arrow memory (its batches being
// built, buffered and recycled; Report.ShufflePeakBytes) and, with Sort, a
// quarter of it bounds the sort's buffers and run readers. Beyond the budget
// Run holds the key side twice over (the key set for the filter in the build,
// the key-side rows of the partitions being reduced), a 1 MiB output buffer
// and 256 KiB per reducer.
//
// MapKeyRow, MapInputRow, Partition and JoinRow are plain functions over
// records; Run is the local executor (goroutines, ranges, shuffle, output) and
// another executor can call the same steps.
//
// # Keys and output
//
// Keys compare as integers by default (IntKey: 8 bytes whose order is numeric
// order) or as bytes. The output is the large side's columns, then the key
// side's columns without the key: the large-side row as it is in its file,
// then the key-side fields re-encoded as CSV (quoted only where needed). With
// Sort the rows are ordered by key, then by the large-side row's position in
// its file, then the key-side row's, so outputs of any mapper and reducer
// counts compare byte for byte; without it, order depends on scheduling.
//
// # Measures
//
// The Report counts map outputs, false positives (measured FP = false
// positive rows / large-side rows whose key is not a key), shuffle records and
// Arrow IPC bytes, and estimates the bytes a run without a filter would
// shuffle by adding the dropped rows at their Arrow body size (the compare
// command's none row gives the exact figure).
//
// # Concurrency and cleanup
//
// Run is safe to call concurrently with different outputs. It stops at the
// first error or when ctx is cancelled (every loop looks at ctx at least every
// few milliseconds of work); the shuffle's spill folder and the sort's run
// folder are removed in every case.
package join
