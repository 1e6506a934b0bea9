package filters

import (
	"fmt"
	"io"
	"math"

	"github.com/acbfjoin/acbfjoin/blocked"
)

// The blocked kind (package blocked; Putze, Sanders and Singler 2007): a
// Bloom filter cut into 512-bit blocks, one cache line, all k probes of a
// key in one block. Its bits are BitsPerKey*n rounded up to whole blocks, or
// the least whole blocks whose formula meets Sizing.FPP (blocked.BitsFor);
// k is Sizing.K or the k that minimises the blocked formula at those bits
// (blocked.OptimalK), at most blocked.MaxK.
func init() {
	register(&Spec{
		Kind:    Blocked,
		Doc:     "a blocked Bloom filter: all k probes in one 512-bit cache line (Putze et al. 2007); cannot delete",
		Order:   10,
		Sized:   true,
		Fields:  []string{"K"},
		SizeFor: sizeBlocked,
		Words: func(p Params) string {
			return fmt.Sprintf("%d blocks of %d bits, k=%d", p.FirstLevelBits/blocked.BlockBits, blocked.BlockBits, p.K)
		},
		Build: func(p Params, keys [][]byte) (Filter, int64, error) {
			f, err := blocked.New(p.FirstLevelBits, p.K)
			if err != nil {
				return nil, 0, err
			}
			for _, key := range keys {
				f.Add(key)
			}
			return f, f.SerializedSize(), nil
		},
		ParamsOf: func(f Filter) Params {
			b := f.(*blocked.Filter)
			return Params{K: b.K(), FirstLevelBits: b.Bits(), MemoryBits: b.MemoryBits()}
		},
		Add: func(f Filter, key []byte) error {
			f.(*blocked.Filter).Add(key)
			return nil
		},
		Encode: func(f Filter, w io.Writer) error {
			_, err := f.(*blocked.Filter).WriteTo(w)
			return err
		},
		Decode: func(data []byte) (Filter, error) {
			var f blocked.Filter
			if err := f.UnmarshalBinary(data); err != nil {
				return nil, err
			}
			return &f, nil
		},
		FillFPP: func(f Filter) float64 { return f.(*blocked.Filter).FillFPP() },
		// The blocked formula: Binomial block loads, the exact fill of a
		// block at each load (blocked.FPP); above the classic Bloom
		// formula at the same bits.
		FPP: func(p Params, n uint64) float64 { return blocked.FPP(p.FirstLevelBits, n, p.K) },
	})
}

func sizeBlocked(n uint64, s Sizing) (Params, error) {
	if s.K > blocked.MaxK {
		return Params{}, sizingError("K", s.K, nil, "the blocked filter takes 1 to %d probes (all in one 512-bit block)", blocked.MaxK)
	}
	var bits uint64
	k := s.K
	if s.FPP != 0 {
		if bits, k = blocked.BitsFor(n, s.FPP, s.K); bits == 0 {
			return Params{}, sizingError("FPP", s.FPP, nil, "no blocked filter of %d keys reaches it", n)
		}
	} else {
		bits = uint64(math.Ceil(s.BitsPerKey*float64(n)/blocked.BlockBits)) * blocked.BlockBits
		if k == 0 {
			k = blocked.OptimalK(float64(bits) / float64(n))
		}
	}
	return Params{K: k, FirstLevelBits: bits, MemoryBits: bits}, nil
}
