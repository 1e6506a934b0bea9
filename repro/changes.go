package repro

import (
	"fmt"
	"math"
	"slices"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/join"
)

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
func Table1Changes(cbf, acbf *join.Report) []Change {
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

// CompareChanges returns Table1Changes of the cbf and acbf runs of a
// comparison (each over the whole key), and false where it has not both.
func CompareChanges(reps []*join.Report) ([]Change, bool) {
	find := func(k filters.Kind) int {
		return slices.IndexFunc(reps, func(r *join.Report) bool { return r.Filter.Kind == k && r.Settings.Layout != join.LayoutPerColumn })
	}
	ci, ai := find(filters.CBF), find(filters.ACBF)
	if ci < 0 || ai < 0 {
		return nil, false
	}
	return Table1Changes(reps[ci], reps[ai]), true
}
