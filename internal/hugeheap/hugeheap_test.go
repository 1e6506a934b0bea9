package hugeheap

import (
	"strings"
	"testing"
)

const mib = 1 << 20

// TestPlan: the region is the bound in whole huge pages, only in the
// kernel's madvise mode, with the switch on, GODEBUG's disablethp off,
// no limit on the address space and no strict overcommit, and with free
// blocks known for twice the region; every refusal says why.
func TestPlan(t *testing.T) {
	ok := System{Mode: "always [madvise] never", Page: 2 * mib, Free: 1000, Overcommit: "0"}
	with := func(f func(*System)) System { s := ok; f(&s); return s }
	for _, c := range []struct {
		s     System
		limit int64
		want  int64
		why   string
	}{
		{ok, 64 * mib, 64 * mib, ""},
		{with(func(s *System) { s.Switch = "on" }), 65 * mib, 64 * mib, ""},
		{with(func(s *System) { s.Free = 64 }), 64 * mib, 64 * mib, ""}, // exactly twice
		{with(func(s *System) { s.Free = 63 }), 64 * mib, 0, "fewer than twice"},
		{with(func(s *System) { s.Free = -1 }), 64 * mib, 0, "unknown"},
		{ok, 7 * mib, 0, "under 4 huge pages"},
		{ok, 8 * mib, 8 * mib, ""},
		{with(func(s *System) { s.Page = 0 }), 64 * mib, 0, "huge page size"},
		{with(func(s *System) { s.Page = 1 << 30 }), 64 * mib, 0, "under 4 huge pages"},
		{with(func(s *System) { s.Mode = "[always] madvise never" }), 64 * mib, 0, "always"},
		{with(func(s *System) { s.Mode = "always madvise [never]" }), 64 * mib, 0, "never"},
		{with(func(s *System) { s.Mode = "" }), 64 * mib, 0, "no transparent huge pages"},
		{with(func(s *System) { s.Switch = "off" }), 64 * mib, 0, "ACBFJOIN_HUGEPAGES=off"},
		{with(func(s *System) { s.Switch = "yes" }), 64 * mib, 0, `"yes" is neither`},
		{with(func(s *System) { s.GODEBUG = "madvdontneed=1, disablethp=1" }), 64 * mib, 0, "disablethp"},
		{with(func(s *System) { s.GODEBUG = "disablethp=0" }), 64 * mib, 64 * mib, ""},
		{with(func(s *System) { s.Limited = true }), 64 * mib, 0, "ulimit"},
		{with(func(s *System) { s.Overcommit = "2" }), 64 * mib, 0, "overcommit"},
	} {
		got, why := Plan(c.s, c.limit)
		if got != c.want || (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
			t.Errorf("Plan(%+v, %d) = %d, %q; want %d, %q", c.s, c.limit, got, why, c.want, c.why)
		}
	}
}

// TestBlockOrder: the buddy order of a huge page over the base page.
func TestBlockOrder(t *testing.T) {
	for _, c := range []struct {
		page, small int64
		want        int
	}{{2 * mib, 4096, 9}, {1 << 30, 4096, 18}, {32 * mib, 16384, 11}, {4096, 4096, 0}, {3 * mib, 4096, -1}, {2048, 4096, -1}, {2 * mib, 0, -1}, {0, 4096, -1}} {
		if got := BlockOrder(c.page, c.small); got != c.want {
			t.Errorf("BlockOrder(%d, %d) = %d, want %d", c.page, c.small, got, c.want)
		}
	}
}

// TestFreeBlocks: a block of order o counts 2^(o-order) blocks of
// order, summed over zones; smaller blocks count nothing.
func TestFreeBlocks(t *testing.T) {
	text := `Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3
Node 0, zone    DMA32      1      2      4      2      5      4      3      3      4      2    752
Node 0, zone   Normal   5209   3613   3628   2968   4386   3048   1540    916    544    360    747
`
	// order 9: DMA 1 + 3*2, DMA32 2 + 752*2, Normal 360 + 747*2
	if got, want := FreeBlocks(text, 9), int64(1+6+2+1504+360+1494); got != want {
		t.Errorf("order 9: %d, want %d", got, want)
	}
	if got, want := FreeBlocks(text, 10), int64(3+752+747); got != want {
		t.Errorf("order 10: %d, want %d", got, want)
	}
	if got := FreeBlocks(text, 11); got != 0 {
		t.Errorf("order 11: %d, want 0", got)
	}
	if got := FreeBlocks("", 9); got != -1 {
		t.Errorf("no zones: %d, want -1", got)
	}
	if got := FreeBlocks("Node 0, zone Normal 1 2 x 4\n", 1); got != 2 {
		t.Errorf("a field that is no count ends the line: %d, want 2", got)
	}
}
