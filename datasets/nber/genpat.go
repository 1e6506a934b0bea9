package nber

import (
	"math"
	"slices"
	"strconv"
	"time"
)

// Shares and tables for the patent file's descriptive columns, read off the
// real sample (17,732 patents): COUNTRY US 65.6%, JP 13.4%, DE 6.2%, GB 2.8%,
// FR 2.2%, CA 1.8%, CH 1.2%, IT 0.9%, SE 0.8%, NL 0.8%, TW 0.6%, AT 0.5%; the
// US share falls and JP's rises over 1963-1999.
var (
	foreign       = []string{"DE", "GB", "FR", "CA", "CH", "IT", "SE", "NL", "TW", "AT", "KR", "BE", "AU", "IL", "DK", "FI"}
	foreignWeight = cumulative([]float64{62, 28, 22, 18, 12, 9, 8, 8, 6, 5, 4, 4, 4, 3, 3, 3})
	// US states of the first inventor, by the sample's counts (top 12 exact,
	// the rest spread).
	states      = []string{"CA", "NY", "TX", "IL", "NJ", "OH", "PA", "MI", "MA", "CT", "MN", "FL", "WI", "IN", "NC", "MD", "WA", "GA", "CO", "AZ", "VA", "DE", "OR", "MO", "TN", "UT", "OK", "IA", "KY", "SC"}
	stateWeight = cumulative([]float64{1769, 1001, 712, 699, 678, 672, 666, 634, 518, 372, 341, 325, 300, 280, 230, 220, 215, 200, 195, 190, 180, 170, 150, 145, 120, 110, 100, 95, 90, 90})
	// CAT shares from the sample: 6 (other) 23.5%, 5 (mechanical) 21.6%,
	// 1 (chemical) 18.2%, 4 (electrical) 16.5%, 2 (computers) 11.8%, 3 (drugs) 8.4%.
	catWeight = cumulative([]float64{18.2, 11.8, 8.4, 16.5, 21.6, 23.5})
	subcats   = [][]int{
		{11, 12, 13, 14, 15, 19}, {21, 22, 23, 24}, {31, 32, 33, 39},
		{41, 42, 43, 44, 45, 46, 49}, {51, 52, 53, 54, 55, 59}, {61, 62, 63, 64, 65, 66, 67, 68, 69},
	}
	// Application lag (GYEAR - APPYEAR) in the sample: 0 1.3%, 1 31%, 2 48%,
	// 3 16%, 4 3.3%, 5 1%, 6+ 0.8%.
	appLagWeight = cumulative([]float64{1.3, 31, 48, 16, 3.3, 1, 0.5, 0.2, 0.1})
	// ASSCODE among assigned patents: 2 (US corp.) and 3 (foreign corp.)
	// dominate; 6/7 governments, 4/5 individuals.
)

func cumulative(w []float64) []float64 {
	out := make([]float64, len(w))
	acc := 0.0
	for i, x := range w {
		acc += x
		out[i] = acc
	}
	return out
}

// tuesday0[y] is the first Tuesday of year 1963+y in days since 1960-01-01
// (patents are granted on Tuesdays; GDATE counts days from 1960-01-01).
var tuesday0 = func() (out [lastYear - firstYear + 2]int) {
	epoch := time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)
	for y := range out {
		d := time.Date(firstYear+y, 1, 1, 0, 0, 0, 0, time.UTC)
		for d.Weekday() != time.Tuesday {
			d = d.AddDate(0, 0, 1)
		}
		out[y] = int(d.Sub(epoch).Hours() / 24)
	}
	return out
}()

// patents appends the rows of patents [lo, hi) to buf. It reads the citation
// statistics, so it runs after every citation was generated.
func (g *genModel) patents(lo, hi int, buf []byte) []byte {
	buf = slices.Grow(buf, 100*(hi-lo))
	for i := lo; i < hi; i++ {
		r := newRNG(g.seed, 4, uint64(i))
		y := int(g.yr[i])
		year := y + firstYear
		frac := float64(year-firstYear) / float64(lastYear-firstYear) // 0..1 over the period
		// PATENT, GYEAR, GDATE: weekly issues spread evenly over the year.
		weeks := (tuesday0[y+1] - tuesday0[y]) / 7
		cnt := g.yearLo[y+1] - g.yearLo[y]
		gdate := tuesday0[y] + 7*((i-g.yearLo[y])*weeks/cnt)
		buf = strconv.AppendInt(buf, g.number(i), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(year), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(gdate), 10)
		buf = append(buf, ',')
		// APPYEAR: missing for a fifth of patents granted before 1975.
		if !(year < citeFrom && r.float() < 0.2) {
			buf = strconv.AppendInt(buf, int64(year-r.choose(appLagWeight)), 10)
		}
		buf = append(buf, ',')
		// COUNTRY and POSTATE.
		us := 0.80 - 0.25*frac
		jp := 0.01 + 0.22*min(frac*1.3, 1)
		var country, state string
		switch u := r.float(); {
		case u < us:
			country = "US"
			state = states[r.choose(stateWeight)]
		case u < us+jp:
			country = "JP"
		default:
			country = foreign[r.choose(foreignWeight)]
		}
		buf = append(buf, '"')
		buf = append(buf, country...)
		buf = append(buf, `","`...)
		buf = append(buf, state...)
		buf = append(buf, `",`...)
		// ASSIGNEE and ASSCODE: about 20% unassigned or held by individuals
		// (no assignee number), as in the sample (22% empty ASSIGNEE).
		var asscode int
		assigned := false
		switch u := r.float(); {
		case u < 0.18:
			asscode = 1
		case u < 0.19:
			asscode = 4 + boolInt(country != "US")
		case u < 0.205:
			asscode = 6 + boolInt(country != "US")
			assigned = true
		default:
			asscode = 2 + boolInt(country != "US")
			assigned = true
		}
		if assigned {
			// Firms with many patents get small numbers: u^3 piles up near 0.
			u := r.float()
			buf = strconv.AppendInt(buf, 100000+int64(800000*u*u*u), 10)
		}
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(asscode), 10)
		buf = append(buf, ',')
		// CLAIMS: from 1975 on, median ~11, mean ~13.5 (sample 13.5), 7% missing.
		if year >= citeFrom && r.float() >= 0.07 {
			buf = strconv.AppendInt(buf, 1+int64(10*math.Exp(0.65*r.normal())), 10)
		}
		buf = append(buf, ',')
		// NCLASS, CAT, SUBCAT: a category, one of its sub-categories, and one of
		// twelve classes tied to the sub-category.
		cat := r.choose(catWeight)
		sub := subcats[cat][r.intn(len(subcats[cat]))]
		nclass := 2 + (sub*37+r.intn(12)*61)%798
		buf = strconv.AppendInt(buf, int64(nclass), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(cat+1), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(sub), 10)
		buf = append(buf, ',')
		// CMADE, CRECEIVE: exactly what the citation file holds.
		made, recv := int64(g.cmade[i]), int64(uint32(g.recv[i]))
		hasMade := year >= citeFrom
		if hasMade {
			buf = strconv.AppendInt(buf, made, 10)
		}
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, recv, 10)
		buf = append(buf, ',')
		// RATIOCIT: share of citations made to patents granted since 1963.
		inData := made - int64(g.pre63[i])
		if hasMade && made > 0 {
			buf = appendFloat4(buf, float64(inData)/float64(made))
		}
		buf = append(buf, ',')
		// GENERAL, ORIGINAL: 1 - sum of squared class shares of the citing
		// (cited) patents, simulated from the real counts.
		if recv > 0 {
			buf = appendFloat4(buf, concentration(&r, recv))
		}
		buf = append(buf, ',')
		if hasMade && inData > 0 {
			buf = appendFloat4(buf, concentration(&r, inData))
		}
		buf = append(buf, ',')
		// FWDAPLAG, BCKGTLAG: mean lags of the citations received and made.
		if recv > 0 {
			buf = appendFloat4(buf, float64(g.recv[i]>>32)/float64(recv))
		}
		buf = append(buf, ',')
		if hasMade && made > 0 {
			buf = appendFloat4(buf, float64(g.bsum[i])/float64(made))
		}
		buf = append(buf, ',')
		// SELFCTUB/LB, SECDUPBD/LWBD: self-citation shares, defined only for
		// patents with an assignee; upper bound >= lower bound.
		if assigned && hasMade && made > 0 {
			buf = appendSelf(buf, &r, made)
		} else {
			buf = append(buf, ',')
		}
		buf = append(buf, ',')
		if assigned && recv > 0 {
			buf = appendSelf(buf, &r, recv)
		} else {
			buf = append(buf, ',')
		}
		buf = append(buf, '\n')
	}
	return buf
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// concentration returns 1 - sum of squared shares of c draws over classes whose
// probabilities fall off geometrically (at most 200 draws are simulated).
func concentration(r *rng, c int64) float64 {
	if c <= 1 {
		return 0
	}
	c = min(c, 200)
	var counts [8]int64
	for k := int64(0); k < c; k++ {
		j := 0
		for j < 7 && r.float() < 0.45 {
			j++
		}
		counts[j]++
	}
	s := 0.0
	for _, x := range counts {
		f := float64(x) / float64(c)
		s += f * f
	}
	return 1 - s
}

// appendSelf appends "ub,lb": shares of self-citations among c citations.
func appendSelf(buf []byte, r *rng, c int64) []byte {
	c = min(c, 500)
	var hi, lo int64
	p := 0.02 + 0.2*r.float()*r.float()
	for k := int64(0); k < c; k++ {
		if r.float() < p {
			hi++
			if r.float() < 0.7 {
				lo++
			}
		}
	}
	buf = appendFloat4(buf, float64(hi)/float64(c))
	buf = append(buf, ',')
	return appendFloat4(buf, float64(lo)/float64(c))
}

// appendFloat4 formats v with at most 4 decimals and no trailing zeros, as the
// NBER files do ("0.6667", "5.875", "1", "0").
func appendFloat4(buf []byte, v float64) []byte {
	x := int64(math.Round(v * 10000))
	if x < 0 {
		buf = append(buf, '-')
		x = -x
	}
	buf = strconv.AppendInt(buf, x/10000, 10)
	frac := x % 10000
	if frac == 0 {
		return buf
	}
	digits := [4]byte{byte('0' + frac/1000), byte('0' + frac/100%10), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := 4
	for digits[n-1] == '0' {
		n--
	}
	buf = append(buf, '.')
	return append(buf, digits[:n]...)
}
