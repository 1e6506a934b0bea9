package bank

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/acbfjoin/acbfjoin/filters"
)

// ClassResult is one row of a validation: the class's filter as built and
// its false positive rate measured over the distinct keys of the other
// classes, as the seed's third stage measures it, with what the seed
// lacked: the formula for the filter actually built and a z-score.
type ClassResult struct {
	Label  string  `json:"class"`
	N      int     `json:"n"`        // distinct keys of the class
	Bits   uint64  `json:"m_bits"`   // the filter's memory (MemoryBits)
	K      int     `json:"k"`        // hash functions (0: a kind without one k)
	Target float64 `json:"target_p"` // the FPP asked for (0: sized by bits per key)
	// Formula is the kind's formula FP for the built (m, k, n); Fill the
	// filter's own rate from its contents (0 where the kind has none).
	Formula float64 `json:"fpp_formula"`
	Fill    float64 `json:"fpp_fill,omitempty"`
	// Trials are the distinct keys of the other classes (the seed's N - n_i
	// when no key is in two classes), Hits those the filter let through.
	Trials   int64   `json:"trials"`
	Hits     int64   `json:"false_positives"`
	Measured float64 `json:"fpp_measured"`
	// SD is the standard deviation of Measured around Formula: binomial,
	// plus the spread of the fill of a filter of random keys where the kind
	// has it in closed form (filters.Spec.FillSpread). Z is (Measured -
	// Formula) / SD; ZFill is the binomial z of Measured around Fill.
	SD     float64 `json:"sd"`
	Z      float64 `json:"z"`
	ZFill  float64 `json:"z_fill,omitempty"`
	Spread bool    `json:"sd_includes_fill_spread"`
	// FN counts keys of the class the filter does not hold: must be 0.
	FN int64 `json:"false_negatives"`
}

// Validation is a bank's validation table.
type Validation struct {
	Kind    filters.Kind  `json:"kind"`
	Classes []ClassResult `json:"classes"`
	Keys    int64         `json:"distinct_keys"` // in all classes
	Probes  int64         `json:"probes"`        // key x filter tests
}

// Validate probes every distinct key of sets against the filter of every
// class (each key hashed once: filters.Multi) and counts, per class, the
// keys of other classes it lets through (false positives) and its own keys
// it misses (false negatives). sets must be the bank's classes with the
// keys it was built from (their count and fingerprint are checked): a bank
// of other keys is an error, not a table. Cost O(keys x classes x k), in
// parallel over workers goroutines (0: one a core).
func Validate(b *Bank, sets []ClassKeys, workers int) (*Validation, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	idx := map[string]int{}
	for i, c := range b.Classes {
		idx[c.Label] = i
	}
	keysOf := make([]KeySet, len(b.Classes))
	for _, s := range sets {
		i, ok := idx[s.Label]
		if !ok {
			return nil, fmt.Errorf("%w: the key file has class %q, which the bank has not (its classes: %s): rebuild it with join bank build", ErrBank, s.Label, b.quotedLabels())
		}
		keysOf[i] = s.Keys
	}
	lists := make([][][]byte, len(b.Classes))
	for i, c := range b.Classes {
		if keysOf[i] == nil && c.Built.N == 0 {
			keysOf[i] = emptySet{} // a class every key moved out of
		}
		if keysOf[i] == nil {
			return nil, fmt.Errorf("%w: class %q of the bank has no key in the key file: rebuild it with join bank build", ErrBank, c.Label)
		}
		lists[i] = keysOf[i].Keys()
		if err := checkKeys(c, lists[i]); err != nil {
			return nil, err
		}
	}
	fs := make([]filters.Filter, len(b.Classes))
	for i, c := range b.Classes {
		fs[i] = c.Built.Filter
	}
	multi := filters.NewMulti(fs)
	nc := len(b.Classes)

	type chunk struct{ class, lo, hi int }
	const chunkKeys = 1 << 14
	work := make(chan chunk, 64)
	go func() {
		for c, l := range lists {
			for lo := 0; lo < len(l); lo += chunkKeys {
				work <- chunk{c, lo, min(lo+chunkKeys, len(l))}
			}
		}
		close(work)
	}()
	type counts struct {
		hits, fn []int64
		keys     int64
	}
	all := make([]counts, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ct := counts{hits: make([]int64, nc), fn: make([]int64, nc)}
			outs := make([]bool, chunkKeys*nc)
			for ch := range work {
				c := ch.class
				chunkKeys := lists[c][ch.lo:ch.hi]
				multi.ContainsAllBatch(chunkKeys, outs)
			keys:
				for ki, key := range chunkKeys {
					out := outs[ki*nc : (ki+1)*nc]
					if !out[c] {
						ct.fn[c]++
					}
					// A key of several classes is counted once, under its
					// first: a filter of an earlier class that holds it
					// (no false negatives) and whose keys include it.
					for j := range c {
						if out[j] && keysOf[j].Has(key) {
							continue keys
						}
					}
					ct.keys++
					for j := range nc {
						if j != c && out[j] && (j < c || !keysOf[j].Has(key)) {
							ct.hits[j]++
						}
					}
				}
			}
			all[w] = ct
		}()
	}
	wg.Wait()
	v := &Validation{Kind: b.Kind}
	hits, fn := make([]int64, nc), make([]int64, nc)
	for _, ct := range all {
		v.Keys += ct.keys
		for j := range nc {
			hits[j] += ct.hits[j]
			fn[j] += ct.fn[j]
		}
	}
	for _, l := range lists {
		v.Probes += int64(len(l)) * int64(nc)
	}
	sp, err := filters.Lookup(string(b.Kind))
	if err != nil {
		return nil, err
	}
	for i, c := range b.Classes {
		bt := c.Built
		r := ClassResult{Label: c.Label, N: bt.N, Bits: bt.MemoryBits, K: bt.K, Target: b.Sizing.FPP,
			Formula: bt.FPP, Trials: v.Keys - int64(bt.N), Hits: hits[i], FN: fn[i]}
		if sp.HasFillFPP() {
			r.Fill = sp.FillFPP(bt.Filter)
		}
		if r.Trials > 0 {
			t := float64(r.Trials)
			r.Measured = float64(r.Hits) / t
			spread := sp.FillSpread(bt.Params, uint64(bt.N))
			r.Spread = spread >= 0
			r.SD = math.Sqrt(r.Formula*(1-r.Formula)/t + max(spread, 0))
			if r.SD > 0 {
				r.Z = (r.Measured - r.Formula) / r.SD
			}
			if sd := math.Sqrt(r.Fill * (1 - r.Fill) / t); sd > 0 {
				r.ZFill = (r.Measured - r.Fill) / sd
			}
		}
		v.Classes = append(v.Classes, r)
	}
	return v, nil
}

// checkKeys refuses keys that are not the ones class c was built from.
func checkKeys(c *Class, keys [][]byte) error {
	if len(keys) != c.Built.N {
		return fmt.Errorf("%w: class %q holds %d distinct keys in the bank, %d in the key file: the bank was built from another file (rebuild it with join bank build, or apply the moves with join bank update)", ErrBank, c.Label, c.Built.N, len(keys))
	}
	if filters.KeysFingerprint(keys) != c.Built.KeysFingerprint {
		return fmt.Errorf("%w: class %q holds other keys in the bank than in the key file (same count, %d, different fingerprint): rebuild it with join bank build, or apply the moves with join bank update", ErrBank, c.Label, len(keys))
	}
	return nil
}

// emptySet is the KeySet of a class with no keys.
type emptySet struct{}

func (emptySet) Len() int            { return 0 }
func (emptySet) Keys() [][]byte      { return nil }
func (emptySet) Has(key []byte) bool { return false }
