package repro

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/acbfjoin/acbfjoin/acbf"
	"github.com/acbfjoin/acbfjoin/cbf"
)

// dynamic is what the simulation needs of a counting filter.
type dynamic interface {
	Add([]byte) error
	Remove([]byte) error
	Contains([]byte) bool
}

type cbfAdapter struct{ *cbf.Filter }

func (c cbfAdapter) Add(key []byte) error { c.Filter.Add(key); return nil }

func newVariant(v string, m, n uint64, k int) (dynamic, error) {
	if v == "CBF" {
		f, err := cbf.New(m, k)
		return cbfAdapter{f}, err
	}
	p, _, ok := layout(v, m, n, k)
	if !ok {
		return nil, nil // infeasible
	}
	return acbf.New(acbf.Config{Counters: m, Capacity: n, K: k, FirstLevel: p.Summary().FirstLevelBits})
}

// simSizes are the paper's simulation sizes (Section 5.2): 100K elements, 1M
// queries of non-members, an update period of 20K deletions and 20K
// insertions, 10 trials.
type simSizes struct{ n, queries, updates, trials int }

func sizes(quick bool) simSizes {
	if quick {
		return simSizes{n: 20_000, queries: 200_000, updates: 4_000, trials: 2}
	}
	return simSizes{n: 100_000, queries: 1_000_000, updates: 20_000, trials: 10}
}

// trialKeys are the strings of one trial: the initial set, the elements
// inserted by the update period, and the queries (never inserted).
type trialKeys struct{ set, fresh, queries [][]byte }

func makeKeys(seed uint64, trial int, s simSizes) trialKeys {
	mk := func(prefix string, count int) [][]byte {
		out := make([][]byte, count)
		for i := range out {
			out[i] = fmt.Appendf(nil, "%s-%d-%d-%d", prefix, seed, trial, i)
		}
		return out
	}
	return trialKeys{set: mk("elem", s.n), fresh: mk("new", s.updates), queries: mk("query", s.queries)}
}

type simResult struct {
	p                 point
	variant           string
	measured, formula float64
	queryNs, updateNs float64
	feasible          bool
}

// fig567 runs the simulation: per trial, insert the set, run the update period
// (delete the first 20K, insert 20K new: still n elements), then query 1M
// non-members; FP, query time and update time are averaged over the trials.
func fig567(ctx context.Context, opt Options) ([]simResult, error) {
	s := sizes(opt.Quick)
	n := uint64(s.n)
	trials := make([]trialKeys, s.trials)
	for t := range trials {
		trials[t] = makeKeys(opt.Seed, t, s)
	}
	var results []simResult
	total, done := int64(len(points(opt.Quick))*len(variants)*s.trials), int64(0)
	for _, p := range points(opt.Quick) {
		m := uint64(p.MN) * n
		for _, v := range variants {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			r := simResult{p: p, variant: v, formula: formula(v, m, n, p.K)}
			for t, tk := range trials {
				f, err := newVariant(v, m, n, p.K)
				if err != nil {
					return nil, err
				}
				if f == nil { // infeasible at this point: its trials count as done
					if done += int64(s.trials - t); opt.Progress != nil {
						opt.Progress("Figures 5-7", done, total)
					}
					break
				}
				r.feasible = true
				for _, key := range tk.set {
					if err := f.Add(key); err != nil {
						return nil, fmt.Errorf("%s m/n=%d k=%d: %w", v, p.MN, p.K, err)
					}
				}
				start := time.Now()
				for i := range tk.fresh {
					if err := f.Remove(tk.set[i]); err != nil {
						return nil, fmt.Errorf("%s: remove: %w", v, err)
					}
					if err := f.Add(tk.fresh[i]); err != nil {
						return nil, fmt.Errorf("%s: add: %w", v, err)
					}
				}
				r.updateNs += float64(time.Since(start).Nanoseconds()) / float64(2*len(tk.fresh))
				fp := 0
				start = time.Now()
				for _, q := range tk.queries {
					if f.Contains(q) {
						fp++
					}
				}
				r.queryNs += float64(time.Since(start).Nanoseconds()) / float64(len(tk.queries))
				r.measured += float64(fp) / float64(len(tk.queries))
				opt.Log("  %s m/n=%d k=%d trial %d: FP %.3g", v, p.MN, p.K, t+1, float64(fp)/float64(len(tk.queries)))
				if done++; opt.Progress != nil {
					opt.Progress("Figures 5-7", done, total)
				}
			}
			if r.feasible {
				r.measured /= float64(s.trials)
				r.queryNs /= float64(s.trials)
				r.updateNs /= float64(s.trials)
			}
			results = append(results, r)
		}
	}
	return results, nil
}

func writeSim(opt Options, s simSizes, results []simResult, shifts []shiftResult) error {
	desc := fmt.Sprintf("%d elements, %d non-member queries, an update period of %d deletions and %d insertions, %d trials averaged (seed %d)",
		s.n, s.queries, s.updates, s.updates, s.trials, opt.Seed)
	// Figure 5: measured FP beside the formula.
	var rows5, rows67 [][]string
	byMode := map[string]map[string]*series{}
	formulaLines := map[string]map[string]*series{}
	q6, u7 := map[string]map[string]*series{}, map[string]map[string]*series{}
	get := func(m map[string]map[string]*series, mode, v string, dashed bool) *series {
		if m[mode] == nil {
			m[mode] = map[string]*series{}
		}
		if m[mode][v] == nil {
			m[mode][v] = &series{Name: v, Dashed: dashed, Points: !dashed}
		}
		return m[mode][v]
	}
	for _, r := range results {
		if !r.feasible {
			rows5 = append(rows5, []string{r.p.KMode, strconv.Itoa(r.p.MN), strconv.Itoa(r.p.K), r.variant, "n/a", g(r.formula), "n/a"})
			continue
		}
		rows5 = append(rows5, []string{r.p.KMode, strconv.Itoa(r.p.MN), strconv.Itoa(r.p.K), r.variant, g(r.measured), g(r.formula), pct(r.measured, r.formula)})
		rows67 = append(rows67, []string{r.p.KMode, strconv.Itoa(r.p.MN), strconv.Itoa(r.p.K), r.variant, fmt.Sprintf("%.1f", r.queryNs), fmt.Sprintf("%.1f", r.updateNs)})
		x := float64(r.p.MN)
		ms := get(byMode, r.p.KMode, r.variant, false)
		ms.Xs, ms.Ys = append(ms.Xs, x), append(ms.Ys, r.measured)
		fs := get(formulaLines, r.p.KMode, r.variant+" formula", true)
		fs.Xs, fs.Ys = append(fs.Xs, x), append(fs.Ys, r.formula)
		qs := get(q6, r.p.KMode, r.variant, false)
		qs.Xs, qs.Ys = append(qs.Xs, x), append(qs.Ys, r.queryNs)
		us := get(u7, r.p.KMode, r.variant, false)
		us.Xs, us.Ys = append(us.Xs, x), append(us.Ys, r.updateNs)
	}
	csv5, md5 := table([]string{"k_mode", "m_n", "k", "variant", "fp_measured", "fp_formula", "measured_vs_formula"}, rows5)
	md5 = "# Figure 5: simulated false positive rate\n\n" + desc + ". Points: measured; dashed lines: the formula, in the same colour. A log axis cannot show a measured 0 (no false positive in the queries): such points are drawn at the detection floor, 1/queries, as hollow triangles; the table has their 0.\n\n![Figure 5](fig5.svg)\n\n" + md5
	csv67, md67 := table([]string{"k_mode", "m_n", "k", "variant", "query_ns", "update_ns"}, rows67)
	// Figure 7's second table: the paper's layout timed beside ours and the
	// CBF in one loop.
	var rowsShift [][]string
	for _, r := range shifts {
		rb, mb := "-", "-"
		if r.rankBits != 0 {
			rb, mb = fmt.Sprintf("%.0f", r.rankBits), fmt.Sprintf("%.0f", r.modelBits)
		}
		rowsShift = append(rowsShift, []string{r.p.KMode, strconv.Itoa(r.p.MN), strconv.Itoa(r.p.K), r.layout, fmt.Sprintf("%.1f", r.updateNs), strconv.Itoa(r.updates), rb, mb})
		us := get(u7, r.p.KMode, r.layout, false)
		if r.layout == layoutWord || r.layout == layoutBit {
			us.Xs, us.Ys = append(us.Xs, float64(r.p.MN)), append(us.Ys, r.updateNs)
		}
	}
	csvShift, mdShift := table([]string{"k_mode", "m_n", "k", "filter", "update_ns", "updates_timed", "rank_bits_per_update", "equation_2_rank_bits"}, rowsShift)
	quotedMD := quoted67(opt, results, shifts)
	md6 := "# Figures 6 and 7: query and update time\n\nFrom the simulation of Figure 5 (" + desc + "). Query: ns per Contains of a non-member. Update: ns per operation, the mean of one deletion and one insertion. One goroutine; the machine is shared, so compare variants within one run.\n\n![Figure 6](fig6.svg)\n\n![Figure 7](fig7.svg)\n\n" + quotedMD + "\n## The simulation's times\n\n" + md67 +
		"\n## The paper's layout, timed beside ours\n\nACBF_opt in the paper's whole-level layout (acbf/levelshift: every update ranks and shifts whole levels; word popcount, or bit by bit as over a bitmap library without word operations), our ACBF_opt and the CBF, updated in one loop at each point (a Remove of a member and an Add of a new key; the paper's layout until 0.2 s or 0.4 s have passed, ours and the CBF 20,000 times each), with the bits its ranks spanned per update beside Equation (2)'s expectation (levelshift.ExpectedOps, derived).\n\n" + mdShift
	for path, content := range map[string]string{"fig5.csv": csv5, "fig5.md": md5, "fig67.csv": csv67, "fig67.md": md6, "fig7_layout.csv": csvShift} {
		if err := writeFile(filepath.Join(opt.Out, path), content); err != nil {
			return err
		}
	}
	mkPanels := func(title, ylabel string, logY bool, sets ...map[string]map[string]*series) []panel {
		var out []panel
		for _, mode := range []string{"3", "opt"} {
			kt := "k = 3"
			if mode == "opt" {
				kt = "k = round((m/n) ln 2)"
			}
			pn := panel{Title: title + ", " + kt, XLabel: "m/n (CBF counters per element)", YLabel: ylabel, LogY: logY}
			for _, set := range sets {
				for _, v := range append(variants[:len(variants):len(variants)], layoutWord, layoutBit) {
					for _, suffix := range []string{"", " formula"} {
						if s := set[mode][v+suffix]; s != nil {
							pn.Series = append(pn.Series, *s)
						}
					}
				}
			}
			out = append(out, pn)
		}
		return out
	}
	floor := 1 / float64(s.queries*s.trials)
	fig5 := mkPanels("Fig. 5, simulated FP", "false positive rate", true, byMode, formulaLines)
	for i := range fig5 {
		fig5[i].Floor = floor
		fig5[i].FloorLabel = fmt.Sprintf("no false positive in %d queries: drawn at 1/%d", s.queries*s.trials, s.queries*s.trials)
		fig5[i].Notes = []string{identicalNote}
	}
	caption := desc + ". Points: measured; dashed: the formula. A rate below 1/queries cannot be measured."
	if opt.Quick {
		caption += fmt.Sprintf(" Quick mode: the measurement floor is %s (the full run's is 1e-07).", g(floor))
	}
	if err := writeSVG(filepath.Join(opt.Out, "fig5.svg"), fig5, caption); err != nil {
		return err
	}
	if err := writeSVG(filepath.Join(opt.Out, "fig6.svg"), mkPanels("Fig. 6, query time", "ns per query", false, q6),
		"ns per Contains of a non-member, one goroutine, from the simulation of Fig. 5. The paper measured about 2.4 us a query on a 2.4 GHz Core Duo (k = 3)."); err != nil {
		return err
	}
	fig7 := mkPanels("Fig. 7, update time", "ns per operation", true, u7)
	fig7[0].Notes = []string{"The paper: CBF 2.6-3.2 us, its ACBFs 1.4-4.2 ms an update (k = 3)."}
	return writeSVG(filepath.Join(opt.Out, "fig7.svg"), fig7,
		"ns an update (the mean of a deletion and an insertion), one goroutine. CBF and ACBF_1..ACBF_opt (our layout): the simulation of Fig. 5. The paper's layout (acbf/levelshift, whole levels shifted per update; popcount a word at a time, or bit by bit): timed in its own loop at m/n 8-20, see fig67.md.")
}
