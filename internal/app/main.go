// Package app is the acbfjoin command line, installed as cmd/acbfjoin (a
// name that shadows nothing) and run in this repository as cmd/join (go run
// ./cmd/join): generate, sample or fetch NBER patent data, join files
// through a filter, compare the filters, reproduce the paper. It is thin:
// flags, wiring and printing; the work is in join, filters and their
// packages. Its messages and usage name the program as it was invoked.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/acbfjoin/acbfjoin/cli"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
)

const usage = `usage: join <command> [flags]

commands:
  demo    generate a small NBER-shaped data set, sample join keys, and compare
          the filters (none, exact, bloom, cbf, acbf) on the full join
  run     join a key file with a large file through a filter
          join run --keys FILE --input FILE [--filter acbf] [--out FILE|-] [--sort] ...
          composite keys: --key-col A,B --join-col X,Y [--key-type int,string]
          hot keys over several reducers: --skew auto (docs/skew.md)
  build-filter  write the filter of a key file, for run --filter-file
          join build-filter --keys FILE [--filter acbf] [--bits-per-key 32] --out filter.bin
  compare run the join with several filters and print the paper's Table 1
          join compare --keys FILE --input FILE [--filters none,exact,bloom,cbf,acbf] [--repeat N]
  filter  size the filter kinds for n keys, or measure them (FP against the
          formula, speed, deletes) on synthetic keys
          join filter size --n 1000000 --fpp 0.01
          join filter eval --n 100000 --queries 1000000 [--churn 10]
  bank    one filter per class of a column (seed 000): build, validate
          against the formula, move keys between classes
          join bank build --keys F --key-col C --class-col R [--fpp 0.01] --out bank.bin
          join bank validate --bank bank.bin --keys F
          join run --bank bank.bin --classes 7,8 --keys F --input G [--route column|dir]
  multikey  seed 001: per-column filters against one filter over composite keys
          join multikey seed [--queries 100000000]
          join multikey absent --keys F --key-col A,B,C [--key-type string]
  stream  a streaming join whose key side changes: key events (+row, -key)
          or timed rows with a window, a filter updated in place, count-min
          join-size estimates and hot keys, one report line a batch
          join stream --key-events F|- --probe F|- [--window W --key-time COL] [--filter acbf] --out OUT
          join stream prep --patents F --citations F --out DIR   # NBER as a time-ordered stream
  repro   regenerate the paper's Figures 4-7 and Table 1 (CSV, Markdown, SVG)
          join repro [--quick] [--data DIR] [--out DIR]   # into data/repro
  gen     write NBER-shaped cite75_99.txt and apat63_99.txt
          join gen --scale 1 --seed 1 --out DIR
  keys    sample the join's small side from a patent file (or any CSV)
          join keys --patents FILE [--sample 65771] [--seed 1] [--where COL=VALUE ...] --out FILE
  fetch   download and verify the real NBER archives (needs network)
          join fetch --dir DIR
  clean   remove the temporary files of runs that died (a killed process's
          spill, sort and unfinished output files)
          join clean [--tmp-dir DIR ...] [--dry-run]

Inputs may be files (.txt, .csv, .gz, .zip), - for standard input, pipes and
FIFOs; outputs may be files (.gz is compressed), - or devices. See the
"Safety" section of docs/design.md.

Run 'join <command> -h' for the flags of a command.
`

// prog is the program's name in messages and usage: the base name it was
// invoked by (acbfjoin, or join under go run ./cmd/join).
var prog = "join"

// progWord finds the program's name where messages and usage texts use it:
// at the start of a line (an example), after "usage: ", "see " or "Run '".
var progWord = regexp.MustCompile(`(?m)(^[ \t]*|usage: |see |Run '|\()join( |$|')`)

// named returns text with the program's name in place of "join" where it
// names the program (progWord).
func named(text string) string {
	if prog == "join" {
		return text
	}
	return progWord.ReplaceAllString(text, "${1}"+prog+"${2}")
}

// Main runs the command line of os.Args and exits.
func Main() {
	if n := filepath.Base(os.Args[0]); n != "" && n != "." && n != "/" {
		prog = n
	}
	ctx := cli.Signals(prog)
	stdout := &cli.FirstError{W: os.Stdout}
	err := run(ctx, os.Args[1:], stdout, os.Stderr)
	if err == nil && stdout.Err != nil {
		// compare's table, the report, demo: lost to a full disk or a closed
		// pipe is a failure, not exit 0.
		err = stdoutError{stdout.Err}
	}
	var sig cli.SignalError
	if errors.As(context.Cause(ctx), &sig) && err != nil {
		err = sig
	} else if errors.Is(err, syscall.EPIPE) {
		err = cli.SignalError{Sig: syscall.SIGPIPE} // the reader of our output left
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		if errors.As(err, &sig) {
			if sig.Sig != syscall.SIGPIPE { // nobody reads a message for head
				fmt.Fprintf(os.Stderr, "%s: stopped by %v; unfinished output and temporary files were removed\n", prog, sig)
			}
			os.Exit(128 + int(sig.Sig))
		}
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(os.Stderr, "%s: interrupted; unfinished output and temporary files were removed\n", prog)
			os.Exit(130)
		}
		var u usageError
		if errors.Is(err, atomicfile.ErrStderrIsInput) {
			// Standard error is an input: the message goes to standard
			// output, or nowhere when it is an input too.
			if w := atomicfile.MessageTo(err); w != nil {
				fmt.Fprintf(w, "%s: %v\n", prog, named(err.Error()))
			}
			os.Exit(2)
		}
		if errors.As(err, &u) {
			fmt.Fprintf(os.Stderr, "%s: %v\n", prog, named(err.Error()))
			os.Exit(2)
		}
		fmt.Fprintf(os.Stderr, "%s: %v%s\n", prog, named(err.Error()), hint(err))
		os.Exit(1)
	}
}

// stdoutError is a failed write to standard output.
type stdoutError struct{ err error }

func (e stdoutError) Error() string { return "write standard output: " + e.err.Error() }
func (e stdoutError) Unwrap() error { return e.err }

// hint says what to do about a failure the user can fix, after the error.
func hint(err error) string {
	var se stdoutError
	switch {
	case errors.As(err, &se):
		return "" // the user's redirection, not our files
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EFBIG), errors.Is(err, syscall.EDQUOT):
		return " (free some space, or write to a disk with more room: --out, and --tmp-dir for what a join spills)"
	case errors.Is(err, syscall.EROFS):
		return " (choose a folder you can write: --tmp-dir for spill and sort files, --out for the output)"
	case errors.Is(err, csvscan.ErrNotInteger):
		return " (keys are compared as integers by default: give --key-type string to compare them as text)"
	case errors.Is(err, syscall.EACCES):
		return " (check the permissions of the file or folder named; spill and sort files go to --tmp-dir, the output to --out)"
	}
	return ""
}

// usageError marks bad command lines (exit status 2).
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, named(usage))
		return usageError{errors.New("no command")}
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, named(usage))
		return nil
	}
	for _, c := range commands {
		if c.name == cmd {
			return c.run(ctx, rest, stdout, stderr)
		}
	}
	return usageError{fmt.Errorf("unknown command %q (commands: %s; see join -h)", cmd, strings.Join(commandNames(), ", "))}
}

// command is a subcommand: its name and what runs it.
type command struct {
	name string
	run  func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands are the subcommands, in the order the usage lists them: the one
// table the dispatch and the list of an unknown command's error read.
var commands = []command{
	{"demo", cmdDemo},
	{"run", cmdRun},
	{"build-filter", cmdBuildFilter},
	{"compare", cmdCompare},
	{"filter", cmdFilter},
	{"bank", cmdBank},
	{"multikey", cmdMultikey},
	{"stream", cmdStream},
	{"repro", cmdRepro},
	{"gen", cmdGen},
	{"keys", cmdKeys},
	{"fetch", cmdFetch},
	{"clean", func(_ context.Context, args []string, stdout, stderr io.Writer) error {
		return cmdClean(args, stdout, stderr)
	}},
}

// commandNames returns the names of commands.
func commandNames() []string {
	out := make([]string, len(commands))
	for i, c := range commands {
		out[i] = c.name
	}
	return out
}

// parse parses a command's flags (cli.Parse), its errors usage errors.
func parse(fs *flag.FlagSet, args []string) error {
	err := cli.Parse(fs, args, prog+" "+fs.Name())
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		return usageError{err}
	}
	return err
}

// usageWith is cli.UsageWithExamples with the program's name (named).
func usageWith(fs *flag.FlagSet, synopsis, examples string) {
	cli.UsageWithExamples(fs, named(synopsis), named(examples))
}
