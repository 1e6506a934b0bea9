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
	"github.com/acbfjoin/acbfjoin/internal/hugeheap"
	"github.com/acbfjoin/acbfjoin/internal/textfmt"
	"github.com/acbfjoin/acbfjoin/internal/tmpspace"
	"github.com/acbfjoin/acbfjoin/key"
)

// usageHead and usageTail frame the list of commands (usageText).
const usageHead = `acbfjoin: Bloom-filtered joins. It joins a small key file with a large file,
dropping the large file's rows that cannot match with a filter built from
the keys (the paper's ACBF, a CBF, Bloom, blocked, cuckoo, fuse, exact or
none), and reports what the filter saved; it compares the filters and
reproduces the paper's figures.

usage: join <command> [flags]
`

const usageTail = `
Files: CSV or TSV (.gz and .zip too), Parquet and Arrow, - for standard
input; the output CSV, TSV, JSON lines (.gz too), Parquet or Arrow. 'join help COMMAND' (or
join COMMAND -h) shows a command's flags and examples; docs/cli.md has them
all, README.md a tour. 'join --version' names the build.

Environment: ACBFJOIN_CPU=portable scans CSV and hashes integer keys with
the portable Go code instead of the CPU's own (AVX2 and AVX-512 on amd64);
the report's "scanner" and "int_hash" say which ran (docs/design.md). ACBFJOIN_DICT=off probes a Parquet side's
dictionary-encoded join column row by row instead of entry by entry (to
compare the two; the rows are the same). ACBFJOIN_TYPED_ROWS=off carries a
Parquet or Arrow side's rows to a typed output as CSV text instead of
typed cells (the output is the same, but for an empty string, which CSV
text cannot tell from NULL: written as NULL). ACBFJOIN_PAIR=off decodes
each Parquet page alone where two row groups' key columns would be
decoded together (docs/design.md, "Row groups in pairs"; ACBFJOIN_CPU=portable
does too). ACBFJOIN_LEVELS=unpack unpacks every row's NULL flag
(definition level) of a Parquet page read at a few chosen rows instead
of finding the chosen rows' alone (to compare the two; the values are
the same). ACBFJOIN_PARQUET_PAGES=arrow reads
Parquet pages with arrow-go's readers instead of the join's own decoders
(to compare the two; the values are the same); ACBFJOIN_PARQUET_MMAP=off
reads a local Parquet file's chunks with pread instead of mapping it.
ACBFJOIN_HUGEPAGES=off keeps a join's heap on the kernel's 4 KiB pages
(by default, where the kernel's transparent huge pages are "madvise", a
run without --mem whose heap grows puts its first 64 MiB on 2 MiB pages:
fewer page faults, more resident memory; the report's JSON says which,
settings.huge_pages; docs/design.md).
`

// usageText is the top-level usage: the commands by task, a line each.
func usageText() string {
	var b strings.Builder
	b.WriteString(usageHead)
	group := ""
	for _, c := range commands {
		if c.group != group {
			group = c.group
			fmt.Fprintf(&b, "\n%s:\n", group)
		}
		fmt.Fprintf(&b, "  %-13s %s\n", c.name, c.summary)
	}
	b.WriteString(usageTail)
	return named(b.String())
}

// prog is the program's name in messages and usage: the base name it was
// invoked by (acbfjoin, or join under go run ./cmd/join).
var prog = "join"

// progWord finds the program's name where messages and usage texts use it:
// at the start of a line (an example), after "usage: ", "see " or "Run '".
var progWord = regexp.MustCompile(`(?m)(^[ \t]*|usage: |see |Run '|'|\(|\| |with: )join( |$|')`)

// progCommand finds the program's name where the libraries' messages and
// reports name one of its commands after "with ", "by ", "or ", "and " or
// "(" ("rebuild it with join bank build"): only before a command's name,
// so that prose ("a join with join keys") is left alone.
var progCommand = regexp.MustCompile(`(\(|\b(?:with|by|or|and) )join( (?:bank (?:build|validate|update)|build-filter|gen|fetch|run|compare|repro|demo|multikey (?:seed|absent)|filter (?:size|eval|plot)|stream prep)\b)`)

// named returns text with the program's name in place of "join" where it
// names the program (progWord, progCommand).
func named(text string) string {
	if prog == "join" {
		return text
	}
	return progWord.ReplaceAllString(namedCommands(text), "${1}"+prog+"${2}")
}

// namedCommands returns a report's text with the program's name in place
// of "join" where it names one of its commands (progCommand).
func namedCommands(text string) string {
	if prog == "join" {
		return text
	}
	return progCommand.ReplaceAllString(text, "${1}"+prog+"${2}")
}

// Main runs the command line of os.Args and exits.
func Main() {
	if n := filepath.Base(os.Args[0]); n != "" && n != "." && n != "/" {
		prog = n
	}
	for _, w := range []string{csvscan.CPUWarning(), hugeheap.Warning()} {
		if w != "" {
			fmt.Fprintf(os.Stderr, "%s: %s\n", prog, w)
		}
	}
	ctx, readerLeft := cli.SignalsStop(prog)
	stdout := &cli.FirstError{W: os.Stdout, OnError: readerLeft}
	err := run(ctx, os.Args[1:], stdout, os.Stderr)
	if err == nil && stdout.Err != nil {
		// compare's table, the report, demo: lost to a full disk or a closed
		// pipe is a failure, not exit 0.
		err = stdoutError{stdout.Err}
	}
	var sig cli.SignalError
	if errors.As(context.Cause(ctx), &sig) && err != nil {
		err = sig
	} else if cli.ReaderLeft(err) {
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
	var sep *key.SepHint
	var ik intKeyError
	switch {
	case errors.As(err, &se):
		return "" // the user's redirection, not our files
	case errors.Is(err, tmpspace.ErrFull):
		return fullHint(err)
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EFBIG), errors.Is(err, syscall.EDQUOT):
		return " (free some space, or write to a disk with more room: --out, and --tmp-dir for what a join spills)"
	case errors.Is(err, syscall.EROFS):
		return " (choose a folder you can write: --tmp-dir for spill and sort files, --out for the output)"
	case errors.As(err, &sep):
		side := "--input-delim"
		if sep.Option == "KeyCol" {
			side = "--keys-delim"
		}
		name := string(sep.Sep)
		if sep.Sep == '\t' {
			name = "tab"
		}
		return fmt.Sprintf(" (give %s %s for that side, or --delim %s for both)", side, name, name)
	case errors.As(err, &ik):
		return " (" + ik.how + ")"
	case errors.Is(err, csvscan.ErrNotInteger):
		return " (the keys are compared as integers: give --key-type string to compare them as text)"
	case errors.Is(err, syscall.EACCES):
		return " (check the permissions of the file or folder named; spill and sort files go to --tmp-dir, the output to --out)"
	}
	return ""
}

// fullHint is the hint of a copy stopped at --tmp-dir's reserve
// (tmpspace.ErrFull): where to find room, and the leftovers of runs that
// died there, which take room for nothing, with the command that removes
// them.
func fullHint(err error) string {
	var fe *tmpspace.FullError
	if !errors.As(err, &fe) {
		return ""
	}
	h := " (free some space, or give --tmp-dir on a disk with more room"
	n, size := atomicfile.Dead(fe.Dir)
	if n > 0 {
		h += fmt.Sprintf("; %d leftover(s) of runs that died hold %s there: %s clean --tmp-dir %s removes them", n, textfmt.Bytes(uint64(size)), prog, fe.Dir)
	}
	return h + ")"
}

// usageError marks bad command lines (exit status 2).
type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText())
		return usageError{errors.New("no command")}
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "-h", "-help", "--help", "help":
		if cmd == "help" && len(rest) > 0 { // help COMMAND: its -h
			return run(ctx, []string{rest[0], "-h"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usageText())
		return nil
	case "-version", "--version", "version":
		if len(rest) > 0 {
			return usageError{fmt.Errorf("%s takes no arguments (got %q)", cmd, strings.Join(rest, " "))}
		}
		fmt.Fprintln(stdout, cli.VersionLine(prog))
		return nil
	}
	for _, c := range commands {
		if c.name == cmd {
			return c.run(ctx, rest, stdout, stderr)
		}
	}
	if hint := cli.DidYouMean(cmd, commandNames(), ""); hint != "" {
		return usageError{fmt.Errorf("unknown command %q%s", cmd, hint)}
	}
	return usageError{fmt.Errorf("unknown command %q (commands: %s; see join help)", cmd, strings.Join(commandNames(), ", "))}
}

// command is a subcommand: its name, its group and line in the usage, and
// what runs it.
type command struct {
	name, group, summary string
	run                  func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// Command groups, in the usage's order.
const (
	groupJoin   = "Join files"
	groupFilter = "Choose and study a filter"
	groupData   = "Data"
	groupPaper  = "The paper"
	groupHouse  = "Housekeeping"
)

// commands are the subcommands, in the order the usage lists them: the one
// table the dispatch, the usage and an unknown command's error read.
var commands = []command{
	{"run", groupJoin, "join a key file with a large file through a filter", cmdRun},
	{"compare", groupJoin, "the same join with several filters, side by side (the paper's Table 1)", cmdCompare},
	{"stream", groupJoin, "a join whose key side changes: key events or a time window", cmdStream},
	{"build-filter", groupJoin, "write a key file's filter, for run --filter-file", cmdBuildFilter},
	{"bank", groupJoin, "one filter per class of a column: build, validate, update, join by class", cmdBank},
	{"filter", groupFilter, "every filter kind sized for n keys, measured against its formula, plotted", cmdFilter},
	{"multikey", groupFilter, "per-column filters against one over composite keys", cmdMultikey},
	{"gen", groupData, "generate NBER-shaped data (and other shapes: semijoin, ipstream, ...)", cmdGen},
	{"keys", groupData, "sample a key file from a patent file or any CSV", cmdKeys},
	{"fetch", groupData, "download the real NBER archives (needs network)", cmdFetch},
	{"demo", groupPaper, "a small generated data set and every filter on its join (seconds)", cmdDemo},
	{"repro", groupPaper, "the paper's Figures 4-7 and Table 1, beside its quoted numbers", cmdRepro},
	{"clean", groupHouse, "remove what killed runs left (spill, sort and unfinished files)", func(_ context.Context, args []string, stdout, stderr io.Writer) error {
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

// usageGrouped is cli.UsageGrouped with the program's name (named).
func usageGrouped(fs *flag.FlagSet, synopsis, description string, groups []cli.FlagGroup, examples string) {
	cli.UsageGrouped(fs, named(synopsis), named(description), groups, named(examples))
}

// joinFlagGroups are the headings of the join commands' help (run,
// compare, build-filter): each lists the flags a command has.
var joinFlagGroups = []cli.FlagGroup{
	{Title: "inputs", Flags: []string{"keys", "input", "key-col", "join-col", "key-type", "delim", "keys-delim", "input-delim", "keys-format", "input-format", "ignore-file-bloom", "bad-rows"}},
	{Title: "the join and its output", Flags: []string{"join", "columns", "out", "format", "parquet-bloom", "row-group", "sort", "report-json", "quiet", "filters", "repeat"}},
	{Title: "the filter", Flags: []string{"filter", "bits-per-key", "fpp", "filter-budget", "k", "keep-filter", "filter-file", "filter-layout",
		"broadcast-budget", "need-deletes", "hot-exclusions", "acbf-capacity", "bucket-size", "fingerprint-bits", "growth", "initial-capacity", "tightening"}},
	{Title: "a filter bank", Flags: []string{"bank", "classes", "route"}},
	{Title: "performance and memory", Flags: []string{"mappers", "reducers", "mem", "tmp-dir", "temp-dir", "skew", "estimate-size"}},
}

// subcommand is one subcommand of a command with subcommands (bank,
// multikey, filter): its name and what runs it.
type subcommand struct {
	name string
	run  func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// dispatch runs the subcommand of cmd that args[0] names, prints usage on
// -h, and refuses no subcommand (usage on stderr) or an unknown one, each
// with the names of subs ("want build, validate or update").
func dispatch(ctx context.Context, cmd, usage string, args []string, stdout, stderr io.Writer, subs []subcommand) error {
	names := make([]string, len(subs))
	for i, s := range subs {
		names[i] = s.name
	}
	want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	if len(args) == 0 {
		fmt.Fprint(stderr, named(usage))
		return usageError{fmt.Errorf("%s: want %s", cmd, want)}
	}
	for _, s := range subs {
		if s.name == args[0] {
			return s.run(ctx, args[1:], stdout, stderr)
		}
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, named(usage))
		return nil
	}
	return usageError{fmt.Errorf("%s: unknown subcommand %q (want %s; see join %s -h)", cmd, args[0], want, cmd)}
}

// newFlagSet is a command's flag set: errors returned, not exits; its
// messages and help on stderr.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}
