package join

// The one definition of each join type: what it writes for a large-side
// row, whatever the engine (join/local's reducer and map phase, join/stream's
// probe, beam's reduce and filtered map all ask ForLarge and
// KeepsUnmatchedKeys, and do only the mechanics: where the rows are, how an
// output row is formed). As DataFusion keeps one JoinType with its rules
// (datafusion/common/src/join_type.rs) for every join operator.
//
// The cases every engine meets, and the answer each gets here:
//   - a large-side row whose key met n >= 1 key-side rows: ForLarge(n);
//   - one that met none, one of a NULL key, and one the filter rejected
//     (certainly unmatched: written without the shuffle): ForLarge(0);
//   - a key-side row no large-side row met, and one of a NULL key:
//     written, with the large side's columns empty but its join columns,
//     which hold the key (SQL's USING), when KeepsUnmatchedKeys;
//   - duplicates: ForLarge's pairs are every pair; alone is once a row.
// docs/join-types.md is the same table for people.

// JoinType is the kind of join (Options.JoinType).
type JoinType string

const (
	JoinInner JoinType = "inner"
	JoinSemi  JoinType = "semi"
	JoinAnti  JoinType = "anti"
	JoinLeft  JoinType = "left"
	JoinRight JoinType = "right"
	JoinFull  JoinType = "full"
)

// JoinTypes are the join types, in the order help lists them.
var JoinTypes = []JoinType{JoinInner, JoinSemi, JoinAnti, JoinLeft, JoinRight, JoinFull}

// LargeRows says which output rows a large-side row makes (ForLarge): a
// set of the Write bits.
type LargeRows uint8

const (
	// WritePairs: the row joined with each key-side row of its key (none
	// when it met none).
	WritePairs LargeRows = 1 << iota
	// WriteAlone: the row once, with its own columns only (semi with a
	// match, anti without one).
	WriteAlone
	// WritePadded: the row once, with the key side's columns empty (left
	// and full without a match: KeyPadding).
	WritePadded
)

// ForLarge is what the join type writes for a large-side row whose key met
// n key-side rows (0: none, a NULL key, or rejected by the filter). O(1).
func (t JoinType) ForLarge(n int) LargeRows {
	switch {
	case t == JoinSemi && n > 0, t == JoinAnti && n == 0:
		return WriteAlone
	case t == JoinSemi, t == JoinAnti:
		return 0
	case n == 0 && (t == JoinLeft || t == JoinFull):
		return WritePadded
	}
	return WritePairs
}

// LargeOnly reports whether the output has the large side's columns only
// (semi, anti).
func (t JoinType) LargeOnly() bool { return t == JoinSemi || t == JoinAnti }

// KeepsUnmatchedLarge reports whether a large-side row without a match is
// written (ForLarge(0) writes it alone or padded: anti, left, full): a row
// the filter rejects goes straight to the output.
func (t JoinType) KeepsUnmatchedLarge() bool { return t.ForLarge(0)&(WriteAlone|WritePadded) != 0 }

// KeepsUnmatchedKeys reports whether a key-side row without a match (or of
// a NULL key) is written, with its large-side padding (right, full).
func (t JoinType) KeepsUnmatchedKeys() bool { return t == JoinRight || t == JoinFull }
