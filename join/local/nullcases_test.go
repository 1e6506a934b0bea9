package local

import (
	"bytes"
	"context"
	"testing"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/jointest/nullcases"
	"github.com/acbfjoin/acbfjoin/key"
)

// TestNullCases: every NULL and empty key case (an empty string of a table
// is a value and matches; an empty CSV field, quoted or not, is NULL under
// every key type; a NULL never matches), each pair of formats, key type
// and join type, with and without a filter, and spilling, and every filter
// kind on the default key type, equals DuckDB's answer on the same files
// (testdata/nulls, bench/nulls-diff.sh): the model test of the one
// definition of each join type (join/semantics.go), with duplicates on
// both sides.
func TestNullCases(t *testing.T) {
	cases, err := nullcases.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	modes := []struct {
		name string
		set  func(*join.Options)
	}{
		{"acbf", func(o *join.Options) { o.Filter = filters.ACBF }},
		{"none", func(o *join.Options) { o.Filter = filters.None }},
		{"bloom-spill", func(o *join.Options) {
			o.Filter, o.Sort, o.MemBudget, o.Mappers, o.Reducers, o.TempDir = filters.Bloom, true, 256<<10, 2, 2, tmp
		}},
	}
	if testing.Short() {
		modes = modes[:1]
	}
	// Every filter kind, on the default key type: one answer whatever
	// filters the rows (a false positive is joined away, a rejected row of
	// anti, left or full written without the shuffle).
	var kinds []filters.Kind
	if !testing.Short() {
		for _, sp := range filters.Kinds() {
			kinds = append(kinds, sp.Kind)
		}
	}
	for _, c := range cases {
		if c.KeyType != "auto" || c.KeysFormat != c.InputFormat { // both sides of a form: the pairs of forms are the modes' below
			continue
		}
		golden, err := nullcases.Golden("../../testdata/nulls", c.Golden)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range kinds {
			opt := join.Options{Sides: join.Sides{Keys: c.Keys, Input: c.Input}, Keying: join.Keying{KeyCol: c.KeyCol, JoinCol: c.JoinCol}, FilterChoice: join.FilterChoice{Filter: kind}, JoinType: join.JoinType(c.JoinType)}
			var out bytes.Buffer
			if _, err := Run(context.Background(), opt, NewCSV(&out)); err != nil {
				t.Errorf("%s %s: %v", c.Name(), kind, err)
				continue
			}
			if err := nullcases.Equal(golden, out.Bytes()); err != nil {
				t.Errorf("%s %s (against %s): %v", c.Name(), kind, c.Golden, err)
			}
		}
	}
	// Under the race detector, one case in about 11, spread over the 900
	// (joins of a few rows each, with the same goroutines): a stride prime
	// to the 6 join types and 5 formats keeps every one among them.
	for _, c := range testutil.RacePick(cases, len(cases)/11, testutil.RaceSeed(t)) {
		golden, err := nullcases.Golden("../../testdata/nulls", c.Golden)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range modes {
			opt := join.Options{Sides: join.Sides{Keys: c.Keys, Input: c.Input}, Keying: join.Keying{KeyCol: c.KeyCol, JoinCol: c.JoinCol, KeyType: key.Type(c.KeyType)}, JoinType: join.JoinType(c.JoinType)}
			m.set(&opt)
			var out bytes.Buffer
			if _, err := Run(context.Background(), opt, NewCSV(&out)); err != nil {
				t.Errorf("%s %s: %v", c.Name(), m.name, err)
				continue
			}
			if err := nullcases.Equal(golden, out.Bytes()); err != nil {
				t.Errorf("%s %s (against %s): %v", c.Name(), m.name, c.Golden, err)
			}
		}
	}
}
