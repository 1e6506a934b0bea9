package repro

import (
	"fmt"
	"math"

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
