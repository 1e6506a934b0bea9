package filters

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Filter is what a map worker needs of a filter: a membership test that is
// safe for concurrent readers. False positives are allowed, false negatives
// are not.
type Filter interface {
	Contains(key []byte) bool
}

// BatchFilter is a Filter that can test many keys in one call, overlapping
// their memory accesses (cbf, acbf, exact). ContainsBatch sets out[i] to
// Contains(keys[i]); len(out) >= len(keys). Executors use it where a filter
// has it.
type BatchFilter interface {
	Filter
	ContainsBatch(keys [][]byte, out []bool)
}

// Kind names a filter kind, as --filter and filter files spell it.
type Kind string

// The kinds of this package, in report order.
const (
	None  Kind = "none"
	Exact Kind = "exact"
	Bloom Kind = "bloom"
	CBF   Kind = "cbf"
	ACBF  Kind = "acbf"
	ACBF1 Kind = "acbf1"
	ACBF2 Kind = "acbf2"
	ACBF3 Kind = "acbf3"
)

// Params are the parameters of a sized filter.
type Params struct {
	M              uint64 // counters of the 4m-bit budget (0 for unsized kinds)
	K              int    // hash functions (0 for unsized kinds)
	FirstLevelBits uint64 // the bits a query reads: the Bloom filter's 4m, the CBF's 4m, the ACBF's m1
	MemoryBits     uint64 // the structure's payload
}

// Spec describes one filter kind.
type Spec struct {
	Kind Kind
	Doc  string // one line for help texts
	// Order places the kind in Kinds (report order).
	Order int
	// Sized kinds take a Sizing; unsized ones (none, exact) ignore it and
	// need no keys.
	Sized bool
	// Deletes reports a kind that supports removing keys (counting kinds).
	Deletes bool
	// Layout returns the parameters of the kind in the budget of a 4-bit CBF
	// with m counters, holding n keys with k hash functions, or an error
	// (option.Error naming Sizing.BitsPerKey or Sizing.K) if they do not fit.
	Layout func(m, n uint64, k int) (Params, error)
	// CountersFor returns the least m whose layout has a first level of at
	// least bits bits with n keys and k hash functions (sizing by FPP).
	CountersFor func(bits, n uint64, k int) uint64
	// Build builds the filter of p over distinct keys; keys is not retained.
	// It returns the filter and its serialized size.
	Build func(p Params, keys [][]byte) (Filter, int64, error)
	// Encode writes f (built or decoded by this Spec) in the kind's format.
	Encode func(f Filter, w io.Writer) error
	// Decode reads the kind's format, validating it before allocating.
	Decode func(data []byte) (Filter, error)
	// FPP is the formula false positive rate of p holding n keys.
	FPP func(p Params, n uint64) float64
}

var registry = map[Kind]*Spec{}

// register adds a kind; each kind's file calls it from init. A second kind
// of the same name is a programming error.
func register(s *Spec) {
	if _, dup := registry[s.Kind]; dup {
		panic("filters: kind " + string(s.Kind) + " registered twice")
	}
	registry[s.Kind] = s
}

// ErrUnknownKind is wrapped by Lookup's error for a name no kind has.
var ErrUnknownKind = errors.New("filters: unknown filter kind")

// Lookup returns the kind named name.
func Lookup(name string) (*Spec, error) {
	if s, ok := registry[Kind(name)]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("%w %q (want one of %s)", ErrUnknownKind, name, strings.Join(Names(), ", "))
}

// Kinds returns every kind, in report order. The slice is the caller's.
func Kinds() []*Spec {
	out := make([]*Spec, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Spec) int { return a.Order - b.Order })
	return out
}

// Names returns the names of every kind, in report order.
func Names() []string {
	var out []string
	for _, s := range Kinds() {
		out = append(out, string(s.Kind))
	}
	return out
}
