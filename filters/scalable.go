package filters

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/acbfjoin/acbfjoin/scalable"
)

// The scalable kind (package scalable; Almeida, Baquero, Preguiça and
// Hutchison 2007): partitioned Bloom filters added as keys come, each
// holding Growth times the keys of the one before at Tightening times its
// error, so that its false positive rate stays below P0/(1-r) at any size
// without knowing the key count. It starts at Sizing.InitialCapacity keys
// (default 1000) and grows to the n keys of the build. Its error P0: with
// Sizing.FPP, FPP*(1-r), so that the bound is FPP; otherwise the error of a
// partitioned Bloom filter of BitsPerKey bits a key at fill 1/2, e^(-b ln^2 2)
// (its first sub-filter takes BitsPerKey bits a key; the later ones,
// tighter, take more, and the last is partly empty: its memory a key is
// more than BitsPerKey).
func init() {
	register(&Spec{
		Kind:    Scalable,
		Doc:     "a scalable Bloom filter that grows as keys come, FP below P0/(1-r) at any size (Almeida et al. 2007); cannot delete",
		Order:   9,
		Sized:   true,
		Fields:  []string{"InitialCapacity", "Growth", "Tightening"},
		SizeFor: sizeScalable,
		Build: func(p Params, keys [][]byte) (Filter, int64, error) {
			f, err := scalable.New(scalableConfig(p))
			if err != nil {
				return nil, 0, err
			}
			for i, key := range inOrder(keys) { // which sub-filter a key lands in depends on the order
				if err := f.Add(key); err != nil {
					return nil, 0, fmt.Errorf("scalable filter: key %d of %d: %w", i+1, len(keys), err)
				}
			}
			return f, f.SerializedSize(), nil
		},
		ParamsOf: func(f Filter) Params {
			s := f.(*scalable.Filter)
			c := s.Config()
			return Params{FirstFPP: c.FPP, Growth: c.Growth, Tightening: c.Tightening, Capacity: c.InitialCapacity,
				FirstLevelBits: s.MemoryBits(), MemoryBits: s.MemoryBits()}
		},
		Add: func(f Filter, key []byte) error { return f.(*scalable.Filter).Add(key) },
		Encode: func(f Filter, w io.Writer) error {
			_, err := f.(*scalable.Filter).WriteTo(w)
			return err
		},
		Decode: func(data []byte) (Filter, error) {
			var f scalable.Filter
			if err := f.UnmarshalBinary(data); err != nil {
				return nil, err
			}
			return &f, nil
		},
		FillFPP: func(f Filter) float64 { return f.(*scalable.Filter).FillFPP() },
		// 1 - prod (1 - fpp_i) over the sub-filters n keys fill, each a
		// partitioned Bloom filter's formula (scalable.Config.Plan).
		FPP: func(p Params, n uint64) float64 {
			plan, err := scalableConfig(p).Plan(n)
			if err != nil {
				return 1 // n keys do not fit: Build fails
			}
			return plan.FPP
		},
	})
}

func scalableConfig(p Params) scalable.Config {
	return scalable.Config{InitialCapacity: p.Capacity, FPP: p.FirstFPP, Growth: p.Growth, Tightening: p.Tightening}
}

func sizeScalable(n uint64, s Sizing) (Params, error) {
	p := Params{Capacity: s.InitialCapacity, Growth: s.Growth, Tightening: s.Tightening}
	if p.Capacity == 0 {
		p.Capacity = 1000
	}
	if p.Growth == 0 {
		p.Growth = 2
	}
	if p.Tightening == 0 {
		p.Tightening = 0.5
	}
	if s.FPP != 0 {
		p.FirstFPP = s.FPP * (1 - p.Tightening) // the bound P0/(1-r) is FPP
	} else {
		// A partitioned filter at fill 1/2 takes log2(1/P)/ln 2 bits a key.
		p.FirstFPP = math.Exp(-s.BitsPerKey * math.Ln2 * math.Ln2)
		if p.FirstFPP < 1e-300 {
			return Params{}, sizingError("BitsPerKey", s.BitsPerKey, nil, "a scalable filter's first error e^(-b ln^2 2) underflows: at most 1000 bits per key")
		}
	}
	plan, err := scalableConfig(p).Plan(n)
	switch {
	case errors.Is(err, scalable.ErrFull):
		return Params{}, sizingError("InitialCapacity", p.Capacity, err, "%d keys need more sub-filters or bits than a scalable filter holds: start it larger", n)
	case err != nil:
		return Params{}, sizingError("InitialCapacity", p.Capacity, err, "no scalable filter of these settings")
	}
	p.MemoryBits, p.FirstLevelBits = plan.Bits, plan.Bits
	return p, nil
}
