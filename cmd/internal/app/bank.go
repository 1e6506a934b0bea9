package app

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/acbfjoin/acbfjoin/bank"
	"github.com/acbfjoin/acbfjoin/cli"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/join/local"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
)

const bankUsage = `usage: join bank <build|validate|update> [flags]

A filter bank is one filter per class of a column of a key file (for
example one Bloom filter for each IMDb rating), each sized for its own keys.

  build     read the key file once and write the bank
            join bank build --keys F --key-col C --class-col R [--classes round|value|cut:E1,...]
                            [--fpp 0.01 | --bits-per-key B] [--filter bloom] --out bank.bin
  validate  probe every key against the other classes' filters: FP per class
            against the formula of the filter built, z-score, false negatives
            join bank validate --bank bank.bin --keys F [--json]
  update    move keys between classes (cbf, acbf, cuckoo banks), no rebuild
            join bank update --bank bank.bin --moves moves.csv [--out new.bin]

A join uses a bank with: join run --bank bank.bin --classes 7,8 --keys F --input G
[--route column|dir].
`

func cmdBank(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return dispatch(ctx, "bank", bankUsage, args, stdout, stderr, []subcommand{
		{"build", cmdBankBuild},
		{"validate", cmdBankValidate},
		{"update", cmdBankUpdate},
	})
}

// bankFlags are the flags build and validate share: the key file and how
// it is read.
type bankFlags struct {
	keys, delim, badRows string
	keysFormat, tempDir  string
	mappers              int
	quiet                bool
}

func (b *bankFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&b.keys, "keys", "", "the key file: CSV or TSV with header (.gz/.zip too), Parquet or Arrow IPC, or - (required)")
	fs.StringVar(&b.keysFormat, "keys-format", "", "format of --keys: csv, parquet, arrow or jsonl (default: by its name)")
	fs.StringVar(&b.tempDir, "tmp-dir", "", "folder for a copy of a stream read twice (default: the system's)")
	fs.StringVar(&b.delim, "delim", "", `field separator: one byte, such as "," "\t" (or "tab") ";" or "|" (not a quote or line break); default: a tab for .tsv and .tab files, else a comma`)
	fs.IntVar(&b.mappers, "mappers", 0, "goroutines reading the key file (0: one per core)")
	fs.StringVar(&b.badRows, "bad-rows", "fail", "fail: stop at the first malformed row; skip: drop rows whose key or class does not parse, and count them")
	fs.BoolVar(&b.quiet, "quiet", false, "print nothing but errors (build, update)")
}

const bankBuildExamples = `
Examples:
  join gen --dataset imdb-ratings --rows 1256196 --seed 1 --out data
  join bank build --keys data/title.ratings.tsv --key-col tconst --key-type string --class-col averageRating --fpp 0.01 --out data/ratings.bank
  join bank build --keys data/apat63_99.txt --key-col PATENT --class-col CAT --classes value --filter cbf --out data/cat.bank
  join bank build --keys data/apat63_99.txt --key-col PATENT --class-col GYEAR --classes cut:1970,1980,1990 --out data/decades.bank
`

func cmdBankBuild(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bank build", stderr)
	var bf bankFlags
	bf.register(fs)
	var sf sizingFlags
	sf.register(fs)
	keyCol := fs.String("key-col", "", "the key column (required); several, comma-separated, for a composite key")
	keyType := fs.String("key-type", string(key.Auto), keyTypeUsage)
	classCol := fs.String("class-col", "", "the class column (required)")
	classing := fs.String("classes", "round", "how values become classes: round (a decimal rounded half up: ratings such as 7.4 -> 7), value (each value a class), cut:E1,E2,... (numeric ranges [E(i), E(i+1)))")
	kind := fs.String("filter", string(filters.Bloom), "the filter of every class: "+kindList())
	out := fs.String("out", "", "the bank file to write (required)")
	validate := fs.Bool("validate", false, "also validate the bank on the keys just read (join bank validate, without reading the file again)")
	usageWith(fs, "join bank build --keys F --key-col C --class-col R --out bank.bin [flags]", bankBuildExamples)
	if err := parse(fs, args); err != nil {
		return err
	}
	if bf.keys == "" || *keyCol == "" || *classCol == "" || *out == "" {
		return usageError{fmt.Errorf("bank build: --keys, --key-col, --class-col and --out are required")}
	}
	sep, err := parseDelim("bank build", bf.delim)
	if err != nil {
		return err
	}
	cl, err := bank.ParseClassing(*classing)
	if err != nil {
		return usageError{fmt.Errorf("bank build: --classes %q: %v", *classing, err)}
	}
	kj, err := key.ParseJoin(*keyCol, "", key.Type(*keyType))
	if err != nil {
		return usageError{fmt.Errorf("bank build: --key-col %s --key-type %s: %v", *keyCol, *keyType, err)}
	}
	*keyCol = kj.KeyCol()
	if _, err := filters.Lookup(*kind); err != nil {
		return usageError{fmt.Errorf("bank build: --filter %q: %v", *kind, err)}
	}
	sz, err := sf.resolve("bank build", filters.Kind(*kind))
	if err != nil {
		return err
	}
	skip, err := badRowsFlag("bank build", bf.badRows)
	if err != nil {
		return err
	}
	outs := []output{{namedPath{"--out", *out}, atomicfile.Options{}}}
	if err := checkPaths(paths(outs), []namedPath{{"--keys", bf.keys}}); err != nil {
		return usageError{fmt.Errorf("bank build: %w", err)}
	}
	var b *local.BuiltBank
	err = writeAndCommit(ctx, outs, func(files []*atomicfile.File) (err error) {
		b, err = local.BuildBank(ctx, local.BankBuild{ClassScan: local.ClassScan{Keys: bf.keys, KeyCol: *keyCol, ClassCol: *classCol, KeyType: kj.Type(),
			Classing: cl, Sep: sep, Format: bf.keysFormat, TempDir: bf.tempDir, Mappers: bf.mappers, SkipBadRows: skip}, Kind: filters.Kind(*kind), Sizing: sz, Validate: *validate})
		if err != nil {
			return flagError("bank build", fs, err)
		}
		if _, err := b.WriteTo(files[0]); err != nil {
			return fmt.Errorf("--out %s: %w", *out, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := b.Validation.Err(); err != nil {
		return fmt.Errorf("bank build: %w", err)
	}
	if !bf.quiet {
		b.WriteText(stdout, *out)
	}
	return nil
}

const bankValidateExamples = `
Examples:
  join bank validate --bank data/ratings.bank --keys data/title.ratings.tsv
  join bank validate --bank data/cat.bank --keys data/apat63_99.txt --json > validation.json
`

func cmdBankValidate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bank validate", stderr)
	var bf bankFlags
	bf.register(fs)
	bankPath := fs.String("bank", "", "the bank file (required)")
	asJSON := fs.Bool("json", false, "print JSON instead of a Markdown table")
	usageWith(fs, "join bank validate --bank bank.bin --keys F [flags]", bankValidateExamples)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *bankPath == "" || bf.keys == "" {
		return usageError{fmt.Errorf("bank validate: --bank and --keys are required")}
	}
	sep, err := parseDelim("bank validate", bf.delim)
	if err != nil {
		return err
	}
	skip, err := badRowsFlag("bank validate", bf.badRows)
	if err != nil {
		return err
	}
	if err := source.CheckSides(bf.keys, *bankPath, ""); err != nil {
		return usageError{fmt.Errorf("bank validate: %w", err)}
	}
	if err := checkPaths(nil, []namedPath{{"--keys", bf.keys}, {"--bank", *bankPath}}); err != nil {
		return usageError{fmt.Errorf("bank validate: %w", err)}
	}
	v, err := local.ValidateBank(ctx, *bankPath, local.ClassScan{Keys: bf.keys, Sep: sep, Format: bf.keysFormat, TempDir: bf.tempDir, Mappers: bf.mappers, SkipBadRows: skip})
	if err != nil {
		return flagError("bank validate", fs, err)
	}
	if *asJSON {
		return writeJSONOut(stdout, v)
	}
	var w strings.Builder
	v.WriteText(&w)
	if _, err := io.WriteString(stdout, w.String()); err != nil {
		return stdoutError{err}
	}
	if err := v.Err(); err != nil {
		return fmt.Errorf("bank validate: %w", err)
	}
	return nil
}

const bankUpdateExamples = `
Examples:
  join bank build --keys data/apat63_99.txt --key-col PATENT --class-col CAT --classes value --filter cbf --out cat.bank
  printf 'key,from,to\n3858241,6,2\n' > moves.csv
  join bank update --bank cat.bank --moves moves.csv            # in place, atomically
  join bank update --bank cat.bank --moves moves.csv --out cat2.bank
`

func cmdBankUpdate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bank update", stderr)
	bankPath := fs.String("bank", "", "the bank file (required)")
	moves := fs.String("moves", "", "CSV lines key,from,to (an optional header key,from,to), or - (required)")
	out := fs.String("out", "", "where to write the updated bank (default: replace --bank, atomically)")
	quiet := fs.Bool("quiet", false, "print nothing but errors")
	usageWith(fs, "join bank update --bank bank.bin --moves F [--out F]", bankUpdateExamples)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *bankPath == "" || *moves == "" {
		return usageError{fmt.Errorf("bank update: --bank and --moves are required")}
	}
	dst := *out
	if dst == "" {
		if *bankPath == "-" {
			return usageError{fmt.Errorf("bank update: --bank - needs --out")}
		}
		dst = *bankPath
	}
	if err := source.CheckSides(*bankPath, *moves, ""); err != nil {
		return usageError{fmt.Errorf("bank update: %w", err)}
	}
	ins := []namedPath{{"--moves", *moves}}
	if dst != *bankPath {
		ins = append(ins, namedPath{"--bank", *bankPath})
	}
	if err := checkPaths([]namedPath{{"--out", dst}}, ins); err != nil {
		return usageError{fmt.Errorf("bank update: %w", err)}
	}
	b, err := local.ReadBank(ctx, *bankPath)
	if err != nil {
		return flagError("bank update", fs, err)
	}
	mf, name, err := csvscan.OpenContext(ctx, *moves)
	if err != nil {
		return fmt.Errorf("bank update: %w", fileFlag("moves", *moves, err))
	}
	mv, err := bank.ReadMoves(mf, name, key.Type(b.KeyType))
	mf.Close()
	if err != nil {
		return err
	}
	st, err := b.Apply(mv, name)
	if err != nil {
		return fmt.Errorf("bank update: %w (%s is unchanged)", err, *bankPath)
	}
	err = writeAndCommit(ctx, []output{{namedPath{"--out", dst}, atomicfile.Options{}}}, func(files []*atomicfile.File) error {
		if _, err := b.WriteTo(files[0]); err != nil {
			return fmt.Errorf("--out %s: %w", dst, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(stdout, "wrote %s: %d keys moved (%d into a class that held them already), %d moves within one class (nothing to do)\n", dst, st.Moved, st.Joined, st.Unchanged)
		if b.FileVersion < bank.FormatVersion {
			fmt.Fprintf(stdout, "%s was a bank of format %d; %s is of format %d, which joins before it cannot read\n", *bankPath, b.FileVersion, dst, bank.FormatVersion)
		}
	}
	return nil
}

// parseDelim reads --delim: "" (by file name), ",", "\t", "tab", or one
// other byte that is not a quote or line break.
func parseDelim(cmd, s string) (byte, error) { return parseDelimFlag(cmd, "delim", s) }

// parseDelimFlag is parseDelim for the flag named name (cli.ParseDelim,
// beamjoin's too).
func parseDelimFlag(cmd, name, s string) (byte, error) {
	b, err := cli.ParseDelim(name, s)
	if err != nil {
		return 0, usageError{fmt.Errorf("%s: %w", cmd, err)}
	}
	return b, nil
}

// badRowsFlag reads --bad-rows: whether to skip.
func badRowsFlag(cmd, s string) (bool, error) {
	switch s {
	case "fail":
		return false, nil
	case "skip":
		return true, nil
	}
	return false, usageError{fmt.Errorf("%s: --bad-rows %q: want fail or skip", cmd, s)}
}

// writeJSONOut writes v as JSON to standard output, a write error being a
// stdoutError.
func writeJSONOut(w io.Writer, v any) error {
	if err := writeJSON(w, v); err != nil {
		return stdoutError{err}
	}
	return nil
}
