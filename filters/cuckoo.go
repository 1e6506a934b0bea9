package filters

import (
	"errors"
	"fmt"

	"github.com/acbfjoin/acbfjoin/cuckoo"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// OptionBucketSize is the cuckoo kind's option of its fingerprints a
// bucket (Sizing.Options, Spec.Options).
const OptionBucketSize = "bucket-size"

// Cuckoo is a cuckoo filter (package cuckoo; Fan, Andersen, Kaminsky and
// Mitzenmacher, CoNEXT 2014): f-bit fingerprints in buckets of b slots, two
// buckets a key. It is sized for the n keys at the measured safe load of its
// (b, f) (cuckoo.MaxLoad: 95% for b = 4 and f >= 7, less for short
// fingerprints); the fingerprint is the fingerprint-bits option, or the one
// of least memory that meets Sizing.FPP at its load, or the one of least
// formula FP whose table fits in Sizing.BitsPerKey bits a key.
const Cuckoo Kind = "cuckoo"

// cuckooParams are a cuckoo filter's: buckets of B slots of F-bit
// fingerprints, a table of Memory bits (slots*F), sized to hold Capacity
// keys.
type cuckooParams struct {
	B        int    `json:"b"`
	F        int    `json:"f"`
	Capacity uint64 `json:"capacity"`
	Memory   uint64 `json:"memory_bits"`
}

func (p cuckooParams) String() string {
	return fmt.Sprintf("cuckoo(b=%d,f=%d,slots=%d)", p.B, p.F, p.slots())
}
func (p cuckooParams) Shape() string { return fmt.Sprintf("b=%d f=%d", p.B, p.F) }
func (p cuckooParams) Summary() Summary {
	return Summary{FirstLevelBits: p.Memory, MemoryBits: p.Memory}
}

// slots is the table's slots: its memory is slots*f bits.
func (p cuckooParams) slots() uint64 {
	if p.F < 1 {
		return 0
	}
	return p.Memory / uint64(p.F)
}

type cuckooKind struct {
	ownFormat[cuckoo.Filter, *cuckoo.Filter, cuckooParams]
}

func init() {
	register(&Spec{Kind: Cuckoo, Doc: "a cuckoo filter of f-bit fingerprints in buckets of b (Fan et al. 2014); deletes",
		Order: 8, Sized: true, Deletes: true, f: cuckooKind{ownFormat[cuckoo.Filter, *cuckoo.Filter, cuckooParams]{params: cuckooParamsOf}}, Options: []Option{
			{Name: OptionBucketSize, Int: true, Min: 1, Max: 8, Want: "1, 2, 4 or 8", Valid: func(v float64) bool { return v == 1 || v == 2 || v == 4 || v == 8 }, Doc: "fingerprints a bucket, 1, 2, 4 or 8 (default 4)"},
			{Name: OptionFingerprintBits, Int: true, Min: 1, Max: cuckoo.MaxFingerprintBits, Doc: "bits a fingerprint, 1 to 32 (default: what the target FPP or bits per key give)"},
		}})
}

func (cuckooKind) build(p Params, list keylist.List) (Filter, Params, int64, error) {
	cp := p.(cuckooParams)
	// Below cuckoo.MaxLoad a full table is rare for large tables (cuckoo's
	// TestMaxLoad) but not for tables of a few buckets, whose load varies
	// more (24 keys in 32 slots can fail): the build then retries with a
	// quarter more capacity, a few times. The parameters and formula FP
	// are those of the table built, so the report stays true; its FP is
	// lower than the sizing's, its bytes more.
	keys := inOrder(list.Slices()) // where a fingerprint lands depends on the order
	capacity := cp.Capacity
	for try := 0; ; try++ {
		f, err := cuckoo.New(capacity, cp.B, cp.F)
		if err != nil {
			return nil, nil, 0, err
		}
		i, err := addAll(f, keys)
		if err == nil {
			return f, cuckooParamsOf(f), f.SerializedSize(), nil
		}
		if !errors.Is(err, cuckoo.ErrFull) || try == cuckooRetries {
			// An error, never a lost key.
			return nil, nil, 0, fmt.Errorf("cuckoo filter: key %d of %d: %w (a larger bucket size or fingerprint loads the table further)", i+1, len(keys), err)
		}
		capacity += (capacity + 3) / 4
	}
}

func (cuckooKind) add(f Filter, key []byte) error    { return f.(*cuckoo.Filter).Add(key) }
func (cuckooKind) remove(f Filter, key []byte) error { return f.(*cuckoo.Filter).Remove(key) }

// fillFPP is the formula at the filter's own load: a query's two buckets
// are uniform, so their expected fill is the load whatever the keys.
func (cuckooKind) fillFPP(f Filter) float64 { return f.(*cuckoo.Filter).FPP() }

// fpp is 1 - (1 - 1/(2^f - 1))^(2b*load) at load n / slots (cuckoo.FPP).
func (cuckooKind) fpp(p Params, n uint64) float64 {
	cp := p.(cuckooParams)
	return cuckoo.FPP(cp.B, cp.F, float64(n)/float64(cp.slots()))
}

// maxCuckooKeys is the most keys a cuckoo filter of bucket size b and
// fingerprints of f bits holds.
func maxCuckooKeys(b, f int) uint64 {
	return uint64(float64(cuckoo.MaxBuckets*uint64(b)) * cuckoo.MaxLoad(b, f))
}

// cuckooShape is the table of a filter sized for n keys with (b, f): its
// slots and the formula FP at the load n/slots; ok is false when n keys are
// more than the table can hold.
func cuckooShape(n uint64, b, f int) (slots uint64, fpp float64, ok bool) {
	if n > maxCuckooKeys(b, f) {
		return 0, 0, false
	}
	slots = cuckoo.BucketsFor(n, b, f) * uint64(b)
	return slots, cuckoo.FPP(b, f, float64(n)/float64(slots)), true
}

func cuckooParamsOf(f *cuckoo.Filter) cuckooParams {
	return cuckooParams{B: f.BucketSize(), F: f.FingerprintBits(), Capacity: f.Cap(), Memory: f.MemoryBits()}
}

func (cuckooKind) size(n uint64, s Sizing) (Params, error) {
	b := s.intOption(OptionBucketSize, cuckoo.DefaultBucketSize)
	if b != 1 && b != 2 && b != 4 && b != 8 {
		return nil, sizingError(OptionBucketSize, b, nil, "want 1, 2, 4 or 8 fingerprints a bucket")
	}
	f := s.intOption(OptionFingerprintBits, 0)
	var slots uint64
	switch {
	case f != 0:
		var ok bool
		if slots, _, ok = cuckooShape(n, b, f); !ok {
			return nil, sizingError(OptionBucketSize, b, nil, "%d keys are more than a cuckoo filter with buckets of %d and %d-bit fingerprints holds (%d)", n, b, f, maxCuckooKeys(b, f))
		}
	case s.FPP != 0:
		// The f of least memory (slots*f) whose formula FP at its own load
		// meets the target: a short fingerprint loads the table less far
		// (cuckoo.MaxLoad), so the shortest f that meets it need not be
		// the cheapest. Ties go to the shorter f.
		best, bestFPP := 0, 1.0
		for g := 1; g <= cuckoo.MaxFingerprintBits; g++ {
			sl, p, ok := cuckooShape(n, b, g)
			if !ok {
				continue
			}
			if p <= s.FPP && (best == 0 || sl*uint64(g) < slots*uint64(best)) {
				best, slots = g, sl
			}
			bestFPP = min(bestFPP, p)
		}
		if best == 0 {
			return nil, sizingError("FPP", s.FPP, nil, "a cuckoo filter of %d keys with buckets of %d reaches at best %.3g with fingerprints of at most %d bits",
				n, b, bestFPP, cuckoo.MaxFingerprintBits)
		}
		f = best
	default:
		// The f of least formula FP whose table fits the budget of
		// BitsPerKey*n bits.
		budget := s.BitsPerKey * float64(n)
		best, bestFPP := 0, 2.0
		for g := 1; g <= cuckoo.MaxFingerprintBits; g++ {
			sl, p, ok := cuckooShape(n, b, g)
			if ok && float64(sl*uint64(g)) <= budget && p < bestFPP {
				best, bestFPP, slots = g, p, sl
			}
		}
		if best == 0 {
			least := 0.0 // the least bits a key of any f
			for g := 1; g <= cuckoo.MaxFingerprintBits; g++ {
				if sl, _, ok := cuckooShape(n, b, g); ok && (least == 0 || float64(sl*uint64(g)) < least) {
					least = float64(sl * uint64(g))
				}
			}
			return nil, sizingError("BitsPerKey", s.BitsPerKey, nil, "a cuckoo filter of %d keys with buckets of %d takes at least %.3g bits a key", n, b, least/float64(max(n, 1)))
		}
		f = best
	}
	return cuckooParams{B: b, F: f, Capacity: max(n, 1), Memory: slots * uint64(f)}, nil
}

// cuckooRetries is how many times a cuckoo build that filled its table
// retries with a quarter more capacity.
const cuckooRetries = 4

// addAll adds keys to f; on an error it returns the index of the key.
func addAll(f *cuckoo.Filter, keys [][]byte) (int, error) {
	for i, key := range keys {
		if err := f.Add(key); err != nil {
			return i, err
		}
	}
	return len(keys), nil
}
