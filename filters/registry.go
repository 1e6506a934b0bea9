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

	Cuckoo   Kind = "cuckoo"
	Scalable Kind = "scalable"
	Blocked  Kind = "blocked"
)

// Params are the parameters of a sized filter.
type Params struct {
	M              uint64 // counters of the 4m-bit budget (0 for unsized kinds and the kinds sized by bits: cuckoo, scalable, blocked)
	K              int    // hash functions (0 for unsized kinds and cuckoo; scalable: its first sub-filter's)
	FirstLevelBits uint64 // the bits a query reads: the Bloom filter's 4m, the CBF's 4m, the ACBF's m1, the blocked filter's bits
	MemoryBits     uint64 // the structure's payload

	// The geometry of the kinds not made of counters (zero for the others).
	BucketSize      int     // cuckoo: fingerprints a bucket
	FingerprintBits int     // cuckoo: bits a fingerprint
	Capacity        uint64  // cuckoo: keys it holds; scalable: keys of its first sub-filter; acbf kinds: keys its counters have room for
	Growth          float64 // scalable: each sub-filter holds Growth times the keys of the one before
	Tightening      float64 // scalable: each sub-filter's error is Tightening times the one before
	FirstFPP        float64 // scalable: the first sub-filter's error P0
}

// Shape returns the kind's own parameters in a few words: "k=6" for the
// Bloom-like kinds, "b=4 f=16" for cuckoo, "P0=0.0005 s=2 r=0.5 from 1000
// keys" for scalable, "" for unsized kinds.
func (p Params) Shape() string {
	switch {
	case p.FingerprintBits != 0:
		return fmt.Sprintf("b=%d f=%d", p.BucketSize, p.FingerprintBits)
	case p.FirstFPP != 0:
		return fmt.Sprintf("P0=%.3g s=%g r=%g from %d keys", p.FirstFPP, p.Growth, p.Tightening, p.Capacity)
	case p.K != 0:
		return fmt.Sprintf("k=%d", p.K)
	}
	return ""
}

// Describe returns p in the kind's own words (Spec.Words, else
// Params.Shape), "no parameters" for a kind without any.
func (sp *Spec) Describe(p Params) string {
	if sp.Words != nil {
		return sp.Words(p)
	}
	if s := p.Shape(); s != "" {
		return s
	}
	return "no parameters"
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
	// Fields names the Sizing fields the kind reads besides BitsPerKey and
	// FPP ("K", "BucketSize", ...); it ignores the others.
	Fields []string
	// Words describes p in the kind's own terms for a report ("m=3200000
	// bits, k=22" for a Bloom filter, "m=800000 counters, k=6" for a CBF);
	// nil: Params.Shape.
	Words func(p Params) string
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
	// FPP is the formula false positive rate of p holding n keys: its
	// expectation over filters of random keys.
	FPP func(p Params, n uint64) float64
	// FillFPP, if set, is the false positive rate of the filter f itself, from
	// its contents (the ones of a Bloom filter, the load of a cuckoo
	// filter): what a sample of non-members measures on this one filter.
	// FPP differs from it by the chance in how the keys fell.
	FillFPP func(f Filter) float64

	// SizeFor, for kinds not made of counters (cuckoo, scalable,
	// blocked), replaces Layout and CountersFor: the parameters for n keys
	// and a Sizing whose generic fields are checked (Validate) and whose
	// default BitsPerKey is filled in. Size still checks MaxFilterBytes.
	SizeFor func(n uint64, s Sizing) (Params, error)
	// DefaultK, if set, is the k of the kind for m counters' budget and n
	// keys when Sizing.K is 0 (the Bloom-like kinds take the k that
	// minimises their own formula at their bits); unset: round((m/n) ln 2).
	DefaultK func(m, n uint64) int
	// ParamsOf returns the parameters of a decoded filter of the kind, for
	// kinds whose Params are not all in a filter file's header (cuckoo,
	// scalable, blocked). Optional.
	ParamsOf func(f Filter) Params

	// Add inserts one more key into f, for kinds that take keys after they
	// are built (not none or exact). A full filter returns an error and is
	// unchanged (cuckoo); the others never fail or fail only on a bug.
	Add func(f Filter, key []byte) error
	// Remove deletes one key that was added, for kinds that delete (Deletes
	// is then true); removing a key never added is an error or, where the
	// kind cannot tell, removes another key's trace (documented per kind).
	Remove func(f Filter, key []byte) error
}

// Uses reports whether the kind reads the Sizing field named (BitsPerKey
// and FPP: every sized kind).
func (sp *Spec) Uses(field string) bool {
	if field == "BitsPerKey" || field == "FPP" {
		return sp.Sized
	}
	return slices.Contains(sp.Fields, field)
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
