// Package source is the input layer every engine reads through: it opens
// a side of a join (Open: CSV, TSV, gzip or zip, standard input, a pipe;
// a Parquet, Arrow or JSON lines table through package columnar, whose
// formats each implement columnar's backend), reads its header or schema,
// cuts it into parts for parallel readers (Scan: byte ranges of a regular
// CSV file proven at record boundaries; ScanTable: row groups or record
// batches), finds the key's columns (Side.KeySpec) and decides the key's
// types from the data (DecideTypes, OpenPair, DecideKeyTypes: key.Decide's
// rules; a text key side read once for it).
//
// join/local runs its phases on a Pair; beam decides its key types with
// DecideKeyTypes; the same rules of NULLs (key.Spec.IsNull), nested
// columns (Side.RefuseNested) and streams given twice (CheckSides) hold for
// all of them. A new input format is a backend in columnar plus its
// extension in columnar.FormatOf: nothing here changes.
//
// A Side is read by one engine at a time: Scan and ScanTable spread its
// parts over their own goroutines.
package source
