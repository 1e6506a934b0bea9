package repro

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

// series is one line of a panel.
type series struct {
	name   string
	xs, ys []float64
	dashed bool // formula lines beside measured points
	points bool // draw markers
}

// panel is one plot of a figure.
type panel struct {
	title, xlabel, ylabel string
	logY                  bool
	series                []series
}

// palette: one colour per variant, as the paper distinguishes its series.
var palette = map[string]color.RGBA{
	"CBF":      {R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	"ACBF_1":   {R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	"ACBF_2":   {R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	"ACBF_3":   {R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	"ACBF_opt": {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	"Bloom":    {R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
}

func colour(name string) color.Color {
	for k, c := range palette {
		if len(name) >= len(k) && name[:len(k)] == k && (len(name) == len(k) || name[len(k)] == ' ') {
			return c
		}
	}
	return color.Black
}

// writeSVG draws the panels side by side into one SVG file.
func writeSVG(path string, panels []panel) error {
	row := make([]*plot.Plot, len(panels))
	for i, pn := range panels {
		p := plot.New()
		p.Title.Text = pn.title
		p.X.Label.Text = pn.xlabel
		p.Y.Label.Text = pn.ylabel
		if pn.logY {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: 1}
		}
		p.Legend.Top = false
		p.Legend.Left = true
		p.Legend.TextStyle.Font.Size = vg.Points(8)
		p.Legend.YOffs = vg.Points(2)
		for _, s := range pn.series {
			pts := make(plotter.XYs, 0, len(s.xs))
			for j := range s.xs {
				y := s.ys[j]
				if math.IsNaN(y) || (pn.logY && y <= 0) {
					continue // log axes cannot show 0 (no false positive measured)
				}
				pts = append(pts, plotter.XY{X: s.xs[j], Y: y})
			}
			if len(pts) == 0 {
				continue
			}
			l, err := plotter.NewLine(pts)
			if err != nil {
				return err
			}
			l.Color = colour(s.name)
			l.Width = vg.Points(1.5)
			if s.dashed {
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
				l.Width = vg.Points(1)
			}
			p.Add(l)
			if !s.dashed || len(pn.series) <= 6 {
				// gonum's text renderer reads "_" as a subscript: spell it out.
				p.Legend.Add(strings.ReplaceAll(s.name, "_", " "), l)
			}
			if s.points {
				sc, err := plotter.NewScatter(pts)
				if err != nil {
					return err
				}
				sc.Color = colour(s.name)
				sc.Shape = draw.CircleGlyph{}
				p.Add(sc)
			}
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
