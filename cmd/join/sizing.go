package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/acbfjoin/acbfjoin/filters"
)

// sizingFlags are the flags of a filters.Sizing, shared by run, compare,
// build-filter and filter.
type sizingFlags struct {
	fs                             *flag.FlagSet
	bpk, fpp, tightening           float64
	growth                         float64
	k, bucketSize, fingerprintBits int
	initialCapacity, acbfCapacity  uint64
	kinds                          []filters.Kind // the kinds the command builds, for checkKinds
}

func (s *sizingFlags) register(fs *flag.FlagSet) {
	s.fs = fs
	fs.Float64Var(&s.bpk, "bits-per-key", filters.DefaultBitsPerKey, "filter memory in bits per distinct key (the CBF gets bits/4 counters per key)")
	fs.IntVar(&s.k, "k", 0, "hash functions of every filter that hashes k times (default: each kind's best for its memory, round((m/n) ln 2) for the counting filters)")
	fs.Float64Var(&s.fpp, "fpp", 0, "size the filter for this formula false positive rate instead of --bits-per-key")
	fs.IntVar(&s.bucketSize, "bucket-size", 0, "cuckoo: fingerprints a bucket, 1, 2, 4 or 8 (default 4)")
	fs.IntVar(&s.fingerprintBits, "fingerprint-bits", 0, "cuckoo: bits a fingerprint, 1 to 32 (default: what --fpp or --bits-per-key gives)")
	fs.Uint64Var(&s.initialCapacity, "initial-capacity", 0, "scalable: keys of the first sub-filter (default 1000)")
	fs.Float64Var(&s.growth, "growth", 0, "scalable: each sub-filter holds this many times the keys of the one before (default 2)")
	fs.Float64Var(&s.tightening, "tightening", 0, "scalable: each sub-filter's error is this times the one before's (default 0.5)")
	fs.Uint64Var(&s.acbfCapacity, "acbf-capacity", 0, "acbf kinds: keep counter room for this many keys, at least the distinct keys (default: exactly those); with --bits-per-key the first level shrinks to 4m - capacity*k bits, with --fpp the memory grows to keep the rate")
}

// set reports whether the flag name was given.
func (s *sizingFlags) set(name string) bool {
	found := false
	s.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// sizing returns the Sizing of the flags given (the library's defaults stand
// for the others). A 0 given is refused: the library reads 0 as its
// default, which is not what the user asked for.
func (s *sizingFlags) sizing(cmd string) (filters.Sizing, error) {
	var z filters.Sizing
	for _, f := range []struct {
		name   string
		zero   bool
		assign func()
		hint   string
	}{
		{"bits-per-key", s.bpk == 0, func() { z.BitsPerKey = s.bpk }, fmt.Sprintf("want a positive number of bits per key (leave it out for %d)", filters.DefaultBitsPerKey)},
		{"k", s.k == 0, func() { z.K = s.k }, fmt.Sprintf("want 1 to %d (leave --k out for each kind's best)", filters.MaxK)},
		{"fpp", s.fpp == 0, func() { z.FPP = s.fpp }, "want a rate between 0 and 1, such as 0.001"},
		{"bucket-size", s.bucketSize == 0, func() { z.BucketSize = s.bucketSize }, "want 1, 2, 4 or 8 (leave it out for 4)"},
		{"fingerprint-bits", s.fingerprintBits == 0, func() { z.FingerprintBits = s.fingerprintBits }, "leave it out for the default"},
		{"initial-capacity", s.initialCapacity == 0, func() { z.InitialCapacity = s.initialCapacity }, "leave it out for 1000"},
		{"growth", s.growth == 0, func() { z.Growth = s.growth }, "leave it out for 2"},
		{"tightening", s.tightening == 0, func() { z.Tightening = s.tightening }, "want a ratio between 0 and 1 (leave it out for 0.5)"},
		{"acbf-capacity", s.acbfCapacity == 0, func() { z.ACBFCapacity = s.acbfCapacity }, "leave it out for the distinct keys"},
	} {
		if !s.set(f.name) {
			continue
		}
		if f.zero {
			return z, usageError{fmt.Errorf("%s: --%s 0: %s", cmd, f.name, f.hint)}
		}
		f.assign()
	}
	if s.set("bits-per-key") && s.set("fpp") {
		return z, usageError{fmt.Errorf("%s: --bits-per-key and --fpp both size the filter: give one", cmd)}
	}
	if err := z.Validate(); err != nil {
		return z, usageError{flagError(cmd, s.fs, err)}
	}
	return z, nil
}

// kindFlags are the flags of Sizing fields that only some kinds read.
var kindFlags = []struct{ flag, field string }{
	{"bits-per-key", "BitsPerKey"}, {"fpp", "FPP"}, {"k", "K"}, {"bucket-size", "BucketSize"}, {"fingerprint-bits", "FingerprintBits"},
	{"initial-capacity", "InitialCapacity"}, {"growth", "Growth"}, {"tightening", "Tightening"},
	{"acbf-capacity", "ACBFCapacity"},
}

// checkKinds refuses a flag that no filter of the command reads (--k with
// the cuckoo filter, --bucket-size with the ACBF): the library ignores the
// fields of other kinds, and a user who gave one meant something else.
// kinds are s.kinds, or filter if they are not set.
func (s *sizingFlags) checkKinds(cmd string, filter filters.Kind) error {
	kinds := s.kinds
	if kinds == nil && filter != "" {
		kinds = []filters.Kind{filter}
	}
	for _, f := range kindFlags {
		if !s.set(f.flag) || len(kinds) == 0 {
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
			used = used || sp.Uses(f.field)
		}
		if used {
			continue
		}
		var readers []string
		for _, sp := range filters.Kinds() {
			if sp.Uses(f.field) {
				readers = append(readers, string(sp.Kind))
			}
		}
		what := "the " + names[0] + " filter does not read it"
		if len(names) > 1 {
			what = "none of " + strings.Join(names, ", ") + " reads it"
		}
		return usageError{fmt.Errorf("%s: --%s: %s (an option of %s)", cmd, f.flag, what, strings.Join(readers, ", "))}
	}
	return nil
}
