package stream

import (
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
)

// A Sizing left zero is the library's default: the live filter is sized at
// filters.DefaultBitsPerKey bits a key unless an FPP is set, whatever
// BitsPerKey the caller did not give (a command line passes only the flags
// given, and need not zero the rest).
func TestResolveSizingDefault(t *testing.T) {
	base := Options{KeyEvents: "ev.csv", Probe: "pr.csv", Filter: filters.ACBF}
	_, spec, err := base.resolve()
	if err != nil {
		t.Fatal(err)
	}
	got, err := spec.Size(DefaultCapacity, base.Sizing)
	if err != nil {
		t.Fatal(err)
	}
	want, err := spec.Size(DefaultCapacity, filters.Sizing{BitsPerKey: filters.DefaultBitsPerKey})
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("zero Sizing: %s, want the default %d bits a key: %s", got.String(), filters.DefaultBitsPerKey, want.String())
	}
	byFPP := base
	byFPP.Sizing = filters.Sizing{FPP: 0.001}
	o, spec, err := byFPP.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if o.Sizing.BitsPerKey != 0 {
		t.Errorf("FPP 0.001: resolve set BitsPerKey %g, want it left to the FPP", o.Sizing.BitsPerKey)
	}
	fpp, err := spec.Size(DefaultCapacity, o.Sizing)
	if err != nil {
		t.Fatal(err)
	}
	if fpp.String() == want.String() {
		t.Errorf("FPP 0.001 sized the filter as the default bits a key (%s): the FPP was not read", fpp.String())
	}
}
