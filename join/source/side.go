package source

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

// Side is an opened input: CSV (csvscan.Input: a regular file cut at
// proven record boundaries; a pipe, FIFO, standard input or compressed file
// read once, in order) or a table (Parquet, Arrow IPC: package columnar, read
// chunk by chunk). Its header, and for a table the types of its columns.
type Side struct {
	Bad        *BadRows // non-nil: skip malformed rows into it
	In         *csvscan.Input
	Tab        *columnar.Table
	Path, Name string
	Header     []string
	Types      []columnar.Type // a table's; nil for CSV
	HeaderRaw  []byte
	Size       int64        // bytes after the header; -1 for a stream
	Sep        byte         // field separator
	skipBad    bool         // opened with Options.SkipBad: a CSV side's parts cut by the window rule alone
	read       atomic.Int64 // a table's bytes read so far (Progress)
	next       atomic.Int32 // a table's next chunk (scan)
	starts     []int64      // a table's chunks' first rows
	// prune is the test Scan puts a table's chunks to before it reads
	// them (Prune); pruned and prunedRows count the chunks it passed
	// over and their rows.
	prune              func(c *Chunk) bool
	pruned, prunedRows atomic.Int64
	// pairCol, if not 0, has ScanTable hand a worker a table's chunks
	// two at a time (the second its first's Pair), so that the first's
	// ReadKey of column pairCol-1 reads the second's with it
	// (columnar.Table.ReadPair): SetPairCol.
	pairCol int
	many    bool     // a folder or a glob of files (Files)
	files   []string // then, its files
}

// OpenCSV opens the CSV side s anew with opt (a sample's reading of it): its
// file, or its files of a side of many (csvscan.OpenInputs), opt.Name
// naming the side.
func (s *Side) OpenCSV(ctx context.Context, opt csvscan.InputOptions) (*csvscan.Input, error) {
	if s.many {
		return csvscan.OpenInputs(ctx, s.files, opt)
	}
	return csvscan.OpenInput(ctx, s.Path, opt)
}

// Prune makes Scan pass over, unread, the chunks of a table side for which
// skip is true (a predicate that the chunk's statistics refute:
// where.Pred.Refutes); skip is called by Scan's workers concurrently. A
// CSV side's rows are all read. ScanTable, which leaves the rows to its
// caller, does not prune.
func (s *Side) Prune(skip func(c *Chunk) bool) {
	if !NoPrune {
		s.prune = skip
	}
}

// NoPrune turns Prune and OpenSpanWhere's skipping off (ACBFJOIN_PRUNE=off,
// read once at start): every chunk is read and its rows tested, for
// comparing the two (bench/where.sh); the rows are the same
// (TestWherePrunesRowGroups). Set it before a side is opened.
var NoPrune = os.Getenv("ACBFJOIN_PRUNE") == "off"

// PruneChunk reports whether chunk c is to be passed over unread by
// Prune's test, counting it in Pruned if so: Scan's rule, for the callers
// of ScanTable, which read the chunks themselves. Safe for concurrent use.
func (s *Side) PruneChunk(c *Chunk) bool {
	if s.prune == nil || c.Index < 0 || !s.prune(c) {
		return false
	}
	s.pruned.Add(1)
	s.prunedRows.Add(int64(c.Rows))
	return true
}

// Pruned is the chunks Scan passed over (Prune) and their rows, so far.
func (s *Side) Pruned() (chunks, rows int64) { return s.pruned.Load(), s.prunedRows.Load() }

// Options say how to open a side.
type Options struct {
	Option, Path, Name string // the option that names it (Keys, Input), its path, its name in messages
	Parts              int    // the ranges a regular CSV file is cut into
	Taper              bool   // they are handed out as readers finish them, several a reader (csvscan.InputOptions.Taper)
	SkipBad            bool
	Sep                byte   // CSV's field separator (0: csvscan.SepFor the path)
	Format             string // csv, parquet, arrow; "" by the path's extension (columnar.FormatOf)
	TempDir            string // where a Parquet stream is spooled
}

// Open opens a side and reads its header (or its schema).
func Open(ctx context.Context, o Options) (*Side, error) {
	files, many, err := Files(o.Path, o.Format)
	if err != nil {
		return nil, join.FileError(o.Option, o.Path, err)
	}
	if many {
		return openFiles(ctx, o, files)
	}
	format, err := columnar.FormatOf(o.Path, o.Format)
	if err != nil {
		return nil, join.FormatOptionError("join", o.Option, o.Path, err, join.ErrOptions)
	}
	if format != columnar.CSV {
		t, err := columnar.Open(ctx, o.Path, o.Name, format, o.TempDir, columnar.AllowNested) // checkNested
		return openTable(o, t, err)
	}
	sep := o.Sep
	if sep == 0 {
		sep = csvscan.SepFor(o.Path)
	}
	in, err := csvscan.OpenInput(ctx, o.Path, csvscan.InputOptions{Parts: o.Parts, Taper: o.Taper, SkipBad: o.SkipBad, Name: o.Name, Sep: sep})
	if te := (*csvscan.TableError)(nil); errors.As(err, &te) && o.Format == "" {
		// Standard input, no format given, whose first bytes are a
		// table's: read as that table.
		format = columnar.Arrow
		if te.Parquet() {
			format = columnar.Parquet
		}
		t, err := columnar.OpenStream(ctx, te, cmp.Or(o.Name, te.Name), format, o.TempDir, columnar.AllowNested)
		return openTable(o, t, err)
	}
	if err != nil {
		return nil, join.FileError(o.Option, o.Path, err)
	}
	if err := key.CheckHeader(in.Name, in.Header); err != nil {
		in.Close()
		return nil, err
	}
	return &Side{In: in, Path: o.Path, Name: in.Name, Header: in.Header, HeaderRaw: in.HeaderRaw, Size: in.Size, Sep: sep, skipBad: o.SkipBad}, nil
}

// openFiles opens the files of a side given as a folder or a glob (Files)
// as one side: a table of many files (columnar.OpenFiles) or a CSV input
// of many files (csvscan.OpenInputs), named by o's path.
func openFiles(ctx context.Context, o Options, files []string) (*Side, error) {
	format, err := columnar.FormatOf(files[0], o.Format)
	if err != nil {
		return nil, join.FormatOptionError("join", o.Option, files[0], err, join.ErrOptions)
	}
	name := cmp.Or(o.Name, o.Path)
	if format != columnar.CSV {
		t, err := columnar.OpenFiles(ctx, files, name, format, o.TempDir, columnar.AllowNested) // checkNested
		return openTable(o, t, err)
	}
	sep := o.Sep
	if sep == 0 {
		sep = csvscan.SepFor(files[0])
	}
	in, err := csvscan.OpenInputs(ctx, files, csvscan.InputOptions{Parts: o.Parts, Taper: o.Taper, SkipBad: o.SkipBad, Name: name, Sep: sep})
	if err != nil {
		return nil, join.FileError(o.Option, o.Path, err)
	}
	if err := key.CheckHeader(in.Name, in.Header); err != nil {
		in.Close()
		return nil, err
	}
	return &Side{In: in, Path: o.Path, Name: in.Name, Header: in.Header, HeaderRaw: in.HeaderRaw, Size: in.Size, Sep: sep, skipBad: o.SkipBad, many: true, files: files}, nil
}

// openTable makes the side of the table t opened for o (err: how the open
// failed).
func openTable(o Options, t *columnar.Table, err error) (*Side, error) {
	if err != nil {
		if ferr := SpoolFull(o, "whole (a Parquet or Arrow file's footer is at its end)", err); ferr != nil {
			return nil, ferr
		}
		return nil, join.FileError(o.Option, o.Path, err)
	}
	if o.Sep != 0 && o.Sep != ',' {
		t.Close()
		return nil, &option.Error{Pkg: "join", Name: "Sep", Value: fmt.Sprintf("%q", o.Sep), Reason: fmt.Sprintf("applies to CSV sides; %s is %s", o.Path, t.Format), Err: join.ErrOptions}
	}
	if err := key.CheckHeader(t.Name, t.Names); err != nil {
		t.Close()
		return nil, err
	}
	s := &Side{Tab: t, Path: o.Path, Name: t.Name, Header: t.Names, Types: t.Types, Size: t.Size(), Sep: ','}
	for i, n := range t.Names {
		if i > 0 {
			s.HeaderRaw = append(s.HeaderRaw, ',')
		}
		s.HeaderRaw = csvscan.AppendField(s.HeaderRaw, []byte(n))
	}
	var at int64
	for i := range max(t.Chunks(), 0) {
		s.starts = append(s.starts, at)
		at += t.ChunkRows(i)
	}
	return s, nil
}

func (s *Side) Close() {
	if s.Tab != nil {
		s.Tab.Close()
		return
	}
	s.In.Close()
}

// Regular reports whether the side can be read more than once (a second
// pass, a sample before the read): a Regular CSV file, a Parquet file, an
// Arrow file; not a stream.
func (s *Side) Regular() bool {
	if s.Tab != nil {
		return !s.Tab.Stream()
	}
	return s.In.Regular
}

// Reopenable reports whether the side can be opened and read again from
// its start: a regular file on disk, compressed (.gz, .zip: read whole,
// not in parts) or not; not standard input, a pipe, a FIFO or a device.
func (s *Side) Reopenable() bool {
	if s.Regular() || s.many {
		return true // a side of many files: regular files, some compressed (Files)
	}
	if s.Tab != nil || s.Path == "-" {
		return false
	}
	st, err := os.Stat(s.Path)
	return err == nil && st.Mode().IsRegular()
}

// Progress is the side's bytes read so far.
func (s *Side) Progress() int64 {
	if s.Tab != nil {
		return s.read.Load()
	}
	return s.In.Progress()
}

// Typed reports whether column i's type comes from the data.
func (s *Side) Typed(i int) bool { return s.Types != nil && s.Types[i].Typed() }

// RowReader is what a path reads a side's rows with: a *csvscan.Reader, or
// a table's rows (*columnar.Rows), whose NULLs it asks with Null.
type RowReader interface {
	Next() bool
	Fields() [][]byte
	Raw() []byte
	Offset() int64
	Line() int64
	Name() string
	Err() error
	Errorf(format string, a ...any) error
}

// Column returns the index of Column col, which the option name (KeyCol,
// JoinCol) asked for.
func (s *Side) Column(name, col string) (int, error) {
	i, err := key.Column(name, s.Name, s.Header, col)
	return i, option.Within(err, "join", join.ErrOptions)
}

// KeySpec finds the columns of a key (the option name's: KeyCol, JoinCol).
func (s *Side) KeySpec(name string, cols []string, types []key.Type) (key.Spec, error) {
	ks, err := key.Find(name, s.Name, s.Header, cols, types)
	ks.EmptyOK = s.Tab != nil // a table's empty string is a value, its NULL a NULL
	return ks, option.Within(err, "join", join.ErrOptions)
}

// Scan reads the side with up to workers goroutines, one part at a time; each
// goroutine gets its own state from newState, and done is called with it
// when the goroutine has read its last part. fn sees every record with its
// byte offset. The error returned is the one a sequential read meets first
// (csvscan.FirstError), or ctx's; a regular file that changed while it was
// read is an error too (csvscan.ErrChanged).
func Scan[S any](ctx context.Context, s *Side, workers int, newState func() S, fn func(st S, r RowReader) error, done func(st S) error) error {
	if s.Tab != nil && !s.Tab.Stream() && workers > 1 && s.Tab.Chunks() < workers {
		return scanShared(ctx, s, workers, newState, fn, done)
	}
	if s.Tab != nil {
		return ScanTable(ctx, s, workers, newState, func(st S, c *Chunk) error {
			if s.PruneChunk(c) {
				return nil
			}
			cols, err := c.Read(nil)
			if err != nil {
				return err
			}
			name, first := c.Origin() // the rows named in their file, ordered in the side
			err = fn(st, columnar.NewRows(name, cols, first).WithSeqBase(c.First-first))
			columnar.ReleaseAll(cols) // fn has copied what it keeps
			return err
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
				p, err := s.In.Next()
				if err != nil {
					errs[w] = err
					return
				}
				if p == nil {
					break
				}
				if s.Bad != nil {
					p.SkipBad(s.Bad.Add)
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
		if cerr := s.In.Unchanged(); cerr != nil {
			return cerr // the cause: a file that changed reads as garbage
		}
		return csvscan.WithLine(err, s.linePath(err))
	}
	return s.In.Unchanged()
}

// Chunk is a chunk of a table side that a worker reads: its index
// (-1 for a stream's, whose columns come with it), its first row.
type Chunk struct {
	Side  *Side
	Index int
	First int64
	Rows  int
	cols  []*columnar.Column // a stream chunk's, read
	// Pair is the chunk the same worker reads next, with Side.SetPairCol:
	// ReadKey may read its column with this one's, into pre.
	Pair *Chunk
	pre  *columnar.Column // the pair column, read with the chunk before
}

// SetPairCol has ScanTable read the table's chunks in pairs where
// column col's chunks are decoded faster two at a time
// (columnar.Table.PairsPay), each pair's first reading col of both
// (Chunk.ReadKey); col < 0 turns it off. Call it before the scan. O(1).
func (s *Side) SetPairCol(col int) {
	s.pairCol = 0
	if col >= 0 && s.Tab != nil && s.Tab.PairsPay(col) {
		s.pairCol = col + 1
	}
}

// ReadKey is Read(cols), except that where the chunk has a Pair not yet
// read and cols is the Side's pair column alone (SetPairCol), the pair's column is read with
// this one's (columnar.Table.ReadPair) and kept for the pair's own Read
// (or released by the scan, should the pair never ask for it). The
// same columns as Read's.
func (c *Chunk) ReadKey(cols []int) ([]*columnar.Column, error) {
	if p := c.Pair; p != nil && c.Index >= 0 && len(cols) == 1 && cols[0] == c.Side.pairCol-1 && p.pre == nil {
		a, b, err := c.Side.Tab.ReadPair(c.Index, p.Index, cols[0])
		if err != nil {
			return nil, err
		}
		if a != nil {
			p.pre = b
			return []*columnar.Column{a}, nil
		}
	}
	return c.Read(cols)
}

// dropPre releases a column read with the chunk before and never asked
// for (the chunk skipped, or the scan stopped).
func (c *Chunk) dropPre() {
	if c != nil && c.pre != nil {
		c.pre.Release()
		c.pre = nil
	}
}

// Bytes is the chunk's uncompressed Bytes (table.ChunkBytes; a stream
// chunk's, its decoded columns').
func (c *Chunk) Bytes() int64 {
	if c.Index >= 0 {
		return c.Side.Tab.ChunkBytes(c.Index)
	}
	var n int64
	for _, col := range c.cols {
		n += col.Size()
	}
	return n
}

// Origin names the chunk's rows in messages: the side's name and the
// chunk's first row, or of a side of many files the chunk's file and the
// row's number in it (columnar.Table.ChunkOrigin).
func (c *Chunk) Origin() (name string, first int64) {
	if c.Index >= 0 {
		if n, f, ok := c.Side.Tab.ChunkOrigin(c.Index); ok {
			return n, f
		}
	}
	return c.Side.Name, c.First
}

// Stats is what the file's statistics say of the chunk's column col
// (columnar.Table.Stats); ok false for a stream's chunk.
func (c *Chunk) Stats(col int) (columnar.Stats, bool) {
	if c.Index < 0 {
		return columnar.Stats{}, false
	}
	return c.Side.Tab.Stats(c.Index, col)
}

// ColumnBytes is the uncompressed bytes of the chunk's columns cols.
func (c *Chunk) ColumnBytes(cols []int) int64 {
	var n int64
	for _, j := range cols {
		if c.Index >= 0 {
			n += c.Side.Tab.ColumnBytes(c.Index, j)
		} else {
			n += c.cols[j].Size()
		}
	}
	return n
}

// Read decodes the chunk's columns cols (nil: all), counting its bytes for
// the progress once per chunk (when its columns are all, or the first).
func (c *Chunk) Read(cols []int) ([]*columnar.Column, error) {
	if c.pre != nil && len(cols) == 1 && cols[0] == c.Side.pairCol-1 {
		pre := c.pre
		c.pre = nil
		return []*columnar.Column{pre}, nil
	}
	if c.Index < 0 {
		if cols == nil {
			return c.cols, nil
		}
		out := make([]*columnar.Column, len(cols))
		for i, j := range cols {
			out[i] = c.cols[j]
		}
		return out, nil
	}
	return c.Side.Tab.Read(c.Index, cols)
}

// scanShared is Scan of a table of fewer chunks than workers (a key side
// of one row group): each chunk in turn, its columns decoded by every
// worker (Table.Read is safe for concurrent use; Parquet only, whose
// columns are decoded apart), then its rows read by every worker, each
// in its own state. The work is taken from a counter, a column or a
// range of rows at a time (sharedRanges a worker), not cut in equal
// shares beforehand: the NBER twins' key side (one row group of 65,771
// rows and 23 columns, rendered as text for the reducers) was read on
// one core in 90 ms of the join's 450 with a chunk a worker (issue 44,
// Intel Xeon), and with half the rows a worker one worker still ended
// 10 ms after the other (a collection, a slower half; AMD EPYC family
// 25). The rows keep their places (Offset, SeqBase), so the order of the
// side is the same. O(chunk) memory beyond the workers' states.
func scanShared[S any](ctx context.Context, s *Side, workers int, newState func() S, fn func(st S, r RowReader) error, done func(st S) error) error {
	states := make([]S, workers)
	for w := range states {
		states[w] = newState()
	}
	errs := make([]error, workers)
	each := func(f func(w int) error) error {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() { errs[w] = f(w) })
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
		return csvscan.FirstError(errs)
	}
	// pull runs f on the pieces 0..n-1, each taken by the next free worker
	// in order, until one fails: no piece is taken after that, those taken
	// end, and the error is the first piece's to fail (pieces are taken in
	// order, so every piece before it was read: the side's first error, as
	// a read in order would find).
	pull := func(n int, f func(w, i int) error) error {
		var next atomic.Int64
		var failed atomic.Bool
		pieceErrs := make([]error, n)
		if err := each(func(w int) error {
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return nil
				}
				if pieceErrs[i] = f(w, i); pieceErrs[i] != nil {
					failed.Store(true)
				}
			}
			return nil
		}); err != nil {
			return err
		}
		return csvscan.FirstError(pieceErrs)
	}
	for i := range s.Tab.Chunks() {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := &Chunk{Side: s, Index: i, First: s.starts[i], Rows: int(s.Tab.ChunkRows(i))}
		if !s.PruneChunk(c) {
			cols := make([]*columnar.Column, len(s.Tab.Names))
			read := func(_, j int) error { // column j, or all of them
				if s.Tab.Format != columnar.Parquet {
					// An Arrow batch is read whole and a JSON lines chunk
					// parsed whole for any share of its columns: once.
					part, err := c.Read(nil)
					copy(cols, part)
					return err
				}
				part, err := c.Read([]int{j})
				if err == nil {
					cols[j] = part[0]
				}
				return err
			}
			pieces := len(cols)
			if s.Tab.Format != columnar.Parquet {
				pieces = 1
			}
			if err := pull(pieces, read); err != nil {
				columnar.ReleaseAll(cols)
				return err
			}
			name, first := c.Origin() // the rows named in their file, ordered in the side
			ranges := min(c.Rows, workers*sharedRanges)
			err := pull(ranges, func(w, k int) error {
				lo, hi := c.Rows*k/ranges, c.Rows*(k+1)/ranges
				return fn(states[w], columnar.NewRowsOf(name, cols, first, c.Rows).Range(lo, hi).WithSeqBase(c.First-first))
			})
			columnar.ReleaseAll(cols) // every worker is done with them, and has copied what it keeps
			if err != nil {
				return err
			}
		}
		s.read.Add(max(s.Tab.ChunkBytes(i), 1))
	}
	s.next.Store(0)
	return each(func(w int) error { return done(states[w]) })
}

// sharedRanges is how many ranges of a chunk's rows scanShared makes a
// worker: enough that a worker slowed down hands its last ones to the
// others, few enough that a range's start (a Rows, the worker's state
// taking a part) is nothing beside its rows'.
const sharedRanges = 8

// ScanTable reads a table side with up to workers goroutines, a chunk at a
// time (row groups, record batches, in no order; a stream's in order), as
// scan does a CSV side's parts.
func ScanTable[S any](ctx context.Context, s *Side, workers int, newState func() S, fn func(st S, c *Chunk) error, done func(st S) error) error {
	return ScanTableWith(ctx, s, workers, newState, fn, done, nil)
}

// ScanTableWith is ScanTable that calls left (if not nil) from each
// worker that stops without coming to done: an error of its own, of a
// chunk's read or the context's. A done that waits for the other workers
// (the map phase's idle mappers helping the others: local.helpBoard)
// learns from it that one will not come.
func ScanTableWith[S any](ctx context.Context, s *Side, workers int, newState func() S, fn func(st S, c *Chunk) error, done func(st S) error, left func()) error {
	errs := make([]error, workers)
	reached := make([]bool, workers) // the worker came to done
	var streamRow atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if left != nil {
				defer func() {
					if !reached[w] {
						left()
					}
				}()
			}
			st := newState()
			// With a pair column, chunks are taken two at a time where there
			// are at least four a worker (fewer would leave a worker
			// idle at the end): the second waits here.
			step := int32(1)
			if s.pairCol > 0 && !s.Tab.Stream() && s.Tab.Chunks() >= 4*workers {
				step = 2
			}
			var waiting *Chunk
			defer func() { waiting.dropPre() }()
			for {
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				c := &Chunk{Side: s}
				if waiting != nil {
					c, waiting = waiting, nil
				} else if s.Tab.Stream() {
					cols, err := s.Tab.Next(nil)
					if err == io.EOF {
						break
					}
					if err != nil {
						errs[w] = err
						return
					}
					c.Index, c.cols = -1, cols
					if len(cols) > 0 {
						c.Rows = cols[0].Len()
					}
					c.First = streamRow.Add(int64(c.Rows)) - int64(c.Rows)
				} else {
					i := int(s.next.Add(step) - step)
					if i >= s.Tab.Chunks() {
						break
					}
					c.Index, c.First, c.Rows = i, s.starts[i], int(s.Tab.ChunkRows(i))
					if step == 2 && i+1 < s.Tab.Chunks() {
						waiting = &Chunk{Side: s, Index: i + 1, First: s.starts[i+1], Rows: int(s.Tab.ChunkRows(i + 1))}
						c.Pair = waiting
					}
				}
				err := fn(st, c)
				c.dropPre()
				if err != nil {
					errs[w] = err
					return
				}
				s.read.Add(max(s.Tab.ChunkBytes(max(c.Index, 0)), 1))
			}
			reached[w] = true
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

// BadRows collects skipped rows: a count and the earliest few, by file offset.
type BadRows struct {
	mu       sync.Mutex
	N        int64
	examples []*csvscan.ParseError
}

const badExamples = 5

func (b *BadRows) Add(pe *csvscan.ParseError) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.N++
	b.examples = append(b.examples, pe)
	slices.SortFunc(b.examples, func(x, y *csvscan.ParseError) int {
		if x.File != y.File {
			return strings.Compare(x.File, y.File)
		}
		return cmp.Compare(x.Offset, y.Offset)
	})
	if len(b.examples) > badExamples {
		b.examples = b.examples[:badExamples]
	}
}

// linePath is the file whose lines a ParseError err of the side counts:
// the side's path, or the file err names of a side of many files.
func (s *Side) linePath(err error) string {
	var pe *csvscan.ParseError
	if s.many && errors.As(err, &pe) {
		return pe.File
	}
	return s.Path
}

// Report fills in line numbers (range readers know only offsets) and
// formats; paths maps a file's name in messages to its path (a file of a
// side of many files is named by its path, and is not in paths).
func (b *BadRows) Report(paths map[string]string) []string {
	var out []string
	for _, pe := range b.examples {
		err := error(pe)
		if path, ok := paths[pe.File]; ok {
			err = csvscan.WithLine(pe, path)
		} else if st, serr := os.Stat(pe.File); serr == nil && st.Mode().IsRegular() {
			err = csvscan.WithLine(pe, pe.File)
		}
		out = append(out, err.Error())
	}
	return out
}
