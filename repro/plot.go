package repro

import (
	"image/color"

	"github.com/acbfjoin/acbfjoin/internal/svgplot"
)

type (
	series = svgplot.Series
	panel  = svgplot.Panel
)

// palette: one colour per variant, as the paper distinguishes its series.
var palette = map[string]color.RGBA{
	"CBF":      {R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	"ACBF_1":   {R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	"ACBF_2":   {R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	"ACBF_3":   {R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	"ACBF_opt": {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	"Bloom":    {R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
	layoutWord: {R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	layoutBit:  {R: 0xe3, G: 0x77, B: 0xc2, A: 0xff},
}

func colour(name string) color.Color {
	for k, c := range palette {
		if len(name) >= len(k) && name[:len(k)] == k && (len(name) == len(k) || name[len(k)] == ' ') {
			return c
		}
	}
	return color.Black
}

// writeSVG draws the panels side by side into one SVG file, with a caption
// under them.
func writeSVG(path string, panels []panel, caption string) error {
	return svgplot.WriteFigure(path, svgplot.Figure{Panels: panels, Caption: caption}, colour)
}

// identicalNote is the note of every panel where ACBF_1 hides under the CBF.
const identicalNote = "ACBF_1 equals the CBF (same positions, same counters): its line lies under the CBF's."
