package cli

import (
	"flag"
	"fmt"
	"strings"

	"github.com/acbfjoin/acbfjoin/filters"
)

// SizingFlags are the flags of a filters.Sizing, one implementation for
// every command line that sizes a filter (join's run, compare,
// build-filter, bank build, multikey absent, stream and filter; beamjoin):
// --bits-per-key and --fpp, and one flag for each option a filter kind
// declares (filters.AllOptions: --k, --bucket-size, ...), so that a new
// kind's options reach every command line without a line here. Its errors
// are all usage errors (a bad command line).
type SizingFlags struct {
	fs       *flag.FlagSet
	bpk, fpp float64
	budget   string
	options  []*optionFlag
	// Kinds are the kinds the command builds, for CheckKinds.
	Kinds []filters.Kind
}

// optionFlag is the flag of one kind option: a whole number (i) or not
// (f), so that help texts name its type.
type optionFlag struct {
	filters.Option
	i *int64
	f *float64
}

func (o *optionFlag) value() float64 {
	if o.Int {
		return float64(*o.i)
	}
	return *o.f
}

// Register defines the flags on fs.
func (s *SizingFlags) Register(fs *flag.FlagSet) {
	s.fs = fs
	fs.Float64Var(&s.bpk, "bits-per-key", filters.DefaultBitsPerKey, "filter memory in bits per distinct key (the CBF gets bits/4 counters per key)")
	fs.Float64Var(&s.fpp, "fpp", 0, "size the filter for this formula false positive rate instead of --bits-per-key")
	fs.StringVar(&s.budget, "filter-budget", "", "size the filter to the most memory within this many bytes (64KiB, 8MiB; at most 1GiB) instead of --bits-per-key; a bank's classes or the per-column layout's columns share it by their keys")
	opts, _ := filters.AllOptions()
	for _, o := range opts {
		f := &optionFlag{Option: o}
		s.options = append(s.options, f)
		doc := optionDoc(o.Name)
		if o.Int {
			f.i = fs.Int64(o.Name, 0, doc)
		} else {
			f.f = fs.Float64(o.Name, 0, doc)
		}
	}
}

// optionDoc is the help of the option name: each declaration's Doc after
// the kinds that declare it so ("cuckoo: bits a fingerprint, 1 to 32;
// fuse: bits a fingerprint, 8, 16 or 32").
func optionDoc(name string) string {
	var docs []string
	kinds := map[string][]string{}
	for _, sp := range filters.Kinds() {
		for _, o := range sp.Options {
			if o.Name != name {
				continue
			}
			if _, seen := kinds[o.Doc]; !seen {
				docs = append(docs, o.Doc)
			}
			kinds[o.Doc] = append(kinds[o.Doc], string(sp.Kind))
		}
	}
	var parts []string
	for _, d := range docs {
		parts = append(parts, strings.Join(kinds[d], ", ")+": "+d)
	}
	return strings.Join(parts, "; ")
}

// IsSet reports whether the flag name (of fs, any flag) was given.
func (s *SizingFlags) IsSet(name string) bool {
	found := false
	s.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// SizedBy reports whether --bits-per-key, --fpp or --filter-budget was
// given (a command with a default of its own sizes otherwise).
func (s *SizingFlags) SizedBy() bool {
	return s.IsSet("bits-per-key") || s.IsSet("fpp") || s.IsSet("filter-budget")
}

// Sizing returns the Sizing of the flags given (the library's defaults stand
// for the others). A --bits-per-key or --fpp of 0 given is refused: the
// library reads 0 as its default, which is not what the user asked for.
func (s *SizingFlags) Sizing(cmd string) (filters.Sizing, error) {
	var z filters.Sizing
	if s.IsSet("bits-per-key") {
		if s.bpk == 0 {
			return z, fmt.Errorf("%s: --bits-per-key 0: want a positive number of bits per key (leave it out for %d)", cmd, filters.DefaultBitsPerKey)
		}
		z.BitsPerKey = s.bpk
	}
	if s.IsSet("fpp") {
		if s.fpp == 0 {
			return z, fmt.Errorf("%s: --fpp 0: want a rate between 0 and 1, such as 0.001", cmd)
		}
		z.FPP = s.fpp
	}
	if s.IsSet("filter-budget") {
		b, err := ParseSize(s.budget, filters.MaxFilterBytes)
		if err != nil {
			return z, fmt.Errorf("%s: --filter-budget %q: %v", cmd, s.budget, err)
		}
		z.Budget = b
	}
	for _, o := range s.options {
		if s.IsSet(o.Name) {
			z = z.With(o.Name, o.value())
		}
	}
	var given []string
	for _, name := range []string{"bits-per-key", "fpp", "filter-budget"} {
		if s.IsSet(name) {
			given = append(given, "--"+name)
		}
	}
	if len(given) > 1 {
		return z, fmt.Errorf("%s: %s both size the filter: give one", cmd, strings.Join(given, " and "))
	}
	if err := z.Validate(); err != nil {
		return z, Rewrite(cmd, s.fs, err)
	}
	return z, nil
}

// CheckKinds refuses a flag that no filter of the command reads (--k with
// the cuckoo filter, --bucket-size with the ACBF): the library ignores the
// options of other kinds, and a user who gave one meant something else;
// and a value a kind of the command does not take (--fingerprint-bits 12
// for fuse), before any work (filters.Spec.CheckOptions). kinds are
// s.Kinds, or filter if they are not set.
func (s *SizingFlags) CheckKinds(cmd string, filter filters.Kind) error {
	kinds := s.Kinds
	if kinds == nil && filter != "" {
		kinds = []filters.Kind{filter}
	}
	if len(kinds) == 0 {
		return nil
	}
	uses := map[string]string{"bits-per-key": "BitsPerKey", "fpp": "FPP", "filter-budget": "Budget"}
	for _, o := range s.options {
		uses[o.Name] = o.Name
	}
	for _, name := range append([]string{"bits-per-key", "fpp", "filter-budget"}, optionNames(s.options)...) {
		if !s.IsSet(name) {
			continue
		}
		var names []string
		used := false
		for _, k := range kinds {
			sp, err := filters.Lookup(string(k))
			if err != nil {
				return nil // reported elsewhere
			}
			names = append(names, string(k))
			used = used || sp.Uses(uses[name])
		}
		if used {
			continue
		}
		var readers []string
		for _, sp := range filters.Kinds() {
			if sp.Uses(uses[name]) {
				readers = append(readers, string(sp.Kind))
			}
		}
		what := "the " + names[0] + " filter does not read it"
		if len(names) > 1 {
			what = "none of " + strings.Join(names, ", ") + " reads it"
		}
		return fmt.Errorf("%s: --%s: %s (an option of %s)", cmd, name, what, strings.Join(readers, ", "))
	}
	var z filters.Sizing
	for _, o := range s.options {
		if s.IsSet(o.Name) {
			z = z.With(o.Name, o.value())
		}
	}
	for _, k := range kinds {
		if sp, err := filters.Lookup(string(k)); err == nil {
			if err := sp.CheckOptions(z); err != nil {
				return Rewrite(cmd, s.fs, err)
			}
		}
	}
	return nil
}

func optionNames(opts []*optionFlag) []string {
	var out []string
	for _, o := range opts {
		out = append(out, o.Name)
	}
	return out
}
