package filters

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/acbf"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestACBFCapacity checks the option acbf-capacity: the first level is 4m - ck for
// a capacity c, memory still follows the keys held, the formula is taken at
// the keys held, a filter so built measures that formula on non-members
// (4 sd), takes keys up to its capacity, and bad capacities are refused by
// name.
func TestACBFCapacity(t *testing.T) {
	testutil.SkipUnderRace(t)
	const n = 20_000
	keys := testutil.Keys(0, n)
	for _, tc := range []struct {
		kind Kind
		s    Sizing
	}{
		{ACBF, Sizing{BitsPerKey: 34}.With(OptionK, 6).With(OptionACBFCapacity, 4*n)},
		{ACBF, Sizing{BitsPerKey: 40}.With(OptionK, 3).With(OptionACBFCapacity, 6*n)},
		{ACBF2, Sizing{BitsPerKey: 32}.With(OptionK, 3).With(OptionACBFCapacity, 2*n)},
		{ACBF, Sizing{FPP: 0.01}.With(OptionK, 4).With(OptionACBFCapacity, 3*n)},
	} {
		sp, _ := Lookup(string(tc.kind))
		sized, err := sp.Size(n, tc.s)
		if err != nil {
			t.Fatalf("%s %+v: %v", tc.kind, tc.s, err)
		}
		p := sized.(acbfParams)
		cf, _ := tc.s.Option(OptionACBFCapacity)
		c := uint64(cf)
		if want := (4*p.M - p.FirstLevel) / uint64(p.K); p.Room != want || p.Room < c {
			t.Errorf("%s: room %d, want the budget's room (4m - m1)/k = %d, at least %d", tc.kind, p.Room, want, c)
		}
		if tc.kind == ACBF && p.FirstLevel != 4*p.M-c*uint64(p.K) {
			t.Errorf("%s: m1 = %d, want 4m - ck = %d", tc.kind, p.FirstLevel, 4*p.M-c*uint64(p.K))
		}
		if tc.s.FPP == 0 && p.M != uint64(math.Round(tc.s.BitsPerKey*n/4)) {
			t.Errorf("%s: m = %d, want the held keys' %v bits each", tc.kind, p.M, tc.s.BitsPerKey)
		}
		if tc.s.FPP != 0 && sp.FPP(sized, n) > tc.s.FPP {
			t.Errorf("%s: formula %.4g above the FPP asked, %.4g", tc.kind, sp.FPP(sized, n), tc.s.FPP)
		}
		b, err := Build(tc.kind, keys, tc.s)
		if err != nil {
			t.Fatal(err)
		}
		// Measured FP on non-members against the formula at the keys held.
		const queries = 200_000
		fp := 0
		for _, q := range testutil.Keys(1<<40, queries) {
			if b.Filter.Contains(q) {
				fp++
			}
		}
		got, want := float64(fp)/queries, b.FPP
		if sd := math.Sqrt(want * (1 - want) / queries); math.Abs(got-want) > 4*sd+1.0/queries {
			t.Errorf("%s %+v: measured FP %.4g, formula %.4g (sd %.2g)", tc.kind, tc.s, got, want, sd)
		}
		if got := sp.ParamsOf(b.Filter); got != b.Params {
			t.Errorf("%s: ParamsOf the filter %+v, built with %+v", tc.kind, got, b.Params)
		}
		// Room for the capacity: adding keys up to it succeeds.
		for _, k := range testutil.Keys(1<<41, c-n) {
			if err := sp.Add(b.Filter, k); err != nil {
				t.Fatalf("%s: add within the capacity %d: %v", tc.kind, c, err)
			}
		}
		if tc.kind == ACBF {
			if err := sp.Add(b.Filter, []byte("one more")); err == nil {
				t.Errorf("%s: a key beyond the capacity %d was taken", tc.kind, c)
			}
		}
	}
	for _, tc := range []struct {
		s    Sizing
		want string
	}{
		{Sizing{}.With(OptionACBFCapacity, n-1), "at least"},
		{Sizing{BitsPerKey: 32}.With(OptionK, 6).With(OptionACBFCapacity, 6*n), "does not fit"},
		{Sizing{}.With(OptionACBFCapacity, 1<<41), "want 1 to 2^40 keys"},
		{Sizing{BitsPerKey: 32}.With(OptionACBFCapacity, 100*n), "even at k = 1 bit each"},
	} {
		sp, _ := Lookup(string(ACBF))
		_, err := sp.Size(n, tc.s)
		var oe *option.Error
		if !errors.As(err, &oe) || oe.Name != "Sizing.acbf-capacity" || !errors.Is(err, ErrSizing) {
			t.Errorf("%+v: %v, want an option.Error naming Sizing.acbf-capacity", tc.s, err)
		} else if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
	}
	// Without k given, a capacity that leaves the default k no room takes
	// the largest k that fits (k = 6 at 32 bits a key has room for 5.3n
	// keys' counters beside its first level; 4n needs k <= 5), sized by
	// bits a key or by a budget.
	for _, s := range []Sizing{{BitsPerKey: 32}, {Budget: 4 * n}} {
		sp, _ := Lookup(string(ACBF))
		p, err := sp.Size(n, s.With(OptionACBFCapacity, 6*n))
		if err != nil {
			t.Errorf("%+v with a capacity of 6n: %v", s, err)
			continue
		}
		if ap := p.(acbfParams); ap.Room < 6*n || ap.K < 1 || ap.K >= 6 || ap.M*4 > 32*n {
			t.Errorf("%+v with a capacity of 6n: %s", s, p)
		}
	}
	// Kinds without counters ignore the option, and say so through Uses.
	for _, k := range []Kind{Bloom, CBF, Cuckoo} {
		sp, _ := Lookup(string(k))
		if sp.Uses(OptionACBFCapacity) {
			t.Errorf("%s claims to read %s", k, OptionACBFCapacity)
		}
	}
}

// TestACBFJReserve: ACBF_j reserves its arena for the keys it holds, not for
// the idle room of its layout (which would double ACBF_1's memory); the
// optimal ACBF without a capacity reserves for its keys too.
func TestACBFJReserve(t *testing.T) {
	const n = 20_000
	keys := testutil.Keys(7, n)
	for _, kind := range []Kind{ACBF, ACBF1, ACBF2, ACBF3} {
		b, err := Build(kind, keys, Sizing{})
		if err != nil {
			t.Fatal(err)
		}
		got := b.Filter.(*acbf.Filter).Stats().ResidentBytes
		ref, err := acbf.Build(acbf.Config{Counters: b.M, Capacity: n, K: b.K, FirstLevel: b.FirstLevelBits}, keys)
		if err != nil {
			t.Fatal(err)
		}
		if want := ref.Stats().ResidentBytes; got != want {
			t.Errorf("%s: %d resident bytes, %d reserving for the %d keys held", kind, got, want, n)
		}
	}
}
