package evaluate

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/acbfjoin/acbfjoin/internal/textfmt"
)

// JSONSafe returns a copy of results with the NaNs of results (operations a kind does not have),
// which JSON cannot hold, replaced by -1.
func JSONSafe(results []Result) []Result {
	out := append([]Result(nil), results...)
	for i := range out {
		for _, f := range []*float64{&out[i].Z, &out[i].DeletedZ, &out[i].DeletedExpected, &out[i].FillFPP, &out[i].FillSD, &out[i].ZFormula, &out[i].AddNs, &out[i].RemoveNs, &out[i].BatchNs} {
			if math.IsNaN(*f) {
				*f = -1
			}
		}
	}
	return out
}

// WriteMarkdown writes the results as a Markdown table with its legend,
// as join filter eval prints it; errText rewrites a kind's error for its
// reader (nil: as is).
func WriteMarkdown(w io.Writer, cfg Config, results []Result, errText func(string) string) {
	fmt.Fprintf(w, "%d keys, %d fresh non-member queries, %d churn rounds, seed %d; one core, %s\n\n", cfg.N, cfg.Queries, cfg.Churn, cfg.Seed, runtime.Version())
	churned := cfg.Churn > 0
	head := "| kind | parameters | bits per key | FP measured | FP of its fill | z | FP formula | z formula | false neg. | insert fails |"
	rule := "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	if churned {
		head += " deleted keys' FP (z) |"
		rule += "---:|"
	}
	head += " build ns/key | add ns | remove ns | contains ns | batch ns | result |"
	rule += "---:|---:|---:|---:|---:|---|"
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for _, r := range results {
		if r.Err != "" {
			fmt.Fprintf(w, "| %s | cannot be built: %s |\n", r.Kind, rewrite(errText, r.Err))
			continue
		}
		result := "PASS"
		if !r.Pass {
			result = "**FAIL**"
		}
		fmt.Fprintf(w, "| %s | %s | %.1f | %.4g | %s | %s | %.4g | %s | %d | %d |", r.Kind, textfmt.OrDash(r.Shape), r.BitsPerKey, r.FPP, textfmt.Num(r.FillFPP, "%.4g"),
			textfmt.Num(r.Z, "%+.2f"), r.FormulaFPP, textfmt.Num(r.ZFormula, "%+.2f"), r.FalseNegatives, r.InsertFailures)
		if churned {
			if r.ChurnRounds == 0 {
				fmt.Fprint(w, " - |")
			} else {
				fmt.Fprintf(w, " %.4g (%s) |", float64(r.DeletedPositives)/float64(max(r.Deleted, 1)), textfmt.Num(r.DeletedZ, "%+.2f"))
			}
		}
		fmt.Fprintf(w, " %.1f | %s | %s | %.1f | %s | %s |\n", r.BuildNs, textfmt.Num(r.AddNs, "%.1f"), textfmt.Num(r.RemoveNs, "%.1f"), r.ContainsNs, textfmt.Num(r.BatchNs, "%.1f"), result)
	}
	fmt.Fprintln(w, "\nFP of its fill: the rate this filter's contents give (its ones, its load); the formula is that rate's expectation over random keys,")
	fmt.Fprintln(w, "which one filter misses by the chance in how its keys fell. z: (measured - fill) / sd of the queries; z formula: (measured - formula) / sd of\n"+
		"the queries and of the fill over 8 more filters of other keys (JSON: fill_sd); it is shown, not judged.")
	fmt.Fprintln(w, "PASS: no false negative; the false positives within 4 sd of the fill (|z| <= 4), or, when fewer than 25 are expected, no further")
	fmt.Fprintln(w, "in a Poisson tail than 4 sd of a normal (p >= 3.2e-5 each side); exact and none: the rate exactly; the same for the deleted keys.")
}

// WritePoints writes a sweep's points as a Markdown table (as join filter
// plot prints it); errText rewrites a point's error for its reader (nil:
// as is).
func WritePoints(w io.Writer, points []Point, errText func(string) string) {
	fmt.Fprintln(w, "| kind | bits per key asked | bits per key taken | parameters | FP measured | FP of its fill | FP formula |")
	fmt.Fprintln(w, "|---|---:|---:|---|---:|---:|---:|")
	for _, pt := range points {
		if pt.Err != "" {
			fmt.Fprintf(w, "| %s | %g | | cannot: %s | | | |\n", pt.Kind, pt.Asked, rewrite(errText, pt.Err))
			continue
		}
		fmt.Fprintf(w, "| %s | %g | %.1f | %s | %.4g | %s | %.4g |\n", pt.Kind, pt.Asked, pt.BitsPerKey, pt.Shape, pt.FPP, textfmt.Num(pt.FillFPP, "%.4g"), pt.FormulaFPP)
	}
}

func rewrite(f func(string) string, s string) string {
	if f == nil {
		return s
	}
	return f(s)
}

// ParseBits reads the bits per key of a sweep: a list ("8,10,16") or a
// range FROM:TO:STEP ("4:32:2"), at most 1000 points, each above 0.
func ParseBits(s string) ([]float64, error) {
	if parts := strings.Split(s, ":"); len(parts) == 3 {
		var v [3]float64
		for i, p := range parts {
			f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("want FROM:TO:STEP such as 4:32:2")
			}
			v[i] = f
		}
		if v[2] <= 0 || v[1] < v[0] || (v[1]-v[0])/v[2] > 1000 {
			return nil, fmt.Errorf("want FROM <= TO and a positive STEP, at most 1000 points")
		}
		if v[0] <= 0 {
			return nil, fmt.Errorf("FROM %g: want bits per key above 0", v[0])
		}
		var out []float64
		for x := v[0]; x <= v[1]+1e-9; x += v[2] {
			out = append(out, math.Round(x*1e6)/1e6)
		}
		return out, nil
	}
	var out []float64
	for _, p := range strings.Split(s, ",") {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("want numbers such as 8,10,16 or a range such as 4:32:2")
		}
		out = append(out, f)
	}
	if len(out) > 1000 {
		return nil, fmt.Errorf("at most 1000 points")
	}
	for _, b := range out {
		if b <= 0 {
			return nil, fmt.Errorf("%g: want bits per key above 0", b)
		}
	}
	return out, nil
}
