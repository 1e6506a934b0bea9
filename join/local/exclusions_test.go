package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/datasets/semijoin"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// TestHotExclusions: on a Zipf-skewed large side, exclusions drop only rows
// that join nothing (the output is the reference's, with and without them,
// for a Bloom filter, none and auto), every row they drop is a false
// positive the filter alone let through (false positives with them plus
// the rows they dropped = false positives without them), and the
// row-weighted rate falls. A stream input and invalid counts are refused.
func TestHotExclusions(t *testing.T) {
	seed := testutil.Seed(t)
	dir := filepath.Join(t.TempDir(), "sj")
	if _, err := semijoin.Write(context.Background(), dir, semijoin.Options{Keys: 2000, Rows: 60_000, Selectivity: 0.05,
		Shape: semijoin.Sparse, Distinct: 20_000, Zipf: 1.2, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	keys, input := filepath.Join(dir, semijoin.KeysFile), filepath.Join(dir, semijoin.InputFile)
	want := naiveJoin(t, keys, input, "K", "K")
	base := join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, FilterChoice: join.FilterChoice{Sizing: filters.Sizing{FPP: 0.05}}, Output: join.Output{Sort: true}}
	run := func(opt join.Options) *join.Report {
		t.Helper()
		rep, out := runJoin(t, opt)
		if got := parseOutput(t, out); !slices.Equal(got, want) {
			t.Fatalf("%+v: %d rows, the reference's %d; %s", opt, len(got), len(want), testutil.FirstDiff(got, want))
		}
		return rep
	}
	for _, kind := range testutil.RacePick([]filters.Kind{filters.Bloom, filters.None, join.FilterAuto}, 2, seed) { // under -race, two of them
		opt := base
		opt.Filter = kind
		if kind != filters.Bloom {
			opt.Sizing = filters.Sizing{}
		}
		without := run(opt)
		opt.HotExclusions = 100
		with := run(opt)
		h := with.HotExclusions
		if h == nil || h.Asked != 100 || h.Found > 100 {
			t.Fatalf("%s: report %+v", kind, h)
		}
		switch {
		case with.Filter.Kind == filters.Exact:
			if h.Found != 0 || with.FalsePositiveRecords != 0 {
				t.Errorf("%s chose the exact set: %d keys excluded, %d false positives", kind, h.Found, with.FalsePositiveRecords)
			}
			continue
		case with.Filter.Kind != without.Filter.Kind || with.Filter.Shape != without.Filter.Shape:
			// auto chose another filter in the other run (its timings
			// differ): the two runs' false positives are not comparable.
			t.Logf("%s: chose %s %s, then %s %s", kind, without.Filter.Kind, without.Filter.Shape, with.Filter.Kind, with.Filter.Shape)
			continue
		case without.FalsePositiveRecords == 0:
			// auto chose a filter that let no non-member through (fuse at
			// its few false positives, on some seeds): nothing to exclude.
			if h.ExcludedRecords != 0 || with.FalsePositiveRecords != 0 {
				t.Errorf("%s: no false positives without exclusions, yet %d rows excluded and %d false positives with", kind, h.ExcludedRecords, with.FalsePositiveRecords)
			}
			continue
		}
		if with.FalsePositiveRecords+h.ExcludedRecords != without.FalsePositiveRecords || with.FPPMeasured > without.FPPMeasured ||
			h.FPPMeasuredWithout != without.FPPMeasured || h.Found == 0 || h.ExcludedRecords == 0 {
			t.Errorf("%s: false positives %d with (%d rows excluded, %d keys), %d without; rates %.4g, %.4g (report's without %.4g)",
				kind, with.FalsePositiveRecords, h.ExcludedRecords, h.Found, without.FalsePositiveRecords, with.FPPMeasured, without.FPPMeasured, h.FPPMeasuredWithout)
		}
		t.Logf("%s: %d keys excluded, row-weighted FP %.4g -> %.4g (%d of %d false positive rows dropped)",
			with.Filter.Kind, h.Found, without.FPPMeasured, with.FPPMeasured, h.ExcludedRecords, without.FalsePositiveRecords)
	}

	// A key of 1,024 bytes (the top-k sketch's longest) and 60 rows of longer
	// non-member keys that begin with it, which the sketch would cut back to
	// the key: the key's row still joins, whatever the filter.
	dir2 := t.TempDir()
	long := strings.Repeat("A", 1024)
	var in strings.Builder
	in.WriteString("ID,K\n1," + long + "\n")
	for i := range 60 {
		fmt.Fprintf(&in, "%d,%sB%d\n", i+2, long, i%3)
	}
	in.WriteString("100,x\n")
	k2, i2 := filepath.Join(dir2, "keys.csv"), filepath.Join(dir2, "input.csv")
	if err := os.WriteFile(k2, []byte("K,V\n"+long+",kv\nx,kx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(i2, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The reference: the exact set, no exclusions (naiveJoin takes integer keys).
	_, ref := runJoin(t, join.Options{Sides: join.Sides{Keys: k2, Input: i2}, Keying: join.Keying{KeyCol: "K", JoinCol: "K", KeyType: key.String}, FilterChoice: join.FilterChoice{Filter: filters.Exact}, Output: join.Output{Sort: true}})
	want2 := parseOutput(t, ref)
	if len(want2) != 2 {
		t.Fatalf("the exact set gives %d rows, want 2", len(want2))
	}
	for _, kind := range []filters.Kind{filters.None, filters.Bloom} {
		opt := join.Options{Sides: join.Sides{Keys: k2, Input: i2}, Keying: join.Keying{KeyCol: "K", JoinCol: "K", KeyType: key.String}, FilterChoice: join.FilterChoice{Filter: kind, HotExclusions: 5}, Output: join.Output{Sort: true}}
		if kind == filters.Bloom {
			opt.Sizing = filters.Sizing{FPP: 0.3}
		}
		rep, out := runJoin(t, opt)
		if got := parseOutput(t, out); !slices.Equal(got, want2) {
			t.Errorf("%s, keys of 1,024 bytes and more: %d rows, the reference's %d (%d keys excluded)", kind, len(got), len(want2), rep.HotExclusions.Found)
		}
	}

	// A stream is read once: refused, naming the option.
	opt := base
	opt.Filter, opt.HotExclusions, opt.Input = filters.Bloom, 10, pipeOf(t, input)
	_, err := Run(context.Background(), opt, NewCSV(&bytes.Buffer{}))
	if !errors.Is(err, join.ErrOptions) || !bytes.Contains([]byte(err.Error()), []byte("HotExclusions")) {
		t.Errorf("stream input: %v, want an options error naming HotExclusions", err)
	}
	for _, n := range []int{-1, join.MaxHotExclusions + 1} {
		opt := base
		opt.Filter, opt.HotExclusions = filters.Bloom, n
		if _, err := Run(context.Background(), opt, NewCSV(&bytes.Buffer{})); !errors.Is(err, join.ErrOptions) {
			t.Errorf("HotExclusions %d: %v, want an options error", n, err)
		}
	}
}
