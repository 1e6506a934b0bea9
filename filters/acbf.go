package filters

import (
	"fmt"
	"io"
	"math"

	"github.com/acbfjoin/acbfjoin/acbf"
)

// The ACBF kinds: acbf, the optimal first level m1 = 4m - nk (the paper's
// second optimisation), and acbf1..acbf3, the paper's ACBF_j with m1 = j*m
// (its first). All take the 4m-bit budget of a CBF with m counters.
func init() {
	register(acbfSpec(ACBF, 0, 4, "the ACBF with the optimal first level, 4m - nk bits (Li et al. 2013)"))
	register(acbfSpec(ACBF1, 1, 5, "ACBF_1: a first level of m bits, the CBF's positions"))
	register(acbfSpec(ACBF2, 2, 6, "ACBF_2: a first level of 2m bits"))
	register(acbfSpec(ACBF3, 3, 7, "ACBF_3: a first level of 3m bits"))
}

// acbfSpec returns the spec of the ACBF with a first level of j*m bits, or
// the optimal one for j = 0.
func acbfSpec(kind Kind, j, order int, doc string) *Spec {
	config := func(m, n uint64, k int) acbf.Config {
		if j == 0 {
			return acbf.ConfigOptimal(m, n, k)
		}
		return acbf.ConfigJ(j, m, n, k)
	}
	return &Spec{
		Kind:    kind,
		Doc:     doc,
		Order:   order,
		Sized:   true,
		Fields:  []string{"K", "ACBFCapacity"},
		Deletes: true,
		Words: func(p Params) string {
			return fmt.Sprintf("m=%d counters, k=%d, first level %d bits, counter room for %d keys", p.M, p.K, p.FirstLevelBits, p.Capacity)
		},
		Layout: func(m, n uint64, k int) (Params, error) {
			cfg := config(m, n, k)
			if err := cfg.Validate(); err != nil {
				bpk := 4 * float64(m) / float64(n)
				smaller := ", or a smaller k"
				if k == 1 {
					smaller = "" // none is smaller
				}
				if j == 0 {
					return Params{}, sizingError("BitsPerKey", bpk, err, "%.4g bits per key cannot hold k = %d counter bits per key beside a first level (they share the budget): more than %d bits per key%s",
						bpk, k, k, smaller)
				}
				return Params{}, sizingError("BitsPerKey", bpk, err, "k = %d counter bits per key do not fit beside a first level of %d*m bits: at least %.0f bits per key%s",
					k, j, math.Ceil(4*float64(k)/float64(4-j)), smaller)
			}
			// Capacity: the keys whose counters the budget has room for
			// beside the first level, as a decoded filter's Cap reports it.
			m1 := cfg.FirstLevelBits()
			return Params{M: m, K: k, FirstLevelBits: m1, MemoryBits: 4 * m, Capacity: (4*m - m1) / uint64(k)}, nil
		},
		CountersFor: func(bits, n uint64, k int) uint64 {
			nk := float64(n) * float64(k)
			if j == 0 {
				return uint64(math.Ceil((float64(bits) + nk) / 4)) // m1 = 4m - nk >= bits
			}
			m := uint64(math.Ceil(float64(bits) / float64(j)))
			return max(m, uint64(math.Ceil(nk/float64(4-j)))) // room for the counters: nk <= (4-j)m
		},
		Build: func(p Params, keys [][]byte) (Filter, int64, error) {
			// The optimal ACBF reserves its arena for the keys its first
			// level left room for (Sizing.ACBFCapacity, or exactly the keys
			// given); ACBF_j for the keys given, as before, its room being
			// the layout's idle space rather than a capacity asked for.
			reserve := uint64(len(keys))
			if j == 0 {
				reserve = max(reserve, p.Capacity)
			}
			f, err := acbf.Build(acbf.Config{Counters: p.M, Capacity: max(1, reserve), K: p.K, FirstLevel: p.FirstLevelBits}, keys)
			if err != nil {
				return nil, 0, fmt.Errorf("filter %s: %w", kind, err)
			}
			return f, f.SerializedSize(), nil
		},
		ParamsOf: func(f Filter) Params {
			a := f.(*acbf.Filter)
			m := a.Config().Counters
			return Params{M: m, K: a.K(), FirstLevelBits: a.FirstLevelBits(), MemoryBits: 4 * m, Capacity: a.Cap()}
		},
		Add:    func(f Filter, key []byte) error { return f.(*acbf.Filter).Add(key) },
		Remove: func(f Filter, key []byte) error { return f.(*acbf.Filter).Remove(key) },
		Encode: func(f Filter, w io.Writer) error {
			_, err := f.(*acbf.Filter).WriteTo(w)
			return err
		},
		Decode: func(data []byte) (Filter, error) {
			var f acbf.Filter
			if err := f.UnmarshalBinary(data); err != nil {
				return nil, err
			}
			return &f, nil
		},
		FillFPP: func(f Filter) float64 { return f.(*acbf.Filter).FillFPP() },
		// A query reads only the first level, a Bloom filter of m1 bits
		// (acbf.FPP).
		FPP: func(p Params, n uint64) float64 { return acbf.FPP(p.FirstLevelBits, n, p.K) },
	}
}
