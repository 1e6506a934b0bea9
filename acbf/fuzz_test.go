package acbf

import (
	"errors"
	"sync"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// FuzzOps drives a small filter with an operation stream taken from the fuzz
// input and compares it, level by level, with the literal transcription of the
// paper's algorithms. Each input byte is one operation: the low bit picks add or
// remove, the rest picks one of 128 keys.
func FuzzOps(f *testing.F) {
	f.Add([]byte{0, 2, 4, 0, 1, 3, 0, 0, 0, 1, 1})
	f.Add([]byte{6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7})
	keys := testutil.Keys(0, 128)
	f.Fuzz(func(t *testing.T, ops []byte) {
		g := mustNew(t, Config{Counters: 600, Capacity: 80, K: 3, FirstLevel: 2100})
		ref := newNaive(g.m1, g.k)
		model := map[byte]int{}
		for i, op := range ops {
			id := op >> 1
			key := keys[id]
			if op&1 == 0 {
				full := g.Len() == g.Cap()
				err := g.Add(key)
				if full != errors.Is(err, ErrFull) {
					t.Fatalf("op %d: Add = %v at Len %d of %d", i, err, g.Len(), g.Cap())
				}
				if err == nil {
					ref.add(key)
					model[id]++
				}
			} else if model[id] > 0 {
				if err := g.Remove(key); err != nil {
					t.Fatalf("op %d: Remove(member) = %v", i, err)
				}
				ref.remove(key)
				model[id]--
			}
		}
		if !levelsEqual(levelsOf(g), ref.levels) {
			t.Fatal("levels differ from the reference")
		}
		checkInvariants(t, g)
		for id, c := range model {
			if got := g.Count(keys[id]); got < c {
				t.Fatalf("Count(%d) = %d < %d", id, got, c)
			}
		}
	})
}

// TestConcurrentReaders: Contains and Count from many goroutines at once on a
// filter nobody writes (run under -race by CI).
func TestConcurrentReaders(t *testing.T) {
	keys := testutil.Keys(0, 2000)
	f, err := Build(ConfigOptimal(8*2000, 2000, 3), keys)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, key := range keys {
				if !f.Contains(key) || f.Count(key) < 1 {
					t.Errorf("member %x lost under concurrent reads", key)
					return
				}
			}
		}()
	}
	wg.Wait()
}
