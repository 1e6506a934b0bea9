package blocked

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func mustNew(t testing.TB, bits uint64, k int) *Filter {
	t.Helper()
	f, err := New(bits, k)
	if err != nil {
		t.Fatalf("New(%d, %d): %v", bits, k, err)
	}
	return f
}

func TestNewValidates(t *testing.T) {
	for _, tc := range []struct {
		bits     uint64
		k        int
		ok       bool
		wantBits uint64
	}{
		{0, 1, true, 512}, {1, 3, true, 512}, {512, 7, true, 512}, {513, 7, true, 1024},
		{10_000, MaxK, true, 10_240}, {MaxBits, 1, true, MaxBits},
		{MaxBits + 1, 3, false, 0}, {math.MaxUint64, 3, false, 0},
		{1000, 0, false, 0}, {1000, -1, false, 0}, {1000, MaxK + 1, false, 0},
	} {
		if tc.ok && tc.bits > 1<<30 {
			continue // valid, but not worth allocating 32 GiB in a test
		}
		f, err := New(tc.bits, tc.k)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrConfig)) {
			t.Errorf("New(%d, %d) = %v, want ok=%v", tc.bits, tc.k, err, tc.ok)
			continue
		}
		if err != nil {
			continue
		}
		if f.Bits() != tc.wantBits || f.K() != tc.k || f.Len() != 0 || f.MemoryBits() != tc.wantBits {
			t.Errorf("New(%d, %d): Bits %d, K %d, Len %d, MemoryBits %d; want %d, %d, 0, %d",
				tc.bits, tc.k, f.Bits(), f.K(), f.Len(), f.MemoryBits(), tc.wantBits, tc.k, tc.wantBits)
		}
	}
}

// TestAligned: every block of a new or decoded filter is one cache line, and
// alignedIn finds the line boundary from any word offset.
func TestAligned(t *testing.T) {
	for _, bits := range []uint64{512, 1024, 1536, 3584, 4608, 100_000, 1 << 20, 10_000_000} {
		f := mustNew(t, bits, 3)
		if !aligned(f.words) || f.padWords != 0 {
			t.Errorf("New(%d): words at %p, padding %d words; want 64-byte aligned, no padding", bits, &f.words[0], f.padWords)
		}
		data, _ := f.MarshalBinary()
		var g Filter
		if err := g.UnmarshalBinary(data); err != nil || !aligned(g.words) || cap(g.words) != len(g.words) {
			t.Errorf("decoded %d bits: %v, aligned %v, cap %d len %d", bits, err, aligned(g.words), cap(g.words), len(g.words))
		}
	}
	buf := make([]uint64, 64+wordsPerBlock-1+wordsPerBlock)
	for off := range wordsPerBlock {
		w, pad := alignedIn(buf[off:], 64)
		if !aligned(w) || len(w) != 64 || cap(w) != 64 || pad >= wordsPerBlock {
			t.Errorf("alignedIn(offset %d): aligned %v, len %d, cap %d, pad %d", off, aligned(w), len(w), cap(w), pad)
		}
	}
}

// naiveSplitmix is splitmix64's output function as Steele, Lea and Flood give
// it (mix64 of SplittableRandom), applied to h2 + j*γ.
func naiveSplitmix(h2 uint64, j int) uint64 {
	z := h2 + uint64(j)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// naivePositions is the probe scheme written from its description, with no
// bit tricks: the block is floor(h1 * blocks / 2^64) computed with big
// integers, and probe i is bits 9(i mod 7) .. 9(i mod 7)+8 of h2 (i < 7) or of
// the splitmix64 remix number i/7. It returns global bit indices.
func naivePositions(key []byte, k int, blocks uint64) []uint64 {
	h1, h2 := hashing.Sum(key)
	prod := new(big.Int).Mul(new(big.Int).SetUint64(h1), new(big.Int).SetUint64(blocks))
	block := prod.Rsh(prod, 64).Uint64()
	var out []uint64
	for i := range k {
		w := h2
		if i >= 7 {
			w = naiveSplitmix(h2, i/7)
		}
		pos := (w >> (9 * (i % 7))) % 512
		out = append(out, block*512+pos)
	}
	return out
}

// TestAgainstNaive fills a filter and a []bool reference, built from
// naivePositions, with the same random keys: the bits must be equal bit for
// bit, and Contains must answer as the reference does for members and
// non-members.
func TestAgainstNaive(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(testutil.Seed(t))
	for _, tc := range []struct {
		bits uint64
		k    int
		keys int
	}{{512, 1, 20}, {512, 7, 30}, {2048, 8, 50}, {5120, 14, 100}, {100_000, MaxK, 2000}, {100_000, 6, 10_000}} {
		t.Run(fmt.Sprintf("bits=%d/k=%d", tc.bits, tc.k), func(t *testing.T) {
			f := mustNew(t, tc.bits, tc.k)
			ref := make([]bool, f.Bits())
			key := make([]byte, 0, 16)
			for range tc.keys {
				key = key[:1+rng.IntN(16)] // lengths 1..16: Sum8's path and murmur3's
				for i := range key {
					key[i] = byte(rng.Uint32())
				}
				f.Add(key)
				for _, p := range naivePositions(key, tc.k, f.blocks) {
					ref[p] = true
				}
				if !f.Contains(key) {
					t.Fatalf("Contains(%x) = false right after Add", key)
				}
			}
			for p, want := range ref {
				if got := f.words[p/64]>>(p%64)&1 == 1; got != want {
					t.Fatalf("bit %d = %v, reference %v", p, got, want)
				}
			}
			for i := range 20_000 {
				q := testutil.Key(make([]byte, 8), 1<<50+uint64(i))
				want := true
				for _, p := range naivePositions(q, tc.k, f.blocks) {
					want = want && ref[p]
				}
				if got := f.Contains(q); got != want {
					t.Fatalf("Contains(%x) = %v, want %v", q, got, want)
				}
			}
		})
	}
}

func TestNoFalseNegatives(t *testing.T) {
	for _, k := range []int{1, 3, 6, 7, 8, 14, 15, MaxK} {
		t.Run(fmt.Sprintf("k=%d", k), func(t *testing.T) {
			keys := testutil.Keys(12345, 20_000)
			f := mustNew(t, 8*20_000, k)
			for _, key := range keys {
				f.Add(key)
			}
			f.Add([]byte{})
			f.Add([]byte("a longer key than eight bytes"))
			if f.Len() != uint64(len(keys))+2 {
				t.Errorf("Len = %d, want %d", f.Len(), len(keys)+2)
			}
			for _, key := range append(keys, []byte{}, []byte("a longer key than eight bytes")) {
				if !f.Contains(key) {
					t.Fatalf("Contains(%q) = false, want true (false negative)", key)
				}
			}
		})
	}
}

// chi2Quantile is the upper quantile of chi-square with df degrees of freedom
// at standard normal deviate z (Wilson and Hilferty 1931; within 0.1% for df
// in the hundreds).
func chi2Quantile(df, z float64) float64 {
	a := 2 / (9 * df)
	return df * math.Pow(1-a+z*math.Sqrt(a), 3)
}

func chi2(counts []float64, total float64) float64 {
	exp := total / float64(len(counts))
	s := 0.0
	for _, c := range counts {
		s += (c - exp) * (c - exp) / exp
	}
	return s
}

// TestProbeUniformity is a chi-square test of the probe scheme inside a block
// on a fixed key set (like internal/hashing's TestProbeUniformity): each of
// the MaxK probes over the 512 bits (511 df), and each pair of probes jointly
// over 16x16 cells of 32 bits (255 df; this is what the false positive model
// needs, and what would catch slices of one word that depend on each other,
// or a weak remix), and the block (16 blocks) against probes 0 and 7. 2^16
// keys put 128 or 256 samples in a cell. Each of the 138 statistics is
// compared with its 1 - 1e-4 quantile (z = 3.719): a uniform, pairwise
// independent scheme fails one with probability about 1.4%, and the key set
// is fixed, so the test is deterministic.
func TestProbeUniformity(t *testing.T) {
	testutil.SkipUnderRace(t)
	const keys = 1 << 16
	const z = 3.719
	pos := make([][]uint64, keys) // probe positions in the block
	blk := make([]uint64, keys)   // block out of 16
	for i, key := range testutil.Keys(0, keys) {
		for _, p := range naivePositions(key, MaxK, 16) {
			pos[i] = append(pos[i], p%512)
			blk[i] = p / 512
		}
	}
	for j := range MaxK {
		counts := make([]float64, 512)
		for i := range keys {
			counts[pos[i][j]]++
		}
		if c, q := chi2(counts, keys), chi2Quantile(511, z); c > q {
			t.Errorf("probe %d: chi-square over 512 bits = %.1f, want <= %.1f", j, c, q)
		}
	}
	for a := range MaxK {
		for b := a + 1; b < MaxK; b++ {
			counts := make([]float64, 256)
			for i := range keys {
				counts[pos[i][a]/32*16+pos[i][b]/32]++
			}
			if c, q := chi2(counts, keys), chi2Quantile(255, z); c > q {
				t.Errorf("probes %d and %d: chi-square over 16x16 cells = %.1f, want <= %.1f", a, b, c, q)
			}
		}
	}
	for _, j := range []int{0, 7} {
		counts := make([]float64, 256)
		for i := range keys {
			counts[blk[i]*16+pos[i][j]/32]++
		}
		if c, q := chi2(counts, keys), chi2Quantile(255, z); c > q {
			t.Errorf("block and probe %d: chi-square over 16x16 cells = %.1f, want <= %.1f", j, c, q)
		}
	}
}

// TestContainsBatch: ContainsBatch answers as Contains, for batches that are
// shorter than, equal to, one more than and many times the internal 64, with
// members, non-members and keys of other lengths mixed.
func TestContainsBatch(t *testing.T) {
	f := mustNew(t, 10*5000, 6)
	for _, key := range testutil.Keys(0, 5000) {
		f.Add(key)
	}
	f.Add([]byte("seven.."))
	var keys [][]byte
	for i := range 1000 {
		switch i % 4 {
		case 0:
			keys = append(keys, testutil.Key(make([]byte, 8), uint64(i*5)))
		case 1:
			keys = append(keys, testutil.Key(make([]byte, 8), 1<<40+uint64(i)))
		case 2:
			keys = append(keys, fmt.Appendf(nil, "k%d", i))
		default:
			keys = append(keys, []byte("seven.."))
		}
	}
	for _, size := range []int{1, 7, 64, 65, 1000} {
		t.Run(fmt.Sprintf("batch=%d", size), func(t *testing.T) {
			out := make([]bool, size+3)
			for i := range out {
				out[i] = true // ContainsBatch must write false too
			}
			for lo := 0; lo+size <= len(keys); lo += size {
				batch := keys[lo : lo+size]
				f.ContainsBatch(batch, out)
				for i, key := range batch {
					if want := f.Contains(key); out[i] != want {
						t.Fatalf("ContainsBatch: key %d (%q) = %v, Contains = %v", lo+i, key, out[i], want)
					}
				}
			}
			if !out[size] || !out[size+1] || !out[size+2] {
				t.Fatalf("ContainsBatch wrote past len(keys)")
			}
		})
	}
	f.ContainsBatch(nil, nil) // no keys, no work
}

func TestNoAlloc(t *testing.T) {
	f := mustNew(t, 100_000, MaxK)
	key := []byte("3858241")
	key8 := testutil.Key(make([]byte, 8), 3858241)
	keys := testutil.Keys(0, 200)
	out := make([]bool, len(keys))
	for name, fn := range map[string]func(){
		"Add":           func() { f.Add(key); f.Add(key8) },
		"Contains":      func() { f.Contains(key); f.Contains(key8) },
		"ContainsBatch": func() { f.ContainsBatch(keys, out) },
	} {
		if a := testing.AllocsPerRun(100, fn); a != 0 {
			t.Errorf("%s allocates %.1f times per call, want 0", name, a)
		}
	}
}

func TestEqual(t *testing.T) {
	a, b := mustNew(t, 4096, 5), mustNew(t, 4096, 5)
	if !a.Equal(b) {
		t.Fatal("two empty filters differ")
	}
	a.Add([]byte("x"))
	if a.Equal(b) {
		t.Fatal("Equal after Add on one side")
	}
	b.Add([]byte("x"))
	if !a.Equal(b) {
		t.Fatal("same Adds, not Equal")
	}
	var none *Filter
	if a.Equal(nil) || none.Equal(a) || !none.Equal(nil) {
		t.Error("Equal with a nil *Filter: want true only for nil and nil")
	}
	for _, other := range []*Filter{mustNew(t, 4608, 5), mustNew(t, 4096, 6)} {
		other.Add([]byte("x"))
		if a.Equal(other) || other.Equal(a) {
			t.Errorf("Equal across shapes %d/%d and %d/%d", a.Bits(), a.K(), other.Bits(), other.K())
		}
	}
}

// TestBuildWorkers: Build on 1, 2, 3 and 7 goroutines makes the filter New
// and an Add a key make, byte for byte: one block, a few, many; k within a
// probe word and beyond it; repeated keys.
func TestBuildWorkers(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	defer func(f func(int, uint64) int) { buildWorkers = f }(buildWorkers)
	for _, c := range []struct {
		bits uint64
		k, n int
	}{{512, 3, 20}, {512 * 5, 9, 400}, {512 * 1001, 16, 30_000}, {1 << 22, 7, 60_000}} {
		base := testutil.Keys(rng.Uint64(), uint64(c.n))
		keys := make([][]byte, c.n)
		for i := range keys {
			keys[i] = base[rng.IntN(c.n)]
		}
		want := mustNew(t, c.bits, c.k)
		for _, key := range keys {
			want.Add(key)
		}
		wantBytes, err := want.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{1, 2, 3, 7} {
			buildWorkers = func(int, uint64) int { return w }
			f, err := Build(c.bits, c.k, keys)
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !f.Equal(want) || string(got) != string(wantBytes) {
				t.Fatalf("bits=%d k=%d n=%d, %d goroutines: a filter other than the Adds'", c.bits, c.k, c.n, w)
			}
		}
	}
	if _, err := Build(512, 0, nil); !errors.Is(err, ErrConfig) {
		t.Errorf("Build(512, 0) = %v, want ErrConfig", err)
	}
}
