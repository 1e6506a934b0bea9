package repro

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
	if err := Run(context.Background(), Options{Quick: true, Out: out, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fig4.csv", "fig4.md", "fig4.svg", "fig5.csv", "fig5.md", "fig5.svg", "fig67.csv", "fig67.md", "fig6.svg", "fig7.svg", "table1.csv", "table1.md", "run.md"} {
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
}
