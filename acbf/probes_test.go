package acbf

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/acbfjoin/acbfjoin/key"
)

// TestBatchesMatchContains: ContainsBatch and ContainsInts answer as
// Contains for every k from 1 (laterProbes' early return) and 2 (probe 1
// its last) up, on filters from a few bits (nearly every first-level bit
// set, so that most keys reach the later probes) to sparse ones, in blocks
// of every length around batchBlock, whatever out held before.
func TestBatchesMatchContains(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	passed := 0
	for _, k := range []int{1, 2, 3, 6, 16, 30} {
		for _, m := range []uint64{16, 100, 1000, 100000} {
			for _, n := range []uint64{0, 1, 50, 1000} {
				n = min(n, 3*m/uint64(k))
				f, err := New(Config{Counters: m, Capacity: max(n, 1), K: k})
				if err != nil {
					t.Fatalf("k %d m %d n %d: %v", k, m, n, err)
				}
				for range n {
					var b [8]byte
					binary.BigEndian.PutUint64(b[:], rng.Uint64())
					if err := f.Add(b[:]); err != nil {
						t.Fatal(err)
					}
				}
				for _, nk := range []int{0, 1, 63, 64, 65, 129, 1000} {
					keys, vals := make([][]byte, nk), make([]int64, nk)
					for i := range keys {
						v := int64(rng.Uint64() >> uint(rng.IntN(64)))
						if rng.IntN(2) == 0 {
							v = -v
						}
						vals[i] = v
						keys[i] = make([]byte, 8)
						key.PutInt(keys[i], v)
					}
					out := make([]bool, nk+3)
					for i := range out {
						out[i] = rng.IntN(2) == 0
					}
					f.ContainsInts(vals, out)
					for i, kb := range keys {
						if want := f.Contains(kb); out[i] != want {
							t.Fatalf("k %d m %d n %d: ContainsInts(%d) = %v, Contains %v", k, m, n, vals[i], out[i], want)
						}
						if out[i] {
							passed++
						}
					}
					for i := range keys { // other lengths than 8 take hashing.Sum
						if rng.IntN(5) == 0 {
							keys[i] = keys[i][:rng.IntN(8)]
						}
					}
					for i := range out {
						out[i] = rng.IntN(2) == 0
					}
					f.ContainsBatch(keys, out)
					for i, kb := range keys {
						if want := f.Contains(kb); out[i] != want {
							t.Fatalf("k %d m %d n %d: ContainsBatch(%x) = %v, Contains %v", k, m, n, kb, out[i], want)
						}
					}
				}
			}
		}
	}
	if passed < 1000 {
		t.Fatalf("only %d keys passed: the later probes were hardly tested", passed)
	}
}
