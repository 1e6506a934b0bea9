package multikey

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/acbfjoin/acbfjoin/join"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/internal/textfmt"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/mdbf"
	"github.com/acbfjoin/acbfjoin/tuple"
)

// SeedOptions are the seed experiment's (join multikey seed): n rows of
// Dims values, m bits and K hashes a column, Queries fresh rows asked of
// the layouts (0: none), Replicates runs of the sequential experiment
// (0: none), the composite filter's k (0: its optimum), the values'
// domain (0: the seed's decimals) and the seed.
type SeedOptions struct {
	Rows               int
	Bits               uint64
	K, Dims            int
	Queries            int64
	Replicates         int
	CompositeK, Domain int
	Seed               uint64
}

// ErrOptions is wrapped by SeedOptions.Validate's errors.
var ErrOptions = errors.New("multikey: invalid options")

// Validate checks the options' ranges: errors are option.Errors naming the
// field.
func (o SeedOptions) Validate() error {
	bad := func(name string, v any, format string, a ...any) error {
		return &option.Error{Pkg: "multikey", Name: name, Value: v, Reason: fmt.Sprintf(format, a...), Err: ErrOptions}
	}
	switch {
	case o.Rows < 1:
		return bad("Rows", o.Rows, "want at least 1")
	case o.Bits < 1 || o.Bits > 8*filters.MaxFilterBytes:
		return bad("Bits", o.Bits, "want 1 to %d", uint64(8*filters.MaxFilterBytes))
	case o.K < 1 || o.K > filters.MaxK:
		return bad("K", o.K, "want 1 to %d", filters.MaxK)
	case o.Dims < 1 || o.Dims > mdbf.MaxColumns:
		return bad("Dims", o.Dims, "want 1 to %d", mdbf.MaxColumns)
	case o.Queries < 0:
		return bad("Queries", o.Queries, "want 0 (none) or more")
	case o.Replicates < 0:
		return bad("Replicates", o.Replicates, "want 0 (none) or more")
	case o.CompositeK < 0 || o.CompositeK > filters.MaxK:
		return bad("CompositeK", o.CompositeK, "want 1 to %d (0: the optimum)", filters.MaxK)
	case o.Domain < 0:
		return bad("Domain", o.Domain, "want 0 (the seed's decimals) or a count of integer values")
	case uint64(o.Dims)*o.Bits > 8*filters.MaxFilterBytes:
		return bad("Bits", o.Bits, "a composite filter of %d columns x %d bits = %d bits, above %d", o.Dims, o.Bits, uint64(o.Dims)*o.Bits, uint64(8*filters.MaxFilterBytes))
	}
	return nil
}

// WriteSeed runs the seed experiment of opt (Validate's) and hands its
// text to out part by part as each is done (a table, Markdown with md):
// the seed's formula, the layouts on fresh rows, the sequential
// experiment. The experiments' errors and out's are returned.
func WriteSeed(ctx context.Context, opt SeedOptions, md bool, out func(string) error) error {
	n, m, d := opt.Rows, opt.Bits, opt.Dims
	var w strings.Builder
	t := &textfmt.Table{Markdown: md}

	// The seed's formula and our reading of it.
	fmt.Fprintf(&w, "seed 001: %d-dimensional Bloom filter, %d triples, m = %d bits a column, k = %d\n\n", d, n, m, opt.K)
	t.Header("formula (1-(1-1/m)^(kn))^(dk)", "m", "rate", "x n (the seed's \"false positives\")")
	t.Row("at the seed's code's m", fmt.Sprint(m), fmt.Sprintf("%.4g", SeedFPP(m, opt.K, n, d)), fmt.Sprintf("%.4g", float64(n)*SeedFPP(m, opt.K, n, d)))
	if m != 100000000 {
		t.Row("at its text's m = 10^8", "100000000", fmt.Sprintf("%.4g", SeedFPP(1e8, opt.K, n, d)), fmt.Sprintf("%.4g", float64(n)*SeedFPP(1e8, opt.K, n, d)))
	}
	t.Flush(&w)
	fmt.Fprintf(&w, "\nThe seed (n = 10^6, k = 3, d = 3) prints 5.27e-6 and 5.27 for m = 10^8: those are the numbers of m = 10^7, its code's (10^8 gives %.2g).\n", SeedFPP(1e8, 3, 1e6, 3))
	if err := out(w.String()); err != nil {
		return err
	}
	w.Reset()

	// Fresh triples against the three layouts.
	if opt.Queries > 0 {
		fr, err := FreshFP(ctx, FreshOptions{Rows: n, Bits: m, K: opt.K, Dims: d, Queries: opt.Queries, Seed: opt.Seed, Domain: opt.Domain, CompositeK: opt.CompositeK})
		if err != nil {
			return err
		}
		fmt.Fprintf(&w, "\nfalse positives of %d fresh triples (values from the same generator, other seeds; %d that were inserted triples excluded); %d distinct triples, distinct values a column %v\n\n",
			fr.Queries, fr.Present, fr.Tuples, fr.Distinct)
		t.Header("layout", "bits", "k", "false positives", "measured", "formula", "z", "fill rate", "new combinations", "measured / composite")
		comp := fr.Composite.Rate
		for _, l := range []Layout{fr.PerColumn, fr.PerColumnOptK, fr.Composite} {
			ratio := "-"
			if comp > 0 {
				ratio = fmt.Sprintf("%.3g", l.Rate/comp)
			}
			t.Row(l.Name, fmt.Sprint(l.Bits), kList(l.K), fmt.Sprintf("%d / %d", l.FP, fr.Queries), fmt.Sprintf("%.4g", l.Rate),
				fmt.Sprintf("%.4g", l.Formula), textfmt.Num(l.Z, "%+.2f"), fmt.Sprintf("%.4g", l.Fill), fmt.Sprint(l.Combos), ratio)
		}
		t.Flush(&w)
		fmt.Fprintf(&w, "\nformula: per-column (1-(1-1/m)^(k n_c))^k multiplied over the columns (SeedFPP with all-distinct values), composite (1-(1-1/M)^(k n))^k with M = %d bits; z = (false positives - queries x formula) / binomial sd.\n", fr.Composite.Bits)
		fmt.Fprintf(&w, "fill rate: the filters' own rate from their ones, (ones/m)^k. New combinations: false positives of a per-column layout whose values all occur in their columns (they pass with probability 1).\n")
		fmt.Fprintf(&w, "On random all-distinct triples the per-column layout at each column's optimal k ties the composite filter of the same total bits: (1-e^(-kn/m))^(dk) with k = (m/n) ln 2 is the composite's rate at dm bits; on keys whose values repeat it does not (join multikey absent).\n")
		fmt.Fprintf(&w, "%d queries in %s\n", fr.Queries, fr.Elapsed.Round(time.Millisecond))
		if err := out(w.String()); err != nil {
			return err
		}
		w.Reset()
	}

	// The sequential experiment.
	if opt.Replicates > 0 {
		sr, err := Sequential(ctx, SequentialOptions{Rows: n, Bits: m, K: opt.K, Dims: d, Seed: opt.Seed, Domain: opt.Domain, Replicates: opt.Replicates})
		if err != nil {
			return err
		}
		mean, fmean := Mean(sr.Counts), Mean(sr.FirstHash)
		reps := float64(len(sr.Counts))
		fmt.Fprintf(&w, "\nthe seed's sequential experiment, %d replicates: insert the triples one by one, count those whose %d values all pass before insertion (the seed printed 3)\n\n", len(sr.Counts), d)
		t.Header("variant", "expected", "mean", "z (Poisson)", "counts")
		t.Row("as intended (all k probes)", fmt.Sprintf("%.4g", sr.Expected), fmt.Sprintf("%.4g", mean), zText(mean, sr.Expected, reps), countsText(sr.Counts))
		t.Row("as printed (first probe only)", fmt.Sprintf("%.6g", sr.ExpectedFirstHash), fmt.Sprintf("%.6g", fmean), zText(fmean, sr.ExpectedFirstHash, reps), countsText(sr.FirstHash))
		t.Flush(&w)
		fmt.Fprintf(&w, "\nexpected: sum over i < n of (1-(1-1/m)^(ki))^(dk) (element i meets filters of i elements; the first-probe variant ^d), not n x the full filter's rate (%.4g).\n", float64(n)*SeedFPP(m, opt.K, n, d))
		fmt.Fprintf(&w, "P(count >= 3) under Poisson(%.4g): %.3g. The printed code cannot give 3 either way: with its storage calls inside the if nothing is ever stored (count 0), and its contain returns after the first probe (about %.0f).\n",
			sr.Expected, PoissonAtLeast(sr.Expected, 3), sr.ExpectedFirstHash)
		if opt.Domain > 0 {
			fmt.Fprintf(&w, "with a domain of %d values they repeat: the counts include rows whose values were all inserted before, which are not false positives, and the expectations (for distinct values) do not apply.\n", opt.Domain)
		}
		fmt.Fprintf(&w, "%d replicates in %s\n", len(sr.Counts), sr.Elapsed.Round(time.Millisecond))
		if err := out(w.String()); err != nil {
			return err
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

func rate(fp, trials int64) float64 {
	if trials == 0 {
		return math.NaN()
	}
	return float64(fp) / float64(trials)
}

// AbsentInfo is what AbsentText says besides Absent's result: the key
// file, its columns, its rows read and skipped, the filter's kind and
// sizing, the time the file took.
type AbsentInfo struct {
	Keys         string
	Columns      []string
	Records, Bad int64
	Kind         filters.Kind
	Sizing       filters.Sizing
	Read         time.Duration
}

// AbsentText is join multikey absent's report of res (tables in Markdown
// with md).
func AbsentText(res AbsentResult, info AbsentInfo, md bool) string {
	var w strings.Builder
	dist := make([]string, len(res.Distinct))
	for i, v := range res.Distinct {
		dist[i] = fmt.Sprint(v)
	}
	fmt.Fprintf(&w, "%s: %d key rows, %d distinct key tuples over %s; distinct values %s = %d combinations, %d of them absent (%.2f%% of the combinations are keys)\n",
		info.Keys, info.Records, res.Keys, key.JoinColumns(info.Columns), strings.Join(dist, " x "), res.Combinations, res.Absent, 100*float64(res.Keys)/float64(res.Combinations))
	if info.Bad > 0 {
		fmt.Fprintf(&w, "skipped %d bad rows\n", info.Bad)
	}
	target := fmt.Sprintf("%g bits per key", info.Sizing.BitsPerKey)
	if info.Sizing.FPP > 0 {
		target = fmt.Sprintf("formula rate %g", info.Sizing.FPP)
	}
	fmt.Fprintf(&w, "\n%s filters, each sized for its own distinct keys (%s)\n\n", info.Kind, target)
	t := &textfmt.Table{Markdown: md}
	t.Header("layout", "memory bits", "k", "formula FP", "absent combinations passed", "measured rate")
	for _, l := range []struct {
		name string
		l    AbsentLayout
	}{{"per-column", res.PerColumn}, {"composite", res.Composite}} {
		b := l.l.Built
		t.Row(l.name, fmt.Sprint(b.MemoryBits), textfmt.K(b.K), fmt.Sprintf("%.4g", b.FPP), fmt.Sprintf("%d / %d", l.l.FP, res.Absent), textfmt.Num(rate(l.l.FP, res.Absent), "%.4g"))
	}
	t.Flush(&w)
	fmt.Fprintf(&w, "\nper column:\n\n")
	t.Header("column", "distinct values", "memory bits", "k", "formula FP")
	for i, c := range mdbf.Columns(res.PerColumn.Built) {
		t.Row(info.Columns[i], fmt.Sprint(c.N), fmt.Sprint(c.MemoryBits), textfmt.K(c.K), fmt.Sprintf("%.4g", c.FPP))
	}
	t.Flush(&w)
	fmt.Fprintf(&w, "\nThe per-column formula (the product of the columns') is the rate of a tuple whose values are all absent. Every absent combination here is made of present values, which no column's filter can reject: the per-column layout passes all of them, the composite filter about its formula rate.\n")
	fmt.Fprintf(&w, "read in %s, built and asked in %s\n", info.Read.Round(time.Millisecond), res.Elapsed.Round(time.Millisecond))
	return w.String()
}

// ReadKeys reads the distinct key tuples (key.Spec's composite keys of the
// columns names, of types) of a key file, path as csvscan.Open takes it,
// its fields separated by sep (0: by its name, csvscan.SepFor), rows whose
// key does not parse skipped with skip, else an error naming the line;
// and the key rows read and skipped. A missing column is an option.Error
// naming KeyCol. O(file), the distinct tuples in memory.
func ReadKeys(ctx context.Context, path string, sep byte, names []string, types []key.Type, skip bool) (keys [][]byte, tts []tuple.Type, records, bad int64, err error) {
	rc, name, err := csvscan.OpenContext(ctx, path)
	if err != nil {
		return nil, nil, 0, 0, join.FileError("Keys", path, err) // "Keys /nope: no such file", the option named
	}
	defer rc.Close()
	r := csvscan.NewReader(rc, name)
	if sep == 0 {
		sep = csvscan.SepFor(path)
	}
	if err := r.SetSep(sep); err != nil {
		return nil, nil, 0, 0, err
	}
	if skip {
		r.SkipBad(func(*csvscan.ParseError) { bad++ })
	}
	header, err := r.ReadHeader()
	if err != nil {
		return nil, nil, 0, 0, err
	}
	spec, err := key.Find("KeyCol", name, header, names, types)
	if err != nil {
		return nil, nil, 0, 0, err
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

// AbsentFileOptions is Absent over the keys of a file (join multikey
// absent): the file and how to read it, the key's columns and types, and
// Absent's filter and bound.
type AbsentFileOptions struct {
	Keys        string   // CSV or TSV with a header, .gz or .zip, or "-"
	Sep         byte     // 0: by the file's name (csvscan.SepFor)
	KeyCol      string   // the key's columns, a CSV record: at least two
	KeyType     key.Type // one a column, or one for all (default int)
	SkipBadRows bool     // drop rows whose key does not parse, counted
	Kind        filters.Kind
	Sizing      filters.Sizing // default AbsentSizing's
	// MaxCombinations bounds the product of the columns' distinct counts
	// (0: DefaultMaxCombinations).
	MaxCombinations int64
}

// Check refuses o before the file is read: option.Errors naming the
// field (KeyCol, KeyType, Filter, MaxCombinations), wrapping
// mdbf.ErrKeys. It returns the key's columns and types.
func (o AbsentFileOptions) Check() ([]string, []key.Type, error) {
	refuse := func(name string, value any, reason string) ([]string, []key.Type, error) {
		return nil, nil, &option.Error{Pkg: "multikey", Name: name, Value: value, Reason: reason, Err: mdbf.ErrKeys}
	}
	names, types, err := key.Parse(o.KeyCol, cmp.Or(o.KeyType, key.Int)) // one type a column
	switch {
	case o.Keys == "":
		return refuse("Keys", `""`, "required (the key file)")
	case err != nil:
		return nil, nil, option.Within(err, "multikey", mdbf.ErrKeys)
	case len(names) < 2:
		return refuse("KeyCol", o.KeyCol, "the per-column layout needs a key of several columns")
	case o.MaxCombinations < 0:
		return refuse("MaxCombinations", o.MaxCombinations, "want at least 1")
	}
	if _, err := filters.Lookup(string(o.Kind)); err != nil {
		return refuse("Filter", fmt.Sprintf("%q", o.Kind), err.Error())
	}
	return names, types, nil
}

// AbsentFile reads the keys of o.Keys (ReadKeys) and runs Absent on them;
// it returns the report (AbsentText, Markdown tables with md). Cost:
// ReadKeys' and Absent's.
func AbsentFile(ctx context.Context, o AbsentFileOptions, md bool) (string, error) {
	names, types, err := o.Check()
	if err != nil {
		return "", err
	}
	sz := AbsentSizing(o.Sizing)
	start := time.Now()
	ks, tts, rec, bad, err := ReadKeys(ctx, o.Keys, o.Sep, names, types, o.SkipBadRows)
	if err != nil {
		return "", err
	}
	read := time.Since(start)
	res, err := Absent(ctx, AbsentOptions{Types: tts, Keys: ks, Kind: o.Kind, Sizing: sz, MaxCombinations: o.MaxCombinations})
	if err != nil {
		return "", err
	}
	return AbsentText(res, AbsentInfo{Keys: o.Keys, Columns: names, Records: rec, Bad: bad, Kind: o.Kind, Sizing: sz, Read: read}, md), nil
}
