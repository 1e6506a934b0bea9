// Package join is the plan of the Bloom-filtered reduce-side join of the ACBF
// paper (Li, Huang, Zhang and Qin 2013, Section 4.2): what to join and how,
// as plain data and functions, with no goroutines and no files. Executors run
// it: join/local on one machine, beam/ on Apache Beam.
//
// # The plan
//
// Options names the two sides (a small key file and a large file, CSV with a
// header), their join columns, how keys compare (KeyType: 8 big-endian bytes with the sign bit flipped,
// whose order is numeric order, or the raw bytes), the filter kind and its
// sizing (package filters), and the resources of a run. Resolve checks it and
// fills in defaults; its errors name the field (option.Error wrapping
// ErrOptions or filters.ErrSizing), which the command line maps to its flags.
//
// # The steps
//
// An executor calls the same steps whatever it runs on:
//
//   - MapKeyRow: a key-side row becomes a shuffle record tagged TagKeys,
//     keyed by its join key, carrying its other fields as CSV;
//   - MapInputRow: a large-side row's key is tested against the filter; a
//     survivor becomes a record tagged TagInput carrying the row as it is;
//   - Partition: the reduce partition of a key;
//   - JoinType.ForLarge (semantics.go), the one definition of each join
//     type: what a large-side row whose key met n key-side rows writes (its
//     pairs, itself alone, or padded), and KeepsUnmatchedKeys for key-side
//     rows no large row met; every engine asks them;
//   - AppendOutputRow and OutputHeader: the output, the large side's columns
//     then the key side's without the key.
//
// # Filter files and reports
//
// WriteFilter and ReadFilter are the filter file format (a filter with the
// key column, key type and fingerprint of the key set it was built for), and
// FilterFile.Check refuses one built for another join. Report is what a run
// measured, with its Settings.
package join
