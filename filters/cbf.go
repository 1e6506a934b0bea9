package filters

import (
	"fmt"
	"io"

	"github.com/acbfjoin/acbfjoin/cbf"
)

func init() {
	register(&Spec{
		Kind:    CBF,
		Doc:     "a counting Bloom filter of m 4-bit counters",
		Order:   3,
		Sized:   true,
		Fields:  []string{"K"},
		Deletes: true,
		// m counters of 4 bits; a query reads m positions.
		Layout: func(m, n uint64, k int) (Params, error) {
			return Params{M: m, K: k, FirstLevelBits: 4 * m, MemoryBits: 4 * m}, nil
		},
		Words: func(p Params) string { return fmt.Sprintf("m=%d counters of 4 bits, k=%d", p.M, p.K) },
		// A CBF's false positive rate is a Bloom filter's with m bits.
		CountersFor: func(bits, n uint64, k int) uint64 { return bits },
		Build: func(p Params, keys [][]byte) (Filter, int64, error) {
			f, err := cbf.New(p.M, p.K)
			if err != nil {
				return nil, 0, err
			}
			for _, key := range keys {
				f.Add(key)
			}
			return f, f.SerializedSize(), nil
		},
		// A counter at its maximum (15) stays there (cbf.Filter.Add).
		Add: func(f Filter, key []byte) error {
			f.(*cbf.Filter).Add(key)
			return nil
		},
		Remove: func(f Filter, key []byte) error { return f.(*cbf.Filter).Remove(key) },
		Encode: func(f Filter, w io.Writer) error {
			_, err := f.(*cbf.Filter).WriteTo(w)
			return err
		},
		Decode: func(data []byte) (Filter, error) {
			var f cbf.Filter
			if err := f.UnmarshalBinary(data); err != nil {
				return nil, err
			}
			return &f, nil
		},
		FillFPP: func(f Filter) float64 { return f.(*cbf.Filter).FillFPP() },
		// (1 - e^(-kn/m))^k with m counters (cbf.FPP).
		FPP: func(p Params, n uint64) float64 { return cbf.FPP(p.M, n, p.K) },
	})
}
