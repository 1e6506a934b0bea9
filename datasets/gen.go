// Package datasets writes the generated datasets of join gen, by name:
// which options each reads, their defaults and ranges, and what it wrote.
// Each dataset is its own package (nber, imdb, triples, ipstream,
// semijoin); this one dispatches.
package datasets

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/acbfjoin/acbfjoin/datasets/imdb"
	"github.com/acbfjoin/acbfjoin/datasets/ipstream"
	"github.com/acbfjoin/acbfjoin/datasets/nber"
	"github.com/acbfjoin/acbfjoin/datasets/semijoin"
	"github.com/acbfjoin/acbfjoin/datasets/triples"
	"github.com/acbfjoin/acbfjoin/internal/option"
)

// Options are every dataset's options; a dataset reads those Reads names,
// the others must be left unset (Given). The zero value of a field is its
// dataset's default.
type Options struct {
	Dataset string // nber (the default), imdb-ratings, triples, ipstream, semijoin
	Seed    uint64
	// Given names the fields set (the caller's: a command line's flags),
	// so that 0 can be told from "left out" and an option of another
	// dataset refused.
	Given map[string]bool

	Scale       float64 // nber: size against the real files (1)
	Workers     int     // nber: goroutines (0: GOMAXPROCS)
	Rows        int64   // imdb-ratings, triples, ipstream, semijoin: rows
	Domain      int     // triples: 0 the seed's decimals, D integers 0..D-1
	Zipf        float64 // ipstream, semijoin: the keys' Zipf exponent
	Distinct    int64   // ipstream: addresses; semijoin: non-member keys
	Events      int64   // ipstream: key events
	Live        int64   // ipstream: the live set's target size
	Keys        int     // semijoin: distinct keys
	Selectivity float64 // semijoin: the share of rows with a key
	Shape       string  // semijoin: dense, sparse or string keys
}

// ErrOptions is wrapped by Gen's option errors (option.Errors naming the
// field).
var ErrOptions = errors.New("datasets: invalid options")

// Names are the datasets, in the order of help texts.
var Names = []string{"nber", "imdb-ratings", "triples", "ipstream", "semijoin"}

// Reads names the options each dataset reads (the fields of Options).
var Reads = map[string][]string{
	"nber":         {"Scale", "Workers"},
	"imdb-ratings": {"Rows"},
	"triples":      {"Rows", "Domain"},
	"ipstream":     {"Rows", "Zipf", "Distinct", "Events", "Live"},
	"semijoin":     {"Rows", "Zipf", "Distinct", "Keys", "Selectivity", "Shape"},
}

var allOptions = []string{"Scale", "Workers", "Rows", "Domain", "Zipf", "Distinct", "Events", "Live", "Keys", "Selectivity", "Shape"}

func optionError(name string, v any, format string, a ...any) error {
	return &option.Error{Pkg: "datasets", Name: name, Value: v, Reason: fmt.Sprintf(format, a...), Err: ErrOptions}
}

// Check checks the dataset's name and that no option of another dataset
// is given.
func (o Options) Check() error {
	name := o.dataset()
	reads, ok := Reads[name]
	if !ok {
		return optionError("Dataset", fmt.Sprintf("%q", o.Dataset), "want one of %s", strings.Join(Names, ", "))
	}
	for _, f := range allOptions {
		if o.Given[f] && !slices.Contains(reads, f) {
			return optionError(f, o.value(f), "does not apply to the dataset %s", name)
		}
	}
	return nil
}

func (o Options) dataset() string {
	if o.Dataset == "" {
		return "nber"
	}
	return o.Dataset
}

// value is the field f's value, for messages.
func (o Options) value(f string) any {
	return map[string]any{"Scale": o.Scale, "Workers": o.Workers, "Rows": o.Rows, "Domain": o.Domain, "Zipf": o.Zipf, "Distinct": o.Distinct,
		"Events": o.Events, "Live": o.Live, "Keys": o.Keys, "Selectivity": o.Selectivity, "Shape": o.Shape}[f]
}

// Gen writes the dataset of o into the folder out and returns what it
// wrote, a line or two for people. Errors about the options are
// option.Errors naming the field, checked before anything is written.
func Gen(ctx context.Context, out string, o Options) (string, error) {
	if err := o.Check(); err != nil {
		return "", err
	}
	rows := func(def int64) int64 {
		if o.Given["Rows"] {
			return o.Rows
		}
		return def
	}
	switch o.dataset() {
	case "imdb-ratings":
		n := rows(imdb.SeedRows)
		if n < 1 || n > imdb.MaxRows {
			return "", optionError("Rows", n, "want 1..%d (tconst has seven digits)", imdb.MaxRows)
		}
		res, path, err := imdb.GenerateRatings(ctx, out, imdb.RatingsOptions{Rows: int(n), Seed: o.Seed})
		if err != nil {
			return "", err
		}
		classes := make([]string, 0, 10)
		for c := 1; c <= 10; c++ {
			classes = append(classes, fmt.Sprintf("%d:%d", c, res.Classes[c]))
		}
		return fmt.Sprintf("wrote %s (%d rows; titles by rating class %s) in %s\n", path, res.Rows, strings.Join(classes, " "), res.Elapsed.Round(time.Millisecond)), nil
	case "triples":
		n := rows(triples.SeedRows)
		switch {
		case n < 1 || n > triples.MaxRows:
			return "", optionError("Rows", n, "want 1..%d", int64(triples.MaxRows))
		case o.Domain < 0:
			return "", optionError("Domain", o.Domain, "want 0 (the seed's decimals) or a number of integer values")
		}
		start := time.Now()
		path, err := triples.Generate(ctx, out, triples.Options{Rows: int(n), Seed: o.Seed, Domain: o.Domain})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("wrote %s (%d rows) in %s\n", path, n, time.Since(start).Round(time.Millisecond)), nil
	case "ipstream":
		return genIPStream(ctx, out, o, rows(ipstream.DefaultRows))
	case "semijoin":
		return genSemijoin(ctx, out, o, rows(semijoin.DefaultRows))
	}
	res, err := nber.Generate(ctx, out, nber.GenOptions{Scale: o.Scale, Seed: o.Seed, Workers: o.Workers})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %s (%d citations, %.1f%% cite numbers before 1963, most cited patent %d times)\nwrote %s (%d patents) in %s\n",
		res.CitePath, res.Citations, 100*float64(res.CitedPre1963)/float64(max(res.Citations, 1)), res.MaxInDegree,
		res.PatPath, res.Patents, res.Elapsed.Round(time.Millisecond)), nil
}

// genIPStream: the defaults and the ranges are ipstream's (Defaults,
// Options.Check); a given Distinct moves the live set's default with it.
func genIPStream(ctx context.Context, out string, o Options, rows int64) (string, error) {
	opt := ipstream.Defaults(rows, o.Seed)
	if o.Given["Zipf"] {
		opt.Zipf = o.Zipf
	}
	if o.Given["Distinct"] {
		opt.Distinct = o.Distinct
		opt.Live = ipstream.DefaultLive(opt.Distinct)
	}
	if o.Given["Events"] {
		opt.Events = o.Events
	}
	if o.Given["Live"] {
		opt.Live = o.Live
	}
	if err := opt.Check(); err != nil {
		var oe *ipstream.OptionError
		if errors.As(err, &oe) {
			return "", &option.Error{Pkg: "datasets", Name: oe.Field, Value: oe.Value, Reason: "want " + oe.Want, Err: ErrOptions, Cause: err}
		}
		return "", err
	}
	res, err := ipstream.Generate(ctx, out, opt)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %s (%d rows: Zipf %g over %d addresses) and %s (%d events: %d inserts, %d deletes; live %d at the end, at most %d, target %d) in %s\n",
		res.ProbePath, opt.Rows, opt.Zipf, opt.Distinct, res.EventsPath, opt.Events, res.Inserts, res.Deletes, res.FinalLive, res.MaxLive, opt.Live, res.Elapsed.Round(time.Millisecond)), nil
}

// genSemijoin: its Shape from its name; a Distinct given as 0 is refused
// (0 is semijoin's default, not a count).
func genSemijoin(ctx context.Context, out string, o Options, rows int64) (string, error) {
	opt := semijoin.Options{Keys: o.Keys, Rows: rows, Selectivity: o.Selectivity, Distinct: o.Distinct, Seed: o.Seed}
	if !o.Given["Keys"] {
		opt.Keys = semijoin.DefaultKeys
	}
	if !o.Given["Selectivity"] {
		opt.Selectivity = semijoin.DefaultSelectivity
	}
	if o.Given["Zipf"] {
		opt.Zipf = o.Zipf
	}
	shape := o.Shape
	if !o.Given["Shape"] {
		shape = semijoin.Dense.String()
	}
	var err error
	if opt.Shape, err = semijoin.ParseShape(shape); err != nil {
		return "", err
	}
	if o.Given["Distinct"] && opt.Distinct == 0 {
		return "", &option.Error{Pkg: "semijoin", Name: "Distinct", Value: 0, Reason: "want at least 1 non-member key", Err: semijoin.ErrOptions}
	}
	if err := opt.Check(); err != nil {
		return "", err
	}
	res, err := semijoin.Write(ctx, out, opt)
	if err != nil {
		return "", err
	}
	skew := ""
	if opt.Zipf != 0 {
		skew = fmt.Sprintf("; keys Zipf %g", opt.Zipf)
	}
	return fmt.Sprintf("wrote %s (%d keys) and %s (%d rows, %d with a key: selectivity %g%s)\n",
		res.KeysPath, res.Keys, res.InputPath, res.Rows, res.MemberRows, opt.Selectivity, skew), nil
}
