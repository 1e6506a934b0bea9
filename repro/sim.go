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
	return acbf.New(acbf.Config{Counters: m, Capacity: n, K: k, FirstLevel: p.FirstLevelBits})
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
func fig567(ctx context.Context, opt Options) error {
	s := sizes(opt.Quick)
	n := uint64(s.n)
	trials := make([]trialKeys, s.trials)
	for t := range trials {
		trials[t] = makeKeys(opt.Seed, t, s)
	}
	var results []simResult
	for _, p := range points(opt.Quick) {
		m := uint64(p.MN) * n
		for _, v := range variants {
			if err := ctx.Err(); err != nil {
				return err
			}
			r := simResult{p: p, variant: v, formula: formula(v, m, n, p.K)}
			for t, tk := range trials {
				f, err := newVariant(v, m, n, p.K)
				if err != nil {
					return err
				}
				if f == nil {
					break
				}
				r.feasible = true
				for _, key := range tk.set {
					if err := f.Add(key); err != nil {
						return fmt.Errorf("%s m/n=%d k=%d: %w", v, p.MN, p.K, err)
					}
				}
				start := time.Now()
				for i := range tk.fresh {
					if err := f.Remove(tk.set[i]); err != nil {
						return fmt.Errorf("%s: remove: %w", v, err)
					}
					if err := f.Add(tk.fresh[i]); err != nil {
						return fmt.Errorf("%s: add: %w", v, err)
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
			}
			if r.feasible {
				r.measured /= float64(s.trials)
				r.queryNs /= float64(s.trials)
				r.updateNs /= float64(s.trials)
			}
			results = append(results, r)
		}
	}
	return writeSim(opt, s, results)
}

func writeSim(opt Options, s simSizes, results []simResult) error {
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
	md5 = "# Figure 5: simulated false positive rate\n\n" + desc + ". Points: measured; dashed lines: the formula, in the same colour. A log axis cannot show a measured 0 (no false positive in the queries), so such points are left out of the plot; the table has them.\n\n![Figure 5](fig5.svg)\n\n" + md5
	csv67, md67 := table([]string{"k_mode", "m_n", "k", "variant", "query_ns", "update_ns"}, rows67)
	md6 := "# Figures 6 and 7: query and update time\n\nFrom the simulation of Figure 5 (" + desc + "). Query: ns per Contains of a non-member. Update: ns per operation, the mean of one deletion and one insertion. One goroutine; the machine is shared, so compare variants within one run.\n\n![Figure 6](fig6.svg)\n\n![Figure 7](fig7.svg)\n\n" + md67
	for path, content := range map[string]string{"fig5.csv": csv5, "fig5.md": md5, "fig67.csv": csv67, "fig67.md": md6} {
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
				for _, v := range variants {
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
	if err := writeSVG(filepath.Join(opt.Out, "fig5.svg"), mkPanels("Fig. 5, simulated FP", "false positive rate", true, byMode, formulaLines)); err != nil {
		return err
	}
	if err := writeSVG(filepath.Join(opt.Out, "fig6.svg"), mkPanels("Fig. 6, query time", "ns per query", false, q6)); err != nil {
		return err
	}
	return writeSVG(filepath.Join(opt.Out, "fig7.svg"), mkPanels("Fig. 7, update time", "ns per operation", true, u7))
}
