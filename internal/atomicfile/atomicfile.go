// Package atomicfile opens the files acbfjoin writes so that a failure never
// leaves a half-written file and nothing but a regular file or a new name is
// ever replaced.
//
// The rules (docs/design.md, "Safety"):
//   - A new name, or an existing regular file, is written to a temporary file
//     in the same folder and renamed into place by Commit, atomically. An
//     existing file keeps its mode (and owner, where permitted); a new one
//     gets 0666 less the umask, as any program's would.
//   - A symbolic link is written through to its target, as GNU sort -o does:
//     the target is replaced, the link stays.
//   - A device, a FIFO, a socket, "-" and /dev/stdout or /dev/stderr are
//     written in place, as a stream: they cannot be renamed over (as root,
//     renaming over /dev/null replaces the system's /dev/null).
//   - A folder, and a .zip name, are refused; a .gz name is compressed with
//     gzip when the caller allows it (Options.Gzip) and refused otherwise.
//
// Temporary files are named ".acbfjoin-PID-NAME-RANDOM.tmp" (TempPrefix), so
// that `join clean` can tell the leftovers of a run that died from the files
// of a run that is still going.
package atomicfile

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Options says how Create treats a path.
type Options struct {
	// Gzip compresses a path that ends in .gz; without it such a path is
	// refused.
	Gzip bool
}

// File is an output being written. Write to it, then Commit, or Abort on any
// failure. It is not safe for concurrent use.
type File struct {
	Path    string // as given
	target  string // the file replaced on Commit (symlinks resolved); "" in place
	f       *os.File
	own     bool // whether Abort and Commit close f (not for standard output)
	w       io.Writer
	buf     *bufio.Writer
	gz      *gzip.Writer
	done    bool
	stdout  bool
	inPlace bool
}

// TempPrefix is how every temporary file and folder of this process starts:
// "acbfjoin-PID-". Output temporaries add a leading dot.
func TempPrefix() string { return "acbfjoin-" + strconv.Itoa(os.Getpid()) + "-" }

// Create opens path for writing by the rules of the package doc. Opening a
// FIFO waits for a reader, but gives up when ctx ends. The folder is checked
// by creating the temporary file now, before any work.
func Create(ctx context.Context, path string, opt Options) (*File, error) {
	if path == "" {
		return nil, errors.New("empty file name")
	}
	if strings.HasSuffix(strings.ToLower(path), ".zip") {
		return nil, errors.New("cannot write a zip archive: name it .csv, or .csv.gz to compress")
	}
	out := &File{Path: path}
	if isStdout(path) {
		out.f, out.stdout, out.inPlace = os.Stdout, true, true
		return out.wrap(opt)
	}
	if isStderr(path) {
		out.f, out.inPlace = os.Stderr, true
		return out.wrap(opt)
	}
	st, err := os.Stat(path) // follows links
	switch {
	case err == nil && st.IsDir():
		return nil, errors.New("is a folder")
	case err == nil && !st.Mode().IsRegular(), err == nil && underFD(path):
		// A device, FIFO or socket, or a descriptor (/dev/fd/N): in place.
		f, err := openInPlace(ctx, path, st)
		if err != nil {
			return nil, err
		}
		out.f, out.own, out.inPlace = f, true, true
		return out.wrap(opt)
	case err == nil:
		if out.target, err = filepath.EvalSymlinks(path); err != nil {
			return nil, err
		}
		if err := replaceable(out.target, st); err != nil {
			return nil, err
		}
	case errors.Is(err, os.ErrNotExist):
		if lst, lerr := os.Lstat(path); lerr == nil && lst.Mode()&os.ModeSymlink != 0 {
			dest, _ := os.Readlink(path)
			return nil, fmt.Errorf("is a symbolic link to %s, which does not exist", dest)
		}
		out.target = path
		if dir, derr := filepath.EvalSymlinks(filepath.Dir(path)); derr == nil {
			out.target = filepath.Join(dir, filepath.Base(path))
		}
	default:
		return nil, err
	}
	dir := filepath.Dir(out.target)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("folder %s does not exist", dir)
	}
	f, err := createTemp(dir, filepath.Base(out.target))
	if err != nil {
		return nil, err
	}
	out.f, out.own = f, true
	if st, err := os.Stat(out.target); err == nil {
		// Keep the file's mode and, where permitted, its owner.
		if err := f.Chmod(st.Mode().Perm()); err != nil {
			out.Abort()
			return nil, err
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			f.Chown(int(sys.Uid), int(sys.Gid)) // fails unless root: the file is ours then
		}
	}
	return out.wrap(opt)
}

func (out *File) wrap(opt Options) (*File, error) {
	out.w = out.f
	if strings.HasSuffix(strings.ToLower(out.Path), ".gz") {
		if !opt.Gzip {
			out.Abort()
			return nil, errors.New("cannot be compressed: leave out .gz")
		}
		out.buf = bufio.NewWriterSize(out.f, 256<<10)
		out.gz = gzip.NewWriter(out.buf)
		out.w = out.gz
	}
	return out, nil
}

// replaceable refuses to replace an existing file that the shell's > could
// not write either: one we may not write (a rename needs only the folder's
// permission, so a read-only file, or another user's, would be replaced), and
// one in a sticky folder (/tmp) that belongs to another user, which the
// rename would fail on only after all the work.
func replaceable(target string, st os.FileInfo) error {
	if err := syscall.Access(target, 2 /* W_OK */); err != nil {
		return &os.PathError{Op: "write", Path: target, Err: err}
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	dst, derr := os.Stat(filepath.Dir(target))
	if !ok || derr != nil || dst.Mode()&os.ModeSticky == 0 {
		return nil
	}
	euid := os.Geteuid()
	if dsys, ok := dst.Sys().(*syscall.Stat_t); ok && euid != 0 && int(sys.Uid) != euid && int(dsys.Uid) != euid {
		return fmt.Errorf("cannot replace %s: it belongs to another user and its folder is sticky; write to a new name", target)
	}
	return nil
}

// createTemp creates a new file ".acbfjoin-PID-BASE-RANDOM.tmp" in dir with
// mode 0666 less the umask (os.CreateTemp's 0600 would make every output
// private).
func createTemp(dir, base string) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, "."+TempPrefix()+base+"-"+strconv.FormatUint(rand.Uint64()%1e9, 10)+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("cannot create a temporary file in %s", dir)
}

// openInPlace opens a device, FIFO or descriptor for writing. A FIFO's open
// blocks until a reader comes: it is given up when ctx ends (unblocked by
// opening the FIFO for reading ourselves).
func openInPlace(ctx context.Context, path string, st os.FileInfo) (*os.File, error) {
	flag := os.O_WRONLY
	if st.Mode().IsRegular() {
		// A regular file behind /dev/fd/N, which the shell opened: > has
		// emptied it already, >> has not and wants an append. Reopening
		// starts at offset 0, so append (O_TRUNC here destroyed what >>
		// meant to keep).
		flag |= os.O_APPEND
	}
	if st.Mode()&os.ModeNamedPipe == 0 || ctx.Done() == nil {
		return os.OpenFile(path, flag, 0)
	}
	type result struct {
		f   *os.File
		err error
	}
	ch := make(chan result, 1)
	go func() {
		f, err := os.OpenFile(path, flag, 0)
		ch <- result{f, err}
	}()
	select {
	case r := <-ch:
		return r.f, r.err
	case <-ctx.Done():
		// Open it for reading ourselves, which ends the blocked open; a
		// FIFO removed meanwhile cannot be: its open is left to the
		// process's end, not waited for.
		if rd, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			if r := <-ch; r.f != nil {
				r.f.Close()
			}
			rd.Close()
		} else {
			go func() {
				if r := <-ch; r.f != nil {
					r.f.Close()
				}
			}()
		}
		return nil, ctx.Err()
	}
}

func isStdout(path string) bool {
	switch path {
	case "-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return true
	}
	return false
}

func isStderr(path string) bool {
	switch path {
	case "/dev/stderr", "/dev/fd/2", "/proc/self/fd/2":
		return true
	}
	return false
}

// underFD reports a path that names an open descriptor (/dev/fd/N,
// /proc/self/fd/N): written in place even when it leads to a regular file.
func underFD(path string) bool {
	return strings.HasPrefix(path, "/dev/fd/") || strings.HasPrefix(path, "/proc/self/fd/")
}

// Write writes to the file (compressed for .gz).
// A failed write is an *os.PathError naming the path as given (not the
// temporary file), so that callers can name the flag that gave it.
func (out *File) Write(p []byte) (int, error) {
	n, err := out.w.Write(p)
	if err != nil {
		err = out.pathError("write", err)
	}
	return n, err
}

// pathError returns err as an *os.PathError of op on out.Path.
func (out *File) pathError(op string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &os.PathError{Op: op, Path: out.Path, Err: err}
}

// File returns the underlying file: the temporary file, or the device.
// Writes to it bypass the .gz compression.
func (out *File) File() *os.File { return out.f }

// InPlace reports an output written as a stream (a device, FIFO, standard
// output): Abort cannot take back what was written.
func (out *File) InPlace() bool { return out.inPlace }

// Stdout reports standard output.
func (out *File) Stdout() bool { return out.stdout }

// Commit finishes the file: flushes the compression, closes it, and puts
// the temporary file in place (replace). After an error nothing was
// replaced, but for the one that says the old file could not be removed.
func (out *File) Commit() error {
	if out.done {
		return errors.New("atomicfile: commit after commit or abort")
	}
	if out.gz != nil {
		if err := out.gz.Close(); err != nil {
			out.Abort()
			return out.pathError("write", err)
		}
		if err := out.buf.Flush(); err != nil {
			out.Abort()
			return out.pathError("write", err)
		}
	}
	if out.target == "" {
		out.done = true
		if out.own {
			if err := out.f.Close(); err != nil {
				return out.pathError("close", err)
			}
		}
		return nil
	}
	if err := out.f.Close(); err != nil {
		out.Abort()
		return out.pathError("close", err)
	}
	if err := replace(out.f.Name(), out.target); err != nil {
		out.done = true
		return err
	}
	out.done = true
	return nil
}

// rename renames tmp over target, and removes tmp if it cannot.
func rename(tmp, target string) error {
	err := os.Rename(tmp, target)
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Abort removes the temporary file; an in-place output is closed as it is.
// It is safe to call after Commit (it does nothing then).
func (out *File) Abort() {
	if out.done {
		return
	}
	out.done = true
	if out.own {
		out.f.Close()
	}
	if out.target != "" {
		os.Remove(out.f.Name())
	}
}

// Write creates path through a File (no compression: a .gz path is refused),
// filled by write and committed only if write succeeds. On any error the
// temporary file is removed and path is untouched.
func Write(path string, write func(*os.File) error) error {
	out, err := Create(context.Background(), path, Options{})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := write(out.f); err != nil {
		out.Abort()
		return err
	}
	return out.Commit()
}

// SameFile reports whether two stat results are the same file, for the
// checks of outputs against inputs; character devices (a terminal,
// /dev/null) are never "the same" as each other, since reading one and
// writing another does no harm.
func SameFile(a, b os.FileInfo) bool {
	if a.Mode()&os.ModeCharDevice != 0 {
		return false
	}
	return os.SameFile(a, b)
}

// Dir is an output folder made on demand (MakeDir): Undo removes it again,
// and the parents MakeDir made for it, while they are empty, so that a
// failed run that created its output folder (np1/np2/np3) leaves nothing
// behind. The value is small; copy it freely.
type Dir struct {
	made []string // the folders MakeDir created, deepest first
}

// MakeDir creates path and its missing parents (0755), remembering which
// it created. Its error is os.MkdirAll's.
func MakeDir(path string) (Dir, error) {
	var missing []string
	for p := filepath.Clean(path); ; {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			break
		}
		missing = append(missing, p)
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return Dir{}, err
	}
	return Dir{made: missing}, nil
}

// Undo removes the folders MakeDir made, deepest first, while they are
// empty (os.Remove refuses a folder that is not); it leaves the others.
func (d Dir) Undo() {
	for _, p := range d.made {
		if os.Remove(p) != nil {
			return
		}
	}
}

// AbortAll aborts each file that is not nil (File.Abort: a committed one is
// left as it is).
func AbortAll(files ...*File) {
	for _, f := range files {
		if f != nil {
			f.Abort()
		}
	}
}
