package local

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// side is an opened input: CSV (csvscan.Input: a regular file cut at
// proven record boundaries; a pipe, FIFO, standard input or compressed file
// read once, in order) or a table (Parquet, Arrow IPC: package columnar, read
// chunk by chunk). Its header, and for a table the types of its columns.
type side struct {
	bad        *badRows // non-nil: skip malformed rows into it
	in         *csvscan.Input
	tab        *columnar.Table
	path, name string
	header     []string
	types      []columnar.Type // a table's; nil for CSV
	headerRaw  []byte
	size       int64        // bytes after the header; -1 for a stream
	sep        byte         // field separator
	read       atomic.Int64 // a table's bytes read so far (Progress)
	next       atomic.Int32 // a table's next chunk (scan)
	starts     []int64      // a table's chunks' first rows
}

// sideOptions say how to open a side.
type sideOptions struct {
	option, path, name string // the option that names it (Keys, Input), its path, its name in messages
	parts              int    // the ranges a regular CSV file is cut into
	skipBad            bool
	sep                byte   // CSV's field separator (0: csvscan.SepFor the path)
	format             string // csv, parquet, arrow; "" by the path's extension (columnar.FormatOf)
	tempDir            string // where a Parquet stream is spooled
}

// openSide opens a side and reads its header (or its schema).
func openSide(ctx context.Context, o sideOptions) (*side, error) {
	format, err := columnar.FormatOf(o.path, o.format)
	if err != nil {
		return nil, join.FormatOptionError("join", o.option, o.path, err, join.ErrOptions)
	}
	if format != columnar.CSV {
		t, err := columnar.Open(ctx, o.path, o.name, format, o.tempDir, columnar.AllowNested) // checkNested
		return openTable(o, t, err)
	}
	sep := o.sep
	if sep == 0 {
		sep = csvscan.SepFor(o.path)
	}
	in, err := csvscan.OpenInput(ctx, o.path, csvscan.InputOptions{Parts: o.parts, SkipBad: o.skipBad, Name: o.name, Sep: sep})
	if te := (*csvscan.TableError)(nil); errors.As(err, &te) && o.format == "" {
		// Standard input, no format given, whose first bytes are a
		// table's: read as that table.
		format = columnar.Arrow
		if te.Parquet() {
			format = columnar.Parquet
		}
		t, err := columnar.OpenStream(ctx, te, te, cmp.Or(o.name, te.Name), format, o.tempDir, columnar.AllowNested)
		return openTable(o, t, err)
	}
	if err != nil {
		return nil, join.FileError(o.option, o.path, err)
	}
	if err := key.CheckHeader(in.Name, in.Header); err != nil {
		in.Close()
		return nil, err
	}
	return &side{in: in, path: o.path, name: in.Name, header: in.Header, headerRaw: in.HeaderRaw, size: in.Size, sep: sep}, nil
}

// openTable makes the side of the table t opened for o (err: how the open
// failed).
func openTable(o sideOptions, t *columnar.Table, err error) (*side, error) {
	if err != nil {
		if ferr := spoolFull(o, "whole (a Parquet or Arrow file's footer is at its end)", err); ferr != nil {
			return nil, ferr
		}
		return nil, join.FileError(o.option, o.path, err)
	}
	if o.sep != 0 && o.sep != ',' {
		t.Close()
		return nil, &option.Error{Pkg: "join", Name: "Sep", Value: fmt.Sprintf("%q", o.sep), Reason: fmt.Sprintf("applies to CSV sides; %s is %s", o.path, t.Format), Err: join.ErrOptions}
	}
	if err := key.CheckHeader(t.Name, t.Names); err != nil {
		t.Close()
		return nil, err
	}
	s := &side{tab: t, path: o.path, name: t.Name, header: t.Names, types: t.Types, size: t.Size(), sep: ','}
	for i, n := range t.Names {
		if i > 0 {
			s.headerRaw = append(s.headerRaw, ',')
		}
		s.headerRaw = csvscan.AppendField(s.headerRaw, []byte(n))
	}
	var at int64
	for i := range max(t.Chunks(), 0) {
		s.starts = append(s.starts, at)
		at += t.ChunkRows(i)
	}
	return s, nil
}

func (s *side) close() {
	if s.tab != nil {
		s.tab.Close()
		return
	}
	s.in.Close()
}

// regular reports whether the side can be read more than once (a second
// pass, a sample before the read): a regular CSV file, a Parquet file, an
// Arrow file; not a stream.
func (s *side) regular() bool {
	if s.tab != nil {
		return !s.tab.Stream()
	}
	return s.in.Regular
}

// reopenable reports whether the side can be opened and read again from
// its start: a regular file on disk, compressed (.gz, .zip: read whole,
// not in parts) or not; not standard input, a pipe, a FIFO or a device.
func (s *side) reopenable() bool {
	if s.regular() {
		return true
	}
	if s.tab != nil || s.path == "-" {
		return false
	}
	st, err := os.Stat(s.path)
	return err == nil && st.Mode().IsRegular()
}

// progress is the side's bytes read so far.
func (s *side) progress() int64 {
	if s.tab != nil {
		return s.read.Load()
	}
	return s.in.Progress()
}

// typed reports whether column i's type comes from the data.
func (s *side) typed(i int) bool { return s.types != nil && s.types[i].Typed() }

// rowReader is what a path reads a side's rows with: a *csvscan.Reader, or
// a table's rows (*columnar.Rows), whose NULLs it asks with Null.
type rowReader interface {
	Next() bool
	Fields() [][]byte
	Raw() []byte
	Offset() int64
	Line() int64
	Name() string
	Err() error
	Errorf(format string, a ...any) error
}

// column returns the index of column col, which the option name (KeyCol,
// JoinCol) asked for.
func (s *side) column(name, col string) (int, error) {
	i, err := key.Column(name, s.name, s.header, col)
	return i, option.Within(err, "join", join.ErrOptions)
}

// keySpec finds the columns of a key (the option name's: KeyCol, JoinCol).
func (s *side) keySpec(name string, cols []string, types []key.Type) (key.Spec, error) {
	ks, err := key.Find(name, s.name, s.header, cols, types)
	ks.EmptyOK = s.tab != nil // a table's empty string is a value, its NULL a NULL
	return ks, option.Within(err, "join", join.ErrOptions)
}

// scan reads the side with up to workers goroutines, one part at a time; each
// goroutine gets its own state from newState, and done is called with it
// when the goroutine has read its last part. fn sees every record with its
// byte offset. The error returned is the one a sequential read meets first
// (csvscan.FirstError), or ctx's; a regular file that changed while it was
// read is an error too (csvscan.ErrChanged).
func scan[S any](ctx context.Context, s *side, workers int, newState func() S, fn func(st S, r rowReader) error, done func(st S) error) error {
	if s.tab != nil {
		return scanTable(ctx, s, workers, newState, func(st S, c *tableChunk) error {
			cols, err := c.read(nil)
			if err != nil {
				return err
			}
			return fn(st, columnar.NewRows(s.name, cols, c.first))
		}, done)
	}
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

// tableChunk is a chunk of a table side that a worker reads: its index
// (-1 for a stream's, whose columns come with it), its first row.
type tableChunk struct {
	s     *side
	index int
	first int64
	rows  int
	cols  []*columnar.Column // a stream chunk's, read
}

// bytes is the chunk's uncompressed bytes (table.ChunkBytes; a stream
// chunk's, its decoded columns').
func (c *tableChunk) bytes() int64 {
	if c.index >= 0 {
		return c.s.tab.ChunkBytes(c.index)
	}
	var n int64
	for _, col := range c.cols {
		n += col.Size()
	}
	return n
}

// columnBytes is the uncompressed bytes of the chunk's columns cols.
func (c *tableChunk) columnBytes(cols []int) int64 {
	var n int64
	for _, j := range cols {
		if c.index >= 0 {
			n += c.s.tab.ColumnBytes(c.index, j)
		} else {
			n += c.cols[j].Size()
		}
	}
	return n
}

// read decodes the chunk's columns cols (nil: all), counting its bytes for
// the progress once per chunk (when its columns are all, or the first).
func (c *tableChunk) read(cols []int) ([]*columnar.Column, error) {
	if c.index < 0 {
		if cols == nil {
			return c.cols, nil
		}
		out := make([]*columnar.Column, len(cols))
		for i, j := range cols {
			out[i] = c.cols[j]
		}
		return out, nil
	}
	return c.s.tab.Read(c.index, cols)
}

// scanTable reads a table side with up to workers goroutines, a chunk at a
// time (row groups, record batches, in no order; a stream's in order), as
// scan does a CSV side's parts.
func scanTable[S any](ctx context.Context, s *side, workers int, newState func() S, fn func(st S, c *tableChunk) error, done func(st S) error) error {
	errs := make([]error, workers)
	var streamRow atomic.Int64
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
				c := &tableChunk{s: s}
				if s.tab.Stream() {
					cols, err := s.tab.Next(nil)
					if err == io.EOF {
						break
					}
					if err != nil {
						errs[w] = err
						return
					}
					c.index, c.cols = -1, cols
					if len(cols) > 0 {
						c.rows = cols[0].Len()
					}
					c.first = streamRow.Add(int64(c.rows)) - int64(c.rows)
				} else {
					i := int(s.next.Add(1) - 1)
					if i >= s.tab.Chunks() {
						break
					}
					c.index, c.first, c.rows = i, s.starts[i], int(s.tab.ChunkRows(i))
				}
				if err := fn(st, c); err != nil {
					errs[w] = err
					return
				}
				s.read.Add(max(s.tab.ChunkBytes(max(c.index, 0)), 1))
			}
			errs[w] = done(st)
		}()
	}
	wg.Wait()
	s.next.Store(0)
	if err := ctx.Err(); err != nil {
		return err
	}
	return csvscan.FirstError(errs)
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
