package filters

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// Filter is what a map worker needs of a filter: a membership test that is
// safe for concurrent readers. False positives are allowed, false negatives
// are not.
type Filter interface {
	Contains(key []byte) bool
}

// BatchFilter is a Filter that can test many keys in one call, overlapping
// their memory accesses (cbf, acbf, blocked, exact). ContainsBatch sets out[i] to
// Contains(keys[i]); len(out) >= len(keys). Executors use it where a filter
// has it.
type BatchFilter interface {
	Filter
	ContainsBatch(keys [][]byte, out []bool)
}

// IntBatchFilter is a Filter that tests integer keys given as integers:
// ContainsInts sets out[i] to Contains of keys[i]'s key.Of bytes (8 bytes,
// big-endian, the sign bit flipped); len(out) >= len(keys). For a typed
// side's integer column, whose values need not be written out as keys to
// be tested (acbf, blocked, exact).
type IntBatchFilter interface {
	Filter
	ContainsInts(keys []int64, out []bool)
}

// Kind names a filter kind, as --filter and filter files spell it. Each
// kind's file declares its own name.
type Kind string

// Params are the parameters of one sized filter, of its kind's own type
// (bloomParams, cuckooParams, ...): nothing outside the kind's file reads
// their fields, and every other package asks them the three things below.
// Params marshal to JSON as their fields.
type Params interface {
	// String spells the kind and its parameters in its own terms, a name
	// that says what the filter is: "bloom(m=3200000,k=22)",
	// "cuckoo(b=4,f=12,slots=69632)".
	String() string
	// Shape gives the kind's own parameters in a few words, for a table's
	// column beside the memory: "k=22", "b=4 f=12"; "" for none.
	Shape() string
	// Summary gives the numbers every kind states alike.
	Summary() Summary
}

// Summary is what a filter's parameters say in every kind's terms: the
// columns of a comparison and the fields of a filter file's header.
type Summary struct {
	// M is the counters of the 4-bit CBF budget that the kinds sized in it
	// (bloom, cbf, acbf*) take, 4m bits in all; 0 for the kinds sized
	// otherwise. Its JSON name says so: a kind's own m (a Bloom filter's
	// bits, in its params "bloom(m=...)") is another number.
	M uint64 `json:"budget_counters"`
	// K is the hash functions a query takes (0 where a kind has none).
	K int `json:"k"`
	// FirstLevelBits is the bits a query reads.
	FirstLevelBits uint64 `json:"first_level_bits"`
	// MemoryBits is the structure's payload.
	MemoryBits uint64 `json:"memory_bits"`
}

// Option is a parameter of a kind that a Sizing may set
// (Sizing.Options[Name]); the kind declares it and checks its value. Two
// kinds may declare the same name for the same idea ("k"); a command line
// offers one flag a name.
type Option struct {
	Name     string  // in Sizing.Options and on a command line: "k", "bucket-size"
	Doc      string  // one line for help texts, its default included (the kinds are named beside it)
	Int      bool    // a whole number
	Min, Max float64 // the values it takes (the kind may refuse some within)
	// Want, if set, says the values it takes in words, for errors ("a
	// ratio between 0 and 1"); else "a number from Min to Max".
	Want string
	// Valid, if set, says whether a value within Min..Max is one the kind
	// takes (8, 16 or 32 bits a fuse fingerprint).
	Valid func(v float64) bool
}

// family is what a kind's file implements; Spec's methods give it to every
// other package. Optional parts are further interfaces: filler, spreader,
// estimator, adder, remover.
type family interface {
	// size returns the parameters for n >= 1 keys and s, whose generic
	// fields and declared options are valid and whose BitsPerKey is set
	// unless FPP is.
	size(n uint64, s Sizing) (Params, error)
	// build builds the filter of p over distinct keys (not retained): the
	// filter, its parameters as built (a cuckoo table that grew, a
	// scalable filter's sub-filters), its serialized size.
	build(p Params, keys keylist.List) (Filter, Params, int64, error)
	encode(f Filter, w io.Writer) error
	// decode reads the kind's format, validated before anything is
	// allocated beyond the data: the filter and its parameters.
	decode(data []byte) (Filter, Params, error)
	// fpp is the formula false positive rate of p holding n keys: its
	// expectation over filters of random keys.
	fpp(p Params, n uint64) float64
	// paramsOf returns the parameters of a built or decoded filter of the
	// kind, as it stands (a cuckoo filter's load changes nothing, but an
	// update may have grown a scalable filter).
	paramsOf(f Filter) Params
}

// filler is a family that can give a built filter's own false positive
// rate from its contents (the ones of a Bloom filter, a cuckoo filter's
// load): what a sample of non-members measures on this one filter.
type filler interface {
	fillFPP(f Filter) float64
}

// spreader is a family that knows the standard deviation of the fill
// rate over filters of random keys (FillSpread).
type spreader interface {
	fillSpread(p Params, n uint64) float64
}

// estimator is a family with a cheaper estimate of fpp (blocked's table).
type estimator interface {
	estimateFPP(p Params, n uint64) float64
}

// adder is a family whose filters take keys after they are built.
type adder interface {
	add(f Filter, key []byte) error
}

// remover is a family whose filters delete keys (Spec.Deletes).
type remover interface {
	remove(f Filter, key []byte) error
}

// Spec describes one filter kind and gives its operations. Specs are
// immutable and safe for concurrent use.
type Spec struct {
	Kind  Kind
	Doc   string // one line for help texts
	Order int    // its place in Kinds (report order)
	// Sized kinds take a Sizing; unsized ones (none, exact) ignore it.
	Sized bool
	// Deletes reports a kind that removes keys (Remove).
	Deletes bool
	// Grows reports a kind sized without a key count (scalable): its
	// memory follows the keys added, and its memory for n keys is what it
	// took.
	Grows bool
	// Options are the parameters of its own that a Sizing may set.
	Options []Option
	// Note, if set, is one line on its memory or use for a table of kinds
	// (join filter size).
	Note string

	f family
}

// Size returns the parameters of the kind for n distinct keys (n >= 1)
// sized by s: its BitsPerKey (default DefaultBitsPerKey), FPP or Budget,
// and its own options (Spec.Options). Errors are option.Errors naming the
// Sizing field or option ("Sizing.BitsPerKey", "Sizing.bucket-size") and
// wrapping ErrSizing; a filter above MaxFilterBytes is refused before
// anything is allocated. O(1) for most kinds; a few formula evaluations for
// a target FPP.
func (sp *Spec) Size(n uint64, s Sizing) (Params, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if !sp.Sized {
		return sp.f.size(n, s)
	}
	if err := sp.checkOptions(s); err != nil {
		return nil, err
	}
	if s.Budget > 0 {
		return sp.sizeBudget(n, s)
	}
	if s.BitsPerKey == 0 && s.FPP == 0 {
		s.BitsPerKey = DefaultBitsPerKey
	}
	// Bits a key beyond what a filter may take: refused before the kind
	// lays anything out, unless an option of the kind fixes its memory
	// instead (a fuse filter's fingerprint bits).
	tooMany := func() error {
		bits := s.BitsPerKey * float64(n)
		if s.FPP != 0 || bits/8 <= MaxFilterBytes {
			return nil
		}
		return sizingError("BitsPerKey", s.BitsPerKey, nil, "%v bits per key for %d keys is %s, above the %s a filter may take (at most %.0f bits per key for %d keys)",
			s.BitsPerKey, n, bytesText(bits/8), bytesText(MaxFilterBytes), math.Floor(MaxFilterBytes*8/float64(n)), n)
	}
	if err := tooMany(); err != nil && len(s.Options) == 0 {
		return nil, err
	}
	p, err := sp.f.size(n, s)
	if err != nil {
		if terr := tooMany(); terr != nil {
			return nil, terr
		}
		return nil, err
	}
	// The formula only against a target: it can cost a millisecond (the
	// blocked kind's), which `--filter auto` paid for each of its sizes.
	if s.FPP != 0 {
		if f := sp.f.fpp(p, n); f > s.FPP*(1+1e-9) {
			// An option fixed the memory (a fingerprint's bits): the
			// target is out of reach with it, which the user should hear.
			return nil, sizingError("FPP", s.FPP, nil, "the %s filter of these options (%s) has a formula FP of %.3g, above the target: leave out the option that fixes its size, or the target",
				sp.Kind, p.Shape(), f)
		}
	}
	mem := p.Summary().MemoryBits / 8
	if mem > MaxFilterBytes {
		if terr := tooMany(); terr != nil {
			return nil, terr
		}
	}
	switch {
	case mem > MaxFilterBytes && s.FPP != 0:
		return nil, sizingError("FPP", s.FPP, nil, "a formula false positive rate of %v for %d keys needs %s in a %s filter, above the %s a filter may take",
			s.FPP, n, bytesText(float64(mem)), sp.Kind, bytesText(MaxFilterBytes))
	case mem > MaxFilterBytes:
		return nil, sizingError("BitsPerKey", s.BitsPerKey, nil, "%d keys need %s in a %s filter, above the %s a filter may take",
			n, bytesText(float64(mem)), sp.Kind, bytesText(MaxFilterBytes))
	}
	return p, nil
}

// sizeBudget returns the parameters of the most memory within s.Budget
// bytes: the most bits per key whose filter fits, by bisection. Memory
// grows with the bits a key in every kind, over the range of bits a key
// the kind can lay out: below it a kind cannot lay out a filter at all (a
// cuckoo bucket needs its fingerprints), above it a kind may refuse too
// (the scalable filter's first error underflows). So the search first
// finds bits a key that lay out, halving from the budget's own; errors
// above that point are the upper limit, below it the lower. O(120)
// sizings at most.
func (sp *Spec) sizeBudget(n uint64, s Sizing) (Params, error) {
	least := uint64(math.MaxUint64) // the least memory seen, in bits
	budgetBits := 8 * uint64(s.Budget)
	fits := func(bpk float64) (Params, bool, error) {
		t := s
		t.Budget, t.BitsPerKey = 0, bpk
		p, err := sp.Size(n, t)
		if err != nil {
			return nil, false, err
		}
		least = min(least, p.Summary().MemoryBits)
		return p, p.Summary().MemoryBits <= budgetBits, nil
	}
	top := 8 * float64(s.Budget) / float64(n)
	// v: bits a key that lay out (halving from top); above is the upper
	// error zone or too much memory.
	v, above := top, top
	var ok bool
	var err, lastErr error
	for range 60 {
		var p Params
		if p, ok, err = fits(v); err == nil {
			if ok && v == top {
				return p, nil
			}
			break
		}
		lastErr = err
		above, v = v, v/2
	}
	if err != nil {
		return nil, sizingError("Budget", s.Budget, lastErr, "no %s filter of %d keys fits in %s%s", sp.Kind, n, bytesText(float64(s.Budget)), because(lastErr))
	}
	lo, hi := 0.0, v
	if ok {
		lo, hi = v, above // v fits: the most is between v and the first point above that did not
	}
	for range 60 {
		mid := (lo + hi) / 2
		_, fit, err := fits(mid)
		switch {
		case err == nil && fit:
			lo = mid
		case err == nil:
			hi = mid // too much memory
		case mid > v:
			hi = mid // the upper limit of the kind
		default:
			lo = mid // too few bits to lay out
		}
	}
	p, fit, err := fits(lo)
	if lo == 0 || err != nil || !fit {
		if least != math.MaxUint64 {
			return nil, sizingError("Budget", s.Budget, err, "no %s filter of %d keys fits in %s (the least takes %s)", sp.Kind, n, bytesText(float64(s.Budget)), bytesText(float64(least)/8))
		}
		return nil, sizingError("Budget", s.Budget, err, "no %s filter of %d keys fits in %s%s", sp.Kind, n, bytesText(float64(s.Budget)), because(err))
	}
	return p, nil
}

// because is ": " and the reason of a sizing error that is not about the
// bits a key (a kind option's: the ACBF's capacity), for a budget's
// refusal to say what kept every size out; "" otherwise.
func because(err error) string {
	var oe *option.Error
	if !errors.As(err, &oe) || oe.Name == "Sizing.BitsPerKey" || oe.Name == "Sizing.FPP" {
		return ""
	}
	return fmt.Sprintf(": %s %v: %s", strings.TrimPrefix(oe.Name, "Sizing."), oe.Value, oe.Reason)
}

// Build builds the filter of p (Size's) over distinct keys (not retained):
// the filter, its parameters as built, and its serialized size. O(n k).
func (sp *Spec) Build(p Params, keys [][]byte) (Filter, Params, int64, error) {
	return sp.f.build(p, keylist.Of(keys))
}

// BuildList is Build of a keylist.List: for packed integer keys the
// build's list takes 8 bytes a key, not 32, but for the kinds whose filter
// depends on the keys' order (cuckoo, scalable), which sort a [][]byte.
func (sp *Spec) BuildList(p Params, keys keylist.List) (Filter, Params, int64, error) {
	return sp.f.build(p, keys)
}

// Encode writes f (built or decoded by this Spec) in the kind's format.
func (sp *Spec) Encode(f Filter, w io.Writer) error { return sp.f.encode(f, w) }

// Decode reads the kind's format, validating it before allocating. Each
// call returns an independent filter.
func (sp *Spec) Decode(data []byte) (Filter, error) {
	f, _, err := sp.f.decode(data)
	return f, err
}

// DecodeParams is Decode that also returns the filter's parameters.
func (sp *Spec) DecodeParams(data []byte) (Filter, Params, error) { return sp.f.decode(data) }

// ParamsOf returns the parameters of a filter of the kind as it stands.
func (sp *Spec) ParamsOf(f Filter) Params { return sp.f.paramsOf(f) }

// FPP is the formula false positive rate of p holding n keys.
func (sp *Spec) FPP(p Params, n uint64) float64 { return sp.f.fpp(p, n) }

// EstimateFPP is FPP or a cheaper estimate of it within 1% (the blocked
// kind's table), for callers that evaluate many sizes.
func (sp *Spec) EstimateFPP(p Params, n uint64) float64 {
	if e, ok := sp.f.(estimator); ok {
		return e.estimateFPP(p, n)
	}
	return sp.f.fpp(p, n)
}

// HasFillFPP reports whether the kind gives a built filter's own rate.
func (sp *Spec) HasFillFPP() bool {
	_, ok := sp.f.(filler)
	return ok
}

// FillFPP is the false positive rate of the filter f itself, from its
// contents; NaN for kinds without one (HasFillFPP). FPP differs from it by
// the chance in how the keys fell.
func (sp *Spec) FillFPP(f Filter) float64 {
	if fl, ok := sp.f.(filler); ok {
		return fl.fillFPP(f)
	}
	return math.NaN()
}

// FillSpread is the variance of a filter's FillFPP over filters of n
// random keys with parameters p, where the kind has a closed form for it
// (the Bloom filter's and the CBF's fill); -1 otherwise.
func (sp *Spec) FillSpread(p Params, n uint64) float64 {
	if s, ok := sp.f.(spreader); ok {
		return s.fillSpread(p, n)
	}
	return -1
}

// ErrNoUpdate is wrapped by Add and Remove on a kind that does not take
// that update.
var ErrNoUpdate = errors.New("filters: the kind does not take this update")

// CanAdd reports whether the kind's filters take keys after they are built.
func (sp *Spec) CanAdd() bool {
	_, ok := sp.f.(adder)
	return ok
}

// Add inserts one more key into f. A full filter returns an error and is
// unchanged (cuckoo); the others never fail or fail only on a bug.
func (sp *Spec) Add(f Filter, key []byte) error {
	if a, ok := sp.f.(adder); ok {
		return a.add(f, key)
	}
	return fmt.Errorf("%w: %s filters take no key once built", ErrNoUpdate, sp.Kind)
}

// Remove deletes one key that was added, for kinds that delete; removing a
// key never added is an error or, where the kind cannot tell, removes
// another key's trace (documented per kind).
func (sp *Spec) Remove(f Filter, key []byte) error {
	if r, ok := sp.f.(remover); ok {
		return r.remove(f, key)
	}
	return fmt.Errorf("%w: %s filters cannot delete a key", ErrNoUpdate, sp.Kind)
}

// Uses reports whether the kind reads the Sizing field or option named
// ("BitsPerKey", "FPP" and "Budget" for every sized kind; an option by its
// name).
func (sp *Spec) Uses(name string) bool {
	switch name {
	case "BitsPerKey", "FPP", "Budget":
		return sp.Sized
	}
	return slices.ContainsFunc(sp.Options, func(o Option) bool { return o.Name == name })
}

// Describe returns p's Shape, "no parameters" for a kind without any.
// Unsized kinds' Size gives their parameters at n keys too: none passes
// every key; exact estimates the table of n integer keys.
func (sp *Spec) Describe(p Params) string {
	if p == nil || p.Shape() == "" {
		return "no parameters"
	}
	return p.Shape()
}

// Spell returns p spelled with its kind's name ("bloom(m=...,k=22)"), or
// the kind's name alone for a kind without parameters.
func (sp *Spec) Spell(p Params) string {
	if p == nil {
		return string(sp.Kind)
	}
	return p.String()
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

// AllOptions returns every kind's options, each name once (the first
// kind's declaration, in report order), with the kinds that declare it: a
// command line makes one flag of each.
func AllOptions() (opts []Option, kinds map[string][]Kind) {
	kinds = map[string][]Kind{}
	for _, sp := range Kinds() {
		for _, o := range sp.Options {
			if _, seen := kinds[o.Name]; !seen {
				opts = append(opts, o)
			}
			kinds[o.Name] = append(kinds[o.Name], sp.Kind)
		}
	}
	return opts, kinds
}

// Wrapper is a structure made of filters of one kind (a union of a bank's
// classes, a per-column filter over a composite key) that a join
// broadcasts and probes as one filter: its format and its rate.
type Wrapper interface {
	Encode(f Filter, w io.Writer) error
	Decode(data []byte) (Filter, Params, error)
	// FPP is the structure's formula false positive rate.
	FPP() float64
	// FillFPP is a built structure's own rate from its parts' contents.
	FillFPP(f Filter) float64
	// ParamsOf is the structure's parameters (Parts).
	ParamsOf(f Filter) Params
}

// Wrap returns the Spec of a structure of filters of kind sp (w): the
// kind's name, order and sizedness, its documentation with more appended;
// it cannot delete, nor be sized or built by itself.
func Wrap(sp *Spec, more string, w Wrapper) *Spec {
	return &Spec{Kind: sp.Kind, Doc: sp.Doc + more, Order: sp.Order, Sized: sp.Sized, f: wrapped{w}}
}

// wrapped is the family of a Wrap Spec.
type wrapped struct{ w Wrapper }

func (wrapped) size(uint64, Sizing) (Params, error) {
	return nil, errors.New("filters: a structure of filters is made of built filters, not sized")
}

func (wrapped) build(Params, keylist.List) (Filter, Params, int64, error) {
	return nil, nil, 0, errors.New("filters: a structure of filters is made of built filters, not built")
}

func (w wrapped) encode(f Filter, out io.Writer) error       { return w.w.Encode(f, out) }
func (w wrapped) decode(data []byte) (Filter, Params, error) { return w.w.Decode(data) }
func (w wrapped) fpp(Params, uint64) float64                 { return w.w.FPP() }
func (w wrapped) fillFPP(f Filter) float64                   { return w.w.FillFPP(f) }
func (w wrapped) paramsOf(f Filter) Params                   { return w.w.ParamsOf(f) }
