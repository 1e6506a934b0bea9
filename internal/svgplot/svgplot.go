// Package svgplot draws the figures of acbfjoin (the paper's figures, the
// filter kinds' false positive rates) as SVG with gonum/plot: panels side by
// side, each a plot of lines, dashed for formulas, with markers for measured
// points, its legend and notes under it, then the figure's caption.
//
// Log axes are labelled at every decade ("1e-06", 0.001 ... 1000, "1e+04"),
// with minor ticks at 2..9 times each; a panel spanning less than two
// decades labels 2x and 5x too (less than one: every multiple). Nothing is
// drawn over the data but the series: legends, notes and the caption lie
// outside the plot, and the image grows to hold them. Not safe for
// concurrent use of one Panel.
package svgplot

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
)

// Series is one line of a panel.
type Series struct {
	Name   string
	Xs, Ys []float64
	Dashed bool // a formula (theory) line beside measured points
	Points bool // draw markers
	// MarkersOnly draws the markers without a line between them.
	MarkersOnly bool
	// Legend, if set, is the legend entry the series joins: series of one
	// Legend share one entry showing each of their lines and markers
	// (instead of the default: one entry a series, named by Name).
	Legend string
}

// measured: a series of measured values, not a formula's.
func (s Series) measured() bool { return !s.Dashed }

// marked: a series drawn with markers.
func (s Series) marked() bool { return s.Points || s.MarkersOnly }

// Panel is one plot of a figure.
type Panel struct {
	Title, XLabel, YLabel string
	LogY                  bool
	// LogX draws the x axis on a log scale (labelled as LogY's); points at
	// x <= 0 are left out.
	LogX   bool
	Series []Series
	// Floor, if above 0 on a LogY panel, is where a measured (not Dashed)
	// series' points at 0 or below are drawn, which a log axis cannot
	// show: at y = Floor, as a hollow downward triangle in the series'
	// colour that its line does not join (the markers of several series
	// at one x stand side by side). When any point is drawn there, the y
	// axis reaches down to Floor and the legend explains the triangle with
	// FloorLabel (if empty: "measured 0, drawn at FLOOR"). Without Floor
	// such points are left out, as are a formula's (Dashed) always.
	Floor      float64
	FloorLabel string
	// Notes are lines of small text under the panel's legend (wrapped to
	// the panel's width), e.g. "ACBF_1's line lies under the CBF's".
	Notes []string
}

// Figure is panels side by side with a caption under them all.
type Figure struct {
	Panels []Panel
	// Caption, if set, is drawn under all the panels, wrapped to the
	// figure's width; "\n" starts a new line.
	Caption string
}

// Write draws the panels side by side into one SVG file at path (replaced
// atomically), each series in colour(its name): WriteFigure of a Figure
// without a caption.
func Write(path string, panels []Panel, colour func(name string) color.Color) error {
	return WriteFigure(path, Figure{Panels: panels}, colour)
}

// WriteFigure draws fig into one SVG file at path (replaced atomically):
// its panels side by side, each series in colour(its name) (black if colour
// is nil), each panel's legend and notes under its plot, the caption under
// everything. NaNs and infinities are left out everywhere, and on a log
// axis so are the points at 0 or below, unless the panel has a Floor.
//
// A panel's legend lists its series, one entry a series or Legend; a panel
// with both dashed series and measured ones with markers lists instead
// each variant once, by its colour (the Legend, or the Name without a
// " formula" suffix), and explains the styles: a grey solid line with a dot
// "measured", a grey dashed line "formula (theory)".
//
// The image's format is the one path's extension names (FormatOf).
func WriteFigure(path string, fig Figure, colour func(name string) color.Color) error {
	format, err := FormatOf(path)
	if err != nil {
		return err
	}
	svg, err := render(fig, colour, format)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(f *os.File) error {
		_, err := f.Write(svg)
		return err
	})
}

// Figure geometry, in points.
const (
	margin    = 10
	tileW     = 425 // 15 cm: a panel's plot, with its title and axes
	tileH     = 290
	tileGap   = 26  // between panels
	plotGap   = 8   // between a panel's plot and its legend
	capGap    = 10  // between the legends and notes and the caption
	ylabPad   = 3   // between a y label and its tick labels
	maxDecade = 308 // a log axis ends within 1e-308 to 1e308
)

// FormatOf returns the image format a path's extension names: "svg" (also
// for a name without an extension), "png" or "jpg" (at 150 dots per inch),
// "pdf"; another extension is an error (a .jpg that held SVG was written).
func FormatOf(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg", "":
		return "svg", nil
	case ".png":
		return "png", nil
	case ".jpg", ".jpeg":
		return "jpg", nil
	case ".pdf":
		return "pdf", nil
	default:
		return "", fmt.Errorf("%s: a figure is written as .svg, .png, .jpg or .pdf, not %s", path, ext)
	}
}

// render draws fig as an image of format (FormatOf).
func render(fig Figure, colour func(name string) color.Color, format string) ([]byte, error) {
	if len(fig.Panels) == 0 {
		return nil, errors.New("svgplot: a figure without panels")
	}
	if colour == nil {
		colour = func(string) color.Color { return color.Black }
	}
	n := len(fig.Panels)
	plots := make([]*plot.Plot, n)
	blocks := make([]block, n)
	var below vg.Length // the tallest legend and notes
	for i, pn := range fig.Panels {
		p, sections, err := buildPlot(pn, colour)
		if err != nil {
			return nil, err
		}
		plots[i] = p
		blocks[i] = layoutBlock(sections, pn.Notes, vg.Points(tileW))
		below = max(below, blocks[i].height)
	}
	width := vg.Points(2*margin + tileW*float64(n) + tileGap*float64(n-1))
	capSty := textStyle(captionSize, color.Black)
	var caption []string
	if strings.TrimSpace(fig.Caption) != "" {
		caption = wrap(capSty, fig.Caption, width-2*vg.Points(margin))
	}
	capH := vg.Length(len(caption)) * vg.Points(captionRow)
	height := vg.Points(2*margin+tileH) + capH
	if below > 0 {
		height += vg.Points(plotGap) + below
	}
	if capH > 0 {
		height += vg.Points(capGap)
	}

	var img vg.CanvasWriterTo
	switch format {
	case "png":
		img = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(150))}
	case "jpg":
		img = vgimg.JpegCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(150))}
	case "pdf":
		img = vgpdf.New(width, height)
	default:
		img = vgsvg.New(width, height)
	}
	dc := draw.New(img)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	top := height - vg.Points(margin)
	plotArea := draw.Canvas{Canvas: img, Rectangle: vg.Rectangle{
		Min: vg.Point{X: vg.Points(margin), Y: top - vg.Points(tileH)},
		Max: vg.Point{X: width - vg.Points(margin), Y: top},
	}}
	// Each panel's y label is drawn here, left of its plot's tile: gonum
	// would reserve room for it above a log axis (it places the label's
	// box at the arithmetic middle of the range, near the top).
	ylabSty := textStyle(labelSize, color.Black)
	ylabSty.Rotation, ylabSty.XAlign, ylabSty.YAlign = math.Pi/2, draw.XCenter, draw.YBottom
	ylabW := ylabSty.Height("Ay") + vg.Points(ylabPad)
	tiles := draw.Tiles{Rows: 1, Cols: n, PadX: vg.Points(tileGap) + ylabW, PadLeft: ylabW}
	canvases := plot.Align([][]*plot.Plot{plots}, tiles, plotArea)
	for i, p := range plots {
		p.Draw(canvases[0][i])
		tile := tiles.At(plotArea, i, 0)
		left := tile.Min.X - ylabW
		if yl := fig.Panels[i].YLabel; yl != "" {
			data := p.DataCanvas(canvases[0][i])
			dc.FillText(ylabSty, vg.Point{X: left + ylabSty.Height(yl) - ylabSty.FontExtents().Descent, Y: data.Center().Y}, yl)
		}
		blocks[i].draw(&dc, left, tile.Min.Y-vg.Points(plotGap))
	}
	y := vg.Points(margin) + capH
	for _, line := range caption {
		dc.FillText(capSty, vg.Point{X: vg.Points(margin), Y: y - vg.Points(captionRow)/2}, line)
		y -= vg.Points(captionRow)
	}

	var buf bytes.Buffer
	if _, err := img.WriteTo(&buf); err != nil {
		return nil, err
	}
	if format != "svg" {
		return buf.Bytes(), nil
	}
	return bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"), []byte(svgFamily)), nil
}

// drawn is what a series puts on its panel's plot.
type drawn struct {
	s      Series
	pts    plotter.XYs // drawable points
	floor  plotter.XYs // points at 0 or below, drawn at the panel's Floor
	line   *draw.LineStyle
	glyph  *draw.GlyphStyle
	colour color.Color
}

// buildPlot makes pn's plot and its legend's sections.
func buildPlot(pn Panel, colour func(string) color.Color) (*plot.Plot, []section, error) {
	p := plot.New()
	p.Title.Text = wrapTitle(pn.Title)
	p.Title.TextStyle.Font = font.From(sans, vg.Points(titleSize))
	p.Title.TextStyle.Handler = plain
	p.Title.Padding = vg.Points(2)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Tick.Marker = linearTicks{}
		ax.Label.TextStyle.Font = font.From(sans, vg.Points(labelSize))
		ax.Label.TextStyle.Handler = plain
		ax.Tick.Label.Font = font.From(sans, vg.Points(tickSize))
		ax.Tick.Label.Handler = plain
		ax.Tick.Length = vg.Points(6)
	}
	p.X.Label.Text = pn.XLabel // the y label: drawn by render
	floor := pn.LogY && pn.Floor > 0 && !math.IsInf(pn.Floor, 0)

	var series []drawn
	for _, s := range pn.Series {
		d := drawn{s: s, colour: colour(s.Name)}
		for j := range min(len(s.Xs), len(s.Ys)) {
			x, y := s.Xs[j], s.Ys[j]
			if !finite(x) || !finite(y) || (pn.LogX && x <= 0) {
				continue
			}
			if pn.LogY && y <= 0 {
				if floor && s.measured() {
					d.floor = append(d.floor, plotter.XY{X: x, Y: pn.Floor})
				}
				continue
			}
			d.pts = append(d.pts, plotter.XY{X: x, Y: y})
		}
		if len(d.pts) == 0 && len(d.floor) == 0 {
			continue // nothing to draw, nothing to list
		}
		if !s.MarkersOnly {
			d.line = &draw.LineStyle{Color: d.colour, Width: vg.Points(1.5)}
			if s.Dashed {
				d.line.Width = vg.Points(1.1)
				d.line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			}
		}
		if s.marked() {
			d.glyph = &draw.GlyphStyle{Color: d.colour, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		}
		series = append(series, d)
	}

	// The axes' ranges first: a log axis's from the points drawn on it.
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal = draw.LineStyle{Color: color.Gray{Y: 0xdd}, Width: vg.Points(0.5)}
	p.Add(grid)
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, d := range series {
		for _, pts := range []plotter.XYs{d.pts, d.floor} {
			for _, pt := range pts {
				xlo, xhi = min(xlo, pt.X), max(xhi, pt.X)
				ylo, yhi = min(ylo, pt.Y), max(yhi, pt.Y)
			}
		}
	}
	if xlo > xhi { // nothing drawn
		xlo, xhi = 0, 1
		ylo, yhi = 0, 1
		if pn.LogY {
			ylo = 0.1
		}
	}
	p.X.Min, p.X.Max = xlo, xhi
	if pn.LogX && xlo > 0 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
		p.X.Min, p.X.Max = logRange(xlo, xhi)
	}
	if pn.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
		p.Y.Min, p.Y.Max = logRange(ylo, yhi)
	} else {
		p.Y.Min, p.Y.Max = ylo, yhi
	}

	// Floor markers of several series at one x stand side by side.
	atX := map[float64][]int{} // x: the series with a floor marker there
	for i, d := range series {
		for _, pt := range d.floor {
			atX[pt.X] = append(atX[pt.X], i)
		}
	}
	for i, d := range series {
		if d.line != nil && len(d.pts) > 1 {
			l, err := plotter.NewLine(d.pts)
			if err != nil {
				return nil, nil, err
			}
			l.LineStyle = *d.line
			p.Add(l)
		}
		if d.glyph != nil && len(d.pts) > 0 {
			sc, err := plotter.NewScatter(d.pts)
			if err != nil {
				return nil, nil, err
			}
			sc.GlyphStyle = *d.glyph
			p.Add(sc)
		}
		if len(d.floor) > 0 {
			fm := floorMarks{pts: d.floor, sty: floorGlyph(d.colour)}
			for _, pt := range d.floor {
				at := atX[pt.X]
				fm.dx = append(fm.dx, (vg.Length(slices.Index(at, i))-vg.Length(len(at)-1)/2)*vg.Points(floorDodge))
			}
			p.Add(fm)
		}
	}
	return p, legendSections(pn, series), nil
}

// floorDodge is the distance between the floor markers at one x.
const floorDodge = 7

// floorMarks draws a series' points at the floor, each dx[i] to the right of
// its place.
type floorMarks struct {
	pts plotter.XYs
	dx  []vg.Length
	sty draw.GlyphStyle
}

// Plot implements plot.Plotter.
func (f floorMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, pt := range f.pts {
		sty := f.sty
		sty.Shape = downTriangle{dx: f.dx[i]}
		c.DrawGlyph(sty, vg.Point{X: trX(pt.X), Y: trY(pt.Y)})
	}
}

// DataRange implements plot.DataRanger.
func (f floorMarks) DataRange() (xmin, xmax, ymin, ymax float64) { return plotter.XYRange(f.pts) }

// GlyphBoxes implements plot.GlyphBoxer, so that the plot leaves room for
// the markers where they are drawn.
func (f floorMarks) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	boxes := make([]plot.GlyphBox, len(f.pts))
	r := f.sty.Radius
	for i, pt := range f.pts {
		boxes[i] = plot.GlyphBox{X: p.X.Norm(pt.X), Y: p.Y.Norm(pt.Y),
			Rectangle: vg.Rectangle{Min: vg.Point{X: f.dx[i] - r, Y: -r}, Max: vg.Point{X: f.dx[i] + r, Y: r}}}
	}
	return boxes
}

func floorGlyph(c color.Color) draw.GlyphStyle {
	return draw.GlyphStyle{Color: c, Radius: vg.Points(3.5), Shape: downTriangle{}}
}

// legendSections lists the legend of a panel's drawn series: the series
// (or the variants by colour, with the key of the line styles), then the
// floor marker's entry.
func legendSections(pn Panel, series []drawn) []section {
	var dashed, measured, linked bool
	for _, d := range series {
		dashed = dashed || d.s.Dashed
		if d.s.measured() && d.s.marked() {
			measured = true
			linked = linked || !d.s.MarkersOnly
		}
	}
	var named, keys []entry
	index := map[string]int{} // legend name: its entry in named
	if dashed && measured {
		// Each variant once, by colour; the key tells measured from theory.
		for _, d := range series {
			name := d.s.Legend
			if name == "" {
				name = strings.TrimSuffix(d.s.Name, " formula")
			}
			if _, ok := index[name]; ok {
				continue
			}
			index[name] = len(named)
			named = append(named, entry{label: name, thumbW: vg.Points(swatchSize), thumb: swatch(d.colour)})
		}
		m := entry{label: "measured", thumbW: vg.Points(lineThumb)}
		dot := &draw.GlyphStyle{Color: grey, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		if linked {
			m.thumb = lineThumbnail(&draw.LineStyle{Color: grey, Width: vg.Points(1.5)}, dot)
		} else {
			m.thumb = lineThumbnail(nil, dot)
		}
		f := entry{label: "formula (theory)", thumbW: vg.Points(lineThumb),
			thumb: lineThumbnail(&draw.LineStyle{Color: grey, Width: vg.Points(1.1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}, nil)}
		keys = append(keys, m, f)
	} else {
		// One entry a series, or a Legend: its lines and markers.
		type look struct {
			line  *draw.LineStyle
			glyph *draw.GlyphStyle
		}
		var looks [][]look
		for _, d := range series {
			name := d.s.Legend
			if name == "" {
				name = d.s.Name + "\x00" // one entry a series, though two share a Name
			}
			i, ok := index[name]
			if !ok {
				i = len(named)
				index[name] = i
				named = append(named, entry{label: strings.TrimSuffix(name, "\x00"), thumbW: vg.Points(lineThumb)})
				looks = append(looks, nil)
			}
			looks[i] = append(looks[i], look{d.line, d.glyph})
		}
		for i := range named {
			ls := looks[i]
			named[i].thumb = func(c *draw.Canvas, x, y vg.Length) {
				for _, l := range ls {
					lineThumbnail(l.line, l.glyph)(c, x, y)
				}
			}
		}
	}
	for _, d := range series {
		if len(d.floor) > 0 {
			label := pn.FloorLabel
			if label == "" {
				label = "measured 0, drawn at " + numberLabel(pn.Floor)
			}
			g := floorGlyph(grey)
			keys = append(keys, entry{label: label, thumbW: vg.Points(lineThumb), thumb: lineThumbnail(nil, &g)})
			break
		}
	}
	return []section{{entries: named}, {entries: keys, flow: true}}
}

// logRange is the range of a log axis showing lo to hi (both above 0),
// with a margin of 4% of its decades either side.
func logRange(lo, hi float64) (float64, float64) {
	a, b := math.Log10(lo), math.Log10(hi)
	if b-a < 1e-9 {
		a, b = a-0.5, b+0.5
	}
	pad := 0.04 * (b - a)
	a, b = max(a-pad, -maxDecade), min(b+pad, maxDecade)
	return math.Pow(10, a), math.Pow(10, b)
}

// wrapTitle breaks a title too wide for its panel into lines.
func wrapTitle(title string) string {
	if title == "" {
		return ""
	}
	return strings.Join(wrap(textStyle(titleSize, color.Black), title, vg.Points(tileW-2*margin)), "\n")
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
