package repro

import (
	"context"
	"fmt"
	"time"

	"github.com/acbfjoin/acbfjoin/acbf"
	"github.com/acbfjoin/acbfjoin/acbf/levelshift"
	"github.com/acbfjoin/acbfjoin/cbf"
)

// shiftResult is the update time of one filter at one point of Figure 7,
// timed in one loop: the paper's whole-level layout (word or bit
// granularity), our ACBF_opt and the CBF.
type shiftResult struct {
	p        point
	layout   string // "paper layout, word ops", "paper layout, bit ops", "ACBF_opt", "CBF"
	updateNs float64
	updates  int
	// rankBits is the work counted per update (paper layout only) and
	// modelBits Equation (2)'s expectation of it (levelshift.ExpectedOps).
	rankBits, modelBits float64
}

// Names of the paper-layout series.
const (
	layoutWord = "ACBF_opt, paper's layout, word popcount"
	layoutBit  = "ACBF_opt, paper's layout, bit by bit"
)

// levelShiftTimes times updates (a Remove of a member and an Add of a new key)
// of ACBF_opt in the paper's whole-level layout (acbf/levelshift, both
// granularities), our ACBF_opt and the CBF, one after the other at every point
// of m/n 8..20 (quick: 8, 14, 20) with n = 100,000 keys (quick: 20,000). The
// paper-layout filters are built directly (levelshift.Build) and updated until
// minimum seconds have passed: an update of theirs costs milliseconds.
func levelShiftTimes(ctx context.Context, opt Options) ([]shiftResult, error) {
	s := sizes(opt.Quick)
	tk := makeKeys(opt.Seed, 0, s)
	n := uint64(s.n)
	budget := map[string]time.Duration{layoutWord: 200 * time.Millisecond, layoutBit: 400 * time.Millisecond}
	if opt.Quick {
		budget = map[string]time.Duration{layoutWord: 10 * time.Millisecond, layoutBit: 20 * time.Millisecond}
	}
	var out []shiftResult
	for _, p := range points(opt.Quick) {
		if p.MN < paperLo {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m := uint64(p.MN) * n
		cfg := acbf.ConfigOptimal(m, n, p.K)
		m1 := cfg.FirstLevelBits()
		for _, g := range []struct {
			name string
			g    levelshift.Granularity
		}{{layoutWord, levelshift.Word}, {layoutBit, levelshift.Bit}} {
			f, err := levelshift.Build(levelshift.Config{FirstLevel: m1, K: p.K, BudgetBits: 4 * m, Granularity: g.g}, tk.set)
			if err != nil {
				return nil, fmt.Errorf("%s m/n=%d k=%d: %w", g.name, p.MN, p.K, err)
			}
			pairs := 0
			start := time.Now()
			for pairs < 3 || time.Since(start) < budget[g.name] && pairs < len(tk.fresh) {
				if err := f.Remove(tk.set[pairs]); err != nil {
					return nil, fmt.Errorf("%s: remove: %w", g.name, err)
				}
				if err := f.Add(tk.fresh[pairs]); err != nil {
					return nil, fmt.Errorf("%s: add: %w", g.name, err)
				}
				pairs++
			}
			el := time.Since(start)
			rank, _ := levelshift.ExpectedOps(m1, n, p.K)
			out = append(out, shiftResult{p: p, layout: g.name, updateNs: float64(el.Nanoseconds()) / float64(2*pairs), updates: 2 * pairs,
				rankBits: float64(f.Ops().RankBits) / float64(2*pairs), modelBits: rank})
			opt.Log("  %s m/n=%d k=%d: %.0f ns an update over %d", g.name, p.MN, p.K, float64(el.Nanoseconds())/float64(2*pairs), 2*pairs)
		}
		// Ours and the CBF, the same updates in the same loop.
		a, err := acbf.Build(cfg, tk.set)
		if err != nil {
			return nil, err
		}
		c, err := cbf.New(m, p.K)
		if err != nil {
			return nil, err
		}
		for _, key := range tk.set {
			c.Add(key)
		}
		for _, f := range []struct {
			name string
			d    dynamic
		}{{"ACBF_opt", a}, {"CBF", cbfAdapter{c}}} {
			start := time.Now()
			for i, key := range tk.fresh {
				if err := f.d.Remove(tk.set[i]); err != nil {
					return nil, err
				}
				if err := f.d.Add(key); err != nil {
					return nil, err
				}
			}
			el := time.Since(start)
			out = append(out, shiftResult{p: p, layout: f.name, updateNs: float64(el.Nanoseconds()) / float64(2*len(tk.fresh)), updates: 2 * len(tk.fresh)})
		}
	}
	return out, nil
}
