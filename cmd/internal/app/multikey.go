package app

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/acbfjoin/acbfjoin/cli"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/key"
	"github.com/acbfjoin/acbfjoin/repro/multikey"
)

const multikeyUsage = `usage: join multikey <seed|absent> [flags]

The "multi-dimension Bloom filter" (package mdbf): one filter per key
column, a tuple passing when each column's filter passes its value (the
per-column layout of run and compare), against one filter over the tuples
(the composite layout).

  seed    the original experiment with our Bloom filters: its formula at its
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
	return dispatch(ctx, "multikey", multikeyUsage, args, stdout, stderr, []subcommand{
		{"seed", cmdMultikeySeed},
		{"absent", cmdMultikeyAbsent},
	})
}

const multikeySeedExamples = `
Examples:
  join multikey seed                                  # the original size: 10^6 triples, 10^7 bits, k = 3
  join multikey seed --queries 1e7 --replicates 4     # quicker
  join multikey seed --rows 1e5 --bits 1e6 --markdown
  join multikey seed --domain 1000                    # integer values with repeats
`

func cmdMultikeySeed(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("multikey seed", stderr)
	rows, bits, queries := cli.Count{N: 1000000}, cli.Count{N: 10000000}, cli.Count{N: 100000000}
	fs.Var(&rows, "rows", "n: triples inserted (1e6 is accepted)")
	fs.Var(&bits, "bits", "m: bits of each column's Bloom filter")
	k := fs.Int("k", 3, "hash functions of each column")
	dims := fs.Int("dims", 3, "columns (attributes) of a row")
	fs.Var(&queries, "queries", "fresh triples asked of each layout")
	replicates := fs.Int("replicates", 20, "repetitions of the sequential experiment, each on its own data")
	compositeK := fs.Int("composite-k", 0, "hash functions of the composite filter (default: round(ln 2 * dims*bits / rows))")
	domain := fs.Int("domain", 0, "0: the original experiment's values, random decimals in [0, 99999); D: integers 0..D-1 (repeats)")
	seed := fs.Uint64("seed", 1, "seed of the data (replicate r of the sequential experiment uses seed+r)")
	md := fs.Bool("markdown", false, "print Markdown tables")
	usageWith(fs, "join multikey seed [--rows N] [--bits M] [--k K] [--queries Q] [--replicates R] [--seed S] [flags]", multikeySeedExamples)
	if err := parse(fs, args); err != nil {
		return err
	}
	opt := multikey.SeedOptions{Rows: rows.N, Bits: uint64(bits.N), K: *k, Dims: *dims, Queries: int64(queries.N), Replicates: *replicates,
		CompositeK: *compositeK, Domain: *domain, Seed: *seed}
	if err := opt.Validate(); err != nil {
		return usageError{flagError("multikey seed", fs, err)}
	}
	return multikey.WriteSeed(ctx, opt, *md, func(text string) error {
		if _, err := io.WriteString(stdout, namedCommands(text)); err != nil {
			return stdoutError{err}
		}
		return nil
	})
}

const multikeyAbsentExamples = `
Examples:
  join multikey absent --keys data/apat63_99.txt --key-col COUNTRY,GYEAR,NCLASS --key-type string
  join multikey absent --keys data/apat63_99.txt --key-col COUNTRY,GYEAR --key-type string,int --filter cbf --bits-per-key 16 --markdown
`

func cmdMultikeyAbsent(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("multikey absent", stderr)
	keys := fs.String("keys", "", "the key file: CSV or TSV with header, .gz/.zip, or - (required)")
	delim := fs.String("delim", "", `field separator: one byte, such as "," "\t" (or "tab") ";" or "|" (not a quote or line break); default: a tab for .tsv and .tab files, else a comma`)
	badRows := fs.String("bad-rows", "fail", "fail: stop at the first malformed row; skip: drop rows whose key does not parse, and count them")
	keyCol := fs.String("key-col", "", "the key columns, comma-separated (required; at least two)")
	keyType := fs.String("key-type", "int", "int or string: one a key column, or one for all")
	kind := fs.String("filter", string(filters.Bloom), "the filter of both layouts: "+kindList())
	var sf sizingFlags
	sf.register(fs)
	maxComb := cli.Count{N: multikey.DefaultMaxCombinations}
	fs.Var(&maxComb, "max-combinations", "refuse a product of the columns' distinct counts above this")
	md := fs.Bool("markdown", false, "print Markdown tables")
	usageWith(fs, "join multikey absent --keys F --key-col C1,C2,... [--key-type T] [--filter K] [--fpp P | --bits-per-key B] [flags]", multikeyAbsentExamples)
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
	sz, err := sf.resolve("multikey absent", filters.Kind(*kind))
	if err != nil {
		return err
	}
	opt := multikey.AbsentFileOptions{Keys: *keys, Sep: sep, KeyCol: *keyCol, KeyType: key.Type(*keyType), SkipBadRows: skip,
		Kind: filters.Kind(*kind), Sizing: sz, MaxCombinations: int64(maxComb.N)}
	if maxComb.N < 1 {
		return usageError{fmt.Errorf("multikey absent: --max-combinations %d: want at least 1", maxComb.N)}
	}
	if _, _, err := opt.Check(); err != nil {
		return usageError{flagError("multikey absent", fs, err)}
	}
	text, err := multikey.AbsentFile(ctx, opt, *md)
	if errors.Is(err, multikey.ErrTooMany) {
		return usageError{fmt.Errorf("multikey absent: %w (raise --max-combinations, or take fewer columns)", err)}
	}
	if err != nil {
		return flagError("multikey absent", fs, err)
	}
	if _, err := io.WriteString(stdout, text); err != nil {
		return stdoutError{err}
	}
	return nil
}
