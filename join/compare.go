package join

import (
	"context"
	"fmt"
	"io"
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
