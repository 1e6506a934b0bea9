package topk

import (
	"errors"
	"fmt"
	"math"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
)

// Limits on the parameters, so that every size computation stays far from
// overflow and a decoder can reject absurd headers before allocating.
const (
	// MaxK is the largest K: a heap of 2^16 keys takes 3.5 MiB before its
	// key bytes, the most a decoder allocates on the word of a header.
	MaxK = 1 << 16
	// MaxDepth is the largest Depth.
	MaxDepth = 16
	// MaxBuckets is the largest Width*Depth (2^32 buckets, 32 GiB).
	MaxBuckets = 1 << 32
	// MaxKeyLen is the longest key kept; longer keys are truncated to it.
	MaxKeyLen = 1024
	// DefaultDecay is HeavyKeeper's decay base b, the value used in the
	// papers' experiments (b = 1.08).
	DefaultDecay = 1.08
	// MaxDecay is the largest decay base accepted.
	MaxDecay = 16.0
)

// Bucket layout: a uint64 holding a 24-bit fingerprint above a 40-bit count.
// 24 bits make a false fingerprint match 2^-24 per arrival at a bucket owned
// by another key; 40 bits count to 1.1e12 before saturating, beyond any
// join's rows for one key. A bucket with count 0 is the zero word.
const (
	countBits = 40
	countMax  = 1<<countBits - 1
	fpBits    = 64 - countBits
)

var (
	// ErrConfig is returned for invalid parameters.
	ErrConfig = errors.New("topk: invalid parameters")
	// ErrShape is returned by Merge for summaries of different Config.
	ErrShape = errors.New("topk: summaries have different configurations")
	// ErrFormat is returned when decoding input that is not a valid
	// serialized TopK: foreign magic, unknown version, impossible parameters,
	// a non-canonical payload, a bad checksum or a truncated stream (which
	// also matches io.ErrUnexpectedEOF).
	ErrFormat = errors.New("topk: invalid serialized summary")
)

// Item is one reported key and its estimated count.
type Item struct {
	Key   []byte
	Count uint64
}

// Summary is what TopK and CMSHeap have in common.
type Summary interface {
	Add(key []byte, count uint64)
	Top() []Item
	Count(key []byte) uint64
	MemoryBytes() uint64
}

// Config sizes a TopK.
type Config struct {
	K     int     // keys reported, 1..MaxK
	Width int     // buckets per array, >= 1
	Depth int     // arrays, 1..MaxDepth; Width*Depth <= MaxBuckets
	Decay float64 // decay base b, in (1, MaxDecay]; 0 means DefaultDecay
	Seed  uint64  // selects the hash positions, fingerprints and random decays
}

func (c Config) normalize() (Config, error) {
	if c.Decay == 0 {
		c.Decay = DefaultDecay
	}
	switch {
	case c.K < 1 || c.K > MaxK:
		return c, fmt.Errorf("%w: K = %d, want 1..%d", ErrConfig, c.K, MaxK)
	case c.Depth < 1 || c.Depth > MaxDepth:
		return c, fmt.Errorf("%w: Depth = %d, want 1..%d", ErrConfig, c.Depth, MaxDepth)
	case c.Width < 1 || uint64(c.Width) > MaxBuckets/uint64(c.Depth):
		return c, fmt.Errorf("%w: Width = %d at Depth %d, want 1..%d buckets in all", ErrConfig, c.Width, c.Depth, uint64(MaxBuckets))
	case !(c.Decay > 1 && c.Decay <= MaxDecay):
		return c, fmt.Errorf("%w: Decay = %v, want 1 < b <= %v", ErrConfig, c.Decay, MaxDecay)
	}
	return c, nil
}

// assumedKeyLen is the key length ForMemory and CMSForMemory budget for each
// heap entry: an 8-byte integer, the usual join key.
const assumedKeyLen = 8

// ForMemory returns the widest HeavyKeeper for k keys whose buckets and heap
// take at most bytes (MemoryBytes), with keys of 8 bytes (longer keys add
// their excess length to MemoryBytes). Depth is 2: a second array rescues
// the elephants whose bucket in the first is contested by another elephant,
// and every further array narrows all of them at fixed memory
// (TestDepthChoice measures recall at depths 1 to 4 on Zipf 1.1). If
// bytes does not cover the heap and one bucket per array, Width is 0 and New
// reports ErrConfig.
func ForMemory(k int, bytes uint64) Config {
	c := Config{K: k, Depth: 2, Decay: DefaultDecay}
	if k < 1 || k > MaxK {
		return c
	}
	h := heapBytes(k, uint64(k)*assumedKeyLen)
	if bytes > h {
		c.Width = int(min((bytes-h)/(8*uint64(c.Depth)), MaxBuckets/uint64(c.Depth)))
	}
	return c
}

// TopK is HeavyKeeper with a min-heap of the K keys of largest estimate (see
// the package documentation). The zero value is not usable: create one with
// New.
//
// Memory: 8 bytes per bucket (Width*Depth of them) plus the heap (see
// MemoryBytes). Concurrency: Top, Count, MemoryBytes, Equal and the encoders
// only read; Add, Merge and the decoders need exclusive access.
type TopK struct {
	cfg     Config
	w       uint64
	buckets []uint64 // array r, column i at r*w+i: fingerprint<<countBits | count
	s1, s2  uint64   // seed masks for positions and fingerprints
	rng     uint64   // splitmix64 state
	total   uint64   // sum of the counts added, saturating
	thr     []uint64 // decay thresholds (see threshold)
	lnb     float64  // ln(Decay)
	heap    keyHeap
}

// New returns an empty TopK. O(Width*Depth + K).
func New(c Config) (*TopK, error) {
	c, err := c.normalize()
	if err != nil {
		return nil, err
	}
	return newTopK(c, make([]uint64, c.Width*c.Depth)), nil
}

// newTopK returns a TopK of the normalized c on buckets (len Width*Depth).
func newTopK(c Config, buckets []uint64) *TopK {
	t := &TopK{
		cfg:     c,
		w:       uint64(c.Width),
		buckets: buckets,
		s1:      splitmix(c.Seed ^ 0x243f6a8885a308d3),
		s2:      splitmix(c.Seed ^ 0x13198a2e03707344),
		rng:     c.Seed,
		heap:    newKeyHeap(c.K),
	}
	t.setDecay()
	return t
}

func (t *TopK) setDecay() {
	t.lnb = math.Log(t.cfg.Decay)
	if t.cfg.Decay == DefaultDecay {
		t.thr = defaultThresholds
	} else {
		t.thr = nil // computed per decay, see threshold
	}
}

// thresholds returns floor(b^-c * 2^64) for c = 0, 1, ... up to the first c
// at which it is 0 (at most 1<<12 entries): a decay happens when a uniform
// 64-bit random number is below the threshold, which is probability b^-c
// without a floating-point operation.
func thresholds(b float64) []uint64 {
	var t []uint64
	for c := 0; c < 1<<12; c++ {
		v := math.Exp(-float64(c)*math.Log(b)) * 0x1p64
		if v < 1 {
			break
		}
		t = append(t, uint64(min(v, 0x1p64-2048))) // 2^64 itself does not fit
	}
	return t
}

// defaultThresholds is thresholds(DefaultDecay): 577 entries, read only,
// shared by every TopK of the default decay.
var defaultThresholds = thresholds(DefaultDecay)

// threshold returns floor(b^-c * 2^64), 0 when that is below 1.
func (t *TopK) threshold(c uint64) uint64 {
	if t.thr != nil {
		if c < uint64(len(t.thr)) {
			return t.thr[c]
		}
		return 0
	}
	v := math.Exp(-float64(c)*t.lnb) * 0x1p64
	if v < 1 {
		return 0
	}
	return uint64(min(v, 0x1p64-2048))
}

// splitmix is SplitMix64's output function (Steele, Lea and Flood, "Fast
// Splittable Pseudorandom Number Generators", OOPSLA 2014).
func splitmix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// rand returns the next SplitMix64 number.
func (t *TopK) rand() uint64 {
	t.rng += 0x9e3779b97f4a7c15
	return splitmix(t.rng)
}

// Config returns the configuration, Decay filled in.
func (t *TopK) Config() Config { return t.cfg }

// Total returns the sum of the counts added (and merged), saturating at
// 2^64-1.
func (t *TopK) Total() uint64 { return t.total }

// MemoryBytes returns the bytes of the buckets (8 a bucket) and the heap (K
// entries of 48 bytes, an index of 4-byte slots, the key buffers); Go's
// struct header and allocator rounding are not counted. O(K).
func (t *TopK) MemoryBytes() uint64 {
	return 8*uint64(len(t.buckets)) + t.heap.memoryBytes()
}

// hash returns key's heap hash h, its position base g, step h2, and its
// fingerprint.
func (t *TopK) hash(key []byte) (h, g, h2, fp uint64) {
	h1, h2 := hashing.Sum(key)
	return h1, h1 ^ t.s1, h2, (h2 ^ t.s2) >> countBits
}

// Add adds count occurrences of key (truncated to MaxKeyLen). In each array
// the key's bucket is incremented if it holds the key's fingerprint or is
// empty, and otherwise decayed: each of the count arrivals decrements it with
// probability b^-C (C its count at that moment), and the arrival that brings
// it to zero takes the bucket over with count 1 (Gong et al. 2018, Alg. 1;
// a count above 1 is processed as that many arrivals, sampling the gaps
// between decays from the geometric distribution). The key's estimate, the
// largest count among the buckets that hold its fingerprint, then goes to
// the heap. A count of 0 does nothing.
//
// O(Depth + log K) for count 1, no allocation unless the key enters the heap
// with a key longer than the buffer it reuses; a count above 1 may take
// O(min(count, 577)) random draws per bucket it decays.
func (t *TopK) Add(key []byte, count uint64) {
	if count == 0 {
		return
	}
	if len(key) > MaxKeyLen {
		key = key[:MaxKeyLen]
	}
	h, g, h2, fp := t.hash(key)
	var est uint64
	for r := range uint64(t.cfg.Depth) {
		i := r*t.w + hashing.Reduce(g+r*h2, t.w)
		b := t.buckets[i]
		switch c := b & countMax; {
		case c == 0:
			b = fp<<countBits | min(count, countMax)
		case b>>countBits == fp:
			b = fp<<countBits | min(c+count, countMax) // c, count < 2^40: no wrap
		default:
			b = t.decay(b, fp, count)
		}
		t.buckets[i] = b
		if b>>countBits == fp {
			est = max(est, b&countMax)
		}
	}
	t.total = satAdd(t.total, count)
	if est > 0 {
		t.heap.offer(key, h, est)
	}
}

// decay applies count arrivals of fingerprint fp to bucket b, which holds
// another fingerprint with a non-zero count, and returns the new bucket.
func (t *TopK) decay(b, fp, count uint64) uint64 {
	c := b & countMax
	if count == 1 {
		if t.rand() >= t.threshold(c) {
			return b
		}
		if c == 1 {
			return fp<<countBits | 1
		}
		return b - 1
	}
	left := min(count, countMax)
	for {
		thr := t.threshold(c)
		if thr == 0 {
			return b&^countMax | c
		}
		// Arrivals up to and including the next decay: geometric with
		// success probability p, 1 + floor(ln U / ln(1-p)) for U uniform in
		// (0, 1] (Devroye, Non-Uniform Random Variate Generation, 1986,
		// Sec. X.2).
		p := float64(thr) * 0x1p-64
		u := (float64(t.rand()>>11) + 1) * 0x1p-53
		gap := 1 + math.Floor(math.Log(u)/math.Log1p(-p))
		if gap > float64(left) {
			return b&^countMax | c
		}
		left -= uint64(gap)
		c--
		if c == 0 {
			return fp<<countBits | (left + 1)
		}
	}
}

func satAdd(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return math.MaxUint64
}

// estimate returns the largest count among the buckets of key that hold its
// fingerprint, 0 if none does. O(Depth).
func (t *TopK) estimate(g, h2, fp uint64) uint64 {
	var est uint64
	for r := range uint64(t.cfg.Depth) {
		b := t.buckets[r*t.w+hashing.Reduce(g+r*h2, t.w)]
		if b>>countBits == fp {
			est = max(est, b&countMax)
		}
	}
	return est
}

// Count returns the estimated count of key (truncated to MaxKeyLen): its
// heap count if it is in the heap, else the largest count among its buckets
// that hold its fingerprint, else 0. Barring a fingerprint collision it is
// at most the true count. O(Depth), no allocation.
func (t *TopK) Count(key []byte) uint64 {
	if len(key) > MaxKeyLen {
		key = key[:MaxKeyLen]
	}
	h, g, h2, fp := t.hash(key)
	if p := t.heap.find(key, h); p >= 0 {
		return t.heap.e[p].count
	}
	return t.estimate(g, h2, fp)
}

// Top returns the heap's keys and estimates sorted by count descending, then
// key ascending: at most K items, fewer if fewer keys were seen. The keys are
// copies. O(K log K).
func (t *TopK) Top() []Item { return t.heap.top() }

// Merge adds o, a TopK of the same Config, to t. HeavyKeeper has no exact
// merge; this is the bucket-wise merge used with it: two buckets with the
// same fingerprint sum their counts; with different fingerprints the larger
// count keeps its fingerprint and loses the smaller count (equal counts leave
// the bucket empty), as if each of the smaller's arrivals had decayed the
// larger. It carries no error bound; TestMergeHalves measures it. The heap is then
// rebuilt from the keys of both heaps, each estimated as the larger of its
// estimate in the merged buckets and the sum of its two heap counts (either
// is at most its true count in the union), keeping the K largest. A key that
// was in neither heap is not reported even if it is heavy in the union.
//
// On a different Config Merge returns an error wrapping ErrShape and t is
// unchanged. O(Width*Depth + K log K).
func (t *TopK) Merge(o *TopK) error {
	if o == nil {
		return fmt.Errorf("%w: other summary is nil", ErrShape)
	}
	if t.cfg != o.cfg {
		return fmt.Errorf("%w: %+v vs %+v", ErrShape, t.cfg, o.cfg)
	}
	cand := map[string]uint64{} // key -> sum of its heap counts
	for _, q := range []*keyHeap{&t.heap, &o.heap} {
		for i := range q.e {
			cand[string(q.e[i].key)] = satAdd(cand[string(q.e[i].key)], q.e[i].count)
		}
	}
	for i, b := range t.buckets {
		t.buckets[i] = mergeBucket(b, o.buckets[i])
	}
	t.total = satAdd(t.total, o.total)
	items := make([]Item, 0, len(cand))
	for k, sum := range cand {
		key := []byte(k)
		_, g, h2, fp := t.hash(key)
		items = append(items, Item{Key: key, Count: max(sum, t.estimate(g, h2, fp))})
	}
	t.heap.rebuild(items)
	return nil
}

// mergeBucket merges two buckets (see Merge).
func mergeBucket(a, b uint64) uint64 {
	ca, cb := a&countMax, b&countMax
	switch {
	case cb == 0:
		return a
	case ca == 0:
		return b
	case a>>countBits == b>>countBits:
		return a&^countMax | min(ca+cb, countMax)
	case ca > cb:
		return a - cb
	case cb > ca:
		return b - ca
	}
	return 0
}

// Equal reports whether t and o have the same Config, buckets, heap keys and
// counts, Total and random state: two Equal summaries stay Equal under the
// same Adds. O(Width*Depth + K).
func (t *TopK) Equal(o *TopK) bool {
	if t.cfg != o.cfg || t.rng != o.rng || t.total != o.total || len(t.buckets) != len(o.buckets) {
		return false
	}
	for i := range t.buckets {
		if t.buckets[i] != o.buckets[i] {
			return false
		}
	}
	return t.heap.equal(&o.heap)
}
