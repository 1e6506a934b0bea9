package imdb

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
)

// SeedRows is the number of titles in the seed project's ratings file
// (1,256,196 rows: the n of every stage in its configuration).
const SeedRows = 1256196

// MaxRows is the largest Rows: every tconst has exactly seven digits, so there
// are 9,999,999 of them (tt0000001..tt9999999).
const MaxRows = 9999999

// RatingsFile is the name GenerateRatings writes in its folder, IMDb's.
const RatingsFile = "title.ratings.tsv"

// RatingsHeader is the first line of the file, without its line end.
const RatingsHeader = "tconst\taverageRating\tnumVotes"

// Generator model; doc.go describes it and says what it is based on.
const (
	// averageRating: with probability 1-ratingNoise a skew-normal with
	// location ratingXi, scale ratingOmega and shape ratingAlpha (negative:
	// the longer tail is on the left), rounded to one decimal and truncated
	// to 1.0..10.0; with probability ratingNoise one of the 91 values
	// 1.0..10.0, uniformly.
	ratingXi    = 7.55
	ratingOmega = 1.2
	ratingAlpha = -1.0
	ratingNoise = 0.02

	// numVotes: floor of a Pareto with minimum votesMin and shape votesAlpha,
	// truncated to at most votesMax.
	votesMin   = 5
	votesMax   = 3000000
	votesAlpha = 0.65

	// Stream constants of the two PCG generators (the tconst draws and the
	// value draws), so that each is a function of Seed alone.
	idStream    = 0x696d64622d696473 // "imdb-ids"
	valueStream = 0x696d64622d76616c // "imdb-val"

	ctxEvery = 1 << 14 // rows between checks of the context
)

// RatingsOptions configures WriteRatings and GenerateRatings.
type RatingsOptions struct {
	Rows int // titles, 1..MaxRows; SeedRows is the seed project's size
	Seed uint64
}

// RatingsResult describes what was written.
type RatingsResult struct {
	Rows int64
	// Classes[c] counts the titles of class c, the rating rounded half-up
	// (ClassOf); Classes[0] is always 0.
	Classes [11]int64
	Elapsed time.Duration
}

// check reports options WriteRatings refuses.
func (o RatingsOptions) check() error {
	if o.Rows < 1 || o.Rows > MaxRows {
		return fmt.Errorf("imdb: rows %d, want 1..%d (tconst has seven digits)", o.Rows, MaxRows)
	}
	return nil
}

// WriteRatings writes a title.ratings.tsv-shaped file of opt.Rows titles to w
// (see the package documentation for the format and the model) and returns
// its class histogram. The same Rows and Seed give byte-identical output.
// It runs in O(Rows + 9,999,999) time on one goroutine, with constant memory
// (a 256 KiB buffer), checking ctx every 16,384 rows; on an error, or when
// ctx ends, it returns the error and a zero result, and w holds a prefix of
// the file. It is safe to call concurrently on different writers.
func WriteRatings(ctx context.Context, w io.Writer, opt RatingsOptions) (RatingsResult, error) {
	start := time.Now()
	if err := opt.check(); err != nil {
		return RatingsResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return RatingsResult{}, fmt.Errorf("imdb: %w", err)
	}
	table := ratingTable()
	ids := rand.NewPCG(opt.Seed, idStream)
	vals := rand.NewPCG(opt.Seed, valueStream)
	bw := bufio.NewWriterSize(w, 256<<10)
	if _, err := bw.WriteString(RatingsHeader + "\n"); err != nil {
		return RatingsResult{}, fmt.Errorf("imdb: %w", err)
	}
	var res RatingsResult
	// tconst: selection sampling (Knuth's Algorithm S) over 1..MaxRows:
	// candidate c is taken with probability need/(MaxRows-c+1), which gives
	// each set of Rows numbers the same chance, in increasing order.
	need := uint64(opt.Rows)
	c := uint64(0)
	for i := 0; i < opt.Rows; i++ {
		if i%ctxEvery == 0 && i > 0 {
			if err := ctx.Err(); err != nil {
				return RatingsResult{}, fmt.Errorf("imdb: %w", err)
			}
		}
		for {
			c++
			if hi, _ := bits.Mul64(ids.Uint64(), MaxRows-c+1); hi < need {
				break
			}
		}
		need--
		t := table.draw(vals.Uint64())
		v := drawVotes(vals.Uint64())
		res.Classes[(t+5)/10]++

		buf := bw.AvailableBuffer()
		buf = appendTconst(buf, c)
		buf = append(buf, '\t')
		if t == 100 {
			buf = append(buf, "10.0"...)
		} else {
			buf = append(buf, byte('0'+t/10), '.', byte('0'+t%10))
		}
		buf = append(buf, '\t')
		buf = strconv.AppendUint(buf, v, 10)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return RatingsResult{}, fmt.Errorf("imdb: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return RatingsResult{}, fmt.Errorf("imdb: %w", err)
	}
	res.Rows = int64(opt.Rows)
	res.Elapsed = time.Since(start)
	return res, nil
}

// GenerateRatings writes dir/title.ratings.tsv (WriteRatings's file), making
// dir if needed, and returns the result and the file's path. The file appears
// only when complete: it is written under a temporary name in dir and renamed
// over the path (package atomicfile), so an existing file there is replaced
// only by a complete new one; on an error, or when ctx ends, nothing is left
// (a folder made here is removed) and the path is returned as "". Cost and
// concurrency are WriteRatings's; concurrent calls must use different folders.
func GenerateRatings(ctx context.Context, dir string, opt RatingsOptions) (RatingsResult, string, error) {
	start := time.Now()
	if err := opt.check(); err != nil {
		return RatingsResult{}, "", err
	}
	if dir == "" {
		return RatingsResult{}, "", errors.New("imdb: empty folder name")
	}
	out, err := atomicfile.MakeDir(dir)
	if err != nil {
		return RatingsResult{}, "", fmt.Errorf("imdb: %w", err)
	}
	path := filepath.Join(dir, RatingsFile)
	var f *atomicfile.File
	fail := func(err error) (RatingsResult, string, error) {
		atomicfile.AbortAll(f)
		out.Undo()
		return RatingsResult{}, "", err
	}
	f, err = atomicfile.Create(ctx, path, atomicfile.Options{})
	if err != nil {
		return fail(fmt.Errorf("imdb: %s: %w", path, err))
	}
	res, err := WriteRatings(ctx, f, opt)
	if err != nil {
		return fail(err)
	}
	if err := ctx.Err(); err != nil {
		return fail(fmt.Errorf("imdb: %w", err))
	}
	if err := f.Commit(); err != nil {
		return fail(fmt.Errorf("imdb: %s: %w", path, err))
	}
	res.Elapsed = time.Since(start)
	return res, path, nil
}

// ClassOf returns the seed project's class of a rating: the decimal number
// rounded half-up (Java's Math.round, Python's ROUND_HALF_UP), computed on the
// text, so "6.5" is 7 and "6.49" is 6 with no floating-point error. (Java
// rounds the parsed double, which differs only for texts of more than about
// 15 significant digits, never for IMDb's one-decimal ratings.) The rating
// must be a plain decimal: digits, optionally a point and more digits, with
// no sign, exponent or spaces; an empty, negative, non-numeric or NaN rating
// is an error, and so is one whose class is outside 1..10 (the seed project's
// ten filters). It is O(len(rating)) and safe for concurrent use.
func ClassOf(rating string) (int, error) {
	if rating == "" {
		return 0, errors.New("imdb: empty rating")
	}
	if rating[0] == '-' {
		return 0, fmt.Errorf("imdb: rating %q: negative", rating)
	}
	ip, fp, _ := strings.Cut(rating, ".")
	if (ip == "" && fp == "") || !allDigits(ip) || !allDigits(fp) {
		return 0, fmt.Errorf("imdb: rating %q: not a decimal number", rating)
	}
	ip = strings.TrimLeft(ip, "0")
	class := 0
	if len(ip) > 2 {
		class = 100 // out of range whatever the rest
	} else {
		for _, d := range []byte(ip) {
			class = 10*class + int(d-'0')
		}
	}
	if fp != "" && fp[0] >= '5' { // the fraction is at least one half
		class++
	}
	if class < 1 || class > 10 {
		return 0, fmt.Errorf("imdb: rating %q: rounds to %d, outside the classes 1..10", rating, class)
	}
	return class, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// cumTable draws a rating in tenths (10..100) from 53 random bits:
// cum[i] is the upper bound, in units of 2^-53, of the bits that give 10+i.
type cumTable struct{ cum [91]uint64 }

func (t *cumTable) draw(x uint64) int {
	u := x >> 11
	lo, hi := 0, len(t.cum)-1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if u < t.cum[mid] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return 10 + lo
}

// ratingTable is the distribution of averageRating in tenths, computed once:
// the skew-normal's mass on each tenth's rounding interval, by Simpson's rule,
// renormalised to 0.95..10.05 and mixed with the uniform share. Only the
// table is computed in floating point; the draws are integer comparisons.
var ratingTable = sync.OnceValue(func() *cumTable {
	var p [91]float64
	var body float64
	for i := range p {
		a := float64(10+i)/10 - 0.05
		p[i] = simpson(skewNormalPDF, a, a+0.1, 32)
		body += p[i]
	}
	t := &cumTable{}
	var acc float64
	for i := range p {
		acc += (1-ratingNoise)*p[i]/body + ratingNoise/float64(len(p))
		t.cum[i] = uint64(math.Round(acc * (1 << 53)))
	}
	t.cum[len(t.cum)-1] = 1 << 53
	return t
})

// skewNormalPDF is the density of the rating model's skew-normal body:
// (2/omega) phi(z) Phi(alpha z) with z = (x - xi)/omega.
func skewNormalPDF(x float64) float64 {
	z := (x - ratingXi) / ratingOmega
	phi := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
	cdf := 0.5 * math.Erfc(-ratingAlpha*z/math.Sqrt2)
	return 2 / ratingOmega * phi * cdf
}

// simpson integrates f over [a, b] with n (even) intervals.
func simpson(f func(float64) float64, a, b float64, n int) float64 {
	h := (b - a) / float64(n)
	s := f(a) + f(b)
	for k := 1; k < n; k++ {
		w := 2.0
		if k%2 == 1 {
			w = 4
		}
		s += w * f(a+float64(k)*h)
	}
	return s * h / 3
}

// votesTail is (votesMin/votesMax)^votesAlpha, the Pareto's survival at
// votesMax, which the truncation removes.
var votesTail = math.Pow(float64(votesMin)/votesMax, votesAlpha)

// drawVotes draws numVotes from 53 random bits by inverting the truncated
// Pareto's distribution: x = min * (1 - u(1 - tail))^(-1/alpha), computed as
// an exponential of a logarithm (twice as fast as math.Pow).
func drawVotes(x uint64) uint64 {
	u := float64(x>>11) * (1.0 / (1 << 53))
	v := votesMin * math.Exp(math.Log1p(-u*(1-votesTail))*(-1/votesAlpha))
	return uint64(min(max(math.Floor(v), votesMin), votesMax))
}

// appendTconst appends "tt" and n in exactly seven digits (n <= MaxRows).
func appendTconst(buf []byte, n uint64) []byte {
	var d [9]byte
	d[0], d[1] = 't', 't'
	for i := 8; i >= 2; i-- {
		d[i] = byte('0' + n%10)
		n /= 10
	}
	return append(buf, d[:]...)
}
