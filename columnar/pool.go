package columnar

import (
	"math"
	"sync"
	"sync/atomic"
)

// The buffers of decoded Parquet columns, reused: a map phase decodes a
// row group's columns into new slices and drops them once the row group's
// survivors are written, and a join of the NBER twins (135 row groups of
// 122,880 rows) made about 300 MB of them, each zeroed by the allocator
// (memclr, 6% of the join's CPU), its pages faulted in, and collected.
// Column.Release gives a column's back; the reads take them again.
var (
	int64Pool   sync.Pool // *[]int64
	float64Pool sync.Pool // *[]float64
	int16Pool   sync.Pool // *[]int16: definition levels
	int32Pool   sync.Pool // *[]int32: an INT32 chunk's values before they widen
	intPool     sync.Pool // *[]int: a DELTA byte-array page's value offsets
	// *[]hybridRun: a hybridCursor's runs. A chunk's decoder made them
	// anew and grew them a page at a time: 22 ms of the flights join's
	// 420 of CPU (growslice under hybridCursor.scan; 3M rows, their
	// other columns read at the 12% that pass).
	hybridRunPool sync.Pool
)

// poison says Release fills what it gives back with a pattern (tests: a
// use after Release then reads garbage, and a join's output shows it).
var poison atomic.Bool

// PoisonReleased turns the filling of released buffers on or off; for
// tests of the packages that release columns (a column used after its
// Release reads garbage instead of the values it held).
func PoisonReleased(on bool) { poison.Store(on) }

// getSlice returns a slice of n elements from pool, of any content, or a
// new one. O(1); O(n) for a new one.
func getSlice[T any](pool *sync.Pool, n int) []T {
	if p, _ := pool.Get().(*[]T); p != nil {
		if cap(*p) >= n {
			return (*p)[:n]
		}
	}
	return make([]T, n)
}

// putSlice gives s back to pool.
func putSlice[T any](pool *sync.Pool, s []T) {
	if cap(s) == 0 {
		return
	}
	s = s[:0]
	pool.Put(&s)
}

// Release gives the column's values back for reuse by later reads, and
// leaves the column empty: a read of it after Release fails (an index out
// of range), it never sees another chunk's values. Only the int64 and
// float64 values a Parquet chunk was decoded into are given back; any
// other column is left as it is. Call it once nothing refers to the
// column's values any more; not safe for concurrent use with its readers.
// O(1) (O(n) with PoisonReleased).
func (c *Column) Release() {
	if c == nil || !c.pooled {
		return
	}
	c.pooled = false
	if c.ints != nil {
		ints := c.ints
		if c.intsBase != nil {
			ints = c.intsBase
		}
		if poison.Load() {
			fill(ints[:cap(ints)], math.MinInt64+12345)
		}
		putSlice(&int64Pool, ints)
		c.ints, c.intsBase = nil, nil
	}
	if c.floats != nil {
		if poison.Load() {
			fill(c.floats[:cap(c.floats)], math.NaN())
		}
		putSlice(&float64Pool, c.floats)
		c.floats = nil
	}
	c.n, c.valid = 0, nil
}

// fill sets every element of s to v.
func fill[T any](s []T, v T) {
	for i := range s {
		s[i] = v
	}
}

// ReleaseAll releases every column of cols (Column.Release).
func ReleaseAll(cols []*Column) {
	for _, c := range cols {
		c.Release()
	}
}
