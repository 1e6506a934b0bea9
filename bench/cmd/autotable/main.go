// Command autotable turns the join reports of bench/auto.sh into
// bench/results/auto.md: for every key shape, selectivity and broadcast
// budget, --filter auto's median time and choice beside the best fixed kind
// that fits the budget and beside none, with its predicted shuffle bytes
// against the measured, its paired ratios to the top fixed kinds and to
// none (the script's second phase), and the goals' verdicts. With --plan N
// it prints instead, a line a dataset, the pairs the paired phase runs:
// BUDGET/KIND for the N fastest fixed kinds of the first phase that fit
// each budget, and none.
//
// The first phase's reports (--reports) are named
// SHAPE~SELECTIVITY~CONFIG~fixed~ROUND.json for a fixed kind (CONFIG
// "bloom-8", "exact", "none") and SHAPE~SELECTIVITY~auto~BUDGET~ROUND.json
// for auto; the paired phase's (--paired)
// SHAPE~SELECTIVITY~BUDGET~CONFIG~ROUND~auto.json and ...~fixed.json, a
// pair of runs of auto under BUDGET and of CONFIG made one beside the
// other.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/acbfjoin/acbfjoin/filters/choose"
)

type report struct {
	Filter struct {
		Kind string `json:"kind"`
	} `json:"filter"`
	ShuffleBytes         int64              `json:"shuffle_bytes"`
	MapOutputRecords     int64              `json:"map_output_records"`
	BroadcastBytes       int64              `json:"broadcast_bytes"`
	JoinRows             int64              `json:"join_rows"`
	TimingsMs            map[string]float64 `json:"timings_ms"`
	FalsePositiveRecords int64              `json:"false_positive_records"`
	FPPMeasured          float64            `json:"fpp_measured"`
	Hot                  *struct {
		Found              int     `json:"found"`
		BroadcastBytes     int64   `json:"broadcast_bytes"`
		ExcludedRecords    int64   `json:"excluded_records"`
		FPPMeasuredWithout float64 `json:"fpp_measured_without"`
	} `json:"hot_exclusions"`
	Auto *struct {
		Selectivity float64 `json:"selectivity"`
		SpeedFactor float64 `json:"speed_factor"`
		Chosen      struct {
			Kind                  string  `json:"kind"`
			BitsPerKey            float64 `json:"bits_per_key"`
			PredictedShuffleBytes float64 `json:"predicted_shuffle_bytes"`
			PredictedMapMs        float64 `json:"predicted_map_ms"`
		} `json:"chosen"`
	} `json:"auto"`
}

type run struct {
	total      float64
	mapMs      float64
	autoMs     float64 // auto's decision
	predMapErr float64 // predicted / measured map time - 1
	mapOut     int64
	shuffle    int64
	broadcast  int64
	joinRows   int64
	choice     string
	predErr    float64 // predicted / measured shuffle bytes - 1
	autoSelect float64
	speed      float64 // auto's speed factor (choose.SpeedFactor)
}

type key struct{ shape, sel string }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func parseBudget(s string) int64 {
	for _, u := range []struct {
		suf  string
		mult int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if strings.HasSuffix(s, u.suf) {
			n, _ := strconv.ParseInt(strings.TrimSuffix(s, u.suf), 10, 64)
			return n * u.mult
		}
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// runs are the first phase's reports: point -> config or budget -> runs.
type runs struct {
	fixed map[key]map[string][]run
	auto  map[key]map[string][]run // by budget
}

// pairs are the paired phase's: point -> budget -> config -> the ratios of
// auto's run to the config's, one a round.
type pairs map[key]map[string]map[string][]float64

// readPairs reads the paired phase's reports in dir.
func readPairs(dir string) (pairs, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*~auto.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no paired reports in %s", dir)
	}
	total := func(f string) (float64, error) {
		data, err := os.ReadFile(f)
		if err != nil {
			return 0, err
		}
		var r report
		if err := json.Unmarshal(data, &r); err != nil {
			return 0, fmt.Errorf("%s: %v", f, err)
		}
		return r.TimingsMs["total"], nil
	}
	out := pairs{}
	for _, f := range files {
		parts := strings.Split(strings.TrimSuffix(filepath.Base(f), ".json"), "~")
		if len(parts) != 6 {
			continue
		}
		a, err := total(f)
		if err != nil {
			return nil, err
		}
		b, err := total(strings.TrimSuffix(f, "~auto.json") + "~fixed.json")
		if err != nil {
			return nil, err
		}
		k := key{parts[0], parts[1]}
		if out[k] == nil {
			out[k] = map[string]map[string][]float64{}
		}
		if out[k][parts[2]] == nil {
			out[k][parts[2]] = map[string][]float64{}
		}
		if b > 0 {
			out[k][parts[2]][parts[3]] = append(out[k][parts[2]][parts[3]], a/b)
		}
	}
	return out, nil
}

func main() {
	dir := flag.String("reports", "bench/out/auto/reports", "folder of the first phase's reports")
	pairedDir := flag.String("paired", "", "folder of the paired phase's reports (empty: none)")
	top := flag.Int("top", 3, "the fastest fixed kinds a budget the paired phase ran")
	plan := flag.Int("plan", 0, "print the paired phase's configurations, with this many fixed kinds a budget, and exit")
	machine := flag.String("machine", "", "machine line")
	rounds := flag.Int("rounds", 0, "rounds run")
	pairedRounds := flag.Int("paired-rounds", 0, "paired rounds run")
	keys := flag.Int("keys", 0, "keys a dataset")
	rows := flag.Int("rows", 0, "large-side rows a dataset")
	exDir := flag.String("exreports", "", "folder of the hot exclusions' reports (SEED~N.json; empty: none)")
	flag.Parse()
	first, err := readRuns(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "autotable:", err)
		os.Exit(1)
	}
	if *plan > 0 {
		printPlan(first, *plan)
		return
	}
	var paired pairs
	if *pairedDir != "" {
		if paired, err = readPairs(*pairedDir); err != nil {
			fmt.Fprintln(os.Stderr, "autotable:", err)
			os.Exit(1)
		}
	}
	table(first, paired, *top, *machine, *rounds, *pairedRounds, *keys, *rows)
	if *exDir != "" {
		if err := hotExclusions(*exDir); err != nil {
			fmt.Fprintln(os.Stderr, "autotable:", err)
			os.Exit(1)
		}
	}
}

// readRuns reads the first phase's reports in dir.
func readRuns(dir string) (runs, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return runs{}, fmt.Errorf("no reports in %s", dir)
	}
	// point -> config -> runs
	fixed := map[key]map[string][]run{}
	auto := map[key]map[string][]run{} // budget -> runs
	for _, f := range files {
		parts := strings.Split(strings.TrimSuffix(filepath.Base(f), ".json"), "~")
		if len(parts) != 5 {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return runs{}, err
		}
		var r report
		if err := json.Unmarshal(data, &r); err != nil {
			return runs{}, fmt.Errorf("%s: %v", f, err)
		}
		k := key{parts[0], parts[1]}
		ru := run{total: r.TimingsMs["total"], shuffle: r.ShuffleBytes, broadcast: r.BroadcastBytes, joinRows: r.JoinRows,
			mapMs: r.TimingsMs["map"], autoMs: r.TimingsMs["auto"], mapOut: r.MapOutputRecords}
		if parts[2] == "auto" {
			if r.Auto == nil {
				return runs{}, fmt.Errorf("%s: no auto report", f)
			}
			ru.choice = r.Auto.Chosen.Kind
			if r.Auto.Chosen.BitsPerKey != 0 {
				ru.choice += fmt.Sprintf(" %g", r.Auto.Chosen.BitsPerKey)
			}
			ru.predErr = r.Auto.Chosen.PredictedShuffleBytes/float64(r.ShuffleBytes) - 1
			ru.predMapErr = r.Auto.Chosen.PredictedMapMs/r.TimingsMs["map"] - 1
			ru.autoSelect = r.Auto.Selectivity
			ru.speed = r.Auto.SpeedFactor
			if auto[k] == nil {
				auto[k] = map[string][]run{}
			}
			auto[k][parts[3]] = append(auto[k][parts[3]], ru)
			continue
		}
		if fixed[k] == nil {
			fixed[k] = map[string][]run{}
		}
		fixed[k][parts[2]] = append(fixed[k][parts[2]], ru)
	}
	return runs{fixed: fixed, auto: auto}, nil
}

// fits reports whether every run of a fixed config broadcast at most
// budget bytes.
func fits(rs []run, budget string) bool {
	for _, r := range rs {
		if r.broadcast > parseBudget(budget) {
			return false
		}
	}
	return true
}

// topFixed returns the n fastest fixed configs of a point (by median
// total) that fit budget, fastest first.
func topFixed(fixed map[string][]run, budget string, n int) []string {
	type cm struct {
		cfg string
		ms  float64
	}
	var all []cm
	for cfg, rs := range fixed {
		if !fits(rs, budget) {
			continue
		}
		var t []float64
		for _, r := range rs {
			t = append(t, r.total)
		}
		all = append(all, cm{cfg, median(t)})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ms < all[j].ms || all[i].ms == all[j].ms && all[i].cfg < all[j].cfg })
	var out []string
	for _, c := range all[:min(n, len(all))] {
		out = append(out, c.cfg)
	}
	return out
}

// printPlan prints, a line a dataset, SHAPE SEL and the paired phase's
// pairs: BUDGET/CONFIG for each budget and each of the n fastest fixed
// configs that fit it, and none.
func printPlan(first runs, n int) {
	var points []key
	for k := range first.auto {
		points = append(points, k)
	}
	sort.Slice(points, func(i, j int) bool {
		return points[i].shape < points[j].shape || points[i].shape == points[j].shape && points[i].sel < points[j].sel
	})
	for _, k := range points {
		var budgets, out []string
		for b := range first.auto[k] {
			budgets = append(budgets, b)
		}
		sort.Slice(budgets, func(i, j int) bool { return parseBudget(budgets[i]) < parseBudget(budgets[j]) })
		for _, b := range budgets {
			cfgs := topFixed(first.fixed[k], b, n)
			if !slices.Contains(cfgs, "none") {
				cfgs = append(cfgs, "none")
			}
			for _, c := range cfgs {
				out = append(out, b+"/"+c)
			}
		}
		fmt.Println(k.shape, k.sel, strings.Join(out, " "))
	}
}

// table prints the results: the grid's table, the goals' verdicts and the
// constants.
func table(first runs, paired pairs, top int, machine string, rounds, pairedRounds, keys, rows int) {
	fixed, auto := first.fixed, first.auto
	fmt.Println("# `--filter auto` against the fixed kinds")
	fmt.Println()
	fmt.Println("Generated by `bash bench/auto.sh` (do not edit by hand).")
	fmt.Println()
	fmt.Printf("Machine: %s\n\n", machine)
	fmt.Printf("Data: `join gen --dataset semijoin --keys %d --rows %d --seed 1` for each key shape and selectivity. Times are the join's wall time from its report (`total_ms`: auto's includes its decision, the `decision` column). A fixed kind counts at a budget when its broadcast bytes fit it; none always does.\n\n", keys, rows)
	fmt.Printf("Two phases (issue 43; the script's comments say why). **Selection**: %d rounds, in each the fixed kinds and auto under each budget one after another, in an order shuffled anew each round (seeded); medians. `best fixed` is the fixed kind of the least median that fits, `best spread` its slowest round over its fastest (the noise the 10%% goal is measured against), `auto / best, medians` the ratio of the medians (the whole method until issue 43: its best is the least of 18 noisy medians, biased low, and auto's runs are up to a round apart from its). **Paired**: %d rounds; in each, for every budget, auto under it run right beside (just before or after, alternately) each of the %d fastest fixed kinds of the selection that fit the budget, and beside none: pairs of runs under the same load, in a shuffled order. `auto / best, paired` is, of those kinds, the largest median over the rounds of auto's run over the kind's in its pair (the kind named), `auto / none, paired` likewise. The goals' verdicts are on the paired ratios. `map predicted` is auto's predicted map phase over the measured (median of the selection's runs).\n\n", rounds, pairedRounds, top)
	fmt.Println("| shape | selectivity | budget | auto chose | auto ms | decision ms | best fixed that fits | its ms | best spread | auto / best, medians | auto / best, paired | none ms | auto / none, medians | auto / none, paired | shuffle predicted vs measured (worst round) | map predicted / measured |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	var points, predOK int
	var within10, within10Paired, notAboveNone, notAboveNonePaired, within5None, within5NonePaired int
	var worstRatio, worstRatioPaired, worstNone, worstNonePaired, worstPred float64
	shapes := []string{"dense", "sparse", "string"}
	var sels []string
	for k := range auto {
		if !slices.Contains(sels, k.sel) {
			sels = append(sels, k.sel)
		}
	}
	sort.Slice(sels, func(i, j int) bool {
		a, _ := strconv.ParseFloat(sels[i], 64)
		b, _ := strconv.ParseFloat(sels[j], 64)
		return a < b
	})
	for _, shape := range shapes {
		for _, sel := range sels {
			k := key{shape, sel}
			if auto[k] == nil {
				continue
			}
			var budgets []string
			for b := range auto[k] {
				budgets = append(budgets, b)
			}
			sort.Slice(budgets, func(i, j int) bool { return parseBudget(budgets[i]) < parseBudget(budgets[j]) })
			for _, b := range budgets {
				runs := auto[k][b]
				var ts, dec, pm []float64
				choices := map[string]int{}
				worst := 0.0
				for _, r := range runs {
					ts = append(ts, r.total)
					dec = append(dec, r.autoMs)
					pm = append(pm, r.predMapErr+1)
					choices[r.choice]++
					worst = max(worst, math.Abs(r.predErr))
				}
				var chose []string
				for c, n := range choices {
					chose = append(chose, fmt.Sprintf("%s (%d of %d)", c, n, len(runs)))
				}
				sort.Strings(chose)
				at := median(ts)
				bestName, best, spread := "", math.Inf(1), 0.0
				if tops := topFixed(fixed[k], b, 1); len(tops) > 0 {
					var t []float64
					for _, r := range fixed[k][tops[0]] {
						t = append(t, r.total)
					}
					bestName, best, spread = tops[0], median(t), slices.Max(t)/slices.Min(t)
				}
				var nt []float64
				for _, r := range fixed[k]["none"] {
					nt = append(nt, r.total)
				}
				none := median(nt)
				points++
				rb, rn := at/best, at/none
				// Paired: the worst of auto's median ratios to the top kinds.
				pb, pbName, pn := math.NaN(), "", math.NaN()
				if pr := paired[k][b]; len(pr) > 0 {
					for _, cfg := range topFixed(fixed[k], b, top) {
						if r := median(pr[cfg]); !math.IsNaN(r) && (math.IsNaN(pb) || r > pb) {
							pb, pbName = r, cfg
						}
					}
					pn = median(pr["none"])
				}
				if rb <= 1.10 {
					within10++
				}
				if pb <= 1.10 {
					within10Paired++
				}
				if rn <= 1 {
					notAboveNone++
				}
				if pn <= 1 {
					notAboveNonePaired++
				}
				if rn <= 1.05 {
					within5None++
				}
				if pn <= 1.05 {
					within5NonePaired++
				}
				if worst <= 0.05 {
					predOK++
				}
				worstRatio, worstNone, worstPred = max(worstRatio, rb), max(worstNone, rn), max(worstPred, worst)
				if !math.IsNaN(pb) {
					worstRatioPaired = max(worstRatioPaired, pb)
				}
				if !math.IsNaN(pn) {
					worstNonePaired = max(worstNonePaired, pn)
				}
				pbText, pnText := "-", "-"
				if !math.IsNaN(pb) {
					pbText = fmt.Sprintf("%.2f (%s)", pb, pbName)
				}
				if !math.IsNaN(pn) {
					pnText = fmt.Sprintf("%.2f", pn)
				}
				fmt.Printf("| %s | %s | %s | %s | %.0f | %.0f | %s | %.0f | %.2f | %.2f | %s | %.0f | %.2f | %s | %.1f%% | %.2f |\n", shape, sel, b, strings.Join(chose, ", "), at, median(dec), bestName, best, spread, rb, pbText, none, rn, pnText, 100*worst, median(pm))
			}
		}
	}
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**missed**"
	}
	if len(paired) == 0 { // no paired phase: the verdicts on the medians
		within10Paired, within5NonePaired, notAboveNonePaired = within10, within5None, notAboveNone
		worstRatioPaired, worstNonePaired = worstRatio, worstNone
		fmt.Println()
		fmt.Println("No paired phase was run: the verdicts are on the selection's medians.")
	}
	fmt.Println()
	fmt.Println("| goal | measured, paired (the verdict's) | measured, medians of the selection | verdict |")
	fmt.Println("|---|---|---|---|")
	fmt.Printf("| issue 43: auto within 10%% of the best fixed kind that fits at 30 or more of the 36 points | %d of %d points; worst %.2fx | %d of %d; worst %.2fx | %s |\n", within10Paired, points, worstRatioPaired, within10, points, worstRatio, verdict(within10Paired >= 30))
	fmt.Printf("| issue 43: auto never more than 5%% slower than none | %d of %d points; worst %.2fx | %d of %d; worst %.2fx | %s |\n", within5NonePaired, points, worstNonePaired, within5None, points, worstNone, verdict(within5NonePaired == points))
	fmt.Printf("| issue 19: auto within 10%% of the best fixed kind that fits, every point | %d of %d points | %d of %d | %s |\n", within10Paired, points, within10, points, verdict(within10Paired == points))
	fmt.Printf("| issue 19: auto never slower than none | %d of %d points | %d of %d | %s |\n", notAboveNonePaired, points, notAboveNone, points, verdict(notAboveNonePaired == points))
	fmt.Printf("| predicted shuffle bytes within 5%% of measured | | %d of %d points; worst %.1f%% | %s |\n", predOK, points, 100*worstPred, verdict(predOK == points))
	var speeds []float64
	for _, byBudget := range auto {
		for _, rs := range byBudget {
			for _, r := range rs {
				speeds = append(speeds, r.speed)
			}
		}
	}
	constants(fixed, shapes, sels, median(speeds))
}

// hotExclusions prints the hot exclusions' table from SEED~0.json (the
// filter alone) and SEED~N.json (with --hot-exclusions N) and the goal's
// verdict: the row-weighted false positive rate cut at least 5 times on
// every dataset.
func hotExclusions(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no reports in %s", dir)
	}
	type pair struct{ without, with *report }
	bySeed := map[int]*pair{}
	asked := 0
	for _, f := range files {
		parts := strings.Split(strings.TrimSuffix(filepath.Base(f), ".json"), "~")
		if len(parts) != 2 {
			continue
		}
		seed, err1 := strconv.Atoi(parts[0])
		n, err2 := strconv.Atoi(parts[1])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%s: not SEED~N.json", f)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var r report
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("%s: %v", f, err)
		}
		if bySeed[seed] == nil {
			bySeed[seed] = &pair{}
		}
		if n == 0 {
			bySeed[seed].without = &r
		} else {
			bySeed[seed].with, asked = &r, n
		}
	}
	var seeds []int
	for s := range bySeed {
		seeds = append(seeds, s)
	}
	sort.Ints(seeds)
	fmt.Println()
	fmt.Println("## Hot exclusions")
	fmt.Println()
	fmt.Printf("A Zipf(1.1) large side: `join gen --dataset semijoin` with `--selectivity 0.02 --key-shape sparse --distinct 1000000 --zipf 1.1` at the grid's size, one dataset a seed; a Bloom filter at `--fpp 0.01`, without and with `--hot-exclusions %d`, one run each (false positives are counted, not timed). The rates are row-weighted: false positive rows over the rows whose key is not a key.\n\n", asked)
	fmt.Println("| seed | FP rows without | row-weighted FP without | keys excluded | bytes with the filter | rows they dropped | row-weighted FP with | cut | exclusions pass ms | total ms without / with |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	met, worst := 0, math.Inf(1)
	for _, s := range seeds {
		p := bySeed[s]
		if p.without == nil || p.with == nil || p.with.Hot == nil {
			return fmt.Errorf("seed %d: a report is missing", s)
		}
		h := p.with.Hot
		cut := math.Inf(1)
		if p.with.FPPMeasured > 0 {
			cut = p.without.FPPMeasured / p.with.FPPMeasured
		}
		if cut >= 5 {
			met++
		}
		worst = min(worst, cut)
		fmt.Printf("| %d | %d | %.4g | %d | %d | %d | %.4g | %.1fx | %.0f | %.0f / %.0f |\n", s, p.without.FalsePositiveRecords, p.without.FPPMeasured, h.Found, h.BroadcastBytes,
			h.ExcludedRecords, p.with.FPPMeasured, cut, p.with.TimingsMs["exclusions"], p.without.TimingsMs["total"], p.with.TimingsMs["total"])
	}
	verdict := "met"
	if met < len(seeds) {
		verdict = "**missed**"
	}
	fmt.Println()
	fmt.Println("| goal | measured | verdict |")
	fmt.Println("|---|---|---|")
	fmt.Printf("| --hot-exclusions %d cuts the row-weighted FP at least 5x (Zipf large side, 1%% filter) | %d of %d datasets; the least cut %.1fx | %s |\n", asked, met, len(seeds), worst, verdict)
	return nil
}

// constants prints the model's constants as this run measures them: the
// same join with no filter and with the exact set differs only in the rows
// that pass the filter, so (time none - time exact) / (rows passed none -
// rows passed exact) is what a passed row costs, on the whole join and in
// the map phase alone (choose.Constants). Selectivities up to 0.2 (at 0.9
// the difference is a tenth of the rows, within the noise).
func constants(fixed map[key]map[string][]run, shapes, sels []string, speed float64) {
	fmt.Println()
	fmt.Println("## The constants")
	fmt.Println()
	fmt.Printf("What a row that passes the filter costs, from the none and exact runs above (medians): `choose.DefaultConstants` takes both from this table's medians as measured on the Intel Xeon at df00f04 (52 and 33 ns; filters/choose says how), and auto scales them by the machine's speed factor (choose.SpeedFactor: the time of an integer key's hash here over the Intel Xeon's): in this run's auto runs, median %.2f (%.0f and %.0f ns).\n", speed, speed*choose.DefaultConstants.ShuffleNsPerRecord, speed*choose.DefaultConstants.MapNsPerRecord)
	fmt.Println()
	fmt.Println("| shape | selectivity | rows passed, none - exact | ns a row, whole join | ns a row, map phase |")
	fmt.Println("|---|---|---|---|---|")
	var whole, mapped []float64
	for _, shape := range shapes {
		for _, sel := range sels {
			if s, _ := strconv.ParseFloat(sel, 64); s > 0.2 {
				continue
			}
			none, exact := fixed[key{shape, sel}]["none"], fixed[key{shape, sel}]["exact"]
			if len(none) == 0 || len(exact) == 0 {
				continue
			}
			med := func(rs []run, f func(run) float64) float64 {
				var xs []float64
				for _, r := range rs {
					xs = append(xs, f(r))
				}
				return median(xs)
			}
			rows := float64(none[0].mapOut - exact[0].mapOut)
			w := (med(none, func(r run) float64 { return r.total }) - med(exact, func(r run) float64 { return r.total })) * 1e6 / rows
			m := (med(none, func(r run) float64 { return r.mapMs }) - med(exact, func(r run) float64 { return r.mapMs })) * 1e6 / rows
			whole, mapped = append(whole, w), append(mapped, m)
			fmt.Printf("| %s | %s | %.0f | %.1f | %.1f |\n", shape, sel, rows, w, m)
		}
	}
	fmt.Printf("| median | | | %.1f | %.1f |\n", median(whole), median(mapped))
}
