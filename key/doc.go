// Package key is what a join key is, below every package that joins or
// files keys (join, bank, mdbf, the stream, beam): the key types (Int,
// String), the column lists of a key and how they are written (SplitColumns,
// JoinColumns, Canonical), a side's key spec (Spec: the key columns'
// positions, names and types) and the bytes a row's key is (Spec.Append,
// Of): an integer as 8 bytes whose byte order is numeric order, a string
// as its bytes, a composite key as a tuple (package tuple). Functions, no
// state; safe for concurrent use.
package key
