package filters

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/acbfjoin/acbfjoin/internal/option"
)

// OptionK is the option of the kinds that hash k times: their hash
// functions (bloom, blocked, cbf, the ACBF kinds).
const OptionK = "k"

// OptionFingerprintBits is the option of the kinds that store a
// fingerprint a key: its bits (cuckoo, fuse).
const OptionFingerprintBits = "fingerprint-bits"

// Sizing fixes the memory of a filter, for any kind: BitsPerKey b bits a
// key (DefaultBitsPerKey), or instead the least memory whose formula false
// positive rate is at most FPP, or the most memory within Budget bytes;
// each kind says
// how it spends them (its file). Options set a kind's own parameters by
// the names the kind declares (Spec.Options: "k", "bucket-size", ...); a
// kind ignores the options of others, so one Sizing serves a comparison of
// several kinds. The zero value is 32 bits per key and each kind's own
// defaults.
type Sizing struct {
	BitsPerKey float64 // default 32
	FPP        float64 // 0: size by BitsPerKey
	// Budget, above 0, sizes the filter to the most memory of at most
	// this many bytes instead (at most MaxFilterBytes).
	Budget  int64
	Options Options
}

// Options are a Sizing's values of the kinds' own parameters, by option
// name (Option.Name). A nil map has none.
type Options map[string]float64

// With returns a copy of s with the option name set to v.
func (s Sizing) With(name string, v float64) Sizing {
	o := make(Options, len(s.Options)+1)
	for k, x := range s.Options {
		o[k] = x
	}
	o[name] = v
	s.Options = o
	return s
}

// Equal reports whether s and t size alike: the same fields and options.
func (s Sizing) Equal(t Sizing) bool {
	return s.BitsPerKey == t.BitsPerKey && s.FPP == t.FPP && s.Budget == t.Budget && maps.Equal(s.Options, t.Options)
}

// Share returns the sizing of one of several filters built together
// under s (a bank's classes, the per-column layout's columns) that holds
// part of their total keys: a Budget is the whole set's, so each gets its
// keys' share of it (floor(Budget*part/total) bytes, at least 1: the
// filters together stay within it); bits a key and a target FPP apply to
// each filter as they are.
func (s Sizing) Share(part, total uint64) Sizing {
	if s.Budget <= 0 || total == 0 {
		return s
	}
	s.Budget = max(1, int64(float64(s.Budget)*float64(part)/float64(total)))
	return s
}

// Option returns the value of the option name and whether it is set.
func (s Sizing) Option(name string) (float64, bool) {
	v, ok := s.Options[name]
	return v, ok
}

// intOption returns an option set as a whole number, or def.
func (s Sizing) intOption(name string, def int) int {
	if v, ok := s.Options[name]; ok {
		return int(v)
	}
	return def
}

// DefaultBitsPerKey is Sizing.BitsPerKey when it is 0.
const DefaultBitsPerKey = 32

// MaxK is the most hash functions any kind takes (cbf.MaxK = acbf.MaxK = 64,
// and the Bloom decoder's bound), so that every filter built can be encoded
// and decoded. The default k is capped at MaxK too: beyond it the formula's
// false positive rate is below 1e-19.
const MaxK = 64

// MaxFilterBytes is the most memory one filter may take (1 GiB), checked from
// its parameters before anything is allocated.
const MaxFilterBytes = 1 << 30

// ErrSizing is wrapped by every error about a Sizing (an option.Error naming
// the field).
var ErrSizing = errors.New("filters: invalid sizing")

// sizingError returns an option.Error for Sizing field or option name.
func sizingError(name string, value any, cause error, format string, a ...any) error {
	return &option.Error{Pkg: "filters", Name: "Sizing." + name, Value: value, Reason: fmt.Sprintf(format, a...), Err: ErrSizing, Cause: cause}
}

// Validate checks the fields of s that do not depend on a kind or a key
// count, and that every option is one some kind declares, within the
// bounds of one of them at least (each kind checks its own in Size).
func (s Sizing) Validate() error {
	switch {
	case s.FPP != 0 && !(s.FPP > 0 && s.FPP < 1):
		return sizingError("FPP", s.FPP, nil, "want a rate between 0 and 1, such as 0.001")
	case s.FPP == 0 && s.BitsPerKey != 0 && !(s.BitsPerKey > 0):
		return sizingError("BitsPerKey", s.BitsPerKey, nil, "want a positive number of bits per key, such as 16")
	case s.BitsPerKey > 0 && math.IsInf(s.BitsPerKey, 1):
		return sizingError("BitsPerKey", s.BitsPerKey, nil, "want a finite number")
	case s.Budget < 0 || s.Budget > MaxFilterBytes:
		return sizingError("Budget", s.Budget, nil, "want 1 byte to %s", bytesText(MaxFilterBytes))
	case s.Budget > 0 && s.FPP != 0:
		return sizingError("Budget", s.Budget, nil, "and a target FPP both size the filter: give one")
	case s.Budget > 0 && s.BitsPerKey != 0:
		return sizingError("Budget", s.Budget, nil, "and bits per key both size the filter: give one")
	}
	for _, name := range slices.Sorted(maps.Keys(s.Options)) {
		if err := checkDeclared(name, s.Options[name]); err != nil {
			return err
		}
	}
	return nil
}

// checkDeclared checks that some kind declares the option name and takes
// v; else it names the widest bounds of the kinds that declare it.
func checkDeclared(name string, v float64) error {
	var widest *Option
	for _, sp := range Kinds() {
		for _, o := range sp.Options {
			switch {
			case o.Name != name:
			case o.check(v) == nil:
				return nil
			case widest == nil:
				widest = &o
			default:
				widest.Min, widest.Max, widest.Int = min(widest.Min, o.Min), max(widest.Max, o.Max), widest.Int && o.Int
			}
		}
	}
	if widest == nil {
		return sizingError(name, v, nil, "no kind has this option")
	}
	return widest.check(v)
}

// CheckOptions checks the options of s that the kind declares against the
// values it takes: an option.Error naming the option, whose reason names
// the kind when another kind declares the option too ("--fingerprint-bits
// 12: fuse: want 8, 16 or 32": the cuckoo filter takes 12). Size checks
// them first; a command line checks them for the kinds it builds before
// any work. O(options).
func (sp *Spec) CheckOptions(s Sizing) error {
	for _, o := range sp.Options {
		v, ok := s.Options[o.Name]
		if !ok {
			continue
		}
		if err := o.check(v); err != nil {
			var oe *option.Error
			if errors.As(err, &oe) && sharedOption(o.Name) {
				oe.Reason = fmt.Sprintf("the %s filter takes %s", sp.Kind, strings.TrimPrefix(oe.Reason, "want "))
			}
			return err
		}
	}
	return nil
}

// sharedOption reports whether several kinds declare the option name.
func sharedOption(name string) bool {
	n := 0
	for _, sp := range Kinds() {
		for _, o := range sp.Options {
			if o.Name == name {
				n++
			}
		}
	}
	return n > 1
}

func (sp *Spec) checkOptions(s Sizing) error { return sp.CheckOptions(s) }

// check checks v against the option's bounds and values.
func (o Option) check(v float64) error {
	if o.Int && v != math.Trunc(v) || !(v >= o.Min && v <= o.Max) || o.Valid != nil && !o.Valid(v) {
		var value any = v
		if o.Int && v == math.Trunc(v) && math.Abs(v) < 1<<63 {
			value = int64(v)
		}
		if o.Want != "" {
			return sizingError(o.Name, value, nil, "want %s", o.Want)
		}
		if o.Int {
			return sizingError(o.Name, value, nil, "want a whole number from %.0f to %.0f", o.Min, o.Max)
		}
		return sizingError(o.Name, value, nil, "want a number from %g to %g", o.Min, o.Max)
	}
	return nil
}

// Set returns the names and values of what s sets (for messages about
// options that do not apply), the generic fields first, then the options
// by name.
func (s Sizing) Set() []SizingField {
	var out []SizingField
	for _, f := range []SizingField{{"BitsPerKey", s.BitsPerKey}, {"FPP", s.FPP}, {"Budget", float64(s.Budget)}} {
		if f.Value != 0 {
			out = append(out, f)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Options)) {
		out = append(out, SizingField{name, s.Options[name]})
	}
	return out
}

// SizingField is a field or option of a Sizing, by name.
type SizingField struct {
	Name  string
	Value float64
}

// defaultK is round((m/n) ln 2), between 1 and MaxK: the k that minimises a
// Bloom filter's false positive rate with m bits per n keys (Broder and
// Mitzenmacher 2004), taken from the CBF's m counters as the paper does.
func defaultK(m, n float64) int {
	return min(MaxK, max(1, int(math.Round(m/n*math.Ln2))))
}

// optionK is the option k of the kinds that hash k times, at most max.
func optionK(max int) Option {
	return Option{Name: OptionK, Doc: "hash functions (default: round(ln 2 x m/n), the optimum of a Bloom filter of m bits or a CBF of m counters; the ACBFs take the CBF's, as the paper does, not their own)", Int: true, Min: 1, Max: float64(max)}
}

// defaultKFor is the k counterBudget.size takes for n keys at s's bits a
// key when no k is given.
func (s Sizing) defaultKFor(c counterBudget, n uint64) int {
	m := uint64(math.Round(s.BitsPerKey * float64(n) / 4))
	if c.defaultK != nil {
		return c.defaultK(m, n)
	}
	return defaultK(float64(m), float64(n))
}

// counterBudget sizes the kinds that spend the budget of a 4-bit CBF of m
// counters, 4m bits in all (bloom, cbf, the ACBFs), each laying it out its
// own way: a Bloom filter of 4m bits, m counters, or the ACBF's first level
// and counters.
type counterBudget struct {
	// layout returns the kind's parameters in the budget of m counters,
	// with counter room for room keys and k hash functions, or an error
	// (option.Error naming Sizing.BitsPerKey or Sizing.k) if they do not
	// fit.
	layout func(m, room uint64, k int) (Params, error)
	// countersFor returns the least m whose layout has a first level of at
	// least bits bits with room keys and k hash functions (sizing by FPP).
	countersFor func(bits, room uint64, k int) uint64
	// defaultK, if set, is the kind's k for m counters and n keys when k
	// is not given; unset: round((m/n) ln 2).
	defaultK func(m, n uint64) int
	fpp      func(p Params, n uint64) float64
}

// size returns the parameters for n keys: with FPP the least first level
// meeting it (the Bloom optimum, then a search), else m = BitsPerKey*n/4
// counters. room is the keys the counters keep room for (the ACBF's
// capacity; n for the others).
func (c counterBudget) size(n uint64, s Sizing, room uint64) (Params, error) {
	nf := float64(n)
	var m uint64
	k := s.intOption(OptionK, 0)
	if s.FPP != 0 {
		// The Bloom optimum: bits = -n ln p / ln^2 2, k = (bits/n) ln 2
		// (Broder and Mitzenmacher 2004), for the bits a query reads; the
		// kind says how many counters give its first level that many.
		bits := math.Ceil(-nf * math.Log(s.FPP) / (math.Ln2 * math.Ln2))
		if bits/8 > MaxFilterBytes {
			return nil, sizingError("FPP", s.FPP, nil, "a formula false positive rate of %v for %d keys needs %s, above the %s a filter may take",
				s.FPP, n, bytesText(bits/8), bytesText(MaxFilterBytes))
		}
		if k == 0 {
			k = defaultK(bits, nf)
		}
		// k is a whole number, so the optimum's bits can miss the rate by a
		// little (or by much, with a k given): the least first level at or
		// above it that meets the rate, doubling then halving the step.
		meets := func(bits float64) (bool, error) {
			p, err := c.layout(c.countersFor(uint64(bits), room, k), room, k)
			return err == nil && c.fpp(p, n) <= s.FPP, err
		}
		lo, hi := bits, bits
		for {
			ok, err := meets(hi)
			if err != nil {
				return nil, err
			}
			if ok {
				break
			}
			if lo = hi; hi > 8*MaxFilterBytes {
				return nil, sizingError("FPP", s.FPP, nil, "a formula false positive rate of %v for %d keys with k = %d needs more than the %s a filter may take",
					s.FPP, n, k, bytesText(MaxFilterBytes))
			}
			hi = math.Ceil(hi * 1.25)
		}
		for hi-lo > 1 {
			mid := math.Floor((lo + hi) / 2)
			if ok, _ := meets(mid); ok {
				hi = mid
			} else {
				lo = mid
			}
		}
		m = c.countersFor(uint64(hi), room, k)
	} else {
		m = uint64(math.Round(s.BitsPerKey * nf / 4))
		if m == 0 {
			return nil, sizingError("BitsPerKey", s.BitsPerKey, nil, "%v bits per key for %d keys is less than 4 bits in all, the smallest filter: want at least %.3g", s.BitsPerKey, n, 2/nf)
		}
		if k == 0 {
			k = defaultK(float64(m), nf)
			if c.defaultK != nil {
				k = c.defaultK(m, n)
			}
		}
	}
	p, err := c.layout(m, room, k)
	var oe *option.Error
	if errors.As(err, &oe) && oe.Name == "Sizing.BitsPerKey" && s.FPP == 0 {
		oe.Value = s.BitsPerKey // the budget asked, not the one m rounded to
	}
	return p, err
}

// bytesText prints a byte count in binary units.
func bytesText(b float64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return fmt.Sprintf("%.4g %s", b, units[i])
}
