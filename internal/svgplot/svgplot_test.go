package svgplot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// svgText is one <text> element of an SVG: its content, where it starts in
// the image (y down from the top) and whether it is rotated.
type svgText struct {
	text    string
	x, y    float64
	size    float64
	rotated bool
}

// svgDoc is what the tests read of an SVG.
type svgDoc struct {
	width, height float64
	texts         []svgText
	paths         []svgPath
}

type svgPath struct{ d, style string }

// parseSVG reads the SVG to its end with encoding/xml, failing the test if
// it is not well-formed XML.
func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	var doc svgDoc
	dec := xml.NewDecoder(bytes.NewReader(b))
	var stack []bool // per open element: whether it rotates
	var cur *svgText
	sawSVG := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range tok.Attr {
				attr[a.Name.Local] = a.Value
			}
			rot := strings.Contains(attr["transform"], "rotate")
			stack = append(stack, rot)
			switch tok.Name.Local {
			case "svg":
				sawSVG = true
				doc.width, _ = strconv.ParseFloat(strings.TrimSuffix(attr["width"], "pt"), 64)
				doc.height, _ = strconv.ParseFloat(strings.TrimSuffix(attr["height"], "pt"), 64)
			case "text":
				x, _ := strconv.ParseFloat(attr["x"], 64)
				y, _ := strconv.ParseFloat(attr["y"], 64)
				size := 0.0
				if m := regexp.MustCompile(`font-size:([0-9.]+)px`).FindStringSubmatch(attr["style"]); m != nil {
					size, _ = strconv.ParseFloat(m[1], 64)
				}
				// A text at y="-Y" under scale(1,-1) inside the figure's
				// flipping group lies at Y points from the bottom.
				cur = &svgText{x: x, y: doc.height + y, size: size, rotated: slices.Contains(stack, true)}
			case "path":
				doc.paths = append(doc.paths, svgPath{d: attr["d"], style: attr["style"]})
			}
		case xml.CharData:
			if cur != nil {
				cur.text += string(tok)
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
			if tok.Name.Local == "text" && cur != nil {
				doc.texts = append(doc.texts, *cur)
				cur = nil
			}
		}
	}
	if !sawSVG {
		t.Fatal("no <svg> element")
	}
	return doc
}

func (d svgDoc) has(s string) bool { return d.count(s) > 0 }

func (d svgDoc) count(s string) int {
	n := 0
	for _, tx := range d.texts {
		if tx.text == s {
			n++
		}
	}
	return n
}

func (d svgDoc) find(s string) (svgText, bool) {
	for _, tx := range d.texts {
		if tx.text == s {
			return tx, true
		}
	}
	return svgText{}, false
}

// allText is every text element's content, joined by spaces.
func (d svgDoc) allText() string {
	var parts []string
	for _, tx := range d.texts {
		parts = append(parts, tx.text)
	}
	return strings.Join(parts, " ")
}

var testPalette = map[string]color.RGBA{
	"CBF":      {R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	"ACBF_1":   {R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	"ACBF_2":   {R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	"ACBF_3":   {R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	"ACBF_opt": {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	"Bloom":    {R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
	"ACBF_opt, paper's layout, word popcount": {R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	"ACBF_opt, paper's layout, bit by bit":    {R: 0xe3, G: 0x77, B: 0xc2, A: 0xff},
}

// testColour colours a series by its name's longest palette prefix.
func testColour(name string) color.Color {
	best, c := -1, color.Color(color.Black)
	for k, v := range testPalette {
		if strings.HasPrefix(name, k) && len(k) > best {
			best, c = len(k), v
		}
	}
	return c
}

func renderDoc(t *testing.T, fig Figure) svgDoc {
	t.Helper()
	b, err := render(fig, testColour, "svg")
	if err != nil {
		t.Fatal(err)
	}
	return parseSVG(t, b)
}

func TestWriteFileValidXML(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.svg")
	if err := Write(path, examplePanels()["fig5"].Panels, testColour); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("<?xml")) || !bytes.Contains(b[:200], []byte("<svg")) {
		t.Fatalf("not an SVG file: %.200q", b)
	}
	doc := parseSVG(t, b)
	if doc.width <= 0 || doc.height <= 0 || len(doc.texts) == 0 || len(doc.paths) == 0 {
		t.Fatalf("empty SVG: %gx%g, %d texts, %d paths", doc.width, doc.height, len(doc.texts), len(doc.paths))
	}
	if bytes.Contains(b, []byte("font-family:Liberation Sans;")) || !bytes.Contains(b, []byte(svgFamily)) {
		t.Error("text does not name its fallback fonts")
	}
	if err := Write(path, nil, testColour); err == nil {
		t.Error("Write of no panels: want an error")
	}
}

// TestLogDecadeLabels: a panel spanning 1e-9 to 1 labels each decade.
func TestLogDecadeLabels(t *testing.T) {
	s := Series{Name: "CBF", Points: true}
	for e := -9; e <= 0; e++ {
		s.Xs = append(s.Xs, float64(e))
		s.Ys = append(s.Ys, math.Pow(10, float64(e)))
	}
	doc := renderDoc(t, Figure{Panels: []Panel{{Title: "t", LogY: true, Series: []Series{s}}}})
	for _, want := range []string{"1e-09", "1e-08", "1e-07", "1e-06", "1e-05", "1e-04", "0.001", "0.01", "0.1", "1"} {
		if !doc.has(want) {
			t.Errorf("no tick label %q; texts: %s", want, doc.allText())
		}
	}
	for _, bad := range []string{"2e-05", "5e-05", "1e-4"} {
		if doc.has(bad) {
			t.Errorf("tick label %q on a 9-decade axis", bad)
		}
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) (major []string, minor int) {
		for _, tk := range (logTicks{}).Ticks(lo, hi) {
			if tk.Value < lo || tk.Value > hi {
				t.Errorf("[%g, %g]: tick %g out of range", lo, hi, tk.Value)
			}
			if tk.Label == "" {
				minor++
			} else {
				major = append(major, tk.Label)
			}
		}
		return major, minor
	}
	for _, c := range []struct {
		lo, hi float64
		want   []string
		minor  int
	}{
		{0.9e-12, 1.1, []string{"1e-12", "1e-11", "1e-10", "1e-09", "1e-08", "1e-07", "1e-06", "1e-05", "1e-04", "0.001", "0.01", "0.1", "1"}, 1 + 12*8}, // 9e-13
		{40, 5e6, []string{"100", "1000", "1e+04", "1e+05", "1e+06"}, 6 + 4*8 + 4},                                                                       // 40..90; 2e6..5e6
		{30, 2500, []string{"50", "100", "200", "500", "1000", "2000"}, 6 + 6},                                                                           // 30, 40, 60..90; 300, 400, 600..900
		{180, 950, []string{"200", "300", "400", "500", "600", "700", "800", "900"}, 0},
	} {
		major, minor := labels(c.lo, c.hi)
		if !slices.Equal(major, c.want) {
			t.Errorf("[%g, %g]: labels %q, want %q", c.lo, c.hi, major, c.want)
		}
		if c.minor >= 0 && minor != c.minor {
			t.Errorf("[%g, %g]: %d minor ticks, want %d", c.lo, c.hi, minor, c.minor)
		}
	}
	// Fewer than two multiples of a power of ten: evenly spaced labels.
	if major, _ := labels(310, 390); len(major) < 2 {
		t.Errorf("[310, 390]: labels %q, want two or more", major)
	}
	if tk := (logTicks{}).Ticks(0, 1); tk != nil {
		t.Errorf("ticks of a log range from 0: %v", tk)
	}
}

// triangles returns the closed three-point paths stroked in colour c (the
// floor markers), each its apex's y and the other corners' (y up).
func triangles(doc svgDoc, c color.RGBA) [][2]float64 {
	re := regexp.MustCompile(`^M([-0-9.e]+),([-0-9.e]+)L([-0-9.e]+),([-0-9.e]+)L([-0-9.e]+),([-0-9.e]+)Z$`)
	hex := fmt.Sprintf("stroke:#%02X%02X%02X", c.R, c.G, c.B)
	var out [][2]float64
	for _, p := range doc.paths {
		m := re.FindStringSubmatch(p.d)
		if m == nil || !strings.Contains(p.style, hex) {
			continue
		}
		y0, _ := strconv.ParseFloat(m[2], 64)
		y1, _ := strconv.ParseFloat(m[4], 64)
		out = append(out, [2]float64{y0, y1})
	}
	return out
}

func TestFloor(t *testing.T) {
	fp := Series{Name: "ACBF_opt", Points: true, Xs: []float64{2, 4, 6, 8}, Ys: []float64{1e-2, 1e-4, 0, 0}}
	formula := Series{Name: "ACBF_opt formula", Dashed: true, Xs: fp.Xs, Ys: []float64{1e-2, 1e-4, 1e-6, 1e-9}}
	label := "no FP in 10^7 queries: drawn at 1/queries"
	pn := Panel{Title: "fp", LogY: true, Series: []Series{fp, formula}}

	without := renderDoc(t, Figure{Panels: []Panel{pn}})
	if n := len(triangles(without, testPalette["ACBF_opt"])); n != 0 {
		t.Errorf("no Floor: %d floor markers, want 0", n)
	}
	if without.has(label) {
		t.Error("no Floor: the floor's legend entry is there")
	}

	pn.Floor, pn.FloorLabel = 1e-10, label
	doc := renderDoc(t, Figure{Panels: []Panel{pn}})
	tri := triangles(doc, testPalette["ACBF_opt"])
	if len(tri) != 2 {
		t.Fatalf("%d floor markers in the series' colour, want 2 (one a zero point)", len(tri))
	}
	for _, tr := range tri {
		if tr[0] >= tr[1] {
			t.Errorf("floor marker points up: apex y %g, base y %g", tr[0], tr[1])
		}
	}
	if !doc.has(label) {
		t.Errorf("no floor legend label %q; texts: %s", label, doc.allText())
	}
	if n := len(triangles(doc, grey)); n != 1 {
		t.Errorf("%d grey triangles (the legend's floor entry), want 1", n)
	}
	// The axis reaches the floor: 1e-10 is labelled.
	if !doc.has("1e-10") {
		t.Errorf("axis does not reach the floor 1e-10; texts: %s", doc.allText())
	}
	// The default label.
	pn.FloorLabel = ""
	if doc := renderDoc(t, Figure{Panels: []Panel{pn}}); !doc.has("measured 0, drawn at 1e-10") {
		t.Errorf("no default floor label; texts: %s", doc.allText())
	}
	// A formula's zero is not a measurement: no marker.
	pn.Series = []Series{{Name: "CBF formula", Dashed: true, Xs: []float64{1, 2}, Ys: []float64{1e-3, 0}}}
	if n := len(triangles(renderDoc(t, Figure{Panels: []Panel{pn}}), testPalette["CBF"])); n != 0 {
		t.Errorf("a dashed series' zero drew %d floor markers", n)
	}
}

func TestNotesAndCaption(t *testing.T) {
	note := "CBF and ACBF_1 are identical: ACBF_1's line lies under the CBF's"
	caption := strings.Repeat("Quick mode: 200,000 queries a trial, so rates below 2.5e-06 read 0. ", 8)
	fig := examplePanels()["fig5"]
	fig.Panels[0].Notes = []string{note, "second note"}
	fig.Caption = caption
	doc := renderDoc(t, fig)
	if !doc.has(note) || !doc.has("second note") {
		t.Errorf("notes missing; texts: %s", doc.allText())
	}
	// The caption is wrapped: several lines that make up its words.
	nt, _ := doc.find(note)
	var capLines []svgText
	for _, tx := range doc.texts {
		if tx.y > nt.y && strings.Contains(caption, tx.text) {
			capLines = append(capLines, tx)
		}
	}
	if len(capLines) < 2 {
		t.Fatalf("caption in %d lines, want it wrapped; texts: %s", len(capLines), doc.allText())
	}
	var words []string
	for _, l := range capLines {
		words = append(words, strings.Fields(l.text)...)
	}
	if !slices.Equal(words, strings.Fields(caption)) {
		t.Errorf("caption lines hold %q, want %q", words, strings.Fields(caption))
	}
	// Under everything: below the other texts.
	for _, tx := range doc.texts {
		if !tx.rotated && !strings.Contains(caption, tx.text) && tx.y >= capLines[0].y {
			t.Errorf("%q at y %g, under the caption's first line (y %g)", tx.text, tx.y, capLines[0].y)
		}
	}
}

// TestLegendOutside: the legend lies under the plot, below the x axis label.
func TestLegendOutside(t *testing.T) {
	fig := examplePanels()["fig5"]
	doc := renderDoc(t, fig)
	xl, ok := doc.find(fig.Panels[0].XLabel)
	if !ok {
		t.Fatal("no x label")
	}
	for _, name := range []string{"CBF", "ACBF_1", "ACBF_2", "ACBF_3", "ACBF_opt", "measured", "formula (theory)"} {
		// Each variant is listed once a panel, by colour.
		if n := doc.count(name); n != len(fig.Panels) {
			t.Errorf("%q in %d legend entries, want %d (one a panel)", name, n, len(fig.Panels))
		}
		tx, _ := doc.find(name)
		if tx.y <= xl.y {
			t.Errorf("legend entry %q at y %g, not under the x label at %g", name, tx.y, xl.y)
		}
	}
	if doc.has("ACBF_opt formula") {
		t.Error("the formula series has its own entry beside the key")
	}
}

// TestNothingClipped: every text lies inside the image, measured in the
// font the layout uses.
func TestNothingClipped(t *testing.T) {
	testutil.SkipUnderRace(t)
	for name, fig := range examplePanels() {
		fig.Panels[0].Notes = []string{"a note long enough to need wrapping: " + strings.Repeat("words and more words ", 12)}
		fig.Caption = strings.Repeat("A caption, long. ", 30)
		doc := renderDoc(t, fig)
		for _, tx := range doc.texts {
			if tx.rotated {
				continue
			}
			face := font.DefaultCache.Lookup(font.From(sans, vg.Points(tx.size)), vg.Points(tx.size))
			w := face.Width(tx.text).Points()
			if tx.x < 0 || tx.x+w > doc.width || tx.y-tx.size < 0 || tx.y > doc.height {
				t.Errorf("%s: %q at (%g, %g), %g wide, outside the %gx%g image", name, tx.text, tx.x, tx.y, w, doc.width, doc.height)
			}
		}
	}
}

func TestNaNAndEmpty(t *testing.T) {
	nan := math.NaN()
	for name, pn := range map[string]Panel{
		"nan":       {LogY: true, Series: []Series{{Name: "CBF", Points: true, Xs: []float64{1, 2, 3, nan}, Ys: []float64{nan, 1e-3, 1e-4, 1}}}},
		"all nan":   {LogY: true, Series: []Series{{Name: "CBF", Xs: []float64{1, 2}, Ys: []float64{nan, nan}}}},
		"empty":     {Series: []Series{{Name: "CBF"}, {Name: "ACBF_1", Dashed: true}}},
		"none":      {Title: "no series", LogY: true},
		"zeros":     {LogY: true, Series: []Series{{Name: "CBF", Points: true, Xs: []float64{1, 2}, Ys: []float64{0, 0}}}},
		"floor":     {LogY: true, Floor: 1e-7, Series: []Series{{Name: "CBF", Points: true, Xs: []float64{1, 2}, Ys: []float64{0, 0}}}},
		"one point": {LogY: true, Series: []Series{{Name: "CBF", Points: true, Xs: []float64{1}, Ys: []float64{1e-3}}}},
		"short Ys":  {Series: []Series{{Name: "CBF", Xs: []float64{1, 2, 3}, Ys: []float64{1}}}},
		"inf":       {Series: []Series{{Name: "CBF", Xs: []float64{1, 2, math.Inf(1)}, Ys: []float64{1, math.Inf(-1), 3}}}},
		"linear":    {Series: []Series{{Name: "CBF", Points: true, Xs: []float64{1, 2}, Ys: []float64{5, 5}}}},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.svg")
			if err := WriteFigure(path, Figure{Panels: []Panel{pn, pn}, Caption: "c"}, testColour); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			doc := parseSVG(t, b)
			if strings.Contains(string(b), "NaN") {
				t.Error("NaN in the SVG")
			}
			if name == "empty" && (doc.has("CBF") || doc.has("ACBF_1")) {
				t.Error("an empty series is listed in the legend")
			}
			if name == "floor" && len(triangles(doc, testPalette["CBF"])) != 4 {
				t.Error("an all-zero series with a Floor: want its two floor markers a panel")
			}
		})
	}
}

// TestLegendGroups: series of one Legend share an entry; without the key a
// dashed series is listed with its dashes.
func TestLegendGroups(t *testing.T) {
	pn := Panel{LogY: true, Series: []Series{
		{Name: "cbf formula", Dashed: true, Legend: "cbf = acbf1", Xs: []float64{1, 2}, Ys: []float64{1e-2, 1e-3}},
		{Name: "cbf", MarkersOnly: true, Legend: "cbf = acbf1", Xs: []float64{1, 2}, Ys: []float64{1e-2, 1e-3}},
		{Name: "bloom formula", Dashed: true, Legend: "bloom", Xs: []float64{1, 2}, Ys: []float64{1e-3, 1e-4}},
		{Name: "bloom", MarkersOnly: true, Legend: "bloom", Xs: []float64{1, 2}, Ys: []float64{1e-3, 1e-4}},
	}}
	doc := renderDoc(t, Figure{Panels: []Panel{pn}})
	for _, want := range []string{"cbf = acbf1", "bloom", "measured", "formula (theory)"} {
		if doc.count(want) != 1 {
			t.Errorf("%q in %d entries, want 1; texts: %s", want, doc.count(want), doc.allText())
		}
	}
	theory := examplePanels()["fig4"]
	doc = renderDoc(t, theory)
	if doc.has("measured") || doc.count("Bloom (4m bits, no deletion)") != 2 {
		t.Errorf("a theory figure: want each series listed, no key; texts: %s", doc.allText())
	}
}

// TestExamples writes the example figures into $SVGPLOT_EXAMPLES (to look
// at; a temporary folder if unset).
func TestExamples(t *testing.T) {
	dir := os.Getenv("SVGPLOT_EXAMPLES")
	if dir == "" {
		dir = t.TempDir()
	}
	for name, fig := range examplePanels() {
		if err := WriteFigure(filepath.Join(dir, name+".svg"), fig, testColour); err != nil {
			t.Fatal(err)
		}
	}
}

// examplePanels are figures resembling the paper's reproduced ones.
func examplePanels() map[string]Figure {
	variants := []string{"CBF", "ACBF_1", "ACBF_2", "ACBF_3", "ACBF_opt"}
	const queries = 1e7
	kOf := func(mode string, mn int) int {
		if mode == "3" {
			return 3
		}
		return max(1, int(math.Round(float64(mn)*math.Ln2)))
	}
	fpp := func(v string, mn, k int) float64 {
		m, n := float64(mn), 1.0
		var m1 float64
		switch v {
		case "CBF", "ACBF_1":
			m1 = m
		case "ACBF_2", "ACBF_3":
			j := float64(v[5] - '0')
			if float64(k)*n > (4-j)*m {
				return math.NaN()
			}
			m1 = j * m
		case "ACBF_opt":
			if float64(k)*n >= 4*m {
				return math.NaN()
			}
			m1 = 4*m - n*float64(k)
		case "Bloom":
			m1 = 4 * m
		}
		return math.Pow(1-math.Exp(-float64(k)*n/m1), float64(k))
	}
	title := map[string]string{"3": "k = 3", "opt": "k = round((m/n) ln 2)"}
	figs := map[string]Figure{}
	var fig4, fig5, fig7 Figure
	for _, mode := range []string{"3", "opt"} {
		p4 := Panel{Title: "Fig. 4, theory, " + title[mode], XLabel: "m/n (CBF counters per element)", YLabel: "false positive rate", LogY: true}
		p5 := Panel{Title: "Fig. 5, simulated FP, " + title[mode], XLabel: p4.XLabel, YLabel: p4.YLabel, LogY: true,
			Floor: 1 / queries, FloorLabel: "no FP in 10^7 queries: drawn at 1/queries"}
		p7 := Panel{Title: "Fig. 7, update time, " + title[mode], XLabel: p4.XLabel, YLabel: "ns per operation", LogY: true}
		for vi, v := range append(variants, "Bloom") {
			name := v
			if v == "Bloom" {
				name = "Bloom (4m bits, no deletion)"
			}
			s4 := Series{Name: name, Dashed: v == "Bloom"}
			meas := Series{Name: v, Points: true}
			form := Series{Name: v + " formula", Dashed: true}
			upd := Series{Name: v, Points: true}
			for mn := 2; mn <= 20; mn++ {
				k := kOf(mode, mn)
				f := fpp(v, mn, k)
				x := float64(mn)
				s4.Xs, s4.Ys = append(s4.Xs, x), append(s4.Ys, f)
				if v == "Bloom" || math.IsNaN(f) {
					continue
				}
				// Measured: the formula with some noise, 0 below 1/queries.
				got := math.Round(f*queries*(1+0.08*math.Sin(float64(mn*7+vi)))) / queries
				meas.Xs, meas.Ys = append(meas.Xs, x), append(meas.Ys, got)
				form.Xs, form.Ys = append(form.Xs, x), append(form.Ys, f)
				ns := 60 + 8*math.Sin(float64(mn))
				if v != "CBF" {
					ns = 300*float64(k)/3 + 40*float64(vi) + 30*math.Cos(float64(mn+vi))
				}
				upd.Xs, upd.Ys = append(upd.Xs, x), append(upd.Ys, ns)
			}
			p4.Series = append(p4.Series, s4)
			if v != "Bloom" {
				p5.Series = append(p5.Series, meas, form)
				p7.Series = append(p7.Series, upd)
			}
		}
		for i, l := range []string{"ACBF_opt, paper's layout, word popcount", "ACBF_opt, paper's layout, bit by bit"} {
			s := Series{Name: l, Points: true}
			for _, mn := range []int{2, 8, 14, 20} {
				s.Xs = append(s.Xs, float64(mn))
				s.Ys = append(s.Ys, 5e4*math.Pow(float64(mn), 1.2)*math.Pow(2, float64(i)))
			}
			p7.Series = append(p7.Series, s)
		}
		fig4.Panels = append(fig4.Panels, p4)
		fig5.Panels = append(fig5.Panels, p5)
		fig7.Panels = append(fig7.Panels, p7)
	}
	fig5.Panels[1].Notes = []string{"CBF and ACBF_1 are identical: ACBF_1's line lies under the CBF's"}
	fig5.Caption = "Quick mode: 20,000 elements, 200,000 non-member queries a trial, 2 trials; a measured rate below 1/400,000 = 2.5e-06 reads 0, and the times are of one goroutine on a shared machine, so compare variants within one run only."
	figs["fig4"], figs["fig5"], figs["fig7"] = fig4, fig5, fig7
	// A single panel as repro/evaluate draws it: markers only, a Legend
	// a kind, measured and formula.
	sweep := Panel{Title: "false positive rate by bits per key", XLabel: "bits per key (memory / keys)", YLabel: "false positive rate", LogY: true, Floor: 1e-6}
	for i, k := range []string{"bloom", "cbf = acbf1", "acbf"} {
		meas := Series{Name: k, MarkersOnly: true, Legend: k}
		form := Series{Name: k + " formula", Dashed: true, Legend: k}
		for bits := 4.0; bits <= 32; bits += 4 {
			f := math.Pow(0.6185, bits/float64(i+1))
			form.Xs, form.Ys = append(form.Xs, bits), append(form.Ys, f)
			meas.Xs, meas.Ys = append(meas.Xs, bits), append(meas.Ys, math.Round(f*1e6)/1e6)
		}
		sweep.Series = append(sweep.Series, form, meas)
	}
	figs["sweep"] = Figure{Panels: []Panel{sweep}}
	// A time panel spanning under two decades, linear and log.
	narrow := Panel{Title: "Fig. 6, query time", XLabel: "m/n", YLabel: "ns per query", LogY: true}
	lin := narrow
	lin.LogY = false
	for vi, v := range variants {
		s := Series{Name: v, Points: true}
		for mn := 2; mn <= 20; mn += 2 {
			s.Xs = append(s.Xs, float64(mn))
			s.Ys = append(s.Ys, 40+float64(vi)*30+float64(mn)*8)
		}
		narrow.Series = append(narrow.Series, s)
		lin.Series = append(lin.Series, s)
	}
	figs["fig6"] = Figure{Panels: []Panel{narrow, lin}}
	return figs
}

// TestFormats: the extension names the image's format (a PNG named .png
// held SVG before); anything else is SVG.
func TestFormats(t *testing.T) {
	testutil.SkipUnderRace(t)
	dir := t.TempDir()
	var fig Figure
	for _, f := range examplePanels() {
		fig = f
		break
	}
	if err := WriteFigure(filepath.Join(dir, "f.txt"), fig, testColour); err == nil {
		t.Error("f.txt: written as a figure")
	}
	for name, magic := range map[string]string{"f.png": "\x89PNG\r\n\x1a\n", "f.PDF": "%PDF-", "f.svg": "<?xml", "f": "<?xml", "f.jpg": "\xff\xd8\xff"} {
		path := filepath.Join(dir, name)
		if err := WriteFigure(path, fig, testColour); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte(magic)) {
			t.Errorf("%s starts %q, want %q", name, b[:min(len(b), 8)], magic)
		}
	}
	f, err := os.Open(filepath.Join(dir, "f.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if img, err := png.Decode(f); err != nil || img.Bounds().Dx() < 400 {
		t.Errorf("f.png: %v, %v", err, img)
	}
}
