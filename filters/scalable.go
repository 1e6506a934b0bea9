package filters

import (
	"errors"
	"fmt"
	"math"

	"github.com/acbfjoin/acbfjoin/keylist"
	"github.com/acbfjoin/acbfjoin/scalable"
)

// Sizing options of this file's kinds (Sizing.Options, Spec.Options).
const (
	OptionInitialCapacity = "initial-capacity" // keys of the first sub-filter (scalable)
	OptionGrowth          = "growth"           // the factor of each sub-filter's keys over the one before (scalable)
	OptionTightening      = "tightening"       // the ratio of each sub-filter's error to the one before's (scalable)
)

// Scalable is a scalable Bloom filter (package scalable; Almeida, Baquero,
// Preguiça and Hutchison 2007): partitioned Bloom filters added as keys
// come, each holding growth times the keys of the one before at tightening
// times its error, so that its false positive rate stays below P0/(1-r) at
// any size without knowing the key count. It starts at the
// initial-capacity option's keys (default 1000) and grows to the n keys of
// the build. Its error P0: with Sizing.FPP, FPP*(1-r), so that the bound is
// FPP; otherwise the error of a partitioned Bloom filter of BitsPerKey bits
// a key at fill 1/2, e^(-b ln^2 2) (its first sub-filter takes BitsPerKey
// bits a key; the later ones, tighter, take more, and the last is partly
// empty: its memory a key is more than BitsPerKey).
const Scalable Kind = "scalable"

// scalableParams are a scalable filter's: its first sub-filter's error
// P0 and keys N0, growth S and tightening R, and the memory it took.
type scalableParams struct {
	P0     float64 `json:"p0"`
	N0     uint64  `json:"n0"`
	S      float64 `json:"s"`
	R      float64 `json:"r"`
	Memory uint64  `json:"memory_bits"`
}

func (p scalableParams) String() string {
	return fmt.Sprintf("scalable(p0=%.3g,n0=%d,s=%g,r=%g)", p.P0, p.N0, p.S, p.R)
}
func (p scalableParams) Shape() string {
	return fmt.Sprintf("P0=%.3g s=%g r=%g from %d keys", p.P0, p.S, p.R, p.N0)
}
func (p scalableParams) Summary() Summary {
	return Summary{FirstLevelBits: p.Memory, MemoryBits: p.Memory}
}

func (p scalableParams) config() scalable.Config {
	return scalable.Config{InitialCapacity: p.N0, FPP: p.P0, Growth: p.S, Tightening: p.R}
}

type scalableKind struct {
	ownFormat[scalable.Filter, *scalable.Filter, scalableParams]
}

func init() {
	register(&Spec{Kind: Scalable, Doc: "a scalable Bloom filter that grows as keys come, FP below P0/(1-r) at any size (Almeida et al. 2007); cannot delete",
		Order: 9, Sized: true, Grows: true, Note: "grows as keys come (no count needed); the memory for n keys", f: scalableKind{ownFormat[scalable.Filter, *scalable.Filter, scalableParams]{params: scalableParamsOf}}, Options: []Option{
			{Name: OptionInitialCapacity, Int: true, Min: 1, Max: maxCapacity, Doc: "keys of the first sub-filter (default 1000)"},
			{Name: OptionGrowth, Min: 1, Max: 1 << 10, Want: "a factor from 1 to 1024", Doc: "each sub-filter holds this many times the keys of the one before (default 2)"},
			{Name: OptionTightening, Min: math.SmallestNonzeroFloat64, Max: 1 - 1e-16, Want: "a ratio between 0 and 1", Doc: "each sub-filter's error is this times the one before's, between 0 and 1 (default 0.5)"},
		}})
}

func (scalableKind) size(n uint64, s Sizing) (Params, error) {
	p := scalableParams{N0: 1000, S: 2, R: 0.5}
	if v, ok := s.Option(OptionInitialCapacity); ok {
		p.N0 = uint64(v)
	}
	if v, ok := s.Option(OptionGrowth); ok {
		p.S = v
	}
	if v, ok := s.Option(OptionTightening); ok {
		p.R = v
	}
	if s.FPP != 0 {
		p.P0 = s.FPP * (1 - p.R) // the bound P0/(1-r) is FPP
		if p.P0 < 1e-300 {
			// Below, the first error underflows (to 0, the scalable
			// package's default 0.001): the bits a key would pass 1000.
			return nil, sizingError("FPP", s.FPP, nil, "a scalable filter reaches at best about 1e-300 (its first error P*(1-r) underflows below)")
		}
	} else {
		// A partitioned filter at fill 1/2 takes log2(1/P)/ln 2 bits a key.
		p.P0 = math.Exp(-s.BitsPerKey * math.Ln2 * math.Ln2)
		if p.P0 < 1e-300 {
			return nil, sizingError("BitsPerKey", s.BitsPerKey, nil, "a scalable filter's first error e^(-b ln^2 2) underflows: at most 1000 bits per key")
		}
	}
	plan, err := p.config().Plan(n)
	switch {
	case errors.Is(err, scalable.ErrFull):
		return nil, sizingError(OptionInitialCapacity, p.N0, err, "%d keys need more sub-filters or bits than a scalable filter holds: start it larger", n)
	case err != nil:
		return nil, sizingError(OptionInitialCapacity, p.N0, err, "no scalable filter of these settings")
	}
	p.Memory = plan.Bits
	return p, nil
}

func (scalableKind) build(p Params, list keylist.List) (Filter, Params, int64, error) {
	keys := list.Slices()
	f, err := scalable.New(p.(scalableParams).config())
	if err != nil {
		return nil, nil, 0, err
	}
	for i, key := range inOrder(keys) { // which sub-filter a key lands in depends on the order
		if err := f.Add(key); err != nil {
			return nil, nil, 0, fmt.Errorf("scalable filter: key %d of %d: %w", i+1, len(keys), err)
		}
	}
	return f, scalableParamsOf(f), f.SerializedSize(), nil
}

func scalableParamsOf(f *scalable.Filter) scalableParams {
	c := f.Config()
	return scalableParams{P0: c.FPP, N0: c.InitialCapacity, S: c.Growth, R: c.Tightening, Memory: f.MemoryBits()}
}

func (scalableKind) add(f Filter, key []byte) error { return f.(*scalable.Filter).Add(key) }

func (scalableKind) fillFPP(f Filter) float64 { return f.(*scalable.Filter).FillFPP() }

// fpp is 1 - prod (1 - fpp_i) over the sub-filters n keys fill, each a
// partitioned Bloom filter's formula (scalable.Config.Plan).
func (scalableKind) fpp(p Params, n uint64) float64 {
	plan, err := p.(scalableParams).config().Plan(n)
	if err != nil {
		return 1 // n keys do not fit: Build fails
	}
	return plan.FPP
}
