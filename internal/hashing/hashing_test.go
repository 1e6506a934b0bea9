package hashing

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/spaolacci/murmur3"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
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

// TestSum8: the written-out 8-byte hash equals the library's on every key
// tried: the edges, a walk over every byte value in every position, and a
// million pseudo-random keys (seeds logged).
func TestSum8(t *testing.T) {
	testutil.SkipUnderRace(t)
	check := func(key []byte) {
		t.Helper()
		w1, w2 := murmur3.Sum128(key)
		g1, g2 := Sum(key)
		if g1 != w1 || g2 != w2 {
			t.Fatalf("Sum(%x) = %x %x, murmur3 %x %x", key, g1, g2, w1, w2)
		}
	}
	var k [8]byte
	for _, v := range []uint64{0, 1, math.MaxUint64, 1 << 63, 0x8000000000000000 ^ 3858241} {
		binary.LittleEndian.PutUint64(k[:], v)
		check(k[:])
	}
	for pos := range 8 {
		for b := range 256 {
			k = [8]byte{}
			k[pos] = byte(b)
			check(k[:])
		}
	}
	rng := testutil.Rand(testutil.Seed(t))
	for range 1_000_000 {
		binary.LittleEndian.PutUint64(k[:], rng.Uint64())
		check(k[:])
	}
}

// TestSum8Seed checks Sum8Seed against the library on edge and random
// keys and seeds (the seed is logged).
func TestSum8Seed(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(testutil.Seed(t))
	var k [8]byte
	seeds := []uint64{0, 1, 0x6b657973, math.MaxUint32, rng.Uint64() >> 32}
	for range 100_000 {
		v := rng.Uint64()
		if rng.IntN(8) == 0 {
			v = uint64(rng.IntN(300))
		}
		binary.LittleEndian.PutUint64(k[:], v)
		for _, s := range seeds {
			w1, w2 := murmur3.Sum128WithSeed(k[:], uint32(s))
			g1, g2 := Sum8Seed(v, uint32(s))
			if g1 != w1 || g2 != w2 {
				t.Fatalf("Sum8Seed(%x, %#x) = %x %x, murmur3 %x %x", v, s, g1, g2, w1, w2)
			}
		}
	}
}

// BenchmarkSum: the 8-byte path against the library on the same keys.
func BenchmarkSum(b *testing.B) {
	var k [8]byte
	var sink uint64
	b.Run("len=8/murmur3", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			binary.BigEndian.PutUint64(k[:], uint64(i))
			h1, h2 := murmur3.Sum128(k[:])
			sink += h1 ^ h2
		}
	})
	b.Run("len=8/Sum", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			binary.BigEndian.PutUint64(k[:], uint64(i))
			h1, h2 := Sum(k[:])
			sink += h1 ^ h2
		}
	})
	_ = sink
}

// TestSum256 checks Sum256 against murmur3 of the key and of the key
// followed by the byte 1, at every length to 70 bytes.
func TestSum256(t *testing.T) {
	key := make([]byte, 70)
	for n := range len(key) + 1 {
		for i := range key[:n] {
			key[i] = byte(i*131 + n*7 + 1)
		}
		h1, h2, h3, h4 := Sum256(key[:n])
		w1, w2 := murmur3.Sum128(key[:n])
		w3, w4 := murmur3.Sum128(append(append([]byte{}, key[:n]...), 1))
		if h1 != w1 || h2 != w2 || h3 != w3 || h4 != w4 {
			t.Fatalf("%d bytes: %x %x %x %x, want %x %x %x %x", n, h1, h2, h3, h4, w1, w2, w3, w4)
		}
	}
}
