package nber

import (
	"context"
	"errors"
	"fmt"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
)

// Generator model. Every choice below follows a statistic of the real files
// (the NBER documentation, the USPTO issue-year table, or the real sample in
// testdata/nber-mini at the repository root, whose figures are quoted); see
// also doc.go.

// yearFirst[y-1963] is the first utility patent number granted in year y
// (USPTO, "Issue Years and Patent Numbers"); yearFirst[37] = 6,009,555 is the
// first of 2000. In the real sample 17,705 of 17,732 patents fall in the year
// these boundaries give (the rest are a few numbers granted late).
var yearFirst = [...]int64{
	3070801, 3116808, 3163865, 3226729, 3295143, 3360800, 3419907, 3487470, 3551909, 3633214, // 1963-1972
	3707729, 3781914, 3858241, 3930271, 4000000, 4065812, 4131952, 4180867, 4242757, 4308622, // 1973-1982
	4366868, 4423806, 4490885, 4562596, 4633822, 4716838, 4794739, 4890866, 4980947, 5077622, // 1983-1992
	5175887, 5274846, 5377359, 5479658, 5590420, 5704712, 5855021, // 1993-1999
	6009555, // 2000
}

const (
	firstYear  = 1963
	lastYear   = 1999
	citeFrom   = 1975 // citing patents are granted 1975-1999
	numberSpan = LastPatent - FirstPatent + 1

	// Citation lag, in years between the citing patent's grant and the cited
	// patent's: a lognormal body with median 6 years (mode ~3.4, sigma 0.75),
	// as the real sample's lags (mode 3-4, median ~7 among cited patents
	// granted since 1963), plus a 19% "prior art" component uniform on 12-70
	// years that makes about 16% of cited numbers predate 1963 (real sample:
	// 16.0%). Within that, the cited patent is drawn by popularity from a
	// one-year window of grants around the target time.
	lagMedian = 6.0
	lagSigma  = 0.75
	oldShare  = 0.19
	oldMin    = 12.0
	oldMax    = 70.0
	// preRate maps a target time before 1963 to a patent number: about 45,000
	// utility patents a year were granted in the 1940s-1950s.
	preRate = 45000.0

	// Popularity: each patent's weight in the choice of cited patents is
	// Pareto with shape 2.3, cut to a quarter for 30% of patents: a
	// heavy-tailed in-degree (a few patents cited hundreds to over a thousand
	// times; real sample max 716) with about a sixth of patents never cited
	// (real sample 17%).
	popAlpha    = 2.3
	popCap      = 300 // bounds the most cited patent near 1,000-1,500 citations at any scale
	popLowShare = 0.3
	popLow      = 0.25

	// Citations made: mean grows 3.7% a year from 1975 to 1999 (real sample:
	// CMADE means rise 2.5x over the period), lognormal noise sigma 0.75 for
	// overdispersion (real variance/mean well above 1); the totals are then
	// apportioned to hit the exact row count.
	cmadeGrowth = 0.037
	cmadeSigma  = 0.75
)

// GenOptions configures Generate.
type GenOptions struct {
	Scale   float64 // 1 gives the real sizes: 16,522,438 citations, 2,923,922 patents
	Seed    uint64
	Workers int // goroutines; 0 means GOMAXPROCS. The output does not depend on it.
}

// GenResult describes what Generate wrote.
type GenResult struct {
	CitePath, PatPath  string
	Patents, Citations int64
	CitedPre1963       int64 // citations to numbers below FirstPatent
	MaxInDegree        int64
	Elapsed            time.Duration
}

type genModel struct {
	n      int   // patents
	t      int64 // citations
	seed   uint64
	yearLo [lastYear - firstYear + 2]int // first patent index of each year; last = n
	yr     []uint8                       // year - 1963 of each patent
	cw     []float64
	cmade  []uint32
	pre63  []uint32
	bsum   []uint32 // sum of backward lags in years
	// recv packs, per patent, the citations received (low 32 bits) and the
	// sum of their lags in years (high 32 bits), added atomically in one step.
	recv []uint64
}

// number returns the patent number of index i: n numbers spread evenly over
// 3,070,801..6,009,554, both ends included.
func (g *genModel) number(i int) int64 {
	if g.n == 1 {
		return FirstPatent
	}
	return FirstPatent + int64(i)*(numberSpan-1)/int64(g.n-1)
}

// ErrOptions is wrapped by the errors of options a generator refuses.
var ErrOptions = errors.New("nber: invalid options")

// Generate writes cite75_99.txt and apat63_99.txt into dir with the NBER names,
// headers and shapes, at the given scale (see the package documentation for the
// model). The same seed and scale give byte-identical files on any machine and
// any number of workers. The files appear only when complete: they are written
// under temporary names and renamed; on error or cancellation nothing is left.
func Generate(ctx context.Context, dir string, opt GenOptions) (GenResult, error) {
	start := time.Now()
	if !(opt.Scale > 0) || opt.Scale > 10 {
		return GenResult{}, &option.Error{Pkg: "nber", Name: "Scale", Value: opt.Scale, Reason: "want 0 < scale <= 10", Err: ErrOptions}
	}
	n := int(math.Round(PatRows * opt.Scale))
	t := int64(math.Round(CiteRows * opt.Scale))
	if n < 100 {
		return GenResult{}, &option.Error{Pkg: "nber", Name: "Scale", Value: opt.Scale, Reason: fmt.Sprintf("gives %d patents, want at least 100", n), Err: ErrOptions}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	g := &genModel{n: n, t: t, seed: opt.Seed}
	g.setup()
	out, err := atomicfile.MakeDir(dir)
	if err != nil {
		return GenResult{}, fmt.Errorf("gen: %w", err)
	}
	res := GenResult{
		CitePath: filepath.Join(dir, Cite.Name+".txt"),
		PatPath:  filepath.Join(dir, Pat.Name+".txt"),
		Patents:  int64(n),
	}
	// Both files are written under temporary names and renamed only when
	// both are complete: a failure leaves the folder as it was (an older
	// pair of files untouched; a folder made here removed).
	var cite, pat *atomicfile.File
	fail := func(err error) (GenResult, error) {
		atomicfile.AbortAll(cite, pat)
		out.Undo()
		return GenResult{}, fmt.Errorf("gen: %w", err)
	}
	if cite, err = atomicfile.Create(ctx, res.CitePath, atomicfile.Options{}); err != nil {
		return fail(err)
	}
	if pat, err = atomicfile.Create(ctx, res.PatPath, atomicfile.Options{}); err != nil {
		return fail(err)
	}
	var pre63, rows int64
	err = func(f io.Writer) error {
		if _, err := io.WriteString(f, `"CITING","CITED"`+"\n"); err != nil {
			return err
		}
		first := g.yearLo[citeFrom-firstYear]
		chunks := (n - first + genChunk - 1) / genChunk
		return ordered(ctx, chunks, workers, func(c int, buf []byte) []byte {
			lo := first + c*genChunk
			return g.citations(lo, min(lo+genChunk, n), buf)
		}, func(c int, out []byte) error {
			_, err := f.Write(out)
			return err
		})
	}(cite)
	if err != nil {
		return fail(err)
	}
	for i := range g.cmade {
		rows += int64(g.cmade[i])
		pre63 += int64(g.pre63[i])
	}
	for _, d := range g.recv {
		res.MaxInDegree = max(res.MaxInDegree, int64(uint32(d)))
	}
	res.Citations, res.CitedPre1963 = rows, pre63
	err = func(f io.Writer) error {
		if _, err := io.WriteString(f, `"PATENT","GYEAR","GDATE","APPYEAR","COUNTRY","POSTATE","ASSIGNEE","ASSCODE","CLAIMS","NCLASS","CAT","SUBCAT","CMADE","CRECEIVE","RATIOCIT","GENERAL","ORIGINAL","FWDAPLAG","BCKGTLAG","SELFCTUB","SELFCTLB","SECDUPBD","SECDLWBD"`+"\n"); err != nil {
			return err
		}
		chunks := (n + genChunk - 1) / genChunk
		return ordered(ctx, chunks, workers, func(c int, buf []byte) []byte {
			lo := c * genChunk
			return g.patents(lo, min(lo+genChunk, n), buf)
		}, func(c int, out []byte) error {
			_, err := f.Write(out)
			return err
		})
	}(pat)
	if err == nil {
		err = cite.Commit()
	}
	if err == nil {
		err = pat.Commit()
	}
	if err != nil {
		return fail(err)
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

const genChunk = 16384 // patents per unit of parallel work

// setup computes the years, popularity weights and citations made. O(n),
// sequential, deterministic.
func (g *genModel) setup() {
	n := g.n
	g.yr = make([]uint8, n)
	y := 0
	for i := 0; i < n; i++ {
		num := g.number(i)
		for num >= yearFirst[y+1] {
			y++
			g.yearLo[y] = i
		}
		g.yr[i] = uint8(y)
	}
	for y++; y < len(g.yearLo); y++ {
		g.yearLo[y] = n
	}
	g.cw = make([]float64, n)
	var acc float64
	for i := 0; i < n; i++ {
		r := newRNG(g.seed, 1, uint64(i))
		w := min(math.Pow(1-r.float(), -1/popAlpha), popCap) // Pareto(1, alpha) by inversion
		if r.float() < popLowShare {
			w *= popLow
		}
		acc += w
		g.cw[i] = acc
	}
	// Citations made by each citing patent: weights, then apportionment of the
	// exact total T: c_i = floor(T*C_i/C) - floor(T*C_(i-1)/C) with C the
	// cumulative weight, which sums to T exactly.
	g.cmade = make([]uint32, n)
	g.pre63 = make([]uint32, n)
	g.bsum = make([]uint32, n)
	g.recv = make([]uint64, n)
	first := g.yearLo[citeFrom-firstYear]
	lam := make([]float64, n-first)
	var total float64
	for i := first; i < n; i++ {
		r := newRNG(g.seed, 2, uint64(i))
		w := math.Exp(cmadeGrowth*float64(int(g.yr[i])+firstYear-citeFrom) + cmadeSigma*r.normal())
		total += w
		lam[i-first] = total
	}
	var prev int64
	for i := first; i < n; i++ {
		cur := int64(math.Floor(float64(g.t) * (lam[i-first] / total)))
		if i == n-1 {
			cur = g.t
		}
		g.cmade[i] = uint32(cur - prev)
		prev = cur
	}
}

// pick returns a patent index in [lo, hi) with probability proportional to its
// popularity weight: the first j whose cumulative weight exceeds a uniform point
// x of the window. The cumulative weights grow almost linearly, so the search
// starts at the linear interpolation of x and gallops outwards, touching a few
// nearby cache lines instead of a binary search's log2(window) far ones.
func (g *genModel) pick(lo, hi int, u float64) int {
	base := 0.0
	if lo > 0 {
		base = g.cw[lo-1]
	}
	top := g.cw[hi-1]
	x := base + u*(top-base)
	j := lo + int(u*float64(hi-lo))
	j = min(max(j, lo), hi-1)
	// Find a bracket [a, b) with cw[a-1] <= x < cw[b-1] by galloping.
	a, b := j, j+1
	if g.cw[j] <= x { // the answer is after j
		step := 1
		for {
			a = b
			b = min(b+step, hi)
			if b == hi || g.cw[b-1] > x {
				break
			}
			step *= 2
		}
	} else { // the answer is j or before
		step := 1
		for a > lo && (a == 0 || g.cw[a-1] > x) {
			b = a
			a = max(a-step, lo)
			step *= 2
		}
	}
	for a < b-1 { // binary search in the bracket
		mid := int(uint(a+b) >> 1)
		if g.cw[mid-1] > x {
			b = mid
		} else {
			a = mid
		}
	}
	return a
}

// citations appends the citation rows of citing patents [lo, hi) to buf and
// records their statistics. Safe for concurrent calls on disjoint ranges.
func (g *genModel) citations(lo, hi int, buf []byte) []byte {
	var rows int
	for i := lo; i < hi; i++ {
		rows += int(g.cmade[i])
	}
	buf = slices.Grow(buf, 16*rows) // "dddddd,ddddddd\n"
	var cited []int64
	for i := lo; i < hi; i++ {
		c := int(g.cmade[i])
		if c == 0 {
			continue
		}
		r := newRNG(g.seed, 3, uint64(i))
		y := int(g.yr[i])
		citingT := float64(y+firstYear) + (float64(i-g.yearLo[y])+0.5)/float64(g.yearLo[y+1]-g.yearLo[y])
		cited = cited[:0]
		var pre, bsum uint32
		for len(cited) < c {
			num, idx, lagYears, ok := g.drawCited(&r, i, y, citingT)
			if !ok || contains(cited, num) {
				continue
			}
			cited = append(cited, num)
			bsum += uint32(lagYears)
			if idx < 0 {
				pre++
			} else {
				atomic.AddUint64(&g.recv[idx], 1|uint64(lagYears)<<32)
			}
		}
		g.pre63[i], g.bsum[i] = pre, bsum
		sortInt64(cited)
		var prefix [24]byte // "CITING," is the same for all rows of i
		p := append(appendUint(prefix[:0], uint64(g.number(i))), ',')
		for _, v := range cited {
			buf = append(buf, p...)
			buf = appendUint(buf, uint64(v))
			buf = append(buf, '\n')
		}
	}
	return buf
}

// appendUint appends the decimal form of v (strconv.AppendUint without its
// general-purpose overhead; patent numbers have at most 7 digits).
func appendUint(buf []byte, v uint64) []byte {
	var d [20]byte
	i := len(d)
	for v >= 10 {
		q := v / 10
		i--
		d[i] = byte('0' + v - q*10)
		v = q
	}
	i--
	d[i] = byte('0' + v)
	return append(buf, d[i:]...)
}

// drawCited draws one cited patent for citing patent i of year index y at time
// citingT: its number, its index (-1 before 1963) and the lag in whole years.
func (g *genModel) drawCited(r *rng, i, y int, citingT float64) (num int64, idx, lag int, ok bool) {
	var l float64
	if r.float() < oldShare {
		l = oldMin + r.float()*(oldMax-oldMin)
	} else {
		l = lagMedian * math.Exp(lagSigma*r.normal())
	}
	t := citingT - l
	if t < firstYear {
		num = FirstPatent - 1 - int64((firstYear-t)*preRate)
		if num < 1 {
			return 0, 0, 0, false
		}
		return num, -1, y + firstYear - int(math.Floor(t)), true
	}
	// The cited patent is drawn by popularity from a window of one year of
	// grants centred on time t, and must precede the citing patent.
	ty := int(t) - firstYear
	ylo, yhi := g.yearLo[ty], g.yearLo[ty+1]
	centre := ylo + int((t-math.Floor(t))*float64(yhi-ylo))
	half := max((yhi-ylo)/2, 1)
	lo, hi := max(centre-half, 0), min(centre+half, i)
	if lo >= hi {
		return 0, 0, 0, false
	}
	j := g.pick(lo, hi, r.float())
	return g.number(j), j, y - int(g.yr[j]), true
}

func contains(xs []int64, v int64) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

// sortInt64 is an insertion sort: the lists are short (median ~6).
func sortInt64(xs []int64) {
	for i := 1; i < len(xs); i++ {
		v := xs[i]
		j := i
		for ; j > 0 && xs[j-1] > v; j-- {
			xs[j] = xs[j-1]
		}
		xs[j] = v
	}
}

// rng is a splitmix64 stream, seeded from (seed, stream, index) so that every
// patent's draws are independent of the order in which patents are processed.
type rng struct{ s uint64 }

func newRNG(seed, stream, i uint64) rng {
	r := rng{seed ^ stream*0x9e3779b97f4a7c15 ^ i*0xbf58476d1ce4e5b9}
	r.next()
	return r
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// float returns a uniform value in [0, 1).
func (r *rng) float() float64 { return float64(r.next()>>11) * (1.0 / (1 << 53)) }

// intn returns a uniform value in [0, n).
func (r *rng) intn(n int) int { return int((r.next() >> 32) * uint64(n) >> 32) }

// normal returns a standard normal value (Box-Muller).
func (r *rng) normal() float64 {
	u := 1 - r.float() // (0, 1]
	return math.Sqrt(-2*math.Log(u)) * math.Cos(2*math.Pi*r.float())
}

// choose returns an index drawn with the given cumulative weights (last = total).
func (r *rng) choose(cum []float64) int {
	x := r.float() * cum[len(cum)-1]
	for i, c := range cum {
		if x < c {
			return i
		}
	}
	return len(cum) - 1
}
