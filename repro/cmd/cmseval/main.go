// Command cmseval checks the guarantees of sketch/cms on a synthetic Zipf
// stream and prints a Markdown section with the results and the wall time of
// each part:
//
//   - point queries (CM05 Theorem 1): how many keys have an estimate more than
//     eps*N above their true count, against delta with a 4-sd tolerance;
//     underestimates (there must be none); max and mean error; for plain and
//     conservative update;
//   - the inner product (CM05 Theorem 3) of the main stream and a second,
//     independent Zipf stream over the same keys, against the true join size
//     and its bound eps*N1*N2;
//   - a sliding window of W batches kept by Add and Subtract, compared bit for
//     bit (Equal) with a sketch built from scratch over the window at every
//     step.
//
// Keys are 8-byte keys: key id i (0 <= i < distinct, i = 0 the most frequent)
// is the little-endian uint64 i, hashed with hashing.Sum8, which is what
// hashing.Sum does for any 8-byte key. Exact counts are a []uint32 indexed by
// key id. The process exits with status 1 if a check fails.
//
// Usage: cmseval [--distinct 1000000] [--rows 10*distinct] [--zipf 1.1]
// [--eps 0.0001] [--delta 0.01] [--seed 1] [--windows 8] [--batches 64]
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"time"

	"github.com/acbfjoin/acbfjoin/internal/hashing"
	"github.com/acbfjoin/acbfjoin/sketch/cms"
)

type options struct {
	distinct, rows   int
	zipf, eps, delta float64
	seed             uint64
	windows, batches int
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("cmseval", flag.ContinueOnError)
	fs.IntVar(&o.distinct, "distinct", 1000000, "number of distinct keys in the key universe")
	fs.IntVar(&o.rows, "rows", 0, "rows in the stream (default 10*distinct)")
	fs.Float64Var(&o.zipf, "zipf", 1.1, "Zipf exponent s > 1 of the key frequencies")
	fs.Float64Var(&o.eps, "eps", 0.0001, "requested relative error eps")
	fs.Float64Var(&o.delta, "delta", 0.01, "requested failure probability delta")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the streams and of the sketches' hashes")
	fs.IntVar(&o.windows, "windows", 8, "batches in the sliding window")
	fs.IntVar(&o.batches, "batches", 64, "batches the stream is cut into for the window check")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.rows == 0 {
		o.rows = 10 * o.distinct
	}
	switch {
	case o.distinct < 2 || o.distinct > math.MaxUint32:
		return o, fmt.Errorf("--distinct %d: want 2..%d", o.distinct, uint64(math.MaxUint32))
	case o.rows < 1 || o.rows > math.MaxUint32:
		return o, fmt.Errorf("--rows %d: want 1..%d", o.rows, uint64(math.MaxUint32))
	case !(o.zipf > 1):
		return o, fmt.Errorf("--zipf %v: want > 1", o.zipf)
	case o.windows < 1 || o.batches < o.windows || o.batches > o.rows:
		return o, fmt.Errorf("--windows %d --batches %d: want 1 <= windows <= batches <= rows", o.windows, o.batches)
	}
	return o, nil
}

// zipfStream returns rows key ids drawn from a Zipf law of exponent s over
// [0, distinct): P(i) proportional to (1+i)^-s.
func zipfStream(rng *rand.Rand, distinct, rows int, s float64) []uint32 {
	z := rand.NewZipf(rng, s, 1, uint64(distinct-1))
	out := make([]uint32, rows)
	for i := range out {
		out[i] = uint32(z.Uint64())
	}
	return out
}

// exactCounts returns the true count of every key id of stream.
func exactCounts(stream []uint32, distinct int) []uint32 {
	c := make([]uint32, distinct)
	for _, id := range stream {
		c[id]++
	}
	return c
}

// addRows adds one occurrence of every key id of rows to s.
func addRows(s *cms.Sketch, rows []uint32) {
	for _, id := range rows {
		h1, h2 := hashing.Sum8(uint64(id))
		s.AddHash(h1, h2, 1)
	}
}

func build(c cms.Config, rows []uint32) *cms.Sketch {
	s, err := cms.New(c)
	if err != nil {
		panic(err) // c was validated by ForError
	}
	addRows(s, rows)
	return s
}

// pointStats summarizes the point queries of every key of the universe.
type pointStats struct {
	keys          int     // keys queried
	over          int     // estimate - true > eps*N
	under         int     // estimate < true
	maxErr        uint64  // largest estimate - true
	meanErr       float64 // mean of estimate - true
	limit         float64 // tolerance on over/keys
	pass          bool
	notBelowPlain int // conservative only: keys above the plain estimate
}

// tolerance is delta + 4 sd of the failing fraction of n queries, each
// failing with probability at most delta (CM05 Theorem 1), treating the
// queries as independent: sd = sqrt(delta(1-delta)/n). See
// sketch/cms/stat_test.go for the derivation.
func tolerance(delta float64, n int) float64 {
	return delta + 4*math.Sqrt(delta*(1-delta)/float64(n))
}

func queryAll(s, plain *cms.Sketch, counts []uint32) pointStats {
	cfg := s.Config()
	st := pointStats{keys: len(counts), limit: tolerance(cfg.Delta(), len(counts))}
	bound := cfg.Eps() * float64(s.Total())
	var sum float64
	for id, n := range counts {
		h1, h2 := hashing.Sum8(uint64(id))
		est := s.CountHash(h1, h2)
		if plain != nil && est > plain.CountHash(h1, h2) {
			st.notBelowPlain++
		}
		if est < uint64(n) {
			st.under++
			continue
		}
		e := est - uint64(n)
		st.maxErr = max(st.maxErr, e)
		sum += float64(e)
		if float64(e) > bound {
			st.over++
		}
	}
	st.meanErr = sum / float64(len(counts))
	st.pass = st.under == 0 && st.notBelowPlain == 0 && float64(st.over)/float64(st.keys) <= st.limit
	return st
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000) }

// windowResult is the outcome of the sliding-window check.
type windowResult struct {
	steps, equal int
	rowsPerBatch int
}

// slidingWindow cuts stream into batches and keeps the sketch of the last w
// batches by adding each new batch row by row and subtracting the sketch of
// the batch that leaves; at every step it compares it with a sketch built
// from scratch over the window.
func slidingWindow(c cms.Config, stream []uint32, batches, w int) (windowResult, error) {
	per := len(stream) / batches
	batch := func(i int) []uint32 { return stream[i*per : (i+1)*per] }
	sliding := build(c, nil)
	scratch := build(c, nil)
	ring := make([]*cms.Sketch, w+1) // batch i's sketch at i % (w+1)
	for i := range ring {
		ring[i] = build(c, nil)
	}
	res := windowResult{rowsPerBatch: per}
	for i := range batches {
		b := ring[i%(w+1)]
		b.Reset()
		addRows(b, batch(i))
		addRows(sliding, batch(i))
		if i >= w {
			if err := sliding.Subtract(ring[(i-w)%(w+1)]); err != nil {
				return res, fmt.Errorf("batch %d: %w", i, err)
			}
		}
		scratch.Reset()
		for j := max(0, i-w+1); j <= i; j++ {
			addRows(scratch, batch(j))
		}
		res.steps++
		if sliding.Equal(scratch) {
			res.equal++
		}
	}
	return res, nil
}

func run(out io.Writer, o options) (ok bool, err error) {
	cfg, err := cms.ForError(o.eps, o.delta)
	if err != nil {
		return false, err
	}
	cfg.Seed = o.seed
	ok = true
	fmt.Fprintf(out, "## Count-min sketch (sketch/cms): cmseval\n\n")
	fmt.Fprintf(out, "%s %s/%s, %d CPUs. Flags: --distinct %d --rows %d --zipf %v --eps %v --delta %v --seed %d --windows %d --batches %d.\n\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), o.distinct, o.rows, o.zipf, o.eps, o.delta, o.seed, o.windows, o.batches)

	t0 := time.Now()
	rng := rand.New(rand.NewPCG(o.seed, 0x636d73))
	stream := zipfStream(rng, o.distinct, o.rows, o.zipf)
	counts := exactCounts(stream, o.distinct)
	occurring := 0
	for _, n := range counts {
		if n > 0 {
			occurring++
		}
	}
	fmt.Fprintf(out, "Stream: N = %d rows, Zipf s = %v over %d key ids (8-byte little-endian keys), %d of them occurring; key 0 has count %d. Generated in %s.\n\n",
		len(stream), o.zipf, o.distinct, occurring, counts[0], ms(time.Since(t0)))

	s0 := build(cfg, nil)
	fmt.Fprintf(out, "### Sizing\n\n")
	fmt.Fprintf(out, "| eps requested | Eps = e/Width | delta requested | Delta = e^-Depth | Width | Depth | bytes |\n|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(out, "| %v | %.4g | %v | %.4g | %d | %d | %d |\n\n", o.eps, cfg.Eps(), o.delta, cfg.Delta(), cfg.Width, cfg.Depth, s0.MemoryBytes())

	// Point queries.
	fmt.Fprintf(out, "### Point queries (CM05 Theorem 1)\n\n")
	fmt.Fprintf(out, "Every one of the %d key ids is queried (those not occurring have true count 0). eps*N = %.1f with eps = Eps(); the limit is Delta + 4*sqrt(Delta(1-Delta)/keys), Delta = e^-Depth <= delta.\n\n", o.distinct, cfg.Eps()*float64(len(stream)))
	fmt.Fprintf(out, "| update | keys with error > eps*N | fraction | limit Delta + 4 sd | result | underestimates | above plain | max error | mean error | build | query |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	t := time.Now()
	plain := build(cfg, stream)
	tb := time.Since(t)
	t = time.Now()
	ps := queryAll(plain, nil, counts)
	tq := time.Since(t)
	row := func(name string, st pointStats, above string, tb, tq time.Duration) {
		fmt.Fprintf(out, "| %s | %d | %.6f | %.6f | %s | %d | %s | %d | %.2f | %s | %s |\n",
			name, st.over, float64(st.over)/float64(st.keys), st.limit, verdict(st.pass), st.under, above, st.maxErr, st.meanErr, ms(tb), ms(tq))
	}
	row("plain", ps, "-", tb, tq)
	ok = ok && ps.pass
	cc := cfg
	cc.Conservative = true
	t = time.Now()
	cons := build(cc, stream)
	tb = time.Since(t)
	t = time.Now()
	cs := queryAll(cons, plain, counts)
	tq = time.Since(t)
	row("conservative", cs, fmt.Sprint(cs.notBelowPlain), tb, tq)
	ok = ok && cs.pass
	fmt.Fprintf(out, "\n\"above plain\" counts keys whose conservative estimate exceeds the plain one (must be 0).\n\n")

	// Inner product.
	fmt.Fprintf(out, "### Inner product (CM05 Theorem 3)\n\n")
	t = time.Now()
	rng2 := rand.New(rand.NewPCG(o.seed, 0x6a6f696e))
	stream2 := zipfStream(rng2, o.distinct, o.rows, o.zipf)
	counts2 := exactCounts(stream2, o.distinct)
	var join uint64
	for i, f := range counts {
		join += uint64(f) * uint64(counts2[i])
	}
	tg := time.Since(t)
	t = time.Now()
	other := build(cfg, stream2)
	est, err := plain.InnerProduct(other)
	if err != nil {
		return false, err
	}
	ti := time.Since(t)
	bound := cfg.Eps() * float64(len(stream)) * float64(len(stream2))
	ipOK := est >= join && float64(est-join) <= bound
	ok = ok && ipOK
	fmt.Fprintf(out, "Two independent Zipf streams of %d rows each over the same key ids (the second with its own generator).\n\n", len(stream2))
	fmt.Fprintf(out, "| true join size | estimate | error | error / true | bound eps*N1*N2 | result | generate + count | build + InnerProduct |\n|---|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(out, "| %d | %d | %d | %.3g | %.4g | %s | %s | %s |\n\n",
		join, est, int64(est-join), float64(est-join)/float64(join), bound, verdict(ipOK), ms(tg), ms(ti))

	// Sliding window.
	fmt.Fprintf(out, "### Sliding window (Add + Subtract vs from scratch)\n\n")
	t = time.Now()
	wr, err := slidingWindow(cfg, stream, o.batches, o.windows)
	if err != nil {
		return false, err
	}
	wOK := wr.equal == wr.steps
	ok = ok && wOK
	fmt.Fprintf(out, "| batches | rows per batch | window (batches) | steps compared | Equal | result | time |\n|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(out, "| %d | %d | %d | %d | %d | %s | %s |\n\n", o.batches, wr.rowsPerBatch, o.windows, wr.steps, wr.equal, verdict(wOK), ms(time.Since(t)))
	fmt.Fprintf(out, "Overall: %s in %s.\n", verdict(ok), ms(time.Since(t0)))
	return ok, nil
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmseval:", err)
		os.Exit(2)
	}
	ok, err := run(os.Stdout, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmseval:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}
