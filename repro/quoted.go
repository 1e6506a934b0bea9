package repro

import (
	"fmt"
	"math"
	"path/filepath"
)

// quote is a reduction the paper's text quotes for Figures 4 and 5: ACBF_opt
// "reduces the false positive probability by up to" Paper against a series,
// with k = 3 or the optimal k, in theory (Fig. 4) or in its simulation
// (Fig. 5). Orders marks the one quoted in orders of magnitude.
type quote struct {
	Fig     string // "4(a)", ...
	KMode   string // "3" or "opt"
	Against string
	Paper   float64 // reduction, 0.976 for 97.6%; orders of magnitude with Orders
	Orders  bool
}

// quotes are every reduction the paper quotes for Figures 4 and 5 (Section
// 3.2 and 5.2 of our copy).
var quotes = []quote{
	{"4(a)", "3", "CBF", 0.976, false},
	{"4(a)", "3", "ACBF_2", 0.837, false},
	{"4(a)", "3", "ACBF_3", 0.481, false},
	{"4(b)", "opt", "CBF", 5, true},
	{"4(b)", "opt", "ACBF_2", 0.998, false},
	{"4(b)", "opt", "ACBF_3", 0.696, false},
	{"5(a)", "3", "CBF", 0.960, false},
	{"5(a)", "3", "ACBF_2", 0.766, false},
	{"5(a)", "3", "ACBF_3", 0.355, false},
	{"5(b)", "opt", "CBF", 0.984, false},
}

// paperRange is the m/n range of the paper's figures.
const paperLo, paperHi = 8, 20

// reduction is ACBF_opt's reduction against a series (1 - opt/other), or
// the orders of magnitude between them (log10(other/opt)); NaN where either
// is undefined, +Inf orders or a reduction of 1 where ACBF_opt is 0.
func reduction(opt, other float64, orders bool) float64 {
	if math.IsNaN(opt) || math.IsNaN(other) || other <= 0 {
		return math.NaN()
	}
	if orders {
		return math.Log10(other / opt)
	}
	return 1 - opt/other
}

func quoteText(v float64, orders bool) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case orders:
		return fmt.Sprintf("%.2f orders", v)
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// writeQuoted compares every quoted number of Figures 4 and 5 with ours:
// the largest over the paper's m/n range (its "up to"), and the m/n from 2 to
// 20 where ours meets the paper's (theory: a scan of m/n in steps of 0.01;
// simulation: linear between the whole m/n measured), or the closest.
func writeQuoted(opt Options, sim []simResult) error {
	const n = 100_000
	theory := func(kmode, v string, mn float64) float64 {
		k := 3
		if kmode == "opt" {
			k = int(math.Round(mn * math.Ln2))
		}
		return formula(v, uint64(math.Round(mn*n)), n, k)
	}
	measured := map[string]float64{} // kmode/mn/variant
	for _, r := range sim {
		if r.feasible {
			measured[fmt.Sprintf("%s/%d/%s", r.p.KMode, r.p.MN, r.variant)] = r.measured
		}
	}
	s := sizes(opt.Quick)
	floor := 1 / float64(s.queries*s.trials)
	var rows [][]string
	for _, q := range quotes {
		var xs, ys []float64 // ours along m/n
		zero := false        // a measured ACBF_opt of 0 in the paper's range
		if q.Fig[0] == '4' {
			// k = 3: a smooth curve, scanned in steps of 0.01; the optimal
			// k: a whole k for each whole m/n, as the paper plots it (in
			// between, round((m/n) ln 2) jumps and the curve has teeth).
			step := 0.01
			if q.KMode == "opt" {
				step = 1
			}
			for i := 0; 2+float64(i)*step <= 20+1e-9; i++ {
				mn := 2 + float64(i)*step
				xs = append(xs, mn)
				ys = append(ys, reduction(theory(q.KMode, "ACBF_opt", mn), theory(q.KMode, q.Against, mn), q.Orders))
			}
		} else {
			for _, p := range points(opt.Quick) {
				if p.KMode != q.KMode {
					continue
				}
				o, ok1 := measured[fmt.Sprintf("%s/%d/ACBF_opt", p.KMode, p.MN)]
				a, ok2 := measured[fmt.Sprintf("%s/%d/%s", p.KMode, p.MN, q.Against)]
				if !ok1 || !ok2 {
					continue
				}
				if o == 0 && p.MN >= paperLo {
					zero = true
				}
				xs = append(xs, float64(p.MN))
				ys = append(ys, reduction(o, a, q.Orders))
			}
		}
		// The paper's "up to": ours at the end of its range, and our largest
		// over it (whole m/n: a measured series is noisy point to point).
		at20, best, bestX := math.NaN(), math.NaN(), 0.0
		for i, x := range xs {
			if math.IsNaN(ys[i]) || x < paperLo || x > paperHi || x != math.Round(x) {
				continue
			}
			if x == paperHi {
				at20 = ys[i]
			}
			if math.IsNaN(best) || ys[i] > best {
				best, bestX = ys[i], x
			}
		}
		upTo := quoteText(at20, q.Orders)
		if quoteText(best, q.Orders) != upTo {
			upTo += fmt.Sprintf(" (largest %s at m/n %g)", quoteText(best, q.Orders), bestX)
		}
		if zero && best == 1 {
			upTo = fmt.Sprintf("100%% (from m/n %g: no false positive in %d queries)", bestX, s.queries*s.trials)
		}
		// Where ours meets the paper's: the first m/n where ours rounds to
		// the paper's figure (0.1 point, or 0.01 of an order), else the first
		// crossing, else the closest.
		tol := 0.0005
		if q.Orders {
			tol = 0.005
		}
		meet := ""
		for i := range xs {
			grid := len(xs) < 2 || xs[1]-xs[0] >= 1 // whole m/n only: a smooth scan's crossing is exact
			if grid && !math.IsNaN(ys[i]) && math.Abs(ys[i]-q.Paper) <= tol {
				meet = fmt.Sprintf("m/n %g", math.Round(xs[i]*100)/100)
				break
			}
		}
		for i := 1; i < len(xs) && meet == ""; i++ {
			a, b := ys[i-1]-q.Paper, ys[i]-q.Paper
			if math.IsNaN(a) || math.IsNaN(b) || (a < 0) == (b < 0) {
				continue
			}
			x := xs[i-1] + (xs[i]-xs[i-1])*a/(a-b)
			meet = fmt.Sprintf("m/n %.1f", x)
			if xs[i]-xs[i-1] >= 1 {
				meet = fmt.Sprintf("m/n %.1f (between %g and %g)", x, xs[i-1], xs[i])
			}
		}
		if meet == "" {
			ci := -1
			for i := range xs {
				if !math.IsNaN(ys[i]) && (ci < 0 || math.Abs(ys[i]-q.Paper) < math.Abs(ys[ci]-q.Paper)) {
					ci = i
				}
			}
			if ci >= 0 {
				meet = fmt.Sprintf("never in m/n 2-20; closest %s at m/n %g", quoteText(ys[ci], q.Orders), xs[ci])
			}
		}
		kText := "3"
		if q.KMode == "opt" {
			kText = "round((m/n) ln 2)"
		}
		what := "theory"
		if q.Fig[0] == '5' {
			what = "simulation"
		}
		rows = append(rows, []string{"Fig. " + q.Fig, what, kText, "ACBF_opt vs " + q.Against, quoteText(q.Paper, q.Orders), upTo, meet})
	}
	csv, md := table([]string{"figure", "source", "k", "reduction", "paper (up to)", "ours at m/n 20", "where ours equals the paper's"}, rows)
	head := fmt.Sprintf("# The paper's quoted numbers for Figures 4 and 5, and ours\n\nThe paper quotes each reduction as \"up to\" over its m/n range, 8 to 20. Ours is computed from the same series as fig4.md (theory: m/n in steps of 0.01 with k = 3, every whole m/n with the optimal k, which is whole only there) and fig5.md (simulation, every whole m/n from %g to 20; measurement floor %s). Ours meets the paper's where it rounds to the paper's figure (0.1 point), or where it crosses it. A reduction is 1 - FP(ACBF_opt)/FP(other); Fig. 4(b)'s \"five orders of magnitude\" is log10 of the ratio.\n\n",
		float64(points(opt.Quick)[0].MN), g(floor))
	if err := writeFile(filepath.Join(opt.Out, "quoted.csv"), csv); err != nil {
		return err
	}
	return writeFile(filepath.Join(opt.Out, "quoted.md"), head+md)
}

// quoted67 compares the paper's quoted times of Figures 6 and 7 with ours
// (k = 3, m/n 8 to 20, as the paper quotes them).
func quoted67(opt Options, sim []simResult, shifts []shiftResult) string {
	span := func(vals []float64, unit float64, format string) string {
		if len(vals) == 0 {
			return "n/a"
		}
		lo, hi := vals[0], vals[0]
		for _, v := range vals {
			lo, hi = min(lo, v), max(hi, v)
		}
		return fmt.Sprintf(format+"-"+format, lo/unit, hi/unit)
	}
	var query, cbfUp, acbfUp, word, bit, ours, cbfLoop, ratioSim []float64
	simCBF := map[int]float64{}
	for _, r := range sim {
		if r.feasible && r.p.KMode == "3" && r.variant == "CBF" {
			simCBF[r.p.MN] = r.updateNs
		}
	}
	for _, r := range sim {
		if !r.feasible || r.p.KMode != "3" || r.p.MN < paperLo {
			continue
		}
		query = append(query, r.queryNs)
		if r.variant == "CBF" {
			cbfUp = append(cbfUp, r.updateNs)
		} else {
			acbfUp = append(acbfUp, r.updateNs)
		}
		if r.variant == "ACBF_opt" && simCBF[r.p.MN] > 0 {
			ratioSim = append(ratioSim, r.updateNs/simCBF[r.p.MN])
		}
	}
	var ratioBit []float64
	byPoint := map[string]float64{}
	for _, r := range shifts {
		if r.p.KMode == "3" {
			byPoint[fmt.Sprintf("%d/%s", r.p.MN, r.layout)] = r.updateNs
		}
	}
	for _, r := range shifts {
		if r.p.KMode != "3" {
			continue
		}
		c := byPoint[fmt.Sprintf("%d/CBF", r.p.MN)]
		switch r.layout {
		case layoutWord:
			word = append(word, r.updateNs)
		case layoutBit:
			bit = append(bit, r.updateNs)
			ratioBit = append(ratioBit, r.updateNs/c)
		case "ACBF_opt":
			ours = append(ours, r.updateNs)
		case "CBF":
			cbfLoop = append(cbfLoop, r.updateNs)
		}
	}
	rows := [][]string{
		{"Fig. 6: query time, every filter", "about 2.4 us", span(query, 1000, "%.3f") + " us (simulation)"},
		{"Fig. 7: CBF update", "2.6-3.2 us", span(cbfUp, 1000, "%.3f") + " us (simulation); " + span(cbfLoop, 1000, "%.3f") + " us (the layout loop)"},
		{"Fig. 7: ACBF update, the paper's layout", "1.4-4.2 ms", span(bit, 1e6, "%.2f") + " ms bit by bit; " + span(word, 1e6, "%.3f") + " ms with word popcount"},
		{"Fig. 7: ACBF update, our layout", "(not in the paper)", span(acbfUp, 1000, "%.3f") + " us (simulation, ACBF_1 to ACBF_opt); " + span(ours, 1000, "%.3f") + " us (ACBF_opt, the layout loop)"},
		{"Fig. 7: ACBF update over CBF update", "about 1000x (\"three orders of magnitude\")", span(ratioBit, 1, "%.0f") + "x the paper's layout bit by bit (the layout loop); " + span(ratioSim, 1, "%.1f") + "x ours, ACBF_opt (simulation)"},
	}
	_, md := table([]string{"k = 3, m/n 8-20", "paper (2.4 GHz Core Duo, Java)", "ours (this machine, Go)"}, rows)
	return "## The paper's quoted times, and ours\n\n" + md
}
