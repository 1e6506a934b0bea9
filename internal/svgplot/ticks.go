package svgplot

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// maxDecadeLabels: a log axis spanning more decades than this labels every
// second (third, ...) decade, so that the labels never run into each other.
const maxDecadeLabels = 16

// logTicks marks a log axis: a labelled tick at every decade, unlabelled
// minor ticks at 2..9 times each decade; an axis spanning less than two
// decades labels 2x and 5x too, one spanning less than one every multiple.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return nil
	}
	span := math.Log10(hi) - math.Log10(lo)
	first, last := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	step := 1 // label every step-th decade
	for (last-first)/step > maxDecadeLabels {
		step++
	}
	labelled := func(m int) bool { return m == 1 }
	switch {
	case span < 1:
		labelled = func(int) bool { return true }
	case span < 2:
		labelled = func(m int) bool { return m == 1 || m == 2 || m == 5 }
	}
	var ticks []plot.Tick
	nLabels := 0
	for e := first; e <= last; e++ {
		for m := 1; m <= 9; m++ {
			if m > 1 && step > 2 {
				continue // minor ticks this close would merge into a bar
			}
			v := decade(m, e)
			if v < lo*(1-1e-12) || v > hi*(1+1e-12) {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled(m) && (m > 1 || e%step == 0) {
				t.Label = decadeLabel(m, e)
				nLabels++
			}
			ticks = append(ticks, t)
		}
	}
	if nLabels < 2 {
		// A narrow range (say 310 to 390) holds fewer than two multiples of
		// a power of ten: plain evenly spaced ticks label it.
		ticks = plot.DefaultTicks{}.Ticks(lo, hi)
		for i := range ticks {
			if ticks[i].Label != "" {
				ticks[i].Label = numberLabel(ticks[i].Value)
			}
		}
	}
	return ticks
}

// decade is m times 10^e, the float64 nearest to it (not m*math.Pow(10, e),
// which can be an ulp off and print as 1.0000000000000001e-07).
func decade(m, e int) float64 {
	v, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", m, e), 64)
	return v
}

// decadeLabel is the label of m times 10^e: a plain number from 0.001 to
// 9000, else "1e-06" or "2e+04".
func decadeLabel(m, e int) string {
	if e >= -3 && e <= 3 {
		return strconv.FormatFloat(decade(m, e), 'f', -1, 64)
	}
	return fmt.Sprintf("%de%+03d", m, e)
}

// numberLabel formats any value as decadeLabel does its multiples.
func numberLabel(v float64) string {
	a := math.Abs(v)
	if v == 0 || (a >= 1e-3 && a < 1e4) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'e', -1, 64)
}

// maxLinearLabels: a linear axis labels at most this many ticks.
const maxLinearLabels = 10

// linearTicks marks a linear axis at the multiples of the smallest of 1, 2
// or 5 times a power of ten that labels at most maxLinearLabels ticks, with
// minor ticks between (halves of a 1 or a 2, fifths of a 5).
type linearTicks struct{}

// Ticks implements plot.Ticker.
func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	e := int(math.Floor(math.Log10((hi-lo)/maxLinearLabels))) - 1
	for {
		for _, m := range []int{1, 2, 5} {
			step := decade(m, e)
			first, last := math.Ceil(lo/step-1e-9), math.Floor(hi/step+1e-9)
			if last-first+1 > maxLinearLabels {
				continue
			}
			sub := 2
			if m == 5 {
				sub = 5
			}
			decimals := max(0, -e) // 0.5 or 0.2: one, 0.05: two
			var ticks []plot.Tick
			minor := step / float64(sub)
			for i := math.Ceil(lo/minor - 1e-9); i <= math.Floor(hi/minor+1e-9); i++ {
				v := i * minor
				t := plot.Tick{Value: v}
				if int64(i)%int64(sub) == 0 {
					v = i / float64(sub) * step
					t.Value = v
					t.Label = linearLabel(v, decimals)
				}
				ticks = append(ticks, t)
			}
			return ticks
		}
		e++
	}
}

// linearLabel formats v with decimals places, or as "1.5e+06" from 1e4 up.
func linearLabel(v float64, decimals int) string {
	if math.Abs(v) >= 1e4 {
		return strconv.FormatFloat(v, 'e', -1, 64)
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if s == "-0" {
		s = "0"
	}
	return s
}
