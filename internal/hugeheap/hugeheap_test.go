package hugeheap

import (
	"strings"
	"testing"
)

const mib = 1 << 20

// TestPlan: the region is the bound in whole huge pages, only in the
// kernel's madvise mode, with the switch on, and with free blocks for
// twice the region; every refusal says why.
func TestPlan(t *testing.T) {
	for _, c := range []struct {
		env, mode         string
		page, free, limit int64
		want              int64
		why               string
	}{
		{"", "always [madvise] never", 2 * mib, 1000, 64 * mib, 64 * mib, ""},
		{"on", "always [madvise] never", 2 * mib, -1, 65 * mib, 64 * mib, ""}, // free unknown: asked anyway
		{"", "always [madvise] never", 2 * mib, 64, 64 * mib, 64 * mib, ""},   // exactly twice
		{"", "always [madvise] never", 2 * mib, 63, 64 * mib, 0, "fewer than twice"},
		{"", "always [madvise] never", 2 * mib, 1000, 7 * mib, 0, "under 4 huge pages"},
		{"", "always [madvise] never", 2 * mib, 1000, 8 * mib, 8 * mib, ""},
		{"", "always [madvise] never", 0, 1000, 64 * mib, 0, "huge page size"},
		{"", "[always] madvise never", 2 * mib, 1000, 64 * mib, 0, "always"},
		{"", "always madvise [never]", 2 * mib, 1000, 64 * mib, 0, "never"},
		{"", "", 2 * mib, 1000, 64 * mib, 0, "no transparent huge pages"},
		{"off", "always [madvise] never", 2 * mib, 1000, 64 * mib, 0, "ACBFJOIN_HUGEPAGES=off"},
		{"yes", "always [madvise] never", 2 * mib, 1000, 64 * mib, 0, `"yes" is neither`},
		{"", "always [madvise] never", 1 << 30, 1000, 64 * mib, 0, "under 4 huge pages"}, // 1 GiB pages
	} {
		got, why := Plan(c.env, c.mode, c.page, c.free, c.limit)
		if got != c.want || (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
			t.Errorf("Plan(%q, %q, %d, %d, %d) = %d, %q; want %d, %q", c.env, c.mode, c.page, c.free, c.limit, got, why, c.want, c.why)
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
