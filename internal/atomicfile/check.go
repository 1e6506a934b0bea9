package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acbfjoin/acbfjoin/internal/remote"
)

// Named is a file that a caller names by a label of its own (a flag such as
// "--out", or an option's name), used in the errors of Check.
type Named struct{ Label, Path string }

// ErrPath is matched (errors.Is) by every error of Check: an output that
// cannot be written without harm, found before any work. The errors' text
// is the problem alone, for the user.
var ErrPath = errors.New("atomicfile: unsafe output")

// pathError is an error of Check; also, if set, is a second sentinel it
// matches.
type pathError struct {
	msg  string
	also []error
}

func (e *pathError) Error() string { return e.msg }
func (e *pathError) Is(target error) bool {
	return target == ErrPath || slices.Contains(e.also, target)
}

// Check refuses, before any work, an output that is empty, is a folder, is
// in a folder that does not exist, or is the same file as an input or
// another output (os.SameFile, through symbolic and hard links; character
// devices such as a terminal or /dev/null excepted), and two outputs that
// would create the same new file. "-" is standard input among the inputs and
// standard output among the outputs. It also refuses standard output and
// standard error that the shell redirected into an input (`join run ... >>
// keys.csv` would append the rows or the report to it, as cat refuses to;
// then the error matches ErrStderrIsInput too, and its message is for
// standard output). An input that does not exist is left to its
// reader. Every command and engine checks its outputs here, so that the rules
// are one piece of code; the errors name the paths by their labels and wrap
// ErrPath. Cost: a stat of each path.
func Check(outs, ins []Named) error {
	type seen struct {
		Named
		st     os.FileInfo
		target string // for a new file: its absolute name
		output bool
	}
	var all []seen
	var many []manyInput
	for _, in := range ins {
		if in.Path == "" {
			continue
		}
		st, err := statNamed(in.Path, false)
		if err == nil {
			all = append(all, seen{Named: in, st: st})
		}
		if in.Path != "-" && (err == nil && st.IsDir() || errors.Is(err, os.ErrNotExist) && strings.ContainsAny(in.Path, "*?[")) {
			if abs, aerr := filepath.Abs(in.Path); aerr == nil {
				many = append(many, manyInput{in, resolvePattern(abs)})
			}
		}
	}
	// Standard output and error redirected into an input: every error
	// then matches ErrStdoutIsInput and ErrStderrIsInput as they are, so
	// that its message goes to the other stream, or nowhere.
	var stdIn []error
	var stdMsg string
	for _, std := range []struct {
		f    *os.File
		name string
		is   error
	}{{os.Stdout, "standard output", ErrStdoutIsInput}, {os.Stderr, "standard error", ErrStderrIsInput}} {
		st, err := std.f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		for _, s := range all {
			if SameFile(st, s.st) {
				if stdMsg == "" {
					stdMsg = fmt.Sprintf("%s is the input %s %s: writing it would destroy the input", std.name, s.Label, s.Path)
				}
				stdIn = append(stdIn, std.is)
				break
			}
		}
	}
	refuse := func(format string, a ...any) error {
		return &pathError{msg: fmt.Sprintf(format, a...), also: stdIn}
	}
	for _, o := range outs {
		if o.Path == "" {
			return refuse("%s: empty file name", o.Label)
		}
		if sc := remote.Scheme(o.Path); sc != "" {
			// A URL: the files written here are local (a path such as
			// s3://b/x.csv would be the folder s3: and b); beamjoin
			// writes object stores, by its own sharded output.
			return refuse("%s %s: %s:// is written by beamjoin (docs/scale-out.md), not by this command: give a local file", o.Label, o.Path, sc)
		}
		cur := seen{Named: o, output: true}
		st, err := statNamed(o.Path, true)
		switch {
		case err == nil && st.IsDir():
			return refuse("%s %s: is a folder", o.Label, o.Path)
		case err == nil:
			cur.st = st
		case errors.Is(err, os.ErrNotExist):
			if lst, lerr := os.Lstat(o.Path); lerr == nil && lst.Mode()&os.ModeSymlink != 0 {
				dest, _ := os.Readlink(o.Path)
				return refuse("%s %s: is a symbolic link to %s, which does not exist", o.Label, o.Path, dest)
			}
			if st, err := os.Stat(filepath.Dir(o.Path)); err != nil || !st.IsDir() {
				return refuse("%s %s: folder %s does not exist", o.Label, o.Path, filepath.Dir(o.Path))
			}
			cur.target, _ = filepath.Abs(o.Path)
			if dir, derr := filepath.EvalSymlinks(filepath.Dir(o.Path)); derr == nil {
				cur.target, _ = filepath.Abs(filepath.Join(dir, filepath.Base(o.Path)))
			}
		default:
			return refuse("%s %s: %v", o.Label, o.Path, err)
		}
		if err := inManyInput(o, cur.st, cur.target, many); err != "" {
			return refuse("%s", err)
		}
		for _, s := range all {
			same := (cur.st != nil && s.st != nil && SameFile(cur.st, s.st)) ||
				(cur.target != "" && cur.target == s.target) ||
				(s.output && isStdout(o.Path) && isStdout(s.Path))
			if !same {
				continue
			}
			if s.output {
				return refuse("%s %s and %s %s are the same file: give them different names", s.Label, s.Path, o.Label, o.Path)
			}
			return refuse("%s %s is the input %s %s: writing it would destroy the input", o.Label, o.Path, s.Label, s.Path)
		}
		all = append(all, cur)
	}
	if stdMsg != "" {
		return refuse("%s", stdMsg)
	}
	return nil
}

// manyInput is an input of many files: a folder, with its absolute name,
// or a glob, with its absolute pattern.
type manyInput struct {
	Named
	abs string
}

// resolvePattern is the absolute folder or glob abs with the symbolic
// links of its folders resolved (of a glob, of the folders before its
// first pattern character), as an output's name is resolved, so that the
// two compare.
func resolvePattern(abs string) string {
	dir, rest := abs, ""
	for strings.ContainsAny(dir, "*?[") && dir != filepath.Dir(dir) {
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = filepath.Dir(dir)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Join(dir, rest)
}

// inManyInput says why the output o (st: its file's, if it exists; target:
// the absolute name of a new one) must not be written where an input of
// many files (many: a folder, a glob) would read it on the next run ("" if
// it may): a file in the input's folder, or one its glob matches, would be
// read as one of the input's files, joined to itself.
func inManyInput(o Named, st os.FileInfo, target string, many []manyInput) string {
	if len(many) == 0 || isStdout(o.Path) || st != nil && st.Mode()&os.ModeCharDevice != 0 {
		return ""
	}
	abs := target
	if abs == "" {
		var err error
		if abs, err = filepath.Abs(o.Path); err != nil {
			return ""
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
	}
	for _, in := range many {
		if ok, _ := filepath.Match(in.abs, abs); ok {
			return fmt.Sprintf("%s %s: matches the input %s %s, which would read it as one of its files on the next run: write it elsewhere", o.Label, o.Path, in.Label, in.Path)
		}
		if strings.HasPrefix(abs, in.abs+string(filepath.Separator)) {
			return fmt.Sprintf("%s %s: is in the folder of the input %s %s, which would read it as one of its files on the next run: write it elsewhere", o.Label, o.Path, in.Label, in.Path)
		}
	}
	return ""
}

// ErrStdoutIsInput and ErrStderrIsInput are matched by Check's error when
// standard output or standard error is an input (>> keys.csv, 2>>
// keys.csv): its message must not go there, since writing it would change
// the input.
var (
	ErrStdoutIsInput = errors.New("atomicfile: standard output is an input")
	ErrStderrIsInput = errors.New("atomicfile: standard error is an input")
)

// MessageTo returns where the message of err should go: standard error,
// or standard output when standard error is an input (Check), or nil when
// both are (a message would change an input: exit without one).
func MessageTo(err error) *os.File {
	switch {
	case !errors.Is(err, ErrStderrIsInput):
		return os.Stderr
	case !errors.Is(err, ErrStdoutIsInput):
		return os.Stdout
	}
	return nil
}

// statNamed stats a path as the commands read it: "-" is standard input for
// an input, standard output for an output.
func statNamed(path string, output bool) (os.FileInfo, error) {
	switch {
	case path == "-" && output:
		return os.Stdout.Stat()
	case path == "-":
		return os.Stdin.Stat()
	}
	return os.Stat(path)
}

// IsStdout reports the names of standard output as an output: "-",
// /dev/stdout, /dev/fd/1, /proc/self/fd/1.
func IsStdout(path string) bool { return isStdout(path) }
