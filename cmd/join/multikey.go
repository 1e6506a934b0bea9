package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/mdbf"
	"github.com/acbfjoin/acbfjoin/repro/multikey"
	"github.com/acbfjoin/acbfjoin/tuple"
)

const multikeyUsage = `usage: join multikey <seed|absent> [flags]

Seed 001's "multi-dimension Bloom filter" (package mdbf): one filter per key
column, a tuple passing when each column's filter passes its value (the
per-column layout of run and compare), against one filter over the tuples
(the composite layout).

  seed    the seed's experiment with our Bloom filters: its formula at its
          m = 10^7 and its text's 10^8; false positives of fresh triples
          against both layouts (z against the formulas); the sequential
          count it printed (3), its expectation, and its printed code's
          first-hash variant
          join multikey seed [--rows 1000000 --bits 10000000 --k 3 --queries 100000000 --replicates 20 --seed 1]
  absent  both layouts over every combination of a key file's columns'
          values that is not a key (what the per-column layout cannot reject)
          join multikey absent --keys F --key-col COUNTRY,GYEAR,NCLASS [--key-type string] [--filter bloom] [--fpp 0.01 | --bits-per-key B]

--markdown prints Markdown tables.
`

func cmdMultikey(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, multikeyUsage)
		return usageError{errors.New("multikey: want seed or absent")}
	}
	switch args[0] {
	case "seed":
		return cmdMultikeySeed(ctx, args[1:], stdout, stderr)
	case "absent":
		return cmdMultikeyAbsent(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, multikeyUsage)
		return nil
	}
	return usageError{fmt.Errorf("multikey: unknown subcommand %q (want seed or absent; see join multikey -h)", args[0])}
}

const multikeySeedExamples = `
Examples:
  join multikey seed                                  # the seed's size: 10^6 triples, 10^7 bits, k = 3
  join multikey seed --queries 1e7 --replicates 4     # quicker
  join multikey seed --rows 1e5 --bits 1e6 --markdown
  join multikey seed --domain 1000                    # integer values with repeats
`

func cmdMultikeySeed(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("multikey seed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rows, bits, queries := countFlag{1000000}, countFlag{10000000}, countFlag{100000000}
	fs.Var(&rows, "rows", "n: triples inserted (1e6 is accepted)")
	fs.Var(&bits, "bits", "m: bits of each column's Bloom filter")
	k := fs.Int("k", 3, "hash functions of each column")
	dims := fs.Int("dims", 3, "columns (attributes) of a row")
	fs.Var(&queries, "queries", "fresh triples asked of each layout")
	replicates := fs.Int("replicates", 20, "repetitions of the sequential experiment, each on its own data")
	compositeK := fs.Int("composite-k", 0, "hash functions of the composite filter (default: round(ln 2 * dims*bits / rows))")
	domain := fs.Int("domain", 0, "0: the seed's values, random decimals in [0, 99999); D: integers 0..D-1 (repeats)")
	seed := fs.Uint64("seed", 1, "seed of the data (replicate r of the sequential experiment uses seed+r)")
	md := fs.Bool("markdown", false, "print Markdown tables")
	usageWithExamples(fs, "join multikey seed [--rows N] [--bits M] [--k K] [--queries Q] [--replicates R] [--seed S] [flags]", multikeySeedExamples)
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case rows.n < 1:
		return usageError{fmt.Errorf("multikey seed: --rows %d: want at least 1", rows.n)}
	case bits.n < 1 || uint64(bits.n) > 8*filters.MaxFilterBytes:
		return usageError{fmt.Errorf("multikey seed: --bits %d: want 1 to %d", bits.n, uint64(8*filters.MaxFilterBytes))}
	case *k < 1 || *k > filters.MaxK:
		return usageError{fmt.Errorf("multikey seed: --k %d: want 1 to %d", *k, filters.MaxK)}
	case *dims < 1 || *dims > mdbf.MaxColumns:
		return usageError{fmt.Errorf("multikey seed: --dims %d: want 1 to %d", *dims, mdbf.MaxColumns)}
	case *replicates < 0:
		return usageError{fmt.Errorf("multikey seed: --replicates %d: want 0 (none) or more", *replicates)}
	case *compositeK < 0 || *compositeK > filters.MaxK:
		return usageError{fmt.Errorf("multikey seed: --composite-k %d: want 1 to %d (leave it out for the optimum)", *compositeK, filters.MaxK)}
	case *domain < 0:
		return usageError{fmt.Errorf("multikey seed: --domain %d: want 0 (the seed's decimals) or a count of integer values", *domain)}
	case uint64(*dims)*uint64(bits.n) > 8*filters.MaxFilterBytes:
		return usageError{fmt.Errorf("multikey seed: a composite filter of --dims x --bits = %d bits, above %d", uint64(*dims)*uint64(bits.n), uint64(8*filters.MaxFilterBytes))}
	}
	n, m, d := rows.n, uint64(bits.n), *dims
	var w strings.Builder
	t := newMDTable(*md)

	// The seed's formula and our reading of it.
	fmt.Fprintf(&w, "seed 001: %d-dimensional Bloom filter, %d triples, m = %d bits a column, k = %d\n\n", d, n, m, *k)
	t.header("formula (1-(1-1/m)^(kn))^(dk)", "m", "rate", "x n (the seed's \"false positives\")")
	t.row("at the seed's code's m", fmt.Sprint(m), fmt.Sprintf("%.4g", multikey.SeedFPP(m, *k, n, d)), fmt.Sprintf("%.4g", float64(n)*multikey.SeedFPP(m, *k, n, d)))
	if m != 100000000 {
		t.row("at its text's m = 10^8", "100000000", fmt.Sprintf("%.4g", multikey.SeedFPP(1e8, *k, n, d)), fmt.Sprintf("%.4g", float64(n)*multikey.SeedFPP(1e8, *k, n, d)))
	}
	t.flush(&w)
	fmt.Fprintf(&w, "\nThe seed (n = 10^6, k = 3, d = 3) prints 5.27e-6 and 5.27 for m = 10^8: those are the numbers of m = 10^7, its code's (10^8 gives %.2g).\n", multikey.SeedFPP(1e8, 3, 1e6, 3))
	if _, err := io.WriteString(stdout, w.String()); err != nil {
		return stdoutError{err}
	}
	w.Reset()

	// Fresh triples against the three layouts.
	if queries.n > 0 {
		fr, err := multikey.FreshFP(ctx, multikey.FreshOptions{Rows: n, Bits: m, K: *k, Dims: d, Queries: int64(queries.n), Seed: *seed, Domain: *domain, CompositeK: *compositeK})
		if err != nil {
			return err
		}
		fmt.Fprintf(&w, "\nfalse positives of %d fresh triples (values from the same generator, other seeds; %d that were inserted triples excluded); %d distinct triples, distinct values a column %v\n\n",
			fr.Queries, fr.Present, fr.Tuples, fr.Distinct)
		t.header("layout", "bits", "k", "false positives", "measured", "formula", "z", "fill rate", "new combinations", "measured / composite")
		comp := fr.Composite.Rate
		for _, l := range []multikey.Layout{fr.PerColumn, fr.PerColumnOptK, fr.Composite} {
			ratio := "-"
			if comp > 0 {
				ratio = fmt.Sprintf("%.3g", l.Rate/comp)
			}
			t.row(l.Name, fmt.Sprint(l.Bits), kList(l.K), fmt.Sprintf("%d / %d", l.FP, fr.Queries), fmt.Sprintf("%.4g", l.Rate),
				fmt.Sprintf("%.4g", l.Formula), num(l.Z, "%+.2f"), fmt.Sprintf("%.4g", l.Fill), fmt.Sprint(l.Combos), ratio)
		}
		t.flush(&w)
		fmt.Fprintf(&w, "\nformula: per-column (1-(1-1/m)^(k n_c))^k multiplied over the columns (SeedFPP with all-distinct values), composite (1-(1-1/M)^(k n))^k with M = %d bits; z = (false positives - queries x formula) / binomial sd.\n", fr.Composite.Bits)
		fmt.Fprintf(&w, "fill rate: the filters' own rate from their ones, (ones/m)^k. New combinations: false positives of a per-column layout whose values all occur in their columns (they pass with probability 1).\n")
		fmt.Fprintf(&w, "On random all-distinct triples the per-column layout at each column's optimal k ties the composite filter of the same total bits: (1-e^(-kn/m))^(dk) with k = (m/n) ln 2 is the composite's rate at dm bits; on keys whose values repeat it does not (join multikey absent).\n")
		fmt.Fprintf(&w, "%d queries in %s\n", fr.Queries, fr.Elapsed.Round(time.Millisecond))
		if _, err := io.WriteString(stdout, w.String()); err != nil {
			return stdoutError{err}
		}
		w.Reset()
	}

	// The sequential experiment.
	if *replicates > 0 {
		sr, err := multikey.Sequential(ctx, multikey.SequentialOptions{Rows: n, Bits: m, K: *k, Dims: d, Seed: *seed, Domain: *domain, Replicates: *replicates})
		if err != nil {
			return err
		}
		mean, fmean := multikey.Mean(sr.Counts), multikey.Mean(sr.FirstHash)
		reps := float64(len(sr.Counts))
		fmt.Fprintf(&w, "\nthe seed's sequential experiment, %d replicates: insert the triples one by one, count those whose %d values all pass before insertion (the seed printed 3)\n\n", len(sr.Counts), d)
		t.header("variant", "expected", "mean", "z (Poisson)", "counts")
		t.row("as intended (all k probes)", fmt.Sprintf("%.4g", sr.Expected), fmt.Sprintf("%.4g", mean), zText(mean, sr.Expected, reps), countsText(sr.Counts))
		t.row("as printed (first probe only)", fmt.Sprintf("%.6g", sr.ExpectedFirstHash), fmt.Sprintf("%.6g", fmean), zText(fmean, sr.ExpectedFirstHash, reps), countsText(sr.FirstHash))
		t.flush(&w)
		fmt.Fprintf(&w, "\nexpected: sum over i < n of (1-(1-1/m)^(ki))^(dk) (element i meets filters of i elements; the first-probe variant ^d), not n x the full filter's rate (%.4g).\n", float64(n)*multikey.SeedFPP(m, *k, n, d))
		fmt.Fprintf(&w, "P(count >= 3) under Poisson(%.4g): %.3g. The printed code cannot give 3 either way: with its storage calls inside the if nothing is ever stored (count 0), and its contain returns after the first probe (about %.0f).\n",
			sr.Expected, multikey.PoissonAtLeast(sr.Expected, 3), sr.ExpectedFirstHash)
		if *domain > 0 {
			fmt.Fprintf(&w, "with --domain %d values repeat: the counts include rows whose values were all inserted before, which are not false positives, and the expectations (for distinct values) do not apply.\n", *domain)
		}
		fmt.Fprintf(&w, "%d replicates in %s\n", len(sr.Counts), sr.Elapsed.Round(time.Millisecond))
		if _, err := io.WriteString(stdout, w.String()); err != nil {
			return stdoutError{err}
		}
	}
	return nil
}

// zText is the z-score of a mean of reps Poisson counts against expected.
func zText(mean, expected, reps float64) string {
	if expected <= 0 || reps == 0 {
		return "-"
	}
	return fmt.Sprintf("%+.2f", (mean-expected)/math.Sqrt(expected/reps))
}

func countsText(cs []int) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = fmt.Sprint(c)
	}
	return strings.Join(s, " ")
}

// kList prints the ks of a layout: one, or one a column ("3,3,3").
func kList(ks []int) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = fmt.Sprint(k)
	}
	return strings.Join(s, ",")
}

const multikeyAbsentExamples = `
Examples:
  join multikey absent --keys data/apat63_99.txt --key-col COUNTRY,GYEAR,NCLASS --key-type string
  join multikey absent --keys data/apat63_99.txt --key-col COUNTRY,GYEAR --key-type string,int --filter cbf --bits-per-key 16 --markdown
`

func cmdMultikeyAbsent(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("multikey absent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	keys := fs.String("keys", "", "the key file: CSV or TSV with header, .gz/.zip, or - (required)")
	delim := fs.String("delim", "", `field separator: one byte, such as "," "\t" (or "tab") ";" or "|" (not a quote or line break); default: a tab for .tsv and .tab files, else a comma`)
	badRows := fs.String("bad-rows", "fail", "fail: stop at the first malformed row; skip: drop rows whose key does not parse, and count them")
	keyCol := fs.String("key-col", "", "the key columns, comma-separated (required; at least two)")
	keyType := fs.String("key-type", "int", "int or string: one a key column, or one for all")
	kind := fs.String("filter", string(filters.Bloom), "the filter of both layouts: "+kindList())
	var sf sizingFlags
	sf.register(fs)
	maxComb := countFlag{multikey.DefaultMaxCombinations}
	fs.Var(&maxComb, "max-combinations", "refuse a product of the columns' distinct counts above this")
	md := fs.Bool("markdown", false, "print Markdown tables")
	usageWithExamples(fs, "join multikey absent --keys F --key-col C1,C2,... [--key-type T] [--filter K] [--fpp P | --bits-per-key B] [flags]", multikeyAbsentExamples)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *keys == "" || *keyCol == "" {
		return usageError{fmt.Errorf("multikey absent: --keys and --key-col are required")}
	}
	if err := checkPaths(nil, []namedPath{{"--keys", *keys}}); err != nil {
		return usageError{fmt.Errorf("multikey absent: %w", err)}
	}
	sep, err := parseDelim("multikey absent", *delim)
	if err != nil {
		return err
	}
	skip, err := badRowsFlag("multikey absent", *badRows)
	if err != nil {
		return err
	}
	ckc, ckt, err := key.Canonical(*keyCol, key.Type(*keyType))
	if err != nil {
		return usageError{fmt.Errorf("multikey absent: --key-col %s --key-type %s: %v", *keyCol, *keyType, err)}
	}
	names, err := key.SplitColumns(ckc)
	if err != nil {
		return usageError{fmt.Errorf("multikey absent: --key-col: %v", err)}
	}
	if len(names) < 2 {
		return usageError{fmt.Errorf("multikey absent: --key-col %s: the per-column layout needs a key of several columns", *keyCol)}
	}
	var types []key.Type
	for _, t := range strings.Split(string(ckt), ",") {
		types = append(types, key.Type(t))
	}
	if len(types) != len(names) {
		return usageError{fmt.Errorf("multikey absent: --key-type %s: %d types for %d columns", *keyType, len(types), len(names))}
	}
	if _, err := filters.Lookup(*kind); err != nil {
		return usageError{fmt.Errorf("multikey absent: --filter %q: %v", *kind, err)}
	}
	sz, err := sf.sizing("multikey absent")
	if err != nil {
		return err
	}
	if !sf.SizedBy() {
		sz.FPP = 0.01
	}
	if err := sf.checkKinds("multikey absent", filters.Kind(*kind)); err != nil {
		return err
	}
	if maxComb.n < 1 {
		return usageError{fmt.Errorf("multikey absent: --max-combinations %d: want at least 1", maxComb.n)}
	}

	start := time.Now()
	ks, tts, rec, bad, err := readTupleKeys(ctx, *keys, sep, names, types, skip)
	if err != nil {
		return fmt.Errorf("multikey absent: %w", err)
	}
	read := time.Since(start)
	res, err := multikey.Absent(ctx, multikey.AbsentOptions{Types: tts, Keys: ks, Kind: filters.Kind(*kind), Sizing: sz, MaxCombinations: int64(maxComb.n)})
	if err != nil {
		if errors.Is(err, multikey.ErrTooMany) {
			return usageError{fmt.Errorf("multikey absent: %w (raise --max-combinations, or take fewer columns)", err)}
		}
		return flagError("multikey absent", fs, err)
	}
	var w strings.Builder
	dist := make([]string, len(res.Distinct))
	for i, v := range res.Distinct {
		dist[i] = fmt.Sprint(v)
	}
	fmt.Fprintf(&w, "%s: %d key rows, %d distinct key tuples over %s; distinct values %s = %d combinations, %d of them absent (%.2f%% of the combinations are keys)\n",
		*keys, rec, res.Keys, key.JoinColumns(names), strings.Join(dist, " x "), res.Combinations, res.Absent, 100*float64(res.Keys)/float64(res.Combinations))
	if bad > 0 {
		fmt.Fprintf(&w, "skipped %d bad rows\n", bad)
	}
	target := fmt.Sprintf("%g bits per key", sz.BitsPerKey)
	if sz.FPP > 0 {
		target = fmt.Sprintf("formula rate %g", sz.FPP)
	}
	fmt.Fprintf(&w, "\n%s filters, each sized for its own distinct keys (%s)\n\n", *kind, target)
	t := newMDTable(*md)
	t.header("layout", "memory bits", "k", "formula FP", "absent combinations passed", "measured rate")
	for _, l := range []struct {
		name string
		l    multikey.AbsentLayout
	}{{"per-column", res.PerColumn}, {"composite", res.Composite}} {
		b := l.l.Built
		t.row(l.name, fmt.Sprint(b.MemoryBits), orDash(kText(b.K)), fmt.Sprintf("%.4g", b.FPP), fmt.Sprintf("%d / %d", l.l.FP, res.Absent), num(rate(l.l.FP, res.Absent), "%.4g"))
	}
	t.flush(&w)
	fmt.Fprintf(&w, "\nper column:\n\n")
	t.header("column", "distinct values", "memory bits", "k", "formula FP")
	for i, c := range mdbf.Columns(res.PerColumn.Built) {
		t.row(names[i], fmt.Sprint(c.N), fmt.Sprint(c.MemoryBits), orDash(kText(c.K)), fmt.Sprintf("%.4g", c.FPP))
	}
	t.flush(&w)
	fmt.Fprintf(&w, "\nThe per-column formula (the product of the columns') is the rate of a tuple whose values are all absent. Every absent combination here is made of present values, which no column's filter can reject: the per-column layout passes all of them, the composite filter about its formula rate.\n")
	fmt.Fprintf(&w, "read in %s, built and asked in %s\n", read.Round(time.Millisecond), res.Elapsed.Round(time.Millisecond))
	if _, err := io.WriteString(stdout, w.String()); err != nil {
		return stdoutError{err}
	}
	return nil
}

func rate(fp, trials int64) float64 {
	if trials == 0 {
		return math.NaN()
	}
	return float64(fp) / float64(trials)
}

// readTupleKeys reads the distinct key tuples of a key file (key.Spec's
// composite keys), and the key rows read and skipped.
func readTupleKeys(ctx context.Context, path string, sep byte, names []string, types []key.Type, skip bool) (keys [][]byte, tts []tuple.Type, records, bad int64, err error) {
	rc, name, err := csvscan.OpenContext(ctx, path)
	if err != nil {
		return nil, nil, 0, 0, fileFlag("keys", path, err)
	}
	defer rc.Close()
	r := csvscan.NewReader(rc, name)
	if sep == 0 {
		sep = csvscan.SepFor(path)
	}
	if err := r.SetSep(sep); err != nil {
		return nil, nil, 0, 0, usageError{fmt.Errorf("--delim: %w", err)}
	}
	if skip {
		r.SkipBad(func(*csvscan.ParseError) { bad++ })
	}
	header, err := r.ReadHeader()
	if err != nil {
		return nil, nil, 0, 0, err
	}
	spec, err := key.NewSpec(header, names, types)
	if err != nil {
		return nil, nil, 0, 0, usageError{fmt.Errorf("--keys %s: --key-col: %v", name, err)}
	}
	seen := make(map[string]struct{})
	var key []byte
	for r.Next() {
		if records%(1<<14) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, 0, 0, err
			}
		}
		records++
		key, err = spec.Append(key[:0], r.Fields())
		if err != nil {
			if skip {
				bad++
				records--
				continue
			}
			return nil, nil, 0, 0, r.Errorf("%w", err)
		}
		if _, ok := seen[string(key)]; !ok {
			seen[string(key)] = struct{}{}
			keys = append(keys, []byte(string(key)))
		}
	}
	if err := r.Err(); err != nil {
		return nil, nil, 0, 0, err
	}
	return keys, spec.TupleTypes(), records, bad, nil
}

// mdTable prints rows as a Markdown table or aligned text.
type mdTable struct {
	md   bool
	rows [][]string
}

func newMDTable(md bool) *mdTable { return &mdTable{md: md} }

func (t *mdTable) header(cells ...string) { t.rows = [][]string{cells} }
func (t *mdTable) row(cells ...string)    { t.rows = append(t.rows, cells) }

// flush writes the table and empties it.
func (t *mdTable) flush(w io.Writer) {
	defer func() { t.rows = nil }()
	if len(t.rows) == 0 {
		return
	}
	if t.md {
		for i, r := range t.rows {
			cells := make([]string, len(r))
			for j, c := range r {
				cells[j] = mdCell(c)
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
			if i == 0 {
				seps := make([]string, len(r))
				for j := range seps {
					seps[j] = "---:"
				}
				seps[0] = "---"
				fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
			}
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range t.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	tw.Flush()
}
