package svgplot

import (
	"image/color"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The figures' text is Liberation Sans, measured with gonum's copy of it.
// The SVG names it with fallbacks of the same widths (Arial, Helvetica);
// a viewer with neither substitutes another sans-serif, DejaVu Sans being
// up to widthSlack times wider, and the layout leaves room for that.
var (
	sans  = font.Font{Typeface: "Liberation", Variant: "Sans"}
	plain = text.Plain{Fonts: font.DefaultCache}
)

const (
	widthSlack = 1.15
	// svgFamily replaces the SVG's font-family of Liberation Sans.
	svgFamily = `font-family:'Liberation Sans',Arial,Helvetica,sans-serif;`
)

// Text sizes and line heights, in points.
const (
	titleSize   = 11
	labelSize   = 10
	tickSize    = 9
	legendSize  = 9
	legendRow   = 13
	noteSize    = 8.5
	noteRow     = 11
	captionSize = 9.5
	captionRow  = 12.5
)

var (
	grey     = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
	noteGrey = color.RGBA{R: 0x33, G: 0x33, B: 0x33, A: 0xff}
)

func textStyle(size float64, c color.Color) text.Style {
	return text.Style{Color: c, Font: font.From(sans, vg.Points(size)), Handler: plain, XAlign: draw.XLeft, YAlign: draw.YCenter}
}

// textWidth is the width s may take in the SVG, whichever font shows it.
func textWidth(sty text.Style, s string) vg.Length { return sty.Width(s) * widthSlack }

// wrap breaks s into lines no wider than w (textWidth), at spaces where it
// can, inside a word longer than a line where it must; "\n" breaks a line.
func wrap(sty text.Style, s string, w vg.Length) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			try := word
			if line != "" {
				try = line + " " + word
			}
			if textWidth(sty, try) <= w {
				line = try
				continue
			}
			if line != "" {
				lines = append(lines, line)
			}
			// A word wider than a line: cut it where it overflows.
			for textWidth(sty, word) > w && utf8.RuneCountInString(word) > 1 {
				rs := []rune(word)
				n := len(rs) - 1
				for n > 1 && textWidth(sty, string(rs[:n])) > w {
					n--
				}
				lines = append(lines, string(rs[:n]))
				word = string(rs[n:])
			}
			line = word
		}
		lines = append(lines, line)
	}
	return lines
}

// entry is one legend entry: a thumbnail drawn in thumbW beside its label.
type entry struct {
	label  string
	thumbW vg.Length
	thumb  func(c *draw.Canvas, x, y vg.Length) // x: the left edge, y: the middle
}

const (
	lineThumb  = 28 // the width of a line's thumbnail, in points
	swatchSize = 9  // a colour swatch's side
	thumbGap   = 4  // between a thumbnail and its label
	colGap     = 16 // between legend columns
	sectionGap = 3  // between the legend's sections
	notesGap   = 5  // between the legend and the notes
)

func (e entry) width(sty text.Style) vg.Length {
	return e.thumbW + vg.Points(thumbGap) + textWidth(sty, e.label)
}

// block is what a panel shows under its plot: its legend, in sections,
// then its notes.
type block struct {
	sections []placed
	notes    []string // wrapped
	height   vg.Length
}

// placed is a legend section laid out: each entry's row and left edge.
type placed struct {
	entries []entry
	row     []int
	x       []vg.Length
	rows    int
}

// section is a part of a legend: entries in a grid, or one after another
// (flow) like the key of the line styles.
type section struct {
	entries []entry
	flow    bool
}

// layoutBlock fits the legend sections and notes into width w.
func layoutBlock(sections []section, notes []string, w vg.Length) block {
	legendSty, noteSty := textStyle(legendSize, color.Black), textStyle(noteSize, noteGrey)
	b := block{}
	for _, sec := range sections {
		if len(sec.entries) == 0 {
			continue
		}
		if b.height > 0 {
			b.height += vg.Points(sectionGap)
		}
		// A grid aligns the entries in columns; where it takes more rows
		// than filling each row in turn (long names), the rows are filled.
		pl := flow(sec.entries, legendSty, w)
		if g := grid(sec.entries, legendSty, w); !sec.flow && g.rows <= pl.rows {
			pl = g
		}
		b.sections = append(b.sections, pl)
		b.height += vg.Length(pl.rows) * vg.Points(legendRow)
	}
	for _, n := range notes {
		b.notes = append(b.notes, wrap(noteSty, n, w)...)
	}
	if len(b.notes) > 0 {
		if b.height > 0 {
			b.height += vg.Points(notesGap)
		}
		b.height += vg.Length(len(b.notes)) * vg.Points(noteRow)
	}
	return b
}

// grid places the entries row by row in the most columns that fit in w
// (one at least), each column as wide as its widest entry.
func grid(sec []entry, sty text.Style, w vg.Length) placed {
	n := len(sec)
	var cols []vg.Length
	for ; n >= 1; n-- {
		cols = make([]vg.Length, n)
		for i, e := range sec {
			cols[i%n] = max(cols[i%n], e.width(sty))
		}
		total := vg.Length(n-1) * vg.Points(colGap)
		for _, c := range cols {
			total += c
		}
		if total <= w {
			break
		}
	}
	n = max(n, 1)
	pl := placed{entries: sec, rows: (len(sec) + n - 1) / n}
	for i := range sec {
		x := vg.Length(0)
		for _, cw := range cols[:i%n] {
			x += cw + vg.Points(colGap)
		}
		pl.row, pl.x = append(pl.row, i/n), append(pl.x, x)
	}
	return pl
}

// flow places the entries one after another, starting a new row where the
// next would pass w.
func flow(sec []entry, sty text.Style, w vg.Length) placed {
	pl := placed{entries: sec, rows: 1}
	x := vg.Length(0)
	for _, e := range sec {
		ew := e.width(sty)
		if x > 0 && x+ew > w {
			pl.rows++
			x = 0
		}
		pl.row, pl.x = append(pl.row, pl.rows-1), append(pl.x, x)
		x += ew + vg.Points(colGap)
	}
	return pl
}

// draw draws the block with its top left corner at (x, top).
func (b block) draw(c *draw.Canvas, x, top vg.Length) {
	legendSty, noteSty := textStyle(legendSize, color.Black), textStyle(noteSize, noteGrey)
	y := top
	for s, pl := range b.sections {
		if s > 0 {
			y -= vg.Points(sectionGap)
		}
		for i, e := range pl.entries {
			ex := x + pl.x[i]
			ey := y - (vg.Length(pl.row[i])+0.5)*vg.Points(legendRow)
			e.thumb(c, ex, ey)
			c.FillText(legendSty, vg.Point{X: ex + e.thumbW + vg.Points(thumbGap), Y: ey}, e.label)
		}
		y -= vg.Length(pl.rows) * vg.Points(legendRow)
	}
	if len(b.notes) > 0 && y != top {
		y -= vg.Points(notesGap)
	}
	for _, line := range b.notes {
		c.FillText(noteSty, vg.Point{X: x, Y: y - vg.Points(noteRow)/2}, line)
		y -= vg.Points(noteRow)
	}
}

// Thumbnails.

// lineThumbnail draws a line's thumbnail: its line (if any) and its glyph
// (if any) in the middle.
func lineThumbnail(line *draw.LineStyle, glyph *draw.GlyphStyle) func(c *draw.Canvas, x, y vg.Length) {
	return func(c *draw.Canvas, x, y vg.Length) {
		if line != nil {
			c.StrokeLine2(*line, x, y, x+vg.Points(lineThumb), y)
		}
		if glyph != nil {
			c.DrawGlyphNoClip(*glyph, vg.Point{X: x + vg.Points(lineThumb)/2, Y: y})
		}
	}
}

// swatch draws a filled square of colour col.
func swatch(col color.Color) func(c *draw.Canvas, x, y vg.Length) {
	return func(c *draw.Canvas, x, y vg.Length) {
		h := vg.Points(swatchSize) / 2
		c.FillPolygon(col, []vg.Point{{X: x, Y: y - h}, {X: x + 2*h, Y: y - h}, {X: x + 2*h, Y: y + h}, {X: x, Y: y + h}})
	}
}

// downTriangle is a hollow triangle pointing down: a point drawn at a
// panel's Floor, the measured value being below the axis (0). It is drawn
// dx right of its point, so that the markers of several series at one x
// stand side by side.
type downTriangle struct{ dx vg.Length }

// DrawGlyph implements draw.GlyphDrawer.
func (g downTriangle) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.1)})
	r := sty.Radius
	pt.X += g.dx
	p := make(vg.Path, 0, 4)
	p.Move(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r*0.95, Y: pt.Y + r*0.7})
	p.Line(vg.Point{X: pt.X + r*0.95, Y: pt.Y + r*0.7})
	p.Close()
	c.Stroke(p)
}
