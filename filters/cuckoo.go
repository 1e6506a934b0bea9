package filters

import (
	"errors"
	"fmt"
	"io"

	"github.com/acbfjoin/acbfjoin/cuckoo"
)

// The cuckoo kind (package cuckoo; Fan, Andersen, Kaminsky and Mitzenmacher,
// CoNEXT 2014): f-bit fingerprints in buckets of b slots, two buckets a key.
// It is sized for the n keys at the measured safe load of its (b, f)
// (cuckoo.MaxLoad: 95% for b = 4 and f >= 7, less for short fingerprints);
// the fingerprint is Sizing.FingerprintBits, or the one of least memory that
// meets Sizing.FPP at its load, or the one of least formula FP whose table
// fits in Sizing.BitsPerKey bits a key.
func init() {
	register(&Spec{
		Kind:    Cuckoo,
		Doc:     "a cuckoo filter of f-bit fingerprints in buckets of b (Fan et al. 2014); deletes",
		Order:   8,
		Sized:   true,
		Deletes: true,
		Fields:  []string{"BucketSize", "FingerprintBits"},
		SizeFor: sizeCuckoo,
		Build: func(p Params, keys [][]byte) (Filter, int64, error) {
			// Below cuckoo.MaxLoad a full table is rare for large tables
			// (cuckoo's TestMaxLoad) but not for tables of a few buckets,
			// whose load varies more (24 keys in 32 slots can fail): the
			// build then retries with a quarter more capacity, a few
			// times. The filter's Params and formula FP are those of the
			// table built (ParamsOf), so the report stays true; its FP is
			// lower than the sizing's, its bytes more.
			keys = inOrder(keys) // where a fingerprint lands depends on the order
			capacity := p.Capacity
			for try := 0; ; try++ {
				f, err := cuckoo.New(capacity, p.BucketSize, p.FingerprintBits)
				if err != nil {
					return nil, 0, err
				}
				i, err := addAll(f, keys)
				if err == nil {
					return f, f.SerializedSize(), nil
				}
				if !errors.Is(err, cuckoo.ErrFull) || try == cuckooRetries {
					// An error, never a lost key.
					return nil, 0, fmt.Errorf("cuckoo filter: key %d of %d: %w (a larger --bucket-size or --fingerprint-bits loads the table further)", i+1, len(keys), err)
				}
				capacity += (capacity + 3) / 4
			}
		},
		ParamsOf: func(f Filter) Params { return cuckooParams(f.(*cuckoo.Filter)) },
		Add:      func(f Filter, key []byte) error { return f.(*cuckoo.Filter).Add(key) },
		Remove:   func(f Filter, key []byte) error { return f.(*cuckoo.Filter).Remove(key) },
		Encode: func(f Filter, w io.Writer) error {
			_, err := f.(*cuckoo.Filter).WriteTo(w)
			return err
		},
		Decode: func(data []byte) (Filter, error) {
			var f cuckoo.Filter
			if err := f.UnmarshalBinary(data); err != nil {
				return nil, err
			}
			return &f, nil
		},
		// The formula at the filter's own load: a query's two buckets are
		// uniform, so their expected fill is the load whatever the keys.
		FillFPP: func(f Filter) float64 { return f.(*cuckoo.Filter).FPP() },
		// 1 - (1 - 1/(2^f - 1))^(2b*load) at load n / slots (cuckoo.FPP).
		FPP: func(p Params, n uint64) float64 {
			return cuckoo.FPP(p.BucketSize, p.FingerprintBits, float64(n)/float64(cuckooSlots(p)))
		},
	})
}

// cuckooSlots is the slots of a cuckoo filter of p: its table is slots*f
// bits (sizeCuckoo and cuckooParams both set MemoryBits so).
func cuckooSlots(p Params) uint64 {
	if p.FingerprintBits < 1 {
		return 0
	}
	return p.MemoryBits / uint64(p.FingerprintBits)
}

func cuckooParams(f *cuckoo.Filter) Params {
	return Params{BucketSize: f.BucketSize(), FingerprintBits: f.FingerprintBits(), Capacity: f.Cap(),
		FirstLevelBits: f.MemoryBits(), MemoryBits: f.MemoryBits()}
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

func sizeCuckoo(n uint64, s Sizing) (Params, error) {
	b := s.BucketSize
	if b == 0 {
		b = cuckoo.DefaultBucketSize
	}
	if cuckoo.MaxLoad(b, 1) == 0 {
		return Params{}, sizingError("BucketSize", b, nil, "want 1..%d", cuckoo.MaxBucketSize)
	}
	f := s.FingerprintBits
	var slots uint64
	switch {
	case f != 0:
		var ok bool
		if slots, _, ok = cuckooShape(n, b, f); !ok {
			return Params{}, sizingError("BucketSize", b, nil, "%d keys are more than a cuckoo filter with buckets of %d and %d-bit fingerprints holds (%d)", n, b, f, maxCuckooKeys(b, f))
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
			return Params{}, sizingError("FPP", s.FPP, nil, "a cuckoo filter of %d keys with buckets of %d reaches at best %.3g with fingerprints of at most %d bits",
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
			return Params{}, sizingError("BitsPerKey", s.BitsPerKey, nil, "a cuckoo filter of %d keys with buckets of %d takes at least %.3g bits a key", n, b, least/float64(max(n, 1)))
		}
		f = best
	}
	p := Params{BucketSize: b, FingerprintBits: f, Capacity: max(n, 1), MemoryBits: slots * uint64(f)}
	p.FirstLevelBits = p.MemoryBits
	return p, nil
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
