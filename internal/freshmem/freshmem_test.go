package freshmem

import "testing"

// TestTable: the length asked for, every element zero, a slice of its own.
func TestTable(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 1 << 20} {
		a, b := Table[uint64](n), Table[uint64](n)
		if len(a) != n || cap(a) != n {
			t.Fatalf("n %d: len %d cap %d", n, len(a), cap(a))
		}
		for i, v := range a {
			if v != 0 {
				t.Fatalf("n %d: element %d is %d", n, i, v)
			}
		}
		if n > 0 {
			a[n-1] = 7
			if b[n-1] != 0 {
				t.Fatalf("n %d: two tables share memory", n)
			}
		}
	}
	type slot struct {
		k      uint64
		lo, hi int32
	}
	if s := Table[slot](3); len(s) != 3 || s[2] != (slot{}) {
		t.Fatalf("struct table %v", s)
	}
}
