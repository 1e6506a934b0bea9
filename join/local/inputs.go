package local

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// side is an opened input (csvscan.Input): its header, and parts that workers
// read in parallel. A regular file is cut at proven record boundaries; a pipe,
// FIFO, standard input or compressed file is read once, in order (see
// csvscan.Input).
type side struct {
	bad        *badRows // non-nil: skip malformed rows into it
	in         *csvscan.Input
	path, name string
	header     []string
	headerRaw  []byte
	size       int64 // bytes after the header; -1 for a stream
	sep        byte  // field separator
}

// openSide opens path, which option names (Keys, Input), and reads its
// header; parts is how many ranges a regular file is cut into; name, if
// set, names it in messages; sep is the field separator (0: csvscan.SepFor
// the path).
func openSide(ctx context.Context, option, path, name string, parts int, skipBad bool, sep byte) (*side, error) {
	if sep == 0 {
		sep = csvscan.SepFor(path)
	}
	in, err := csvscan.OpenInput(ctx, path, csvscan.InputOptions{Parts: parts, SkipBad: skipBad, Name: name, Sep: sep})
	if err != nil {
		return nil, join.FileError(option, path, err)
	}
	if err := key.CheckHeader(in.Name, in.Header); err != nil {
		in.Close()
		return nil, err
	}
	return &side{in: in, path: path, name: in.Name, header: in.Header, headerRaw: in.HeaderRaw, size: in.Size, sep: sep}, nil
}

func (s *side) close() { s.in.Close() }

// column returns the index of column col, which the option name (KeyCol,
// JoinCol) asked for.
func (s *side) column(name, col string) (int, error) {
	i, err := key.Column(name, s.name, s.header, col)
	return i, option.Within(err, "join", join.ErrOptions)
}

// keySpec finds the columns of a key (the option name's: KeyCol, JoinCol).
func (s *side) keySpec(name string, cols []string, types []key.Type) (key.Spec, error) {
	ks, err := key.Find(name, s.name, s.header, cols, types)
	return ks, option.Within(err, "join", join.ErrOptions)
}

// scan reads the side with up to workers goroutines, one part at a time; each
// goroutine gets its own state from newState, and done is called with it
// when the goroutine has read its last part. fn sees every record with its
// byte offset. The error returned is the one a sequential read meets first
// (csvscan.FirstError), or ctx's; a regular file that changed while it was
// read is an error too (csvscan.ErrChanged).
func scan[S any](ctx context.Context, s *side, workers int, newState func() S, fn func(st S, r *csvscan.Reader) error, done func(st S) error) error {
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := newState()
			for {
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				p, err := s.in.Next()
				if err != nil {
					errs[w] = err
					return
				}
				if p == nil {
					break
				}
				if s.bad != nil {
					p.SkipBad(s.bad.add)
				}
				err = fn(st, p.Reader)
				p.Release()
				if err != nil {
					errs[w] = err
					return
				}
			}
			errs[w] = done(st)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := csvscan.FirstError(errs); err != nil {
		if cerr := s.in.Unchanged(); cerr != nil {
			return cerr // the cause: a file that changed reads as garbage
		}
		return csvscan.WithLine(err, s.path)
	}
	return s.in.Unchanged()
}

// CheckSides refuses one stream given as two inputs (of keys, input and
// filter file, in that order; "" is left out): a pipe, FIFO or standard
// input can be read only once. The same regular file twice is fine.
func CheckSides(keys, input, filterFile string) error {
	names := []string{"keys", "input", "filter file"}
	paths := []string{keys, input, filterFile}
	for i := range paths {
		for j := i + 1; j < len(paths); j++ {
			if paths[i] == "" || paths[j] == "" {
				continue
			}
			a, aerr := statInput(paths[i])
			b, berr := statInput(paths[j])
			both := paths[i] == "-" && paths[j] == "-" // standard input is read from its offset, once, even a regular file
			if !both && (aerr != nil || berr != nil || !os.SameFile(a, b) || a.Mode().IsRegular()) {
				continue
			}
			return fmt.Errorf("%s %s and %s %s are the same stream, which can be read only once: save one of them to a file",
				names[i], paths[i], names[j], paths[j])
		}
	}
	return nil
}

// statInput stats an input path, "-" being standard input.
func statInput(path string) (os.FileInfo, error) {
	if path == "-" {
		return os.Stdin.Stat()
	}
	return os.Stat(path)
}

// badRows collects skipped rows: a count and the earliest few, by file offset.
type badRows struct {
	mu       sync.Mutex
	n        int64
	examples []*csvscan.ParseError
}

const badExamples = 5

func (b *badRows) add(pe *csvscan.ParseError) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n++
	b.examples = append(b.examples, pe)
	slices.SortFunc(b.examples, func(x, y *csvscan.ParseError) int {
		if x.File != y.File {
			return strings.Compare(x.File, y.File)
		}
		return cmpInt(x.Offset, y.Offset)
	})
	if len(b.examples) > badExamples {
		b.examples = b.examples[:badExamples]
	}
}

// report fills in line numbers (range readers know only offsets) and formats.
func (b *badRows) report(paths map[string]string) []string {
	var out []string
	for _, pe := range b.examples {
		err := error(pe)
		if path, ok := paths[pe.File]; ok {
			err = csvscan.WithLine(pe, path)
		}
		out = append(out, err.Error())
	}
	return out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// total is the count of bad rows so far.
func (b *badRows) total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}
