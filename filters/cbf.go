package filters

import (
	"fmt"

	"github.com/acbfjoin/acbfjoin/cbf"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// CBF is a counting Bloom filter of m 4-bit counters (package cbf).
const CBF Kind = "cbf"

// cbfParams are a CBF's: M counters of 4 bits, k probes.
type cbfParams struct {
	M uint64 `json:"m"`
	K int    `json:"k"`
}

func (p cbfParams) String() string { return fmt.Sprintf("cbf(m=%d,k=%d)", p.M, p.K) }
func (p cbfParams) Shape() string  { return fmt.Sprintf("k=%d", p.K) }
func (p cbfParams) Summary() Summary {
	return Summary{M: p.M, K: p.K, FirstLevelBits: 4 * p.M, MemoryBits: 4 * p.M}
}

type cbfKind struct {
	counterBudget
	ownFormat[cbf.Filter, *cbf.Filter, cbfParams]
}

func init() {
	k := cbfKind{ownFormat: ownFormat[cbf.Filter, *cbf.Filter, cbfParams]{params: func(f *cbf.Filter) cbfParams { return cbfParams{M: f.M(), K: f.K()} }}}
	k.counterBudget = counterBudget{
		// m counters of 4 bits; a query reads m positions.
		layout: func(m, n uint64, k int) (Params, error) { return cbfParams{M: m, K: k}, nil },
		// A CBF's false positive rate is a Bloom filter's with m bits.
		countersFor: func(bits, n uint64, k int) uint64 { return bits },
		fpp:         k.fpp,
	}
	register(&Spec{Kind: CBF, Doc: "a counting Bloom filter of m 4-bit counters", Order: 3, Sized: true, Deletes: true,
		Options: []Option{optionK(cbf.MaxK)}, f: k})
}

func (k cbfKind) size(n uint64, s Sizing) (Params, error) { return k.counterBudget.size(n, s, n) }

func (cbfKind) build(p Params, keys keylist.List) (Filter, Params, int64, error) {
	cp := p.(cbfParams)
	f, err := cbf.BuildList(cp.M, cp.K, keys) // on several goroutines for many keys
	if err != nil {
		return nil, nil, 0, err
	}
	return f, p, f.SerializedSize(), nil
}

// add: a counter at its maximum (15) stays there (cbf.Filter.Add).
func (cbfKind) add(f Filter, key []byte) error {
	f.(*cbf.Filter).Add(key)
	return nil
}

func (cbfKind) remove(f Filter, key []byte) error { return f.(*cbf.Filter).Remove(key) }

func (cbfKind) fillFPP(f Filter) float64 { return f.(*cbf.Filter).FillFPP() }

// fpp is (1 - e^(-kn/m))^k with m counters (cbf.FPP).
func (cbfKind) fpp(p Params, n uint64) float64 {
	cp := p.(cbfParams)
	return cbf.FPP(cp.M, n, cp.K)
}

// fillSpread: a CBF's non-zero counters are a Bloom filter's ones
// (bloomFillSpread over its m counters).
func (cbfKind) fillSpread(p Params, n uint64) float64 {
	cp := p.(cbfParams)
	return bloomFillSpread(float64(cp.M), cp.K, n)
}
