package local

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/acbfjoin/acbfjoin/datasets/nber/nbertest"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/filters/choose"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/keylist"
)

// TestFilterAuto: the filter auto gives the reference's rows whatever it
// chooses; at a low selectivity it chooses a filter, and the shuffle bytes it
// predicted are within 5% of the measured; a self-join (every row a key)
// chooses none; a budget of a byte leaves only none; deletes leave only
// deleting kinds; a stream input is joined with a note instead of a sample.
//
// The probe and decode times are injected (measuredTimings), so that the
// choices asserted depend on the data and the model, not on how fast or
// loaded the machine is: under the race detector on a loaded machine the
// probes were timed at 207 ns, auto rightly chose none, and the test
// failed. The timed path runs in the last case (a stream), asserting rows
// only.
func TestFilterAuto(t *testing.T) {
	scale := 0.01
	if testing.Short() {
		scale = 0.004 // the race detector's run (.ci/run): the same cases, 66,000 citations
	}
	scale = testutil.RaceSize(scale, 0.002) // under it, 33,000
	gen := nbertest.Generate(t, scale, 1500, 3)
	want := naiveJoin(t, gen.Keys, gen.Cite, "PATENT", "CITED")
	check := func(name string, opt join.Options, wantRows []string) *join.Report {
		t.Helper()
		opt.Filter, opt.Sort, opt.AutoTimings = join.FilterAuto, true, measuredTimings
		rep, out := runJoin(t, opt)
		if got := parseOutput(t, out); !slices.Equal(got, wantRows) {
			t.Fatalf("%s: %d rows, the reference's %d; %s", name, len(got), len(wantRows), testutil.FirstDiff(got, wantRows))
		}
		a := rep.Auto
		if a == nil || a.Chosen.Kind != rep.Filter.Kind || len(a.Candidates) == 0 {
			t.Fatalf("%s: auto report %+v for filter %s", name, a, rep.Filter.Kind)
		}
		t.Logf("%s: selectivity %.4f, chose %s %v (%.2f ms), runner-up %+v; shuffle predicted %.0f, measured %d",
			name, a.Selectivity, a.Chosen.Kind, a.Chosen.BitsPerKey, a.Chosen.PredictedCostMs, a.RunnerUp, a.Chosen.PredictedShuffleBytes, rep.ShuffleBytes)
		return rep
	}
	rep := check("default", join.Options{Sides: join.Sides{Keys: gen.Keys, Input: gen.Cite}}, want)
	if rep.Filter.Kind == filters.None || rep.Auto.RunnerUp == nil || rep.Auto.RunnerUp.Kind == rep.Filter.Kind {
		t.Errorf("low selectivity: chose %s, runner-up %+v", rep.Filter.Kind, rep.Auto.RunnerUp)
	}
	if got, want := rep.Auto.Chosen.PredictedShuffleBytes, float64(rep.ShuffleBytes); math.Abs(got/want-1) > 0.05 {
		t.Errorf("predicted shuffle %.0f bytes, measured %.0f", got, want)
	}
	if s := rep.Auto.Selectivity; math.Abs(s-float64(len(want))/float64(rep.InputRecords)) > 0.01 {
		t.Errorf("sampled selectivity %.4f, true %.4f", s, float64(len(want))/float64(rep.InputRecords))
	}

	selfSide := gen.Cite
	if testutil.Race { // the self-join's rows grow as the square of its side's: under -race, a quarter of it
		selfSide = headOf(t, gen.Cite, 4)
	}
	self := naiveJoin(t, selfSide, selfSide, "CITED", "CITED")
	if rep := check("self-join", join.Options{Sides: join.Sides{Keys: selfSide, Input: selfSide}, Keying: join.Keying{KeyCol: "CITED"}}, self); rep.Filter.Kind != filters.None {
		t.Errorf("self-join (every row a key): chose %s, want none", rep.Filter.Kind)
	}
	if rep := check("budget", join.Options{Sides: join.Sides{Keys: gen.Keys, Input: gen.Cite}, FilterChoice: join.FilterChoice{BroadcastBudget: 1}}, want); rep.Filter.Kind != filters.None {
		t.Errorf("a 1-byte budget: chose %s", rep.Filter.Kind)
	}
	rep = check("deletes", join.Options{Sides: join.Sides{Keys: gen.Keys, Input: gen.Cite}, FilterChoice: join.FilterChoice{NeedDeletes: true}}, want)
	if sp, _ := filters.Lookup(string(rep.Filter.Kind)); !sp.Deletes && rep.Filter.Kind != filters.None {
		t.Errorf("deletes needed: chose %s, which cannot delete", rep.Filter.Kind)
	}

	// A stream input: no sample, a note, the same rows.
	var buf bytes.Buffer
	r, err := Run(context.Background(), join.Options{Sides: join.Sides{Keys: gen.Keys, Input: pipeOf(t, gen.Cite)}, FilterChoice: join.FilterChoice{Filter: join.FilterAuto}, Output: join.Output{Sort: true}}, NewCSV(&buf))
	if err != nil {
		t.Fatal(err)
	}
	if got := parseOutput(t, buf.Bytes()); !slices.Equal(got, want) || r.Auto == nil || r.Auto.Note == "" {
		t.Errorf("stream input: %d rows (want %d), auto %+v", len(got), len(want), r.Auto)
	}

	// No keys, and a large side with no rows to sample (its header only):
	// nothing to time, and the join ends with no rows.
	empty := t.TempDir()
	k0, in0 := filepath.Join(empty, "k.csv"), filepath.Join(empty, "in.csv")
	os.WriteFile(k0, []byte("PATENT,X\n"), 0o644)
	os.WriteFile(in0, []byte("CITING,CITED\n"), 0o644)
	done := make(chan error, 1)
	go func() {
		var b bytes.Buffer
		_, err := Run(context.Background(), join.Options{Sides: join.Sides{Keys: k0, Input: in0}, FilterChoice: join.FilterChoice{Filter: join.FilterAuto}}, NewCSV(&b))
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("no keys, no rows: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("no keys, no rows: auto did not end within a minute")
	}

	// Options auto refuses.
	for _, opt := range []join.Options{
		{Sides: join.Sides{Keys: gen.Keys, Input: gen.Cite}, FilterChoice: join.FilterChoice{Filter: join.FilterAuto, Sizing: filters.Sizing{BitsPerKey: 8}}},
		{Sides: join.Sides{Keys: gen.Keys, Input: gen.Cite}, FilterChoice: join.FilterChoice{Filter: filters.Bloom, BroadcastBudget: 1 << 20}},
		{Sides: join.Sides{Keys: gen.Keys, Input: gen.Cite}, FilterChoice: join.FilterChoice{Filter: filters.Bloom, NeedDeletes: true}},
		{Sides: join.Sides{Keys: gen.Keys, Input: gen.Cite}, FilterChoice: join.FilterChoice{Filter: join.FilterAuto, BroadcastBudget: -1}},
		{Sides: join.Sides{Keys: gen.Keys, Input: gen.Cite}, FilterChoice: join.FilterChoice{Filter: join.FilterAuto, FilterFile: gen.Keys}},
	} {
		if _, err := Run(context.Background(), opt, NewCSV(&bytes.Buffer{})); !errors.Is(err, join.ErrOptions) {
			t.Errorf("%+v: %v, want an options error", opt, err)
		}
	}
}

// measuredTimings are the probe times (16 bits a key), decode times and
// build times that the filter auto measured on TestFilterAuto's data,
// 1,500 keys, its threads' CPU time (lockCPUClock; AMD EPYC, 2 cores,
// go1.26.8, 2026-11-28; medians of 9 timings, rounded).
var measuredTimings = map[filters.Kind]join.AutoTiming{
	filters.Exact:   {ProbeNs: 4.4, DecodeNsPerByte: 1.1, BuildNsPerKey: 13},
	filters.Bloom:   {ProbeNs: 25, DecodeNsPerByte: 1.0, BuildNsPerKey: 50},
	filters.Blocked: {ProbeNs: 17, DecodeNsPerByte: 1.2, BuildNsPerKey: 23},
	filters.CBF:     {ProbeNs: 10, DecodeNsPerByte: 1.2, BuildNsPerKey: 13},
	filters.ACBF:    {ProbeNs: 8.6, DecodeNsPerByte: 2.8, BuildNsPerKey: 33},
	filters.Cuckoo:  {ProbeNs: 17, DecodeNsPerByte: 1.4, BuildNsPerKey: 176},
	filters.Fuse:    {ProbeNs: 7.2, DecodeNsPerByte: 1.6, BuildNsPerKey: 91},
}

// headOf writes the header and the first 1/div of the rows of the CSV
// file at path to a file of t's and returns its path.
func headOf(t *testing.T, path string, div int) string {
	t.Helper()
	data, err := os.ReadFile(path)
	testutil.Check(t, err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	testutil.WriteFile(t, out, bytes.Join(lines[:1+(len(lines)-1)/div], nil), 0o644)
	return out
}

// pipeOf returns a path that reads the file at path through a pipe (a
// stream: no size, read once), fed by a goroutine; the pipe is closed when
// the test ends.
func pipeOf(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		pw.Write(data)
		pw.Close()
	}()
	t.Cleanup(func() { pr.Close() })
	return "/dev/fd/" + strconv.Itoa(int(pr.Fd()))
}

// TestCalibrate: each sized kind is built at the ends of its sizes and
// every size becomes a candidate: its bytes grow and its formula FP falls
// with its bits, an injected timing stands for every size (probe, build a
// key times the keys, decode a byte times the bytes), and a filter built
// over all the keys (at most autoCalibrationKeys of them) at a size costs
// no build and holds every key. Timed for real, every time is positive and
// finite (how large depends on the machine, so it is not asserted).
func TestCalibrate(t *testing.T) {
	r := testutil.Rand(testutil.Seed(t))
	mk := func(n int) [][]byte {
		keys := make([][]byte, n)
		for i := range keys {
			keys[i] = binary.LittleEndian.AppendUint64(nil, r.Uint64())
		}
		return keys
	}
	for _, n := range []int{20_000, autoCalibrationKeys} {
		keys := mk(n)
		sub := keys[:min(n, autoCalibrationKeys)]
		probes := append(mk(1800), sub[:200]...) // a tenth of them hit
		ready := probeKeys{asSampled: probes, forSubset: probes}
		for _, kind := range choose.Kinds {
			if kind == filters.None {
				continue
			}
			timing := join.AutoTiming{ProbeNs: 7, DecodeNsPerByte: 2, BuildNsPerKey: 50}
			cands, cals, err := calibrate(context.Background(), kind, keylist.Of(keys), sub, ready, choose.Workload{}, map[filters.Kind]join.AutoTiming{kind: timing})
			if err != nil || len(cands) == 0 || len(cals) == 0 {
				t.Fatalf("%s, %d keys: %d candidates, %d calibrations, %v", kind, n, len(cands), len(cals), err)
			}
			if kind != filters.Exact {
				_, bpks, _, _ := choose.Sized(kind, uint64(n))
				if len(cands) != len(bpks) || cals[0].bits != bpks[0] || cals[len(cals)-1].bits != bpks[len(bpks)-1] {
					t.Errorf("%s, %d keys: %d candidates, calibrated at %v..%v bits, sizes %v", kind, n, len(cands), cals[0].bits, cals[len(cals)-1].bits, bpks)
				}
			}
			for i, c := range cands {
				built := false
				for _, cal := range cals {
					built = built || cal.all && cal.bits == c.BitsPerKey
				}
				wantBuild := 50 * float64(n)
				if built {
					wantBuild = 0
				}
				if c.ProbeNs != 7 || math.Abs(c.BuildNs-wantBuild) > 1e-6*wantBuild || math.Abs(c.DecodeNs/float64(c.Bytes)-2) > 0.01 {
					t.Errorf("%s %v bits, %d keys: probe %v, build %v (want %v), decode %v for %d bytes", kind, c.BitsPerKey, n, c.ProbeNs, c.BuildNs, wantBuild, c.DecodeNs, c.Bytes)
				}
				if i > 0 && (c.Bytes < cands[i-1].Bytes || c.FPP > cands[i-1].FPP) {
					t.Errorf("%s %v bits: %d bytes at FP %v, after %d bytes at FP %v", kind, c.BitsPerKey, c.Bytes, c.FPP, cands[i-1].Bytes, cands[i-1].FPP)
				}
			}
			for _, cal := range cals {
				if !cal.all {
					continue
				}
				for _, k := range keys {
					if !cal.f.Contains(k) {
						t.Fatalf("%s at %v bits, built over all %d keys: a key is missing", kind, cal.bits, n)
					}
				}
			}
			// Timed for real, the keys as bytes and as integers (the
			// map phase's filters.IntBatchFilter).
			for _, ints := range []bool{false, true} {
				ready.ints = ints
				cands, _, err = calibrate(context.Background(), kind, keylist.Of(keys), sub, ready, choose.Workload{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range cands {
					if !(c.ProbeNs > 0) || !(c.BuildNs >= 0) || !(c.DecodeNs > 0) || math.IsInf(c.ProbeNs+c.BuildNs+c.DecodeNs, 0) {
						t.Errorf("%s %v bits, %d keys, timed (integers %v): probe %v, build %v, decode %v ns", kind, c.BitsPerKey, n, ints, c.ProbeNs, c.BuildNs, c.DecodeNs)
					}
				}
			}
			ready.ints = false
			// What it may not choose is not built: sizes over a budget of
			// 6 bits a key, every size of a kind that cannot delete when
			// deletes are needed. Every size is still a candidate, with its
			// bytes, for the ranking to exclude.
			for _, w := range []choose.Workload{{Budget: int64(6 * n / 8)}, {NeedDeletes: true}} {
				limited, cals, err := calibrate(context.Background(), kind, keylist.Of(keys), sub, ready, w, nil)
				if err != nil || len(limited) != len(cands) {
					t.Fatalf("%s, %d keys, %+v: %d candidates (%d without), %v", kind, n, w, len(limited), len(cands), err)
				}
				sp, _ := filters.Lookup(string(kind))
				for _, cal := range cals {
					if w.NeedDeletes && !sp.Deletes || w.Budget > 0 && int64(cal.memBits/8) > w.Budget {
						t.Errorf("%s, %d keys, %+v: calibrated at %v bits (%d bytes)", kind, n, w, cal.bits, cal.memBits/8)
					}
				}
				for _, ch := range choose.Rank(choose.Workload{Rows: 1e6, Mappers: 2, Budget: w.Budget, NeedDeletes: w.NeedDeletes}, choose.DefaultConstants, limited) {
					if ch.Excluded == "" && ch.ProbeNs == 0 {
						t.Errorf("%s %v bits, %d keys, %+v: not measured, not excluded (%d bytes)", kind, ch.BitsPerKey, n, w, ch.Bytes)
					}
				}
			}
		}
	}
	// interpolate: linear between two sizes, the one size's value alone.
	two := []calibration{{bits: 4, probeNs: 10}, {bits: 32, probeNs: 38}}
	if got := interpolate(two, 18, func(c calibration) float64 { return c.probeNs }); got != 24 {
		t.Errorf("interpolate at 18 bits between 10 at 4 and 38 at 32: %v, want 24", got)
	}
	if got := interpolate(two[:1], 18, func(c calibration) float64 { return c.probeNs }); got != 10 {
		t.Errorf("interpolate of one calibration: %v, want 10", got)
	}
}

// TestExactBudgetCountsBitmap: integer keys spread so that the exact
// set's bitmap (about 1 MB) outweighs both its compact form and the key
// list (9 bytes a key, 180 KB): under a budget of 500 KB the exact set is
// not measured and the ranking excludes it by the bytes a copy takes, not
// chosen unmeasured for a key list that fits.
func TestExactBudgetCountsBitmap(t *testing.T) {
	const n = 20_000
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = binary.BigEndian.AppendUint64(nil, 1<<40+uint64(i)*400)
	}
	sub := keys[:autoCalibrationKeys]
	ready := probeKeys{asSampled: sub, forSubset: sub}
	w := choose.Workload{Budget: 500 << 10}
	cands, cals, err := calibrate(context.Background(), filters.Exact, keylist.Of(keys), sub, ready, w, nil)
	if err != nil || len(cands) != 1 || len(cals) != 0 {
		t.Fatalf("%d candidates, %d calibrations, %v; want one candidate, none built", len(cands), len(cals), err)
	}
	if cands[0].Bytes <= w.Budget {
		t.Fatalf("the exact set counted at %d bytes, within the budget of %d", cands[0].Bytes, w.Budget)
	}
	for _, ch := range choose.Rank(choose.Workload{Rows: 1e6, Mappers: 2, Budget: w.Budget}, choose.DefaultConstants, cands) {
		if ch.Excluded == "" {
			t.Errorf("exact at %d bytes not excluded under a budget of %d", ch.Bytes, w.Budget)
		}
	}
}

// TestBitmapDominates: auto builds and times no sized kind when the exact
// set is a bitmap of at most the least bits a key a sized kind takes (a
// dense range of integers) that it may choose, and weighs it against none
// alone; the rows are the reference's. Spread integers (a table), a
// bitmap of more bits a key, strings, and a budget the bitmap does not fit
// leave every kind a candidate.
func TestBitmapDominates(t *testing.T) {
	ints := func(n int, step uint64) keylist.List {
		keys := make([][]byte, n)
		for i := range keys {
			keys[i] = binary.BigEndian.AppendUint64(nil, 1<<40+uint64(i)*step)
		}
		return keylist.Of(keys)
	}
	strs := make([][]byte, 5000)
	for i := range strs {
		strs[i] = []byte("key" + strconv.Itoa(i))
	}
	for _, c := range []struct {
		name string
		keys keylist.List
		w    choose.Workload
		want bool
	}{
		{"dense", ints(5000, 1), choose.Workload{}, true},
		{"every third", ints(5000, 3), choose.Workload{}, true},   // 3 bits a key, below the least sized filter's 4
		{"every fourth", ints(5000, 4), choose.Workload{}, false}, // 4 bits and a part of a word
		{"dense, deletes needed", ints(5000, 1), choose.Workload{NeedDeletes: true}, exactDeletes()},
		{"spread", ints(5000, 400), choose.Workload{}, false},
		{"strings", keylist.Of(strs), choose.Workload{}, false},
		{"dense, a budget it fits", ints(5000, 1), choose.Workload{Budget: 64 << 10}, true},
		{"dense, a budget it does not fit", ints(5000, 1), choose.Workload{Budget: 1 << 10}, false},
		{"no keys", ints(0, 1), choose.Workload{}, false},
	} {
		why := bitmapDominates(c.keys, c.w)
		if got := why != ""; got != c.want {
			t.Errorf("%s: %q, want dominating %v", c.name, why, c.want)
		}
	}

	dir := t.TempDir()
	keys, input := filepath.Join(dir, "keys.csv"), filepath.Join(dir, "input.csv")
	var kb, ib bytes.Buffer
	kb.WriteString("K,V\n")
	for i := range 3000 {
		kb.WriteString(strconv.Itoa(100000+i) + ",v" + strconv.Itoa(i) + "\n")
	}
	ib.WriteString("R,K\n")
	for i := range 40000 {
		ib.WriteString(strconv.Itoa(i) + "," + strconv.Itoa(90000+(i*7919)%50000) + "\n")
	}
	testutil.WriteFile(t, keys, kb.Bytes(), 0o644)
	testutil.WriteFile(t, input, ib.Bytes(), 0o644)
	want := naiveJoin(t, keys, input, "K", "K")
	rep, out := runJoin(t, join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"},
		FilterChoice: join.FilterChoice{Filter: join.FilterAuto, AutoTimings: measuredTimings}, Output: join.Output{Sort: true}})
	if got := parseOutput(t, out); !slices.Equal(got, want) {
		t.Fatalf("%d rows, the reference's %d; %s", len(got), len(want), testutil.FirstDiff(got, want))
	}
	a := rep.Auto
	if a == nil || a.SizedSkipped == "" {
		t.Fatalf("a dense key range: auto %+v, want the sized kinds skipped", a)
	}
	for _, c := range a.Candidates {
		if c.Kind != filters.Exact && c.Kind != filters.None {
			t.Errorf("a candidate of kind %s beside a dominating bitmap", c.Kind)
		}
	}
	if rep.Filter.Kind != filters.Exact {
		t.Errorf("chose %s at a selectivity of %.2f, want exact", rep.Filter.Kind, a.Selectivity)
	}
}

// TestIntsOf: the integers of key.Of bytes, as the map phase parses them;
// a key of another length is refused.
func TestIntsOf(t *testing.T) {
	want := []int64{0, -1, 1, math.MinInt64, math.MaxInt64, 3858241}
	var keys [][]byte
	for _, v := range want {
		k := make([]byte, 8)
		key.PutInt(k, v)
		keys = append(keys, k)
	}
	if got, ok := intsOf(keys, nil); !ok || !slices.Equal(got, want) {
		t.Errorf("intsOf = %v, %v; want %v", got, ok, want)
	}
	if _, ok := intsOf(append(keys, []byte("short")), nil); ok {
		t.Error("a 5-byte key taken for an integer")
	}
}

// TestTimeAllProbesParallel: the probes of several filters timed on two
// goroutines, integer keys as integers and as bytes, give every
// calibration a time; under -race, the goroutines share no variable (a
// review: touchKeys's sink was one global both wrote, a data race that
// failed CI's race phase in TestFilterAuto).
func TestTimeAllProbesParallel(t *testing.T) {
	var keys [][]byte
	for i := range 3000 {
		k := make([]byte, 8)
		key.PutInt(k, int64(i)-1500)
		keys = append(keys, k)
	}
	var ks []*kindCalibration
	for _, kind := range []filters.Kind{filters.Exact, filters.Blocked, filters.ACBF, filters.Bloom} {
		b, err := filters.Build(kind, keys, filters.Sizing{BitsPerKey: 8})
		if err != nil {
			t.Fatal(err)
		}
		ks = append(ks, &kindCalibration{kind: kind, cals: []calibration{{f: b.Filter, all: true, probe: true}, {f: b.Filter, probe: true}}})
	}
	for _, ints := range []bool{false, true} {
		timeAllProbes(ks, probeKeys{asSampled: keys, forSubset: keys, ints: ints}, 2)
		for _, k := range ks {
			for _, c := range k.cals {
				if !(c.probeNs >= 0) || math.IsInf(c.probeNs, 0) {
					t.Errorf("%s, ints %v: probe time %v", k.kind, ints, c.probeNs)
				}
			}
		}
	}
}
