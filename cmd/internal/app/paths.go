package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/acbfjoin/acbfjoin/cli"
	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join/local"
)

// namedPath is a file named by its flag ("--out").
type namedPath struct{ flag, path string }

// checkPaths applies the output rules (atomicfile.Check) before any work; a
// refusal is a usage error.
func checkPaths(outs, ins []namedPath) error {
	named := func(ps []namedPath) []atomicfile.Named {
		out := make([]atomicfile.Named, len(ps))
		for i, p := range ps {
			out[i] = atomicfile.Named{Label: p.flag, Path: p.path}
		}
		return out
	}
	if err := atomicfile.Check(named(outs), named(ins)); err != nil {
		return usageError{err}
	}
	return nil
}

// output is a file a command writes: its flag and path, and how it is
// written.
type output struct {
	namedPath
	atomicfile.Options
}

// writeAndCommit is the ending of every command that writes files: it
// creates each output before the work starts (under a temporary name beside
// it, so that a folder that cannot be written fails at once), runs work
// with them in their order, and commits them in that order once work
// returns nil. On an error (work's; a create's or a commit's, named by the
// output's flag and path) every output not yet committed is removed.
func writeAndCommit(ctx context.Context, outs []output, work func(files []*atomicfile.File) error) error {
	files := make([]*atomicfile.File, 0, len(outs))
	defer func() {
		for _, f := range files {
			f.Abort() // a committed file stays
		}
	}()
	for _, o := range outs {
		f, err := atomicfile.Create(ctx, o.path, o.Options)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return err
			}
			return fmt.Errorf("%s %s: %w", o.flag, o.path, err)
		}
		files = append(files, f)
	}
	if err := work(files); err != nil {
		return err
	}
	// A stop signal that came as work ended commits nothing (the
	// command then says nothing was written: beamjoin's review).
	if err := context.Cause(ctx); err != nil {
		return err
	}
	for i, f := range files {
		if err := f.Commit(); err != nil {
			return fmt.Errorf("%s %s: %w", outs[i].flag, outs[i].path, err)
		}
	}
	return nil
}

// reportOutput appends the --report-json output to outs if the flag was
// given (gzip by its name, as every output); reportFile finds its file.
func reportOutput(outs []output, given bool, path string) []output {
	if given {
		outs = append(outs, output{namedPath{"--report-json", path}, atomicfile.Options{Gzip: true}})
	}
	return outs
}

// reportFile is the --report-json file of files (reportOutput), or nil.
func reportFile(outs []output, files []*atomicfile.File) *atomicfile.File {
	if n := len(outs); n > 0 && outs[n-1].flag == "--report-json" {
		return files[n-1]
	}
	return nil
}

// paths are the outputs' flags and paths, for checkPaths.
func paths(outs []output) []namedPath {
	ps := make([]namedPath, len(outs))
	for i, o := range outs {
		ps[i] = o.namedPath
	}
	return ps
}

// cmdClean removes what runs that died left in a folder: entries named with
// atomicfile.TempPrefix ("acbfjoin-PID-..." spill, sort and spool files and
// folders; ".acbfjoin-PID-...tmp" unfinished outputs) whose process no longer
// runs. Entries of running processes are left alone.
func cmdClean(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("clean", stderr)
	usageWith(fs, "join clean [flags]", `
Examples:
  join clean                            # the system's temporary folder
  join clean --tmp-dir /big/disk --dry-run
`)
	var dirs cli.Repeated
	fs.Var(&dirs, "tmp-dir", "folder to clean (repeatable; default: the system's temporary folder)")
	dryRun := fs.Bool("dry-run", false, "list what would be removed, remove nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	if len(dirs) == 0 {
		dirs = cli.Repeated{os.TempDir()}
	}
	removed, kept := 0, 0
	for _, dir := range dirs {
		ls, err := atomicfile.Leftovers(dir)
		if err != nil {
			return fmt.Errorf("clean: %w", fileFlag("tmp-dir", dir, err))
		}
		for _, l := range ls {
			switch {
			case l.Running:
				kept++
				continue
			case *dryRun:
				fmt.Fprintf(stdout, "would remove %s (process %d is gone)\n", l.Path, l.PID)
			default:
				if err := os.RemoveAll(l.Path); err != nil {
					return fmt.Errorf("clean: %w", err)
				}
				fmt.Fprintf(stdout, "removed %s (process %d is gone)\n", l.Path, l.PID)
			}
			removed++
		}
	}
	verb := "removed"
	if *dryRun {
		verb = "would remove"
	}
	fmt.Fprintf(stdout, "%s %d leftover(s); %d belong to running processes and were kept\n", verb, removed, kept)
	return nil
}

// fileFlag returns err, from opening path given by --flag, as "--flag
// path: reason" when it is about the path itself (missing, not permitted, a
// folder), else err as it is.
func fileFlag(flag, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return fmt.Errorf("--%s %s: %w", flag, path, pe.Err)
	}
	return err
}

// csvOut refuses an output of a command that writes CSV only whose name
// says another format (x.parquet, x.tsv): the file's name never lies about
// its bytes (local.FormatFor, as join run decides its format).
func csvOut(cmd, path string) error {
	f, err := local.FormatFor(path, "")
	if err == nil && f != local.FormatCSV {
		err = fmt.Errorf("%s: it is named as %s, and %s writes CSV (name it .csv)", path, f, cmd)
	}
	var oe *option.Error
	if errors.As(err, &oe) {
		err = fmt.Errorf("%v: %s", oe.Value, oe.Reason)
	}
	if err != nil {
		return usageError{fmt.Errorf("%s: --out %w", cmd, err)}
	}
	return nil
}

// outDir refuses, before any work, an output folder (--out DIR) that is an
// existing file, a device or a FIFO: the commands that write a folder make
// it if it is missing.
func outDir(cmd, dir string) error {
	if dir == "" {
		return usageError{fmt.Errorf("%s: --out: empty folder name", cmd)}
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return usageError{fmt.Errorf("%s: --out %s: not a folder (it writes several files into one)", cmd, dir)}
	}
	return nil
}

// outError returns err, a failure of cmd, as "cmd: --out path: reason" when
// it is a write to the output at path (a full disk), else as it is.
func outError(cmd, path string, err error) error {
	if e := fileFlag("out", path, err); e != err {
		return fmt.Errorf("%s: %w", cmd, e)
	}
	return err
}

// writeReportJSON writes v to the --report-json file f, if any (nil: none).
func writeReportJSON(f *atomicfile.File, v any) error {
	if f == nil {
		return nil
	}
	if err := writeJSON(f, v); err != nil {
		return fmt.Errorf("--report-json %s: %w", f.Path, err)
	}
	return nil
}

// printReport writes a command's text report to standard output, or to
// standard error where standard output carries an output (toStderr).
func printReport(report func(io.Writer), toStderr bool, stdout, stderr io.Writer) error {
	var text bytes.Buffer
	report(&text)
	if !toStderr {
		if _, err := stdout.Write(text.Bytes()); err != nil {
			return stdoutError{err}
		}
		return nil
	}
	if _, err := stderr.Write(text.Bytes()); err != nil {
		return fmt.Errorf("write the report to standard error: %w", err)
	}
	return nil
}
