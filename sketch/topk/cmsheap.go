package topk

import (
	"fmt"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/sketch/cms"
)

// CMSConfig sizes a CMSHeap.
type CMSConfig struct {
	K     int // keys reported, 1..MaxK
	Width int // counters per row, >= 1
	Depth int // rows, 1..MaxDepth; Width*Depth <= MaxBuckets
	// Conservative selects conservative update (Estan and Varghese, "New
	// Directions in Traffic Measurement and Accounting", SIGCOMM 2002): an
	// Add raises only the counters below the key's new estimate. Estimates
	// stay upper bounds and get tighter, but Merge is then no longer the
	// sketch of the concatenated stream, only an upper bound of it.
	Conservative bool
	Seed         uint64 // selects the hash positions
}

func (c CMSConfig) validate() error {
	switch {
	case c.K < 1 || c.K > MaxK:
		return fmt.Errorf("%w: K = %d, want 1..%d", ErrConfig, c.K, MaxK)
	case c.Depth < 1 || c.Depth > MaxDepth:
		return fmt.Errorf("%w: Depth = %d, want 1..%d", ErrConfig, c.Depth, MaxDepth)
	case c.Width < 1 || uint64(c.Width) > MaxBuckets/uint64(c.Depth):
		return fmt.Errorf("%w: Width = %d at Depth %d, want 1..%d counters in all", ErrConfig, c.Width, c.Depth, uint64(MaxBuckets))
	}
	if err := c.sketchConfig().Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return nil
}

func (c CMSConfig) sketchConfig() cms.Config {
	return cms.Config{Width: c.Width, Depth: c.Depth, Conservative: c.Conservative, Seed: c.Seed}
}

// CMSForMemory returns the widest plain (not conservative) CMSHeap of depth
// 5 for k keys whose counters and heap take at most bytes, with keys of 8
// bytes. Depth 5 bounds the chance that a key's estimate exceeds its count
// by more than e*N/w by e^-5 = 0.7% (Cormode and Muthukrishnan 2005,
// Theorem 1: depth ceil(ln 1/delta), here delta = 0.01). At fixed memory
// recall on Zipf 1.1 rises with depth up to 5 and then levels off, as more
// rows narrow each (TestDepthChoice). If
// bytes does not cover the heap and one counter per row, Width is 0 and
// NewCMSHeap reports ErrConfig.
func CMSForMemory(k int, bytes uint64) CMSConfig {
	c := CMSConfig{K: k, Depth: 5}
	if k < 1 || k > MaxK {
		return c
	}
	h := heapBytes(k, uint64(k)*assumedKeyLen)
	if bytes > h {
		c.Width = int(min((bytes-h)/(8*uint64(c.Depth)), MaxBuckets/uint64(c.Depth)))
	}
	return c
}

// CMSHeap is a count-min sketch (sketch/cms, 64-bit counters) with a
// min-heap of the K keys of largest estimate (Cormode and Muthukrishnan 2005,
// Sec. 5.1). The zero value is not usable: create one with NewCMSHeap.
//
// Estimates never fall below the true counts (counters saturate at 2^64-1).
// Memory: 8 bytes per counter plus the heap (see MemoryBytes).
// Concurrency: Top, Count, MemoryBytes and Equal only read; Add and Merge need
// exclusive access.
type CMSHeap struct {
	cfg  CMSConfig
	cms  *cms.Sketch
	heap keyHeap
}

// NewCMSHeap returns an empty CMSHeap. O(Width*Depth + K).
func NewCMSHeap(c CMSConfig) (*CMSHeap, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	sk, err := cms.New(c.sketchConfig())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return &CMSHeap{cfg: c, cms: sk, heap: newKeyHeap(c.K)}, nil
}

// Config returns the configuration.
func (s *CMSHeap) Config() CMSConfig { return s.cfg }

// Total returns the sum of the counts added (and merged), saturating.
func (s *CMSHeap) Total() uint64 { return s.cms.Total() }

// MemoryBytes returns the bytes of the counters (8 each) and the heap, as
// TopK.MemoryBytes. O(K).
func (s *CMSHeap) MemoryBytes() uint64 {
	return s.cms.MemoryBytes() + s.heap.memoryBytes()
}

// Add adds count occurrences of key (truncated to MaxKeyLen): each of its
// Depth counters grows by count (only up to the new estimate under
// conservative update), then its estimate, the smallest of them, goes to the
// heap. A count of 0 does nothing. O(Depth + log K), no allocation unless
// the key enters the heap with a key longer than the buffer it reuses.
func (s *CMSHeap) Add(key []byte, count uint64) {
	if count == 0 {
		return
	}
	if len(key) > MaxKeyLen {
		key = key[:MaxKeyLen]
	}
	h1, h2 := hashing.Sum(key)
	s.cms.AddHash(h1, h2, count)
	s.heap.offer(key, h1, s.cms.CountHash(h1, h2))
}

// Count returns the estimated count of key (truncated to MaxKeyLen), never
// below the true count: its heap count if it is in the heap (its estimate at
// its last Add, no larger than its estimate now), else the smallest of its
// counters. O(Depth), no allocation.
func (s *CMSHeap) Count(key []byte) uint64 {
	if len(key) > MaxKeyLen {
		key = key[:MaxKeyLen]
	}
	h1, h2 := hashing.Sum(key)
	if p := s.heap.find(key, h1); p >= 0 {
		return s.heap.e[p].count
	}
	return s.cms.CountHash(h1, h2)
}

// Top returns the heap's keys and estimates sorted by count descending, then
// key ascending, as TopK.Top. O(K log K).
func (s *CMSHeap) Top() []Item { return s.heap.top() }

// Merge adds o, a CMSHeap of the same CMSConfig, to s: the count-min sketches
// merge (cms.Sketch.Merge), which for plain update gives exactly the sketch of
// the concatenated streams (for conservative update an upper bound of it). The
// heap is rebuilt from the keys of both heaps, each estimated by the merged
// counters (or, for a key in both heaps, by the sum of its two heap counts
// if smaller: both are upper bounds), keeping the K largest. A key that was
// in neither heap is not reported even if it is heavy in the union.
//
// On a different CMSConfig Merge returns an error wrapping ErrShape and s is
// unchanged. O(Width*Depth + K log K).
func (s *CMSHeap) Merge(o *CMSHeap) error {
	if o == nil {
		return fmt.Errorf("%w: other summary is nil", ErrShape)
	}
	if s.cfg != o.cfg {
		return fmt.Errorf("%w: %+v vs %+v", ErrShape, s.cfg, o.cfg)
	}
	type cand struct {
		sum  uint64
		both bool
	}
	cands := map[string]*cand{}
	for i := range s.heap.e {
		cands[string(s.heap.e[i].key)] = &cand{sum: s.heap.e[i].count}
	}
	for i := range o.heap.e {
		if c, ok := cands[string(o.heap.e[i].key)]; ok && o != s {
			c.sum, c.both = satAdd(c.sum, o.heap.e[i].count), true
		} else if !ok {
			cands[string(o.heap.e[i].key)] = &cand{sum: o.heap.e[i].count}
		}
	}
	if err := s.cms.Merge(o.cms); err != nil {
		return fmt.Errorf("%w: %w", ErrShape, err)
	}
	items := make([]Item, 0, len(cands))
	for k, c := range cands {
		key := []byte(k)
		est := s.cms.CountHash(hashing.Sum(key))
		if c.both {
			est = min(est, c.sum)
		}
		items = append(items, Item{Key: key, Count: est})
	}
	s.heap.rebuild(items)
	return nil
}

// Equal reports whether s and o have the same CMSConfig, sketches and heap
// keys and counts. O(Width*Depth + K).
func (s *CMSHeap) Equal(o *CMSHeap) bool {
	return s.cfg == o.cfg && s.cms.Equal(o.cms) && s.heap.equal(&o.heap)
}
