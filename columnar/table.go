// Package columnar reads the sides of a join kept as typed columnar files:
// Parquet (.parquet, .pq) and Arrow IPC (.arrow, .feather, .ipc; the file
// format, or the stream format on a pipe or standard input). A table is a
// schema (column names and Types, from the data) and chunks: Parquet's row
// groups, Arrow's record batches. A chunk's columns are decoded one by one,
// so that a join decodes its key columns first and the others only for the
// chunks with rows that pass its filter; Rows renders a chunk's rows as CSV
// fields for the paths that read rows (the key side, samples).
//
// CSV sides are read by csvscan; FormatOf tells the three apart.
//
// Concurrency: Read is safe for concurrent use (different or the same
// chunks); Next (an Arrow stream) and Close are not.
package columnar

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
	"github.com/acbfjoin/acbfjoin/internal/remote"
	"github.com/acbfjoin/acbfjoin/internal/tmpspace"
)

// Format is how a side is stored.
type Format string

const (
	CSV     Format = "csv"     // CSV or TSV text (csvscan), .gz and .zip too
	Parquet Format = "parquet" // Apache Parquet
	Arrow   Format = "arrow"   // Apache Arrow IPC: the file format (Feather v2) or the stream format
	JSONL   Format = "jsonl"   // JSON lines (.jsonl, .ndjson): one object a line, typed from the values (jsonl.go)
)

// FormatError is an error of FormatOf: of the format given (Given: a
// format it does not know), or of the path's name (a compressed Parquet
// file); Error says which and why, naming the path.
type FormatError struct {
	Given, Path, Reason string
}

func (e *FormatError) Error() string {
	if e.Given != "" {
		return fmt.Sprintf("format %q: %s", e.Given, e.Reason)
	}
	return e.Path + ": " + e.Reason
}

// ErrFormat is wrapped by the errors of a file that is not a valid file of
// its format (a damaged footer, a truncated file, another format).
var ErrFormat = errors.New("not a valid file of its format")

// formatError is err, a file's damage, as the error a read returns: the
// file's name first, ErrFormat to test for, then err's text (the one
// wording of every table's read errors, a part of many files named alone).
func formatError(name string, err error) error {
	return fmt.Errorf("%s: %w: %v", name, ErrFormat, err)
}

// FormatOf returns the format of the side path: given ("csv", "parquet",
// "arrow" or "jsonl"; "" reads the extension: .parquet and .pq are Parquet,
// .arrow, .feather, .ipc and .arrows Arrow, .jsonl and .ndjson JSON lines,
// anything else CSV). A compressed
// Parquet or Arrow name (.parquet.gz) is refused: those formats compress
// inside.
func FormatOf(path, given string) (Format, error) {
	switch Format(given) {
	case CSV, Parquet, Arrow, JSONL:
		return Format(given), nil
	case "":
	default:
		return "", &FormatError{Given: given, Reason: "want csv, parquet, arrow or jsonl"}
	}
	base := strings.ToLower(filepath.Base(path))
	for _, z := range []string{".gz", ".zip"} {
		if inner, ok := strings.CutSuffix(base, z); ok {
			if f, _ := FormatOf(inner, ""); f == JSONL {
				return "", &FormatError{Path: path, Reason: "a compressed JSON lines file, which is read as it is: give it decompressed"}
			} else if f != CSV {
				return "", &FormatError{Path: path, Reason: fmt.Sprintf("a compressed %s file: %s compresses inside, give the file itself", f, f)}
			}
			return CSV, nil
		}
	}
	switch filepath.Ext(base) {
	case ".parquet", ".pq":
		return Parquet, nil
	case ".arrow", ".feather", ".ipc", ".arrows":
		return Arrow, nil
	case ".jsonl", ".ndjson":
		return JSONL, nil
	}
	return CSV, nil
}

// Table is an opened Parquet, Arrow IPC or JSON lines side: its schema,
// and its chunks read through its format's backend (backends.go).
type Table struct {
	Name   string // as messages name it
	Format Format
	Names  []string
	Types  []Type
	size   int64 // the file's bytes; -1 for a stream

	b      backend
	closer io.Closer
	spool  string
	skip   bool // SkipNested: a nested column reads as NULLs
}

// Open opens path ("-" is standard input) as a table of format (Parquet or
// Arrow); name, if set, names it in messages. A Parquet side that is not a
// regular file (standard input, a pipe, a FIFO) is copied to a file in
// tempDir first (Parquet's footer is at the end), removed by Close; an
// Arrow one is read as the IPC stream format, once, in order. Errors name
// the file.
//
// A nested column (list, struct, map) is refused (a NestedError naming
// the file and the column) unless opts has AllowNested: a reader that
// checks the columns it reads or writes (Table.Refuse) and leaves the
// others out (Table.SkipNested).
func Open(ctx context.Context, path, name string, format Format, tempDir string, opts ...OpenOption) (*Table, error) {
	t, err := open(ctx, path, name, format, tempDir)
	return allowed(t, err, opts)
}

// OpenOption is an option of Open and OpenStream.
type OpenOption int

// AllowNested opens a table with nested columns (Kind Nested), which its
// reader checks (Table.Refuse) and leaves out (Table.SkipNested).
const AllowNested OpenOption = 1

// outOpenNested is the way out of a nested column that a reader without
// AllowNested (beamjoin, keys --from) meets at open.
const outOpenNested = "this reader reads or writes every column, a nested one it cannot: write the file without it (acbfjoin run leaves one out with --columns)"

// allowed refuses the table t (open's, err its error) if it has a nested
// column and opts has no AllowNested.
func allowed(t *Table, err error, opts []OpenOption) (*Table, error) {
	if err != nil || slices.Contains(opts, AllowNested) {
		return t, err
	}
	if err := t.Refuse(nil, false); err != nil {
		err.(*NestedError).Why = outOpenNested
		t.Close()
		return nil, err
	}
	return t, nil
}

func open(ctx context.Context, path, name string, format Format, tempDir string) (*Table, error) {
	if name == "" {
		name = path
		if path == "-" {
			name = "stdin"
		}
	}
	t := &Table{Name: name, Format: format, size: -1}
	if remote.Is(path) {
		return openRemote(ctx, t, path, tempDir)
	}
	var src *os.File
	var err error
	if path == "-" {
		src = os.Stdin
	} else if src, err = os.Open(path); err != nil {
		return nil, err
	}
	st, err := src.Stat()
	if err != nil {
		src.Close()
		return nil, err
	}
	if st.IsDir() {
		src.Close()
		return nil, fmt.Errorf("%s: is a folder, want a file", name)
	}
	regular := st.Mode().IsRegular() && path != "-"
	if format == JSONL && !regular { // typed by a pass over every line, then read by chunk: a file
		return openStream(ctx, src, src, name, format, tempDir)
	}
	switch format {
	case Parquet:
		file := path
		if !regular {
			if file, err = spool(ctx, src, tempDir); err != nil {
				src.Close()
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			t.spool = file
		}
		src.Close()
		pq, names, types, err := openParquet(ctx, file, name)
		if err != nil {
			t.Close()
			return nil, err
		}
		t.b, t.Names, t.Types = &parquetBackend{t: t, pq: pq}, names, types
		if st, err := os.Stat(file); err == nil {
			t.size = st.Size()
		}
		return t, nil
	case Arrow:
		if !regular {
			return openArrowStream(ctx, src, src, name, tempDir)
		}
		return openArrowAt(ctx, t, src, st.Size(), tempDir)
	case JSONL:
		if !regular {
			src.Close() // never: a stream of JSON lines is spooled first (openStream)
			return nil, fmt.Errorf("%s: JSON lines on a stream are copied to a file first (a bug: they were not)", name)
		}
		b, err := openJSONL(ctx, t, src)
		if err != nil {
			src.Close()
			return nil, err
		}
		t.b, t.closer, t.size = b, src, st.Size()
		return t, nil
	}
	src.Close()
	return nil, fmt.Errorf("%s: format %q is not a table's (parquet, arrow or jsonl)", name, format)
}

// OpenStream opens the table of format that rc holds from its first byte
// (standard input whose first bytes told its format: csvscan.TableError);
// rc is closed with the table. A Parquet stream, or an Arrow IPC file
// (ARROW1), is copied to a file in tempDir first (their footers are at
// their ends), removed by Close; an Arrow IPC stream is read once, in
// order. Errors name the table name.
func OpenStream(ctx context.Context, rc io.ReadCloser, name string, format Format, tempDir string, opts ...OpenOption) (*Table, error) {
	t, err := openStream(ctx, rc, rc, name, format, tempDir)
	return allowed(t, err, opts)
}

func openStream(ctx context.Context, r io.Reader, c io.Closer, name string, format Format, tempDir string) (*Table, error) {
	switch format {
	case Parquet:
		file, err := spool(ctx, r, tempDir)
		c.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return openSpooled(ctx, file, name, Parquet, tempDir)
	case Arrow:
		return openArrowStream(ctx, r, c, name, tempDir)
	case JSONL:
		file, err := spoolFile(ctx, r, tempDir, "spool-*.jsonl", JSONL, name)
		c.Close()
		if errors.Is(err, ErrFormat) { // a line too long: it names the stream
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return openSpooled(ctx, file, name, JSONL, tempDir)
	}
	c.Close()
	return nil, fmt.Errorf("%s: format %q is not a table's (parquet, arrow or jsonl)", name, format)
}

// openArrowStream reads an Arrow side that is no regular file: an IPC
// file (ARROW1: its footer is at its end) is copied to tempDir and opened
// there; else r is read as the IPC stream format, once, in order.
func openArrowStream(ctx context.Context, r io.Reader, c io.Closer, name, tempDir string) (*Table, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	if magic, _ := br.Peek(6); string(magic) == "ARROW1" {
		file, err := spoolFile(ctx, br, tempDir, "spool-*.arrow", Arrow, name)
		c.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return openSpooled(ctx, file, name, Arrow, tempDir)
	}
	t := &Table{Name: name, Format: Arrow, size: -1, closer: c}
	as, err := ipc.NewReader(br)
	if err != nil {
		c.Close()
		return nil, formatError(name, err)
	}
	t.b = &arrowStream{t: t, as: as}
	return t, t.schema(as.Schema())
}

// openSpooled opens file, a copy of a stream, as the table name; Close
// (or a failure) removes it.
func openSpooled(ctx context.Context, file, name string, format Format, tempDir string) (*Table, error) {
	t, err := open(ctx, file, name, format, tempDir)
	if err != nil {
		os.Remove(file)
		return nil, err
	}
	t.spool = file
	return t, nil
}

// spoolFile copies src, a stream of format, to a new file in dir named by
// pattern (named for `join clean`) through CopyStream, which checks what
// it copies as the format's reader will and stops before dir's file
// system falls below its reserve (tmpspace: a *tmpspace.FullError); name
// names the stream in errors. The file is removed on failure.
func spoolFile(ctx context.Context, src io.Reader, dir, pattern string, format Format, name string) (_ string, err error) {
	f, err := os.CreateTemp(dir, atomicfile.TempPrefix()+pattern)
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := CopyStream(ctx, tmpspace.NewWriter(f, filepath.Dir(f.Name())), src, format, name); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// schema sets Names and Types from an Arrow schema, or fails naming the
// column a join does not read. A nested column (list, struct, map) is a
// column of Kind Nested, which the join may leave out (Refuse).
func (t *Table) schema(s *arrow.Schema) error {
	for _, f := range s.Fields() {
		ty, err := arrowType(f.Type)
		if _, ok := f.Type.(arrow.NestedType); ok {
			ty, err = Type{Kind: Nested, Desc: f.Type.String()}, nil
		}
		if err != nil {
			t.Close()
			return fmt.Errorf("%s: column %q: %w", t.Name, f.Name, err)
		}
		t.Names = append(t.Names, f.Name)
		t.Types = append(t.Types, ty)
	}
	return nil
}

// spool copies src, a Parquet stream, to a new file in dir (spoolFile).
func spool(ctx context.Context, src io.Reader, dir string) (string, error) {
	return spoolFile(ctx, src, dir, "spool-*.parquet", Parquet, "")
}

// CopyStream copies src, a side of format on a stream, to dst, checking
// ctx between reads of 1 MiB and what it copies as the format's reader
// will, so that a stream that is no such side stops at once, not at the
// disk's end: Parquet must begin with PAR1 (CopyParquet), JSON lines be
// objects of at most MaxJSONLine bytes a line, Arrow begin as an IPC file
// or stream does. CSV is csvscan.Copy's. A stream that is no side of its
// format is an ErrFormat naming it (name; "" names none); errors of dst
// are returned as they are.
func CopyStream(ctx context.Context, dst io.Writer, src io.Reader, format Format, name string) error {
	switch format {
	case Parquet:
		err := CopyParquet(ctx, dst, src)
		if name != "" && errors.Is(err, ErrFormat) {
			err = fmt.Errorf("%s: %w", name, err)
		}
		return err
	case Arrow:
		err := copyMagic(ctx, dst, src, 6, arrowMagic, "an Arrow IPC file (ARROW1) or stream (0xFFFFFFFF) does")
		if name != "" && errors.Is(err, ErrFormat) {
			err = fmt.Errorf("%s: %w", name, err)
		}
		return err
	case JSONL:
		src = &lineLimit{r: src, name: name}
	}
	return copyChecked(ctx, dst, src)
}

// copyChecked copies src to dst in reads of 1 MiB, checking ctx between
// them.
func copyChecked(ctx context.Context, dst io.Writer, src io.Reader) error {
	buf := make([]byte, 1<<20)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := src.Read(buf)
		if _, err := dst.Write(buf[:n]); err != nil {
			return err
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return rerr
		}
	}
}

// CopyParquet copies src, a Parquet stream, to dst, checking ctx between
// reads of 1 MiB. It stops at once, with ErrFormat, when src does not
// begin as a Parquet file does ("PAR1": /dev/zero, a CSV file); a stream
// shorter than that is copied for the reader of the copy to refuse.
// Errors of dst are returned as they are.
func CopyParquet(ctx context.Context, dst io.Writer, src io.Reader) error {
	return copyMagic(ctx, dst, src, 4, func(b []byte) bool { return string(b) == "PAR1" }, "a Parquet file does (PAR1)")
}

// copyMagic is CopyParquet for a format whose first n bytes ok accepts
// (as says how it begins, for the error).
func copyMagic(ctx context.Context, dst io.Writer, src io.Reader, n int, ok func([]byte) bool, as string) error {
	magic := make([]byte, n)
	n, rerr := io.ReadFull(src, magic)
	switch rerr {
	case nil:
		if !ok(magic) {
			return fmt.Errorf("%w: it does not begin as %s", ErrFormat, as)
		}
	case io.EOF, io.ErrUnexpectedEOF:
		rerr = io.EOF
	default:
		return rerr
	}
	if _, err := dst.Write(magic[:n]); err != nil || rerr != nil {
		return err
	}
	return copyChecked(ctx, dst, src)
}

// arrowMagic accepts the first 6 bytes of an Arrow IPC file (ARROW1) or
// stream (the continuation marker 0xFFFFFFFF, which every writer since
// Arrow 0.15 puts first).
func arrowMagic(b []byte) bool {
	return string(b) == "ARROW1" || string(b[:4]) == "\xff\xff\xff\xff"
}

// Close closes the file and removes a spooled copy.
func (t *Table) Close() error {
	var err error
	if t.b != nil {
		err = t.b.close()
	}
	if t.closer != nil {
		if cerr := t.closer.Close(); err == nil {
			err = cerr
		}
	}
	if t.spool != "" {
		os.Remove(t.spool)
	}
	return err
}

// Size is the file's bytes; -1 for a stream.
func (t *Table) Size() int64 { return t.size }

// Stream reports whether the table is a stream, read once in order (Next)
// rather than by chunk (Read): an Arrow IPC stream.
func (t *Table) Stream() bool { return t.b.chunks() < 0 }

// Chunks is the number of chunks (row groups, record batches, runs of
// JSON lines); -1 for a stream.
func (t *Table) Chunks() int { return t.b.chunks() }

// ChunkRows is the rows of chunk i (not of a stream).
func (t *Table) ChunkRows(i int) int64 { return t.b.chunkRows(i) }

// ChunkBytes is the uncompressed bytes of chunk i: Parquet's row group
// size, an Arrow batch's buffers, the lines' bytes; 0 for a stream.
func (t *Table) ChunkBytes(i int) int64 { return t.b.chunkBytes(i) }

// ColumnBytes is the uncompressed bytes of column col in chunk i (a
// Parquet column chunk's, an Arrow batch's buffers); 0 where unknown.
func (t *Table) ColumnBytes(i, col int) int64 { return t.b.columnBytes(i, col) }

// Rows is the table's rows (not a stream's: -1).
func (t *Table) Rows() int64 {
	if t.Stream() {
		return -1
	}
	var n int64
	for i := range t.Chunks() {
		n += t.ChunkRows(i)
	}
	return n
}

// Stats are what a file's statistics say of a column in a chunk (a
// Parquet row group): its rows, its NULLs, and in Range (a column of the
// column's type holding two values: the least, then the greatest) the
// bounds of its other values: no value of the chunk orders outside them,
// in the order of the type's values. Range is nil where the file gives no
// bounds a reader can trust, or every value is NULL (Nulls == Rows).
type Stats struct {
	Rows, Nulls int64
	Range       *Column
}

// Stats returns what the file's statistics say of column col in chunk i;
// ok false where it keeps none (an Arrow or JSON lines file, a Parquet
// column chunk written without them, or with a sort order its writer got
// wrong). O(1) but for a text column's bounds. Safe for concurrent use.
func (t *Table) Stats(i, col int) (Stats, bool) {
	if t.Stream() || i < 0 || i >= t.Chunks() || col < 0 || col >= len(t.Types) {
		return Stats{}, false
	}
	return t.b.stats(i, col)
}

// KeyRange returns the least and the greatest value of the signed integer
// column col in chunk i, and its NULLs, from the file's statistics
// (Parquet); ok false where they are not all there.
func (t *Table) KeyRange(i, col int) (lo, hi, nulls int64, ok bool) {
	s, ok := t.Stats(i, col)
	if !ok || s.Range == nil || t.Types[col].Kind != Int {
		return 0, 0, 0, false
	}
	return s.Range.Int64(0), s.Range.Int64(1), s.Nulls, true
}

// TextRange returns the least and the greatest value of the text or binary
// column col in chunk i, as bytes (the order of Parquet's statistics of
// byte arrays: unsigned, byte by byte, which is a string key's order), and
// its NULLs, from the file's statistics (Parquet); ok false where they
// are not all there. Safe for concurrent use.
func (t *Table) TextRange(i, col int) (lo, hi []byte, nulls int64, ok bool) {
	s, ok := t.Stats(i, col)
	if !ok || s.Range == nil || (t.Types[col].Kind != String && t.Types[col].Kind != Binary) || s.Range.offs == nil {
		return nil, nil, 0, false
	}
	return s.Range.Bytes(0), s.Range.Bytes(1), s.Nulls, true
}

// Read decodes the columns cols (nil: all) of chunk i, in the order asked.
// Safe for concurrent use.
func (t *Table) Read(i int, cols []int) ([]*Column, error) {
	if t.Stream() {
		return nil, fmt.Errorf("%s: an Arrow stream is read in order (Next)", t.Name)
	}
	return t.withNested(cols, func(flat []int) ([]*Column, int, error) {
		out, err := t.b.read(i, flat, nil)
		return out, int(t.b.chunkRows(i)), err
	})
}

// ReadRows decodes the rows rows (ascending indexes in chunk i) of the
// columns cols: value j of each column is row rows[j]. A Parquet column
// of the pages decoders finds them in its pages, decoding none of the
// values between them (RowsCheap); any other Parquet column, and an Arrow
// batch, in memory already, is read whole and its rows taken. Safe for
// concurrent use.
func (t *Table) ReadRows(i int, cols, rows []int) ([]*Column, error) {
	return t.withNested(cols, func(flat []int) ([]*Column, int, error) {
		out, err := t.b.read(i, flat, rows)
		return out, len(rows), err
	})
}

// Next decodes the columns cols (nil: all) of a stream's next record
// batch; io.EOF at the end.
func (t *Table) Next(cols []int) ([]*Column, error) {
	if !t.Stream() {
		return nil, fmt.Errorf("%s: not a stream", t.Name)
	}
	return t.withNested(cols, t.b.next)
}

// withNested reads columns cols (nil: all) through read, which is asked
// for the flat ones only: a nested column, refused unless SkipNested
// (readable), is as many NULLs as read's rows.
func (t *Table) withNested(cols []int, read func(flat []int) ([]*Column, int, error)) ([]*Column, error) {
	if cols == nil {
		cols = t.all()
	}
	if err := t.readable(cols); err != nil {
		return nil, err
	}
	flat := make([]int, 0, len(cols))
	for _, c := range cols {
		if t.Types[c].Kind != Nested {
			flat = append(flat, c)
		}
	}
	got, rows, err := read(flat)
	if err != nil {
		return nil, err
	}
	if len(flat) == len(cols) {
		return got, nil
	}
	out := make([]*Column, len(cols))
	for j, c := range cols {
		if t.Types[c].Kind == Nested {
			out[j] = nullColumn(t.Types[c], rows)
			continue
		}
		out[j], got = got[0], got[1:]
	}
	return out, nil
}

func (t *Table) all() []int {
	cols := make([]int, len(t.Names))
	for i := range cols {
		cols[i] = i
	}
	return cols
}

// Column returns the index of the column name, or -1.
func (t *Table) Column(name string) int { return slices.Index(t.Names, name) }

// NestedError is the error of a nested column (list, struct, map) that a
// join would read or write: the file and the column named, and the way
// out. A key column: "a join key is a flat column"; an output column:
// leave it out with --columns.
type NestedError struct {
	File, Column, Type string
	Key                bool   // a key column (else one the output would hold)
	Why                string // if set, the way out instead of --columns' (a reader without it)
}

func (e *NestedError) Error() string {
	what := "nested (" + e.Type + ")"
	if e.Type == intervalDesc {
		what = "an interval (months, days and milliseconds)"
	}
	if e.Why != "" {
		return fmt.Sprintf("%s: column %q is %s: %s", e.File, e.Column, what, e.Why)
	}
	if e.Key {
		return fmt.Sprintf("%s: column %q is %s: a join key is a flat column (an integer or a string): join on another", e.File, e.Column, what)
	}
	return fmt.Sprintf("%s: column %q is %s, which a join does not read or write: leave it out with --columns (name the output's columns without it)", e.File, e.Column, what)
}

// intervalDesc is the Desc of a Parquet INTERVAL column, which a join
// takes as it takes a nested one (Kind Nested): never decoded, refused
// where it would be compared or written.
const intervalDesc = "interval"

// Refuse returns a *NestedError for the first nested column of cols
// (nil: all), key saying they are key columns; nil if none is nested.
// A reader checks the columns it reads or writes with it before
// SkipNested.
func (t *Table) Refuse(cols []int, key bool) error {
	if cols == nil {
		cols = t.all()
	}
	for _, c := range cols {
		if c >= 0 && c < len(t.Types) && t.Types[c].Kind == Nested {
			return &NestedError{File: t.Name, Column: t.Names[c], Type: t.Types[c].Desc, Key: key}
		}
	}
	return nil
}

// SkipNested lets Read, ReadRows and Next read a nested column, as
// NULLs, never decoded: for a reader that checked (Refuse) that it
// neither compares nor writes one, and reads whole rows (Rows). Without
// it a nested column is an error (NestedError), so that no reader writes
// one as empty fields unawares. Not safe with concurrent reads.
func (t *Table) SkipNested() { t.skip = true }

// readable refuses a nested column of cols unless SkipNested.
func (t *Table) readable(cols []int) error {
	if t.skip {
		return nil
	}
	return t.Refuse(cols, false)
}

// nullColumn is n NULLs of type ty (a nested column's, skipped).
func nullColumn(ty Type, n int) *Column {
	return &Column{Type: ty, n: n, valid: make([]bool, n)}
}

// openRemote opens a remote file (remote.Is) as the table t: Parquet and an
// Arrow IPC file are read by ranges (their footers first, then a chunk's
// bytes); an Arrow IPC stream is read once, in order; JSON lines, which are
// typed by a pass over every line before they are read by chunk, are
// copied to tempDir first.
func openRemote(ctx context.Context, t *Table, path, tempDir string) (*Table, error) {
	switch t.Format {
	case Parquet:
		pq, names, types, err := openParquet(ctx, path, t.Name)
		if err != nil {
			return nil, err
		}
		t.b, t.Names, t.Types, t.size = &parquetBackend{t: t, pq: pq}, names, types, pq.size
		return t, nil
	case Arrow, JSONL:
	default:
		return nil, fmt.Errorf("%s: format %q is not a table's (parquet, arrow or jsonl)", t.Name, t.Format)
	}
	src, err := remote.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	if t.Format == JSONL {
		return openStream(ctx, src, src, t.Name, JSONL, tempDir)
	}
	return openArrowAt(ctx, t, src, src.Size(), tempDir)
}

// arrowSource is an Arrow side read at offsets: a regular file, or a
// remote one (remote.File).
type arrowSource interface {
	ipc.ReadAtSeeker
	io.Closer
}

// openArrowAt opens the Arrow side src of size bytes as the table t: an
// IPC file (ARROW1) by its footer, chunk by chunk; else the IPC stream
// format, once, in order (openArrowStream). src is closed with the table,
// or on failure.
func openArrowAt(ctx context.Context, t *Table, src arrowSource, size int64, tempDir string) (*Table, error) {
	var magic [6]byte
	if _, err := src.ReadAt(magic[:], 0); err == nil && string(magic[:]) == "ARROW1" {
		b, err := openArrowFile(ctx, t, src)
		if err != nil {
			src.Close()
			return nil, err
		}
		t.b, t.closer, t.size = b, src, size
		return t, nil
	}
	return openArrowStream(ctx, src, src, t.Name, tempDir)
}
