package local

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
)

// Compare runs the join once per filter kind, repeat times, alternating
// between kinds so that machine noise spreads evenly. It returns one report per
// kind: the counts of its first run (they do not change between runs) with the
// median of every timing. The output is discarded. With a composite key and
// no Layout, each kind runs in both layouts, composite then per-column (but
// none, which has no filter): one report each, in that order. A side that is a stream
// (standard input, a pipe, a FIFO, a device), which can be read only once, is
// first copied to a temporary file in opt.TempDir (removed on return; messages
// still name the stream).
func Compare(ctx context.Context, opt join.Options, kinds []filters.Kind, repeat int) ([]*join.Report, error) {
	if repeat < 1 {
		repeat = 1
	}
	opt.KeepFilter = true // it measures the filters: none may turn itself off
	if err := source.CheckSides(opt.Keys, opt.Input, opt.FilterFile); err != nil {
		return nil, err
	}
	for _, side := range []struct {
		option      string
		path, name  *string
		format      string
		sep, keySep byte
	}{{"Keys", &opt.Keys, &opt.KeysName, opt.KeysFormat, opt.KeysSep, opt.Sep}, {"Input", &opt.Input, &opt.InputName, opt.InputFormat, opt.InputSep, opt.Sep}} {
		sp, name, err := source.Spool(ctx, source.Options{Option: side.option, Path: *side.path, Name: *side.name, Format: side.format,
			Sep: join.SideSep(side.sep, side.keySep), SkipBad: opt.SkipBadRows, TempDir: opt.TempDir}, "to read it once per filter")
		if err != nil {
			return nil, err
		}
		if sp != *side.path {
			defer os.Remove(sp)
			*side.path, *side.name = sp, name
		}
	}
	type variant struct {
		kind   filters.Kind
		layout join.Layout
	}
	var vs []variant
	for _, k := range kinds {
		vs = append(vs, variant{k, opt.Layout})
	}
	if r, err := opt.Resolve(); err == nil && len(r.KeyCols) > 1 && opt.Layout == "" {
		vs = vs[:0]
		for _, k := range kinds {
			vs = append(vs, variant{k, join.LayoutComposite})
			if k != filters.None {
				vs = append(vs, variant{k, join.LayoutPerColumn})
			}
		}
	}
	runs := make([][]*join.Report, len(vs))
	for r := 0; r < repeat; r++ {
		for i, v := range vs {
			o := opt
			o.Filter, o.Layout = v.kind, v.layout
			rep, err := Run(ctx, o, NewCSV(io.Discard))
			if err != nil {
				if v.layout == join.LayoutPerColumn {
					return nil, fmt.Errorf("filter %s per-column: %w", v.kind, err)
				}
				return nil, fmt.Errorf("filter %s: %w", v.kind, err)
			}
			runs[i] = append(runs[i], rep)
		}
	}
	out := make([]*join.Report, len(vs))
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
