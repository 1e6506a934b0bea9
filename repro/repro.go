// Package repro regenerates the ACBF paper's Figures 4-7 and Table 1 (Li, Huang,
// Zhang and Qin 2013, Section 5): the theoretical false positive rates, the
// simulated ones with query and update times, and the reduce-side join on NBER
// data. Each figure or table is written as a CSV file, a Markdown table and an
// SVG plot; every random choice comes from a recorded seed.
package repro

import (
	"cmp"
	"context"
	stdcsv "encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/internal/option"
)

// Options configures Run.
type Options struct {
	Quick bool   // a reduced version for tests: under a minute
	Data  string // folder with real NBER files for Table 1; empty: generate
	Out   string // output folder (docs/results)
	Seed  uint64
	Log   func(format string, args ...any)
	// Progress, if set, is told how far the long stages are: the
	// simulation of Figures 5-7 ("Figures 5-7", trials done of all), then
	// Table 1's joins (their phases, as join.Options.Progress).
	Progress func(stage string, done, total int64)
	// Table1Sizing is Table1Both (""), Table1Default or Table1Paper.
	Table1Sizing string
	// ACBFCapacity, if set, is the ACBF's capacity in Table 1's default
	// sizing (filters.Sizing.ACBFCapacity).
	ACBFCapacity uint64
	// Table1Keys, if set, is the keys Table 1 samples from the patents
	// (all of them when the file holds fewer); 0: the paper's 65,771,
	// scaled with generated data in quick mode.
	Table1Keys int
	// Prog is the program's name as the written documents name it (run.md,
	// table1.md: "Written by `acbfjoin repro`"): the name it was invoked
	// by; "" is acbfjoin.
	Prog string
}

// prog is the program's name in the written documents (Options.Prog).
func (o Options) prog() string { return cmp.Or(o.Prog, "acbfjoin") }

// variants are the paper's series.
var variants = []string{"CBF", "ACBF_1", "ACBF_2", "ACBF_3", "ACBF_opt"}

// point is one x value of Figures 4-7: the memory m/n (CBF counters per
// element) and the number of hash functions.
type point struct {
	MN    int
	KMode string // "3" or "opt"
	K     int
}

func points(quick bool) []point {
	var mns []int
	if quick {
		mns = []int{2, 8, 14, 20}
	} else {
		for mn := 2; mn <= 20; mn++ { // the paper steps every integer from 8; we start at 2
			mns = append(mns, mn)
		}
	}
	var out []point
	for _, mode := range []string{"3", "opt"} {
		for _, mn := range mns {
			k := 3
			if mode == "opt" {
				k = int(math.Round(float64(mn) * math.Ln2)) // the Bloom optimum for m/n
			}
			out = append(out, point{MN: mn, KMode: mode, K: k})
		}
	}
	return out
}

// variantKinds maps the paper's series to the filter kinds of the registry,
// which knows their layout in a CBF's budget and their formulas.
var variantKinds = map[string]filters.Kind{"CBF": filters.CBF, "ACBF_1": filters.ACBF1, "ACBF_2": filters.ACBF2,
	"ACBF_3": filters.ACBF3, "ACBF_opt": filters.ACBF, "Bloom": filters.Bloom}

// layout returns the parameters of a variant in the budget of a CBF with m
// counters holding n elements with k hash functions, and false if it does not
// fit (ACBF_j needs n*k <= (4-j)m, ACBF_opt n*k < 4m).
func layout(variant string, m, n uint64, k int) (filters.Params, *filters.Spec, bool) {
	sp, err := filters.Lookup(string(variantKinds[variant]))
	if err != nil {
		panic("repro: no filter kind for series " + variant) // a programming error
	}
	// 4m/n bits per key are m counters again: m = round(b n / 4).
	p, err := sp.Size(n, filters.Sizing{BitsPerKey: 4 * float64(m) / float64(n)}.With(filters.OptionK, float64(k)))
	return p, sp, err == nil
}

// formula is the false positive rate of a variant with n elements, NaN where
// it does not fit: CBF (1 - e^(-kn/m))^k; ACBF (1 - e^(-kn/m1))^k (derived;
// see acbf/doc.go); a plain Bloom filter of the same 4m bits
// (1 - e^(-kn/4m))^k.
func formula(variant string, m, n uint64, k int) float64 {
	p, sp, ok := layout(variant, m, n, k)
	if !ok {
		return math.NaN()
	}
	return sp.FPP(p, n)
}

// Run writes every figure and table into opt.Out.
func Run(ctx context.Context, opt Options) error {
	if opt.Log == nil {
		opt.Log = func(string, ...any) {}
	}
	switch opt.Table1Sizing {
	case "", Table1Both, Table1Default, Table1Paper:
	default:
		return &option.Error{Pkg: "repro", Name: "Table1Sizing", Value: opt.Table1Sizing, Reason: "want both, default or paper"}
	}
	if err := (filters.Sizing{}.With(filters.OptionACBFCapacity, float64(opt.ACBFCapacity))).Validate(); opt.ACBFCapacity != 0 && err != nil {
		return &option.Error{Pkg: "repro", Name: "ACBFCapacity", Value: opt.ACBFCapacity, Reason: "want at most 2^40 keys", Cause: err}
	}
	if keys := table1Keys(opt); opt.ACBFCapacity != 0 && opt.ACBFCapacity < uint64(keys) {
		return &option.Error{Pkg: "repro", Name: "ACBFCapacity", Value: opt.ACBFCapacity, Reason: fmt.Sprintf("Table 1 samples %d keys: want a capacity of at least that", keys)}
	}
	if opt.ACBFCapacity != 0 && opt.Table1Sizing == Table1Paper {
		return &option.Error{Pkg: "repro", Name: "ACBFCapacity", Value: opt.ACBFCapacity, Reason: "sizes Table 1's default run, which the paper sizing leaves out (the paper's sizing finds its own capacity)"}
	}
	if opt.Data != "" { // the real files, found and their headers read before minutes of work
		if _, _, err := FindNBER(opt.Data); err != nil {
			return err
		}
	}
	if opt.ACBFCapacity != 0 { // the default sizing's room, checked before minutes of work
		sp, err := filters.Lookup(string(filters.ACBF))
		if err != nil {
			return err
		}
		if _, err := sp.Size(uint64(table1Keys(opt)), filters.Sizing{}.With(filters.OptionACBFCapacity, float64(opt.ACBFCapacity))); err != nil {
			var oe *option.Error
			if errors.As(err, &oe) {
				return &option.Error{Pkg: "repro", Name: "ACBFCapacity", Value: opt.ACBFCapacity, Reason: oe.Reason, Cause: err}
			}
			return err
		}
	}
	// Everything is written into a temporary folder in Out and moved into
	// Out at the end: an error or an interrupt leaves Out as it was, not
	// new figures beside an old table.
	final := opt.Out
	dir, err := atomicfile.MakeDir(final)
	if err != nil {
		return &option.Error{Pkg: "repro", Name: "Out", Value: final, Reason: err.Error()}
	}
	tmp, err := os.MkdirTemp(final, atomicfile.TempPrefix()+"repro-")
	if err != nil {
		dir.Undo()
		return err
	}
	defer os.RemoveAll(tmp)
	committed := false
	defer func() { // a folder made for a run that failed goes again
		if !committed {
			os.RemoveAll(tmp)
			dir.Undo()
		}
	}()
	opt.Out = tmp
	if err := run(ctx, opt); err != nil {
		return err
	}
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	committed = true
	for _, e := range ents {
		if err := os.Rename(filepath.Join(tmp, e.Name()), filepath.Join(final, e.Name())); err != nil {
			return err
		}
	}
	// The files of the Table 1 sizing not run are an earlier run's: remove
	// them rather than leave them beside this one's.
	var stale []string
	switch cmp.Or(opt.Table1Sizing, Table1Both) {
	case Table1Default:
		stale = []string{"table1_paper.csv", "table1_sizing.csv"}
	case Table1Paper:
		stale = []string{"table1.csv"}
	}
	for _, name := range stale {
		if err := os.Remove(filepath.Join(final, name)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// run writes every figure and table into opt.Out (Run's temporary folder).
func run(ctx context.Context, opt Options) error {
	start := time.Now()
	mode := "full"
	if opt.Quick {
		mode = "quick"
	}
	// Table 1 first when it runs on the user's files (--data): what they
	// cannot give (too few rows for the paper's sizing) fails before the
	// figures' minutes, not after.
	if opt.Data != "" {
		opt.Log("Table 1 (join)")
		if err := table1(ctx, opt); err != nil {
			return err
		}
	}
	opt.Log("Figure 4 (theory)")
	if err := fig4(opt); err != nil {
		return err
	}
	opt.Log("Figures 5-7 (simulation)")
	sim, err := fig567(ctx, opt)
	if err != nil {
		return err
	}
	opt.Log("Figure 7 (the paper's layout, timed beside ours)")
	shifts, err := levelShiftTimes(ctx, opt)
	if err != nil {
		return err
	}
	if err := writeSim(opt, sizes(opt.Quick), sim, shifts); err != nil {
		return err
	}
	if err := writeQuoted(opt, sim); err != nil {
		return err
	}
	if opt.Data == "" {
		opt.Log("Table 1 (join)")
		if err := table1(ctx, opt); err != nil {
			return err
		}
	}
	meta := fmt.Sprintf("# Reproduction run\n\nWritten by `%s repro` (%s mode), seed %d, in %s.\n\nMachine: %d cores, %s/%s; %s; %s.\n",
		opt.prog(), mode, opt.Seed, time.Since(start).Round(time.Second), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), time.Now().UTC().Format("2006-01-02"))
	return writeFile(filepath.Join(opt.Out, "run.md"), meta)
}

func writeFile(path, content string) error {
	return atomicfile.Write(path, func(f *os.File) error {
		_, err := f.WriteString(content)
		return err
	})
}

// table renders a CSV file (quoted where a field needs it) and a Markdown
// table of the same rows.
func table(header []string, rows [][]string) (csv, md string) {
	var c, m strings.Builder
	w := stdcsv.NewWriter(&c)
	w.Write(header) // a strings.Builder never fails
	m.WriteString("| " + strings.Join(header, " | ") + " |\n|" + strings.Repeat("---|", len(header)) + "\n")
	for _, r := range rows {
		w.Write(r)
		m.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	w.Flush()
	return c.String(), m.String()
}

func g(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func pct(a, b float64) string {
	if b == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", 100*(a-b)/b)
}

// fig4 writes the theoretical false positive rates (n = 100,000; the rates
// depend on m/n and k only).
func fig4(opt Options) error {
	const n = 100_000
	header := []string{"k_mode", "m_n", "k", "CBF", "ACBF_1", "ACBF_2", "ACBF_3", "ACBF_opt", "Bloom_4m_bits", "opt_vs_CBF"}
	var rows [][]string
	panels := map[string]*panel{}
	for _, p := range points(opt.Quick) {
		m := uint64(p.MN) * n
		row := []string{p.KMode, strconv.Itoa(p.MN), strconv.Itoa(p.K)}
		pn := panels[p.KMode]
		if pn == nil {
			title := "k = 3"
			if p.KMode == "opt" {
				title = "k = round((m/n) ln 2)"
			}
			pn = &panel{Title: "Fig. 4, theory, " + title, XLabel: "m/n (CBF counters per element)", YLabel: "false positive rate", LogY: true}
			for _, v := range append(variants, "Bloom") {
				name := v
				if v == "Bloom" {
					name = "Bloom (4m bits, no deletion)"
				}
				pn.Series = append(pn.Series, series{Name: name, Dashed: v == "Bloom"})
			}
			panels[p.KMode] = pn
		}
		for i, v := range append(variants, "Bloom") {
			f := formula(v, m, n, p.K)
			row = append(row, g(f))
			pn.Series[i].Xs = append(pn.Series[i].Xs, float64(p.MN))
			pn.Series[i].Ys = append(pn.Series[i].Ys, f)
		}
		row = append(row, pct(formula("ACBF_opt", m, n, p.K), formula("CBF", m, n, p.K)))
		rows = append(rows, row)
	}
	csv, md := table(header, rows)
	md = "# Figure 4: theoretical false positive rate\n\nFormulas (derived; see acbf/doc.go): CBF (1 - e^(-kn/m))^k, ACBF (1 - e^(-kn/m1))^k with m1 = j*m (ACBF_j) or 4m - nk (ACBF_opt), a plain Bloom filter of the same 4m bits (1 - e^(-kn/4m))^k. The paper's text quotes ACBF_opt below CBF by up to 97.6% (k = 3).\n\n![Figure 4](fig4.svg)\n\n" + md
	if err := writeFile(filepath.Join(opt.Out, "fig4.csv"), csv); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(opt.Out, "fig4.md"), md); err != nil {
		return err
	}
	for _, pn := range panels {
		pn.Notes = []string{identicalNote}
	}
	return writeSVG(filepath.Join(opt.Out, "fig4.svg"), []panel{*panels["3"], *panels["opt"]},
		"Theory (formulas derived in acbf/doc.go), n = 100,000. The grey dashed line is a plain Bloom filter of the same 4m bits, which cannot delete.")
}
