package evaluate

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/svgplot"
)

// Point is one kind at one memory budget in a Sweep.
type Point struct {
	Kind       filters.Kind `json:"kind"`
	Asked      float64      `json:"bits_per_key_asked"` // Sizing.BitsPerKey
	BitsPerKey float64      `json:"bits_per_key"`       // what the kind took
	Shape      string       `json:"shape"`
	FPP        float64      `json:"fpp"` // measured over the queries
	FillFPP    float64      `json:"fpp_fill"`
	FormulaFPP float64      `json:"fpp_formula"`
	Err        string       `json:"error,omitempty"` // the kind cannot be sized so
}

// Sweep builds every sized kind of c (unsized kinds are left out) at each
// budget of bitsPerKey and counts its false positives over c.Queries fresh
// non-members: FP against memory, measured and by formula. c.Churn is
// ignored; c.Sizing's other fields apply (K, the cuckoo and scalable
// options). O(kinds x budgets x (n + queries)).
func Sweep(ctx context.Context, c Config, bitsPerKey []float64) ([]Point, error) {
	if c.Sizing.FPP != 0 {
		return nil, fmt.Errorf("%w: a sweep sizes by bits per key; Sizing.FPP must be 0", ErrConfig)
	}
	if len(bitsPerKey) == 0 {
		return nil, fmt.Errorf("%w: no budgets to sweep", ErrConfig)
	}
	c.Churn = 0
	c, err := c.Validate()
	if err != nil {
		return nil, err
	}
	for _, b := range bitsPerKey {
		s := c.Sizing
		s.BitsPerKey = b
		if err := s.Validate(); err != nil {
			return nil, err
		}
	}
	keys := members(c.Seed, c.N)
	var out []Point
	for _, kind := range c.Kinds {
		sp, _ := filters.Lookup(string(kind))
		if !sp.Sized {
			continue
		}
		for _, b := range bitsPerKey {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			c.progress(kind, fmt.Sprintf("%g bits per key", b))
			pt, err := sweepOne(ctx, c, sp, b, keys)
			if err != nil {
				return nil, err
			}
			out = append(out, pt)
		}
	}
	return out, nil
}

func sweepOne(ctx context.Context, c Config, sp *filters.Spec, bpk float64, keys [][]byte) (Point, error) {
	pt := Point{Kind: sp.Kind, Asked: bpk, FillFPP: math.NaN()}
	s := c.Sizing
	s.BitsPerKey = bpk
	p, err := sp.Size(uint64(len(keys)), s)
	if err != nil {
		pt.Err = err.Error()
		return pt, nil
	}
	f, p, _, err := sp.Build(p, keys)
	if err != nil {
		pt.Err = err.Error()
		return pt, nil
	}
	pt.Shape = sp.Describe(p)
	bits := p.Summary().MemoryBits
	pt.BitsPerKey = float64(bits) / float64(len(keys))
	pt.FormulaFPP = sp.FPP(p, uint64(len(keys)))
	if sp.HasFillFPP() {
		pt.FillFPP = sp.FillFPP(f)
	}
	g := newKeyGen(c.Seed, 2, false)
	key := make([]byte, 8)
	fp := 0
	for i := 0; i < c.Queries; i++ {
		if i%queryChunk == 0 && ctx.Err() != nil {
			return pt, ctx.Err()
		}
		binary.BigEndian.PutUint64(key, g.next())
		if f.Contains(key) {
			fp++
		}
	}
	pt.FPP = float64(fp) / float64(c.Queries)
	return pt, nil
}

// kindColours: one colour per kind in the plot (the Tableau 10 palette).
var kindColours = map[filters.Kind]color.RGBA{
	filters.Bloom:    {R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
	filters.CBF:      {R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	filters.ACBF:     {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	filters.ACBF1:    {R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	filters.ACBF2:    {R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	filters.ACBF3:    {R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	filters.Cuckoo:   {R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	filters.Scalable: {R: 0xe3, G: 0x77, B: 0xc2, A: 0xff},
	filters.Blocked:  {R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
}

// WritePlot draws the points of a Sweep as an SVG at path: false positive
// rate (log scale) against the bits per key each kind took, the formula as
// a dashed line and the measured rates as points, one colour per kind. A measured
// rate of 0 (no false positive in the queries) cannot be shown on a log
// axis and is left out. title heads the plot.
func WritePlot(path, title string, points []Point) error {
	var kinds []filters.Kind
	byKind := map[filters.Kind][]Point{}
	for _, pt := range points {
		if pt.Err != "" {
			continue
		}
		if _, ok := byKind[pt.Kind]; !ok {
			kinds = append(kinds, pt.Kind)
		}
		byKind[pt.Kind] = append(byKind[pt.Kind], pt)
	}
	pn := svgplot.Panel{Title: title, XLabel: "bits per key (memory / keys)", YLabel: "false positive rate", LogY: true}
	// A kind whose points are another's (acbf1 is the CBF, one level of
	// counters: the same bits, the same rates) would be drawn under it and
	// vanish; it joins that kind's legend entry instead, "cbf = acbf1".
	type drawn struct{ measured, formula svgplot.Series }
	var lines []*drawn
kinds:
	for _, k := range kinds {
		pts := byKind[k]
		slices.SortFunc(pts, func(a, b Point) int { return cmp.Compare(a.BitsPerKey, b.BitsPerKey) })
		d := &drawn{svgplot.Series{Name: string(k), MarkersOnly: true, Legend: string(k)},
			svgplot.Series{Name: string(k) + " formula", Dashed: true, Legend: string(k)}}
		for _, pt := range pts {
			d.measured.Xs, d.measured.Ys = append(d.measured.Xs, pt.BitsPerKey), append(d.measured.Ys, pt.FPP)
			d.formula.Xs, d.formula.Ys = append(d.formula.Xs, pt.BitsPerKey), append(d.formula.Ys, pt.FormulaFPP)
		}
		for _, o := range lines {
			if slices.Equal(o.measured.Xs, d.measured.Xs) && slices.Equal(o.measured.Ys, d.measured.Ys) && slices.Equal(o.formula.Ys, d.formula.Ys) {
				o.measured.Legend += " = " + string(k)
				o.formula.Legend = o.measured.Legend
				continue kinds
			}
		}
		lines = append(lines, d)
	}
	for _, d := range lines {
		pn.Series = append(pn.Series, d.formula, d.measured)
	}
	return svgplot.Write(path, []svgplot.Panel{pn}, func(name string) color.Color {
		for k, c := range kindColours {
			if name == string(k) || name == string(k)+" formula" {
				return c
			}
		}
		return color.Black
	})
}
