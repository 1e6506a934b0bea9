package filters

import (
	"fmt"
	"math"

	"github.com/acbfjoin/acbfjoin/blocked"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// Blocked is a blocked Bloom filter (package blocked; Putze, Sanders and
// Singler 2007): every probe of a key in one 512-bit block, one cache line.
// Its bits are BitsPerKey*n rounded up to whole blocks, or the least that
// meet FPP by the blocked formula (blocked.BitsFor); k defaults to the
// blocked formula's optimum for the bits a key (blocked.OptimalK), at most
// blocked.MaxK.
const Blocked Kind = "blocked"

// blockedParams are a blocked filter's: Bits in blocks of 512, K probes;
// Memory is its payload (the bits and the words that align its blocks to
// cache lines).
type blockedParams struct {
	K      int    `json:"k"`
	Bits   uint64 `json:"bits"`
	Memory uint64 `json:"memory_bits"`
}

func (p blockedParams) String() string { return fmt.Sprintf("blocked(m=%d,k=%d)", p.Bits, p.K) }
func (p blockedParams) Shape() string  { return fmt.Sprintf("k=%d", p.K) }
func (p blockedParams) Summary() Summary {
	return Summary{K: p.K, FirstLevelBits: p.Bits, MemoryBits: p.Memory}
}

type blockedKind struct {
	ownFormat[blocked.Filter, *blocked.Filter, blockedParams]
}

func init() {
	register(&Spec{Kind: Blocked, Doc: "a blocked Bloom filter: all k probes in one 512-bit cache line (Putze et al. 2007); cannot delete",
		Order: 10, Sized: true, Options: []Option{optionK(blocked.MaxK)}, f: blockedKind{ownFormat[blocked.Filter, *blocked.Filter, blockedParams]{params: blockedParamsOf}}})
}

func (blockedKind) size(n uint64, s Sizing) (Params, error) {
	var bits uint64
	k := s.intOption(OptionK, 0)
	if s.FPP != 0 {
		if bits, k = blocked.BitsFor(n, s.FPP, k); bits == 0 {
			return nil, sizingError("FPP", s.FPP, nil, "no blocked filter of %d keys reaches it", n)
		}
	} else {
		bits = uint64(math.Ceil(s.BitsPerKey*float64(n)/blocked.BlockBits)) * blocked.BlockBits
		if k == 0 {
			k = blocked.OptimalK(float64(bits) / float64(n))
		}
	}
	return blockedParams{K: k, Bits: bits, Memory: bits}, nil
}

func (blockedKind) build(p Params, keys keylist.List) (Filter, Params, int64, error) {
	bp := p.(blockedParams)
	f, err := blocked.BuildList(bp.Bits, bp.K, keys) // on several goroutines for many keys
	if err != nil {
		return nil, nil, 0, err
	}
	return f, blockedParamsOf(f), f.SerializedSize(), nil
}

func (blockedKind) add(f Filter, key []byte) error {
	f.(*blocked.Filter).Add(key)
	return nil
}

func (blockedKind) fillFPP(f Filter) float64 { return f.(*blocked.Filter).FillFPP() }

// fpp is the blocked formula: Binomial block loads, the exact fill of a
// block at each load (blocked.FPP); above the classic Bloom formula at the
// same bits.
func (blockedKind) fpp(p Params, n uint64) float64 {
	bp := p.(blockedParams)
	return blocked.FPP(bp.Bits, n, bp.K)
}

// estimateFPP is the formula from a table within 1% of it where it holds
// (blocked.FPPWhole): the formula costs about a millisecond a size.
func (blockedKind) estimateFPP(p Params, n uint64) float64 {
	bp := p.(blockedParams)
	return blocked.FPPWhole(bp.Bits, n, bp.K)
}

func blockedParamsOf(f *blocked.Filter) blockedParams {
	return blockedParams{K: f.K(), Bits: f.Bits(), Memory: f.MemoryBits()}
}
