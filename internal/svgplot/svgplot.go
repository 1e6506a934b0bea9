// Package svgplot draws the figures of acbfjoin (the paper's figures, the
// filter kinds' false positive rates) as SVG with gonum/plot: panels of
// lines, dashed for formulas, with markers for measured points. Not safe for
// concurrent use of one Panel.
package svgplot

import (
	"image/color"
	"math"
	"os"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
)

// legendDashed: a panel of at most this many series lists its dashed
// (formula) series in the legend too.
const legendDashed = 6

// Series is one line of a panel.
type Series struct {
	Name   string
	Xs, Ys []float64
	Dashed bool // formula lines beside measured points
	Points bool // draw markers
	// MarkersOnly draws the markers without a line between them.
	MarkersOnly bool
	// Legend, if set, is the legend entry the series joins: series of one
	// Legend share one entry showing each of their lines and markers
	// (instead of the default: one entry a series, named by Name).
	Legend string
}

// Panel is one plot of a figure.
type Panel struct {
	Title, XLabel, YLabel string
	LogY                  bool
	Series                []Series
}

// Write draws the panels side by side into one SVG file at path (replaced
// atomically), each series in colour(its name); a log axis leaves out the
// points at 0 or below, and NaNs are left out everywhere. Legends list the
// measured series, and the dashed ones too when a panel has at most
// legendDashed series.
func Write(path string, panels []Panel, colour func(name string) color.Color) error {
	row := make([]*plot.Plot, len(panels))
	for i, pn := range panels {
		p := plot.New()
		p.Title.Text = pn.Title
		p.X.Label.Text = pn.XLabel
		p.Y.Label.Text = pn.YLabel
		if pn.LogY {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: 1}
		}
		p.Legend.Top = false
		p.Legend.Left = true
		p.Legend.TextStyle.Font.Size = vg.Points(8)
		p.Legend.YOffs = vg.Points(2)
		var legends []string
		thumbs := map[string][]plot.Thumbnailer{}
		for _, s := range pn.Series {
			pts := make(plotter.XYs, 0, len(s.Xs))
			for j := range s.Xs {
				y := s.Ys[j]
				if math.IsNaN(y) || (pn.LogY && y <= 0) {
					continue // log axes cannot show 0 (no false positive measured)
				}
				pts = append(pts, plotter.XY{X: s.Xs[j], Y: y})
			}
			if len(pts) == 0 {
				continue
			}
			var th []plot.Thumbnailer
			if !s.MarkersOnly {
				l, err := plotter.NewLine(pts)
				if err != nil {
					return err
				}
				l.Color = colour(s.Name)
				l.Width = vg.Points(1.5)
				if s.Dashed {
					l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
					l.Width = vg.Points(1)
				}
				p.Add(l)
				th = append(th, l)
				if s.Legend == "" && (!s.Dashed || len(pn.Series) <= legendDashed) {
					// gonum's text renderer reads "_" as a subscript: spell it out.
					p.Legend.Add(strings.ReplaceAll(s.Name, "_", " "), l)
				}
			}
			if s.Points || s.MarkersOnly {
				sc, err := plotter.NewScatter(pts)
				if err != nil {
					return err
				}
				sc.Color = colour(s.Name)
				sc.Shape = draw.CircleGlyph{}
				p.Add(sc)
				th = append(th, sc)
			}
			if s.Legend != "" {
				if _, ok := thumbs[s.Legend]; !ok {
					legends = append(legends, s.Legend)
				}
				thumbs[s.Legend] = append(thumbs[s.Legend], th...)
			}
		}
		for _, name := range legends {
			p.Legend.Add(strings.ReplaceAll(name, "_", " "), thumbs[name]...)
		}
		row[i] = p
	}
	w := vg.Length(len(panels)) * 14 * vg.Centimeter
	h := 11 * vg.Centimeter
	img := vgsvg.New(w, h)
	dc := draw.New(img)
	canvases := plot.Align([][]*plot.Plot{row}, draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Centimeter / 2}, dc)
	for i, p := range row {
		p.Draw(canvases[0][i])
	}
	return atomicfile.Write(path, func(f *os.File) error {
		_, err := img.WriteTo(f)
		return err
	})
}
