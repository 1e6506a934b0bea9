package repro

import (
	"context"
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	if s == "n/a" {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// TestQuick runs `join repro --quick` and checks its output: every file and
// plot is written, every measured FP is within 4 binomial sd of its formula,
// and ACBF_opt is below CBF at every point, in theory and in simulation.
func TestQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the reduced reproduction (several seconds)")
	}
	out := t.TempDir()
	if err := Run(context.Background(), Options{Quick: true, Out: out, Seed: 1, Prog: "acbfjoin"}); err != nil {
		t.Fatal(err)
	}
	// The documents name the program as it was invoked (Options.Prog),
	// never by the short name of this repository's examples.
	for _, name := range []string{"run.md", "table1.md"} {
		b, _ := os.ReadFile(filepath.Join(out, name))
		if !strings.Contains(string(b), "`acbfjoin ") || strings.Contains(string(b), "`join ") {
			t.Errorf("%s does not name the program acbfjoin:\n%s", name, b)
		}
	}
	for _, name := range []string{"fig4.csv", "fig4.md", "fig4.svg", "fig5.csv", "fig5.md", "fig5.svg", "fig67.csv", "fig67.md", "fig6.svg", "fig7.svg", "table1.csv", "table1.md", "run.md",
		"quoted.csv", "quoted.md", "fig7_layout.csv", "table1_paper.csv", "table1_sizing.csv"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || len(b) == 0 {
			t.Fatalf("%s not written: %v", name, err)
		}
		if strings.HasSuffix(name, ".svg") && !strings.Contains(string(b[:min(200, len(b))]), "<svg") {
			t.Fatalf("%s is not an SVG", name)
		}
	}
	for _, r := range readCSV(t, filepath.Join(out, "fig4.csv")) {
		if num(t, r["ACBF_opt"]) >= num(t, r["CBF"]) {
			t.Errorf("theory m/n=%s k=%s: ACBF_opt %s not below CBF %s", r["m_n"], r["k"], r["ACBF_opt"], r["CBF"])
		}
	}
	s := sizes(true)
	probes := float64(s.queries * s.trials)
	measured := map[string]float64{}
	for _, r := range readCSV(t, filepath.Join(out, "fig5.csv")) {
		got, want := num(t, r["fp_measured"]), num(t, r["fp_formula"])
		if math.IsNaN(got) {
			continue
		}
		sd := math.Sqrt(want * (1 - want) / probes)
		if math.Abs(got-want) > 4*sd+2/probes {
			t.Errorf("%s m/n=%s k=%s: measured %.4g, formula %.4g (sd %.2g)", r["variant"], r["m_n"], r["k"], got, want, sd)
		}
		measured[r["k_mode"]+"/"+r["m_n"]+"/"+r["variant"]] = got
	}
	for key, v := range measured {
		if strings.HasSuffix(key, "/ACBF_opt") {
			cbfKey := strings.TrimSuffix(key, "ACBF_opt") + "CBF"
			if v >= measured[cbfKey] {
				t.Errorf("%s: measured ACBF_opt %.4g not below CBF %.4g", key, v, measured[cbfKey])
			}
		}
	}
	tab := readCSV(t, filepath.Join(out, "table1.csv"))
	if len(tab) != 5 || tab[1]["filter"] != "exact" || tab[1]["false_positives"] != "0" {
		t.Fatalf("table1: %v", tab)
	}
	// Table 1 at the paper's sizing: the best sizing predicts the paper's
	// pair within 5%, and the join measures the formula's FP for both
	// filters (4 sd over the unmatched rows).
	fit := readCSV(t, filepath.Join(out, "table1_sizing.csv"))[0]
	if m := num(t, strings.TrimSuffix(fit["misfit"], "%")); m > 5 {
		t.Errorf("best paper sizing misfit %v%%", m)
	}
	paper := readCSV(t, filepath.Join(out, "table1_paper.csv"))
	unmatched := num(t, tab[0]["map_output_records"]) - num(t, tab[1]["map_output_records"])
	for _, r := range paper {
		got, want := num(t, r["fp_measured"]), num(t, r["fp_formula"])
		if sd := math.Sqrt(want * (1 - want) / unmatched); math.Abs(got-want) > 4*sd {
			t.Errorf("paper sizing %s: measured FP %.4g, formula %.4g (sd %.2g)", r["filter"], got, want, sd)
		}
	}
	if paper[1]["filter"] != "acbf" || num(t, paper[1]["first_level_bits"]) >= num(t, tab[4]["first_level_bits"]) {
		t.Errorf("paper sizing: the ACBF's first level is not the smaller one of a larger capacity: %v", paper)
	}
	// The paper layout's counted work matches Equation (2): within 4 sd of
	// the mean of its updates (each ranks k first-level prefixes, uniform in
	// 0..m1: variance k m1^2/12 an update) plus 1% for the levels below.
	for _, r := range readCSV(t, filepath.Join(out, "fig7_layout.csv")) {
		if r["rank_bits_per_update"] == "-" {
			continue
		}
		k, updates := num(t, r["k"]), num(t, r["updates_timed"])
		m1 := (4*num(t, r["m_n"]) - k) * float64(s.n)
		sd := m1 * math.Sqrt(k/12/updates)
		if got, want := num(t, r["rank_bits_per_update"]), num(t, r["equation_2_rank_bits"]); math.Abs(got-want) > 4*sd+0.01*want {
			t.Errorf("%s m/n=%s k=%s: %v rank bits an update, Equation (2) %v (sd %.3g)", r["filter"], r["m_n"], r["k"], got, want, sd)
		}
	}
	if q := readCSV(t, filepath.Join(out, "quoted.csv")); len(q) != len(quotes) {
		t.Errorf("quoted.csv has %d rows, want one a quoted number (%d)", len(q), len(quotes))
	}
}

// TestOptionsRefused: bad Table 1 options are refused by name before
// anything is run or written.
func TestOptionsRefused(t *testing.T) {
	for _, tc := range []struct {
		opt  Options
		name string
	}{
		{Options{Table1Sizing: "nope"}, "Table1Sizing"},
		{Options{Quick: true, ACBFCapacity: 10}, "ACBFCapacity"},
		{Options{ACBFCapacity: 1 << 50}, "ACBFCapacity"},
		{Options{Table1Sizing: Table1Paper, ACBFCapacity: 100_000}, "ACBFCapacity"},
	} {
		tc.opt.Out = filepath.Join(t.TempDir(), "out")
		err := Run(context.Background(), tc.opt)
		var oe *option.Error
		if !errors.As(err, &oe) || oe.Name != tc.name {
			t.Errorf("%+v: %v, want an option.Error naming %s", tc.opt, err, tc.name)
		}
		if _, err := os.Stat(tc.opt.Out); !os.IsNotExist(err) {
			t.Errorf("%+v: the output folder was made", tc.opt)
		}
	}
}

// TestInterruptLeavesOut: a run stopped part way leaves its output folder as
// it was (files written into a temporary folder, moved in at the end), and a
// capacity that does not fit the budget is refused before any work.
func TestInterruptLeavesOut(t *testing.T) {
	testutil.SkipUnderRace(t)
	out := t.TempDir()
	old := filepath.Join(out, "table1.md")
	if err := os.WriteFile(old, []byte("an earlier run"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	opt := Options{Quick: true, Out: out, Seed: 1, Log: func(format string, _ ...any) {
		if strings.HasPrefix(format, "Figure 7") {
			cancel() // after the figures' simulation, before their files are moved in
		}
	}}
	if err := Run(ctx, opt); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	ents, _ := os.ReadDir(out)
	if b, _ := os.ReadFile(old); len(ents) != 1 || string(b) != "an earlier run" {
		t.Errorf("after an interrupt the folder holds %d entries, table1.md %q", len(ents), b)
	}
	err := Run(context.Background(), Options{Quick: true, Out: out, ACBFCapacity: 100_000})
	var oe *option.Error
	if !errors.As(err, &oe) || oe.Name != "ACBFCapacity" || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("a capacity over the budget: %v", err)
	}
}
