package filters

import (
	"fmt"
	"math"

	"github.com/acbfjoin/acbfjoin/acbf"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// Sizing options of this file's kinds (Sizing.Options, Spec.Options).
const (
	OptionACBFCapacity = "acbf-capacity" // counter room for this many keys (the ACBF kinds)
)

// The ACBF kinds (package acbf; Li, Huang, Zhang and Qin 2013): acbf, the
// optimal first level m1 = 4m - nk (the paper's second optimisation), and
// acbf1..acbf3, the paper's ACBF_j with m1 = j*m (its first). All take the
// 4m-bit budget of a CBF with m counters.
const (
	ACBF  Kind = "acbf"
	ACBF1 Kind = "acbf1"
	ACBF2 Kind = "acbf2"
	ACBF3 Kind = "acbf3"
)

// acbfParams are an ACBF's: the budget of M counters (4M bits), K probes,
// a first level of FirstLevel bits (what a query reads) and counter room
// for Room keys beside it.
type acbfParams struct {
	J          int    `json:"j"` // 0: the optimal first level; 1..3: ACBF_j
	M          uint64 `json:"m"`
	K          int    `json:"k"`
	FirstLevel uint64 `json:"first_level_bits"`
	Room       uint64 `json:"room"`
}

func (p acbfParams) kind() Kind {
	if p.J == 0 {
		return ACBF
	}
	return Kind(fmt.Sprintf("acbf%d", p.J))
}

func (p acbfParams) String() string {
	return fmt.Sprintf("%s(m=%d,k=%d,m1=%d,room=%d)", p.kind(), p.M, p.K, p.FirstLevel, p.Room)
}

func (p acbfParams) Shape() string { return fmt.Sprintf("k=%d room=%d", p.K, p.Room) }

func (p acbfParams) Summary() Summary {
	return Summary{M: p.M, K: p.K, FirstLevelBits: p.FirstLevel, MemoryBits: 4 * p.M}
}

// acbfKind is the ACBF with a first level of j*m bits, or the optimal one
// for j = 0.
type acbfKind struct {
	j    int
	kind Kind
	counterBudget
	ownFormat[acbf.Filter, *acbf.Filter, acbfParams]
}

func init() {
	for j, doc := range []string{
		"the ACBF with the optimal first level, 4m - nk bits (Li et al. 2013)",
		"ACBF_1: a first level of m bits, the CBF's positions",
		"ACBF_2: a first level of 2m bits",
		"ACBF_3: a first level of 3m bits",
	} {
		k := &acbfKind{j: j, kind: acbfParams{J: j}.kind()}
		k.counterBudget = counterBudget{layout: k.layout, countersFor: k.countersFor, fpp: k.fpp}
		k.ownFormat.params = k.params
		register(&Spec{Kind: k.kind, Doc: doc, Order: 4 + j, Sized: true, Deletes: true, f: k,
			Options: []Option{optionK(acbf.MaxK), {Name: OptionACBFCapacity, Int: true, Min: 1, Max: maxCapacity, Want: "1 to 2^40 keys, at least the distinct keys (leave it out for exactly those)",
				Doc: "keep counter room for this many keys, at least the distinct keys (default: exactly those); sized by bits per key, the first level shrinks to 4m - capacity*k bits; by a target FPP, the memory grows to keep the rate"}}})
	}
}

// maxCapacity bounds the options that count keys: far beyond
// MaxFilterBytes at any rate.
const maxCapacity = 1 << 40

func (k *acbfKind) config(m, n uint64, kk int) acbf.Config {
	if k.j == 0 {
		return acbf.ConfigOptimal(m, n, kk)
	}
	return acbf.ConfigJ(k.j, m, n, kk)
}

// layout lays the ACBF out in the budget of m counters with room for n
// keys' counters, or says which size would fit.
func (k *acbfKind) layout(m, n uint64, kk int) (Params, error) {
	cfg := k.config(m, n, kk)
	if err := cfg.Validate(); err != nil {
		bpk := 4 * float64(m) / float64(n)
		smaller := ", or a smaller k"
		if kk == 1 {
			smaller = "" // none is smaller
		}
		if k.j == 0 {
			return nil, sizingError("BitsPerKey", bpk, err, "%.4g bits per key cannot hold k = %d counter bits per key beside a first level (they share the budget): more than %d bits per key%s",
				bpk, kk, kk, smaller)
		}
		return nil, sizingError("BitsPerKey", bpk, err, "k = %d counter bits per key do not fit beside a first level of %d*m bits: at least %.0f bits per key%s",
			kk, k.j, math.Ceil(4*float64(kk)/float64(4-k.j)), smaller)
	}
	// Room: the keys whose counters the budget has room for beside the
	// first level, as a decoded filter's Cap reports it.
	m1 := cfg.FirstLevelBits()
	return acbfParams{J: k.j, M: m, K: kk, FirstLevel: m1, Room: (4*m - m1) / uint64(kk)}, nil
}

func (k *acbfKind) countersFor(bits, n uint64, kk int) uint64 {
	nk := float64(n) * float64(kk)
	if k.j == 0 {
		return uint64(math.Ceil((float64(bits) + nk) / 4)) // m1 = 4m - nk >= bits
	}
	m := uint64(math.Ceil(float64(bits) / float64(k.j)))
	return max(m, uint64(math.Ceil(nk/float64(4-k.j)))) // room for the counters: nk <= (4-j)m
}

// size sizes the budget with counter room for the acbf-capacity option's
// keys (default: the n held), so that the first level is 4m - capacity*k.
func (k *acbfKind) size(n uint64, s Sizing) (Params, error) {
	room := n
	if c, ok := s.Option(OptionACBFCapacity); ok {
		if uint64(c) < n {
			return nil, sizingError(OptionACBFCapacity, uint64(c), nil, "the filter holds %d keys: want a capacity of at least that", n)
		}
		room = uint64(c)
	}
	p, err := k.counterBudget.size(n, s, room)
	if _, given := s.Option(OptionK); err != nil && room != n && !given && s.FPP == 0 {
		// The default k for the memory leaves no room for the capacity's
		// counters: the largest smaller k that does (each key's counters
		// take k bits of the budget).
		for kk := s.defaultKFor(k.counterBudget, n) - 1; kk >= 1; kk-- {
			if q, qerr := k.counterBudget.size(n, s.With(OptionK, float64(kk)), room); qerr == nil {
				return q, nil
			}
		}
	}
	if err != nil && room != n {
		if s.FPP != 0 {
			return nil, sizingError(OptionACBFCapacity, room, err, "counter room for %d keys does not fit beside the first level a formula FP of %v for %d keys needs: a smaller capacity, or a smaller k",
				room, s.FPP, n)
		}
		// The k the sizing tried: the one given, else the kind's default
		// for the budget (counterBudget.size's).
		m := uint64(math.Round(s.BitsPerKey * float64(n) / 4))
		if kk := s.intOption(OptionK, 0); kk > 0 {
			return nil, sizingError(OptionACBFCapacity, room, err, "counter room for %d keys (k = %d bits each) does not fit in the %d-bit budget of %d keys: a smaller capacity, more bits per key or a smaller k",
				room, kk, 4*m, n)
		}
		return nil, sizingError(OptionACBFCapacity, room, err, "counter room for %d keys does not fit in the %d-bit budget of %d keys, even at k = 1 bit each: a smaller capacity or more bits per key",
			room, 4*m, n)
	}
	return p, err
}

func (k *acbfKind) build(p Params, keys keylist.List) (Filter, Params, int64, error) {
	ap := p.(acbfParams)
	// The optimal ACBF reserves its arena for the keys its first level
	// left room for (the acbf-capacity option, or exactly the keys
	// given); ACBF_j for the keys given, as before, its room being the
	// layout's idle space rather than a capacity asked for.
	reserve := uint64(keys.Len())
	if k.j == 0 {
		reserve = max(reserve, ap.Room)
	}
	f, err := acbf.BuildList(acbf.Config{Counters: ap.M, Capacity: max(1, reserve), K: ap.K, FirstLevel: ap.FirstLevel}, keys)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("filter %s: %w", k.kind, err)
	}
	return f, k.params(f), f.SerializedSize(), nil
}

// params are a built or decoded filter's parameters.
func (k *acbfKind) params(f *acbf.Filter) acbfParams {
	return acbfParams{J: k.j, M: f.Config().Counters, K: f.K(), FirstLevel: f.FirstLevelBits(), Room: f.Cap()}
}

func (*acbfKind) add(f Filter, key []byte) error    { return f.(*acbf.Filter).Add(key) }
func (*acbfKind) remove(f Filter, key []byte) error { return f.(*acbf.Filter).Remove(key) }

func (*acbfKind) fillFPP(f Filter) float64 { return f.(*acbf.Filter).FillFPP() }

// fpp: a query reads only the first level, a Bloom filter of m1 bits
// (acbf.FPP).
func (*acbfKind) fpp(p Params, n uint64) float64 {
	ap := p.(acbfParams)
	return acbf.FPP(ap.FirstLevel, n, ap.K)
}
