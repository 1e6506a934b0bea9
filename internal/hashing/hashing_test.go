package hashing

import (
	"encoding/binary"
	"math"
	"testing"
)

func TestReduceRange(t *testing.T) {
	for _, size := range []uint64{1, 2, 3, 7, 1000, 1 << 40, math.MaxUint64} {
		for _, x := range []uint64{0, 1, 1 << 63, math.MaxUint64, 0x9e3779b97f4a7c15} {
			if got := Reduce(x, size); got >= size {
				t.Errorf("Reduce(%d, %d) = %d, want < size", x, size, got)
			}
		}
	}
	if got := Reduce(math.MaxUint64, 10); got != 9 {
		t.Errorf("Reduce(max, 10) = %d, want 9", got)
	}
	if got := Reduce(0, 10); got != 0 {
		t.Errorf("Reduce(0, 10) = %d, want 0", got)
	}
}

func TestPositionsMatchProbe(t *testing.T) {
	key := []byte("3858241")
	h1, h2 := Sum(key)
	pos := Positions(nil, key, 7, 12345)
	for i, p := range pos {
		if want := Probe(h1, h2, i, 12345); p != want {
			t.Errorf("Positions[%d] = %d, want %d", i, p, want)
		}
	}
}

// TestProbeUniformity is a chi-square test of probe uniformity over 64 cells:
// 64*4096 probes; for 63 degrees of freedom the 99.9% quantile of chi-square is
// about 103.4, so a uniform scheme fails this fixed-input test essentially never.
func TestProbeUniformity(t *testing.T) {
	const cells = 64
	var counts [cells]float64
	var key [8]byte
	const keys = 4096 * 16
	for i := 0; i < keys; i++ {
		binary.LittleEndian.PutUint64(key[:], uint64(i))
		h1, h2 := Sum(key[:])
		for j := 0; j < 4; j++ {
			counts[Probe(h1, h2, j, cells)]++
		}
	}
	exp := float64(keys*4) / cells
	chi := 0.0
	for _, c := range counts {
		chi += (c - exp) * (c - exp) / exp
	}
	if chi > 103.4 {
		t.Errorf("chi-square over %d cells = %.1f, want <= 103.4 (99.9%% quantile, 63 df)", cells, chi)
	}
}

func TestPositionsNoAlloc(t *testing.T) {
	dst := make([]uint64, 0, 8)
	key := []byte("hello")
	if a := testing.AllocsPerRun(100, func() { dst = Positions(dst[:0], key, 8, 1000) }); a != 0 {
		t.Errorf("Positions allocates %.1f times per call, want 0", a)
	}
}
