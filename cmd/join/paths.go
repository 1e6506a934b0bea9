package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
)

// namedPath is a file named by a flag.
type namedPath struct{ flag, path string }

// statPath stats a path as the commands read it: "-" is standard input for an
// input, standard output for an output.
func statPath(p namedPath, output bool) (os.FileInfo, error) {
	switch {
	case p.path == "-" && output:
		return os.Stdout.Stat()
	case p.path == "-":
		return os.Stdin.Stat()
	}
	return os.Stat(p.path)
}

// checkPaths refuses, before any work, an output that is empty, is a folder,
// or is the same file as an input or another output (os.SameFile, through
// links; character devices such as a terminal or /dev/null excepted), and
// two outputs that would create the same new file.
func checkPaths(outs, ins []namedPath) error {
	type seen struct {
		namedPath
		st     os.FileInfo
		target string // for a new file: its absolute name
		output bool
	}
	var all []seen
	for _, in := range ins {
		if in.path == "" {
			continue
		}
		if st, err := statPath(in, false); err == nil {
			all = append(all, seen{namedPath: in, st: st})
		}
	}
	for _, o := range outs {
		if o.path == "" {
			return usageError{fmt.Errorf("--%s: empty file name", o.flag)}
		}
		cur := seen{namedPath: o, output: true}
		st, err := statPath(o, true)
		switch {
		case err == nil && st.IsDir():
			return usageError{fmt.Errorf("--%s %s: is a folder", o.flag, o.path)}
		case err == nil:
			cur.st = st
		case errors.Is(err, os.ErrNotExist):
			if st, err := os.Stat(filepath.Dir(o.path)); err != nil || !st.IsDir() {
				return usageError{fmt.Errorf("--%s %s: folder %s does not exist", o.flag, o.path, filepath.Dir(o.path))}
			}
			cur.target, _ = filepath.Abs(o.path)
			if dir, derr := filepath.EvalSymlinks(filepath.Dir(o.path)); derr == nil {
				cur.target, _ = filepath.Abs(filepath.Join(dir, filepath.Base(o.path)))
			}
		}
		for _, s := range all {
			same := (cur.st != nil && s.st != nil && atomicfile.SameFile(cur.st, s.st)) ||
				(cur.target != "" && cur.target == s.target) ||
				(s.output && isStdoutPath(o.path) && isStdoutPath(s.path))
			if !same {
				continue
			}
			if s.output {
				return usageError{fmt.Errorf("--%s %s and --%s %s are the same file: give them different names", s.flag, s.path, o.flag, o.path)}
			}
			return usageError{fmt.Errorf("--%s %s is the input --%s %s: writing it would destroy the input", o.flag, o.path, s.flag, s.path)}
		}
		all = append(all, cur)
	}
	// What the command prints goes to standard output: redirected into an
	// input (join run ... >> keys.csv), it would append the report to it, as
	// cat refuses to. (Standard error is not checked: the message saying so
	// would go there.)
	if st, err := os.Stdout.Stat(); err == nil && st.Mode().IsRegular() {
		for _, s := range all {
			if !s.output && s.st != nil && atomicfile.SameFile(st, s.st) {
				return usageError{fmt.Errorf("standard output is the input --%s %s: writing it would destroy the input", s.flag, s.path)}
			}
		}
	}
	return nil
}

// isStdoutPath reports the names of standard output.
func isStdoutPath(p string) bool {
	switch p {
	case "-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return true
	}
	return false
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
		return nil, fmt.Errorf("--%s %s: %w", p.flag, p.path, err)
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
	usageWithExamples(fs, "join clean [flags]", `
Examples:
  join clean                            # the system's temporary folder
  join clean --tmp-dir /big/disk --dry-run
`)
	var dirs multiFlag
	fs.Var(&dirs, "tmp-dir", "folder to clean (repeatable; default: the system's temporary folder)")
	dryRun := fs.Bool("dry-run", false, "list what would be removed, remove nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	if len(dirs) == 0 {
		dirs = multiFlag{os.TempDir()}
	}
	removed, kept := 0, 0
	for _, dir := range dirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("clean: %w", err)
		}
		for _, e := range ents {
			pid, ok := leftoverPID(e.Name())
			if !ok {
				continue
			}
			if processRuns(pid) {
				kept++
				continue
			}
			p := filepath.Join(dir, e.Name())
			if *dryRun {
				fmt.Fprintf(stdout, "would remove %s (process %d is gone)\n", p, pid)
				removed++
				continue
			}
			if err := os.RemoveAll(p); err != nil {
				return fmt.Errorf("clean: %w", err)
			}
			fmt.Fprintf(stdout, "removed %s (process %d is gone)\n", p, pid)
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

// leftoverPID parses the process id from a name made with
// atomicfile.TempPrefix.
func leftoverPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(name, "."), "acbfjoin-")
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(digits)
	return pid, ok && err == nil && pid > 0
}

// processRuns reports whether a process with this id exists (signal 0 checks
// without sending anything; EPERM means it exists under another user).
func processRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
