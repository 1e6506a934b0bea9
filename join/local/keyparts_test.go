package local

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestMergeKeys checks the partitioned collection and merge of the
// build's keys against a map of the keys added: 8-byte keys (0 among
// them), shorter and longer ones, few distinct keys in many rows (the
// buffers drop their repeats) and many distinct ones, spread over 1 to 5
// workers, merged on 1 to 3 goroutines, in blocks of 8192 8-byte keys
// and of 1 and 16, keys of several lengths as spans and as slices: the
// list holds every distinct key once, the 8-byte
// ones 8 bytes of capacity, and the index has exactly them.
func TestMergeKeys(t *testing.T) {
	for _, shift := range []uint{13, 4, 0} {
		for _, spans := range []bool{true, false} {
			t.Run(fmt.Sprintf("shift=%d/spans=%v", shift, spans), func(t *testing.T) {
				defer func(s uint, sp bool) { mergeBlockShift, mergeSpans = s, sp }(mergeBlockShift, mergeSpans)
				mergeBlockShift, mergeSpans = shift, spans
				testMergeKeys(t)
			})
		}
	}
}

func testMergeKeys(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	for _, tc := range []struct {
		rows, distinct int
		lens           []int
	}{
		{0, 1, []int{8}},
		{1, 1, []int{8}},
		{50_000, 30, []int{8}},
		{50_000, 40_000, []int{8}},
		{30_000, 100, []int{0, 1, 7, 9, 16}},
		{30_000, 20_000, []int{8, 3, 12}},
	} {
		mergerCounts := []int{1, 3}
		if testutil.Race { // several mergers, whose goroutines meet, on a quarter of the keys
			mergerCounts = []int{3}
			tc.rows, tc.distinct = (tc.rows+3)/4, (tc.distinct+3)/4
		}
		for _, workers := range []int{1, 2, 5} {
			for _, mergers := range mergerCounts {
				name := fmt.Sprintf("rows=%d/distinct=%d/lens=%v/workers=%d/mergers=%d", tc.rows, tc.distinct, tc.lens, workers, mergers)
				universe := make([][]byte, tc.distinct)
				for i := range universe {
					k := make([]byte, tc.lens[rng.IntN(len(tc.lens))])
					for j := range k {
						k[j] = byte(rng.IntN(256))
					}
					if i == 0 && len(k) == 8 {
						clear(k) // the key 0, which u64Set keeps by a flag
					}
					universe[i] = k
				}
				want := map[string]bool{}
				cols := make([]*keyCollector, workers)
				for i := range cols {
					cols[i] = &keyCollector{}
				}
				for range tc.rows {
					k := universe[rng.IntN(len(universe))]
					want[string(k)] = true
					h1, _ := hashing.Sum(k)
					cols[rng.IntN(workers)].add(k, h1)
				}
				// Without the index; with it, its string keys' hashes made
				// (strHashMax above the keys) and not (0).
				for _, cfg := range []struct {
					index   bool
					hashMax int
				}{{false, strHashMax}, {true, strHashMax}, {true, 0}} {
					index := cfg.index
					defer func(was int) { strHashMax = was }(strHashMax)
					strHashMax = cfg.hashMax
					// mergeKeys spends its collectors: merge copies.
					keys, bk, err := mergeKeys(context.Background(), cloneCollectors(cols), mergers, index)
					if err != nil {
						t.Fatal(name, err)
					}
					if bk != nil && cfg.hashMax == 0 && bk.hashedStrs {
						t.Fatalf("%s: strHashMax %d, hashedStrs %v", name, cfg.hashMax, bk.hashedStrs)
					}
					got := map[string]bool{}
					for _, k := range keys.Slices() {
						if got[string(k)] {
							t.Fatalf("%s: key %x twice", name, k)
						}
						if len(k) == 8 && cap(k) != 8 {
							t.Fatalf("%s: key %x of capacity %d", name, k, cap(k))
						}
						got[string(k)] = true
					}
					if len(got) != len(want) {
						t.Fatalf("%s: %d keys, want %d", name, len(got), len(want))
					}
					for k := range want {
						if !got[k] {
							t.Fatalf("%s: key %x missing", name, k)
						}
					}
					if (bk != nil) != index {
						t.Fatalf("%s: index %v, builtKeys %v", name, index, bk)
					}
					if bk == nil {
						continue
					}
					if bk.len() != len(want) {
						t.Fatalf("%s: len %d, want %d", name, bk.len(), len(want))
					}
					for _, k := range universe {
						if bk.has(string(k)) != want[string(k)] {
							t.Fatalf("%s: has(%x) %v", name, k, !want[string(k)])
						}
						other := append(slices.Clone(k), 1)
						if len(k) == 8 {
							other = binary.LittleEndian.AppendUint64(nil, binary.LittleEndian.Uint64(k)^1)
						}
						if bk.has(string(other)) != want[string(other)] {
							t.Fatalf("%s: has(%x) %v", name, other, !want[string(other)])
						}
					}
					// hashHasBatch over the universe and misses, mixed, in
					// batches of every length up to past hasChunk, as a
					// keySet of the same keys answers.
					var asked [][]byte
					for _, k := range universe {
						asked = append(asked, k, append(slices.Clone(k), 2))
						if len(k) == 8 {
							asked = append(asked, binary.LittleEndian.AppendUint64(nil, binary.LittleEndian.Uint64(k)+3))
						}
					}
					rng.Shuffle(len(asked), func(i, j int) { asked[i], asked[j] = asked[j], asked[i] })
					set := &keySet{}
					for k := range want {
						set.add([]byte(k))
					}
					for lo, n := 0, 1; lo < len(asked); lo, n = lo+n, n%(2*hasChunk+3)+1 {
						batch := asked[lo:min(len(asked), lo+n)]
						got, model := make([]bool, len(batch)), make([]bool, len(batch))
						// hashHasBatch: wrong only for a string whose
						// 64-bit hash is a key's (1 in about 10^14 here).
						bk.hashHasBatch(batch, got)
						set.hashHasBatch(batch, model)
						for i, k := range batch {
							if got[i] != want[string(k)] || model[i] != want[string(k)] {
								t.Fatalf("%s: hashHasBatch(%x) %v, keySet %v, want %v", name, k, got[i], model[i], want[string(k)])
							}
						}
					}
				}
			}
		}
	}
}

// cloneCollectors copies collectors deeply.
func cloneCollectors(cols []*keyCollector) []*keyCollector {
	out := make([]*keyCollector, len(cols))
	for i, c := range cols {
		n := &keyCollector{}
		for p := range c.parts {
			b := &c.parts[p]
			n.parts[p] = keyBuf{ints: slices.Clone(b.ints), arena: slices.Clone(b.arena), ends: slices.Clone(b.ends), intsAt: b.intsAt, strsAt: b.strsAt}
		}
		out[i] = n
	}
	return out
}

// TestKeyCollectorCompacts: a worker that reads one key a million times
// holds a few thousand, not a million.
func TestKeyCollectorCompacts(t *testing.T) {
	var c keyCollector
	k8, k3 := []byte("12345678"), []byte("abc")
	h8, _ := hashing.Sum(k8)
	h3, _ := hashing.Sum(k3)
	for range 1_000_000 {
		c.add(k8, h8)
		c.add(k3, h3)
	}
	b8, b3 := &c.parts[keyPartOf(h8)], &c.parts[keyPartOf(h3)]
	if len(b8.ints) > minCompact || len(b3.ends) > minCompact || len(b3.arena) > 3*minCompact {
		t.Fatalf("held %d and %d keys (%d bytes), want at most %d", len(b8.ints), len(b3.ends), len(b3.arena), minCompact)
	}
	keys, _, err := mergeKeys(context.Background(), []*keyCollector{&c}, 2, false)
	if err != nil || keys.Len() != 2 {
		t.Fatalf("%d keys, %v", keys.Len(), err)
	}
	got := []string{string(keys.At(0)), string(keys.At(1))}
	slices.Sort(got)
	if strings.Join(got, " ") != "12345678 abc" {
		t.Fatalf("keys %q", got)
	}
}

// TestMergeKeysCancel: a cancelled merge returns the context's error.
func TestMergeKeysCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := &keyCollector{}
	h1, _ := hashing.Sum([]byte("12345678"))
	c.add([]byte("12345678"), h1)
	if _, _, err := mergeKeys(ctx, []*keyCollector{c}, 2, true); err != context.Canceled {
		t.Fatalf("err %v", err)
	}
}
