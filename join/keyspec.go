package join

// Layout says how the filter of a composite key is made.
type Layout string

const (
	// LayoutComposite is one filter over the key tuples (the default).
	LayoutComposite Layout = "composite"
	// LayoutPerColumn is seed 001's design (package mdbf): one filter per key
	// column over that column's distinct values; a row passes when every
	// column's filter passes its value. It accepts a tuple whose values each
	// occur in some key but not together: for comparison, not for speed.
	LayoutPerColumn Layout = "per-column"
)
