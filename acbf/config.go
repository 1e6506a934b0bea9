package acbf

import (
	"fmt"
	"math"
)

// MaxK is the largest number of hash functions a Filter accepts.
const MaxK = 64

// MaxCounters is the largest m accepted (2^36: a 4m-bit budget of 32 GiB). It
// keeps every size computation far from overflow and lets a decoder reject absurd
// headers before allocating.
const MaxCounters = 1 << 36

// Config sizes an ACBF. Its memory budget is that of a 4-bit CBF with Counters
// counters: 4*Counters bits, shared by the first level (FirstLevel bits) and the
// unary counters below it (K bits per stored element).
type Config struct {
	// Counters is m, the number of counters of the CBF whose 4m-bit budget the
	// ACBF gets.
	Counters uint64
	// Capacity is n, the number of elements the filter is built for.
	Capacity uint64
	// K is the number of hash functions.
	K int
	// FirstLevel is m1, the size of the first level in bits. Zero means the
	// optimum of the paper's second optimisation, 4m - n*k: the largest first
	// level that still leaves k bits for each of n elements.
	FirstLevel uint64
}

// ConfigJ returns the configuration of the paper's ACBF_j (first optimisation):
// a first level of j*m bits. ACBF_1 probes the same positions as a CBF with m
// counters and keeps the same counter values. ACBF_j needs n*k <= (4-j)*m.
func ConfigJ(j int, m, n uint64, k int) Config {
	if j < 0 {
		j = 0 // rejected by Validate as m1 < 1
	}
	return Config{Counters: m, Capacity: n, K: k, FirstLevel: uint64(j) * m}
}

// ConfigOptimal returns the configuration of the optimal ACBF (second
// optimisation): m1 = 4m - n*k.
func ConfigOptimal(m, n uint64, k int) Config {
	return Config{Counters: m, Capacity: n, K: k}
}

// FirstLevelBits returns m1 with the optimum resolved. It is meaningful only for
// a valid Config.
func (c Config) FirstLevelBits() uint64 {
	if c.FirstLevel != 0 {
		return c.FirstLevel
	}
	return 4*c.Counters - c.Capacity*uint64(c.K)
}

// BudgetBits returns the memory budget, 4m bits.
func (c Config) BudgetBits() uint64 { return 4 * c.Counters }

// Validate reports why c cannot describe a filter, or nil.
func (c Config) Validate() error {
	if c.Counters < 1 || c.Counters > MaxCounters {
		return fmt.Errorf("%w: m = %d counters, want 1..%d", ErrConfig, c.Counters, uint64(MaxCounters))
	}
	if c.K < 1 || c.K > MaxK {
		return fmt.Errorf("%w: k = %d hash functions, want 1..%d", ErrConfig, c.K, MaxK)
	}
	budget := 4 * c.Counters
	if c.Capacity < 1 || c.Capacity > budget {
		return fmt.Errorf("%w: capacity n = %d, want 1..4m = %d", ErrConfig, c.Capacity, budget)
	}
	nk := c.Capacity * uint64(c.K)
	if c.FirstLevel == 0 {
		if nk >= budget {
			return fmt.Errorf("%w: n*k = %d bits of counters leave no first level in the 4m = %d bit budget", ErrConfig, nk, budget)
		}
		return nil
	}
	if c.FirstLevel > budget || c.FirstLevel+nk > budget {
		return fmt.Errorf("%w: first level m1 = %d bits plus n*k = %d counter bits exceeds the 4m = %d bit budget", ErrConfig, c.FirstLevel, nk, budget)
	}
	return nil
}

// FPP returns the formula false positive probability of the configuration when
// it holds Capacity elements (see the package FPP).
func (c Config) FPP() float64 { return FPP(c.FirstLevelBits(), c.Capacity, c.K) }

// FPP is the false positive probability of an ACBF whose first level has m1 bits,
// holding n elements with k hash functions: (1 - e^(-kn/m1))^k. A query reads
// only the first level (Algorithm 1), a Bloom filter of m1 bits, so this is the
// Bloom filter formula with m1 bits (derived from the paper's Section 3; the
// extraction of our copy lost the paper's own equation).
func FPP(m1, n uint64, k int) float64 {
	if m1 == 0 {
		return 1
	}
	return math.Pow(-math.Expm1(-float64(k)*float64(n)/float64(m1)), float64(k))
}
