package app

import (
	"context"
	"errors"
	"flag"
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

// outputs are the files a command writes, created before its work starts
// (so a folder that cannot be written fails at once) and committed at the
// end; abort removes every one not yet committed.
type outputs struct{ files []*atomicfile.File }

func (o *outputs) create(ctx context.Context, p namedPath, opt atomicfile.Options) (*atomicfile.File, error) {
	f, err := atomicfile.Create(ctx, p.path, opt)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, fmt.Errorf("%s %s: %w", p.flag, p.path, err)
	}
	o.files = append(o.files, f)
	return f, nil
}

func (o *outputs) abort() {
	for _, f := range o.files {
		f.Abort()
	}
}

// cmdClean removes what runs that died left in a folder: entries named with
// atomicfile.TempPrefix ("acbfjoin-PID-..." spill, sort and spool files and
// folders; ".acbfjoin-PID-...tmp" unfinished outputs) whose process no longer
// runs. Entries of running processes are left alone.
func cmdClean(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("clean", flag.ContinueOnError)
	fs.SetOutput(stderr)
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
