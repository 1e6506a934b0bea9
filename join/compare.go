package join

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
)

// Compare runs the join once per filter kind, repeat times, alternating
// between kinds so that machine noise spreads evenly. It returns one report per
// kind: the counts of its first run (they do not change between runs) with the
// median of every timing. The output is discarded.
func Compare(ctx context.Context, opt Options, kinds []Kind, repeat int) ([]*Report, error) {
	if repeat < 1 {
		repeat = 1
	}
	runs := make([][]*Report, len(kinds))
	for r := 0; r < repeat; r++ {
		for i, k := range kinds {
			o := opt
			o.Filter = k
			rep, err := Run(ctx, o, io.Discard)
			if err != nil {
				return nil, fmt.Errorf("filter %s: %w", k, err)
			}
			runs[i] = append(runs[i], rep)
		}
	}
	out := make([]*Report, len(kinds))
	for i, rs := range runs {
		rep := *rs[0]
		rep.TimingsMs = map[string]float64{}
		for key := range rs[0].TimingsMs {
			v := make([]float64, len(rs))
			for j, r := range rs {
				v[j] = r.TimingsMs[key]
			}
			rep.TimingsMs[key] = median(v)
		}
		out[i] = &rep
	}
	return out, nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Change is one row of the paper's Table 1 comparison: ACBF_opt's relative
// change against the CBF in a measure, beside the paper's.
type Change struct {
	Measure string
	Change  float64 // (acbf - cbf) / cbf; NaN if the CBF's value is 0
	Paper   string
}

// Table1Changes returns ACBF's relative change against CBF in FP, map output
// records, filter construction time and total join time, with the paper's
// Table 1 figures (-72.3%, -33.9%, +9.7%, -20%).
func Table1Changes(cbf, acbf *Report) []Change {
	rel := func(a, c float64) float64 {
		if c == 0 {
			return math.NaN()
		}
		return (a - c) / c
	}
	return []Change{
		{"FP", rel(acbf.FPPMeasured, cbf.FPPMeasured), "-72.3%"},
		{"map output records", rel(float64(acbf.MapOutputRecords), float64(cbf.MapOutputRecords)), "-33.9%"},
		{"filter construction time", rel(acbf.TimingsMs["build"], cbf.TimingsMs["build"]), "+9.7%"},
		{"total join time", rel(acbf.TimingsMs["total"], cbf.TimingsMs["total"]), "-20%"},
	}
}

// FormatChange renders a relative change as "+9.7%", or "n/a".
func FormatChange(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", 100*v)
}
