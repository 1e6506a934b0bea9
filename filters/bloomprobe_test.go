package filters

import (
	"fmt"
	"testing"

	"github.com/acbfjoin/acbfjoin/keylist"
	"github.com/bits-and-blooms/bloom/v3"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestFastMod checks fastMod against % on edge and random numerators and
// divisors.
func TestFastMod(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	ds := []uint64{1, 2, 3, 7, 63, 64, 65, 1 << 32, 1<<32 + 1, 1<<63 - 1, 1 << 63, 1<<63 + 1, ^uint64(0) - 1, ^uint64(0)}
	for range 200 {
		ds = append(ds, rng.Uint64()>>(rng.Uint64()%64)|1, rng.Uint64()>>(rng.Uint64()%64)+1)
	}
	for _, d := range ds {
		if d == 0 {
			continue
		}
		mh, ml := fastModInverse(d)
		as := []uint64{0, 1, d - 1, d, d + 1, 2*d - 1, ^uint64(0), ^uint64(0) - 1, ^uint64(0) / d * d}
		for range 200 {
			as = append(as, rng.Uint64(), rng.Uint64()>>(rng.Uint64()%64))
		}
		for _, a := range as {
			if got, want := fastMod(a, d, mh, ml), a%d; got != want {
				t.Fatalf("fastMod(%d, %d) = %d, want %d", a, d, got, want)
			}
		}
	}
}

// TestBloomProbeMatches checks bloomProbe against the library: the
// locations of keys of every length up to 80 bytes, and Test on members and
// non-members of filters of several sizes (m not a power of two).
func TestBloomProbeMatches(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(testutil.Seed(t))
	key := make([]byte, 80)
	for n := range len(key) + 1 {
		for range 20 {
			for i := range key[:n] {
				key[i] = byte(rng.Uint64())
			}
			h := bloomHashes(key[:n])
			for i, l := range bloom.Locations(key[:n], 12) {
				if got := bloomLocation(&h, uint64(i)); got != l {
					t.Fatalf("key of %d bytes %x: location %d = %d, library %d", n, key[:n], i, got, l)
				}
			}
		}
	}
	for _, m := range []uint{1, 63, 1000, 4099, 1 << 16} {
		for _, k := range []uint{1, 3, 7} {
			f := bloom.New(m, k)
			ours := bloom.New(m, k)
			p := newBloomProbe(ours)
			for i := range 200 {
				f.Add(testutil.Key(key[:8], uint64(i)))
				p.add(testutil.Key(key[:8], uint64(i)))
				p.add([]byte(fmt.Sprint(i, "key of some length")))
				f.Add([]byte(fmt.Sprint(i, "key of some length")))
			}
			if !f.Equal(ours) {
				t.Fatalf("m %d, k %d: the bits added differ from the library's", m, k)
			}
			for i := range 5000 {
				k := key[:1+i%40]
				for j := range k {
					k[j] = byte(rng.Uint64())
				}
				if i%3 == 0 {
					k = testutil.Key(key[:8], uint64(i%400))
				}
				if got, want := p.contains(k), f.Test(k); got != want {
					t.Fatalf("m %d, k %d, key %x: %v, library %v", m, k, k, got, want)
				}
			}
		}
	}
}

// FuzzBloomProbe checks bloomProbe against the library's Test on any key,
// filter size and number of probes.
func FuzzBloomProbe(f *testing.F) {
	f.Add([]byte("abc"), uint16(1000), uint8(7))
	f.Add([]byte{}, uint16(1), uint8(1))
	f.Add(make([]byte, 15), uint16(64), uint8(3))
	f.Fuzz(func(t *testing.T, key []byte, m uint16, k uint8) {
		bf := bloom.New(uint(m)+1, uint(k%16)+1)
		bf.Add(key[:len(key)/2])
		bf.Add([]byte("x"))
		ours := bloom.New(uint(m)+1, uint(k%16)+1)
		p := newBloomProbe(ours)
		p.add(key[:len(key)/2])
		p.add([]byte("x"))
		if !bf.Equal(ours) {
			t.Fatalf("m %d, k %d, key %x: the bits added differ from the library's", m, k, key)
		}
		for _, q := range [][]byte{key, key[:len(key)/2], []byte("x")} {
			if got, want := p.contains(q), bf.Test(q); got != want {
				t.Fatalf("m %d, k %d, key %x: %v, library %v", m, k, q, got, want)
			}
		}
	})
}

// TestBatchesMatch checks ContainsAllBatch against ContainsAll, and the
// Bloom kind's ContainsBatch against Contains, on every kind: members,
// non-members and batches of every length around the block size.
func TestBatchesMatch(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	for _, spec := range Kinds() {
		if !spec.Sized {
			continue
		}
		var fs []Filter
		for c := range 3 {
			keys := make([][]byte, 300*(c+1))
			for i := range keys {
				keys[i] = testutil.Key(make([]byte, 8), uint64(c*10000+i))
			}
			b, err := Build(spec.Kind, keys, Sizing{BitsPerKey: 16})
			if err != nil {
				t.Fatalf("%s: %v", spec.Kind, err)
			}
			fs = append(fs, b.Filter)
		}
		m := NewMulti(fs)
		for _, n := range []int{0, 1, 255, 256, 257, 1000} {
			keys := make([][]byte, n)
			for i := range keys {
				if i%2 == 0 {
					keys[i] = testutil.Key(make([]byte, 8), uint64(rng.IntN(3)*10000+rng.IntN(900)))
				} else {
					keys[i] = []byte(fmt.Sprint("k", rng.Uint64()))
				}
			}
			outs := make([]bool, n*len(fs))
			m.ContainsAllBatch(keys, outs)
			one := make([]bool, len(fs))
			for i, k := range keys {
				m.ContainsAll(k, one)
				for j := range fs {
					if outs[i*len(fs)+j] != one[j] || one[j] != fs[j].Contains(k) {
						t.Fatalf("%s, %d keys: key %d filter %d: batch %v, ContainsAll %v, Contains %v", spec.Kind, n, i, j, outs[i*len(fs)+j], one[j], fs[j].Contains(k))
					}
				}
			}
			if bf, ok := fs[0].(BatchFilter); ok {
				out := make([]bool, n)
				bf.ContainsBatch(keys, out)
				for i, k := range keys {
					if out[i] != fs[0].Contains(k) {
						t.Fatalf("%s: ContainsBatch of key %d = %v, Contains %v", spec.Kind, i, out[i], !out[i])
					}
				}
			}
		}
	}
}

// TestBloomAddAll: addAll on 1 to 7 goroutines sets the bits the library's
// Add sets key by key, byte for byte in the encoded filter: sizes of one
// word, an odd count of words and many, k from 1 to 22; and through
// parbuild.Scatter (several parts, several rounds).
func TestBloomAddAll(t *testing.T) {
	defer func(f func(int) int, sc func(int, uint64) bool) { buildWorkers, scatters = f, sc }(buildWorkers, scatters)
	cases := []struct {
		m uint
		k uint
		n uint64
	}{{64, 3, 10}, {1000, 7, 300}, {64 * 1001, 22, 5000}, {1 << 20, 4, 50_000}, {5<<21 + 320, 6, 400_000}}
	if testutil.Race {
		cases = cases[:len(cases)-1]
	}
	for _, c := range cases {
		scatter := c.m >= 1<<21
		scatters = func(int, uint64) bool { return scatter }
		keys := testutil.Keys(uint64(c.m), c.n)
		want := bloom.New(c.m, c.k)
		for _, key := range keys {
			want.Add(key)
		}
		wantBytes, err := want.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{1, 2, 3, 7} {
			buildWorkers = func(int) int { return w }
			f := newBloomFilter(bloom.New(c.m, c.k))
			f.p.addAll(keylist.Of(keys))
			got, err := f.f.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(wantBytes) {
				t.Fatalf("m=%d k=%d n=%d, %d goroutines: bits other than Add's", c.m, c.k, c.n, w)
			}
		}
	}
}
