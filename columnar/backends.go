package columnar

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// backend is one stored format of a Table, the one thing a new format
// implements (a file of its own: parquet.go, arrowipc.go, jsonl.go): its
// chunks (a Parquet row group, an Arrow record batch, a run of JSON
// lines), each read by the columns asked, or a stream read once in order
// (chunks -1: next). The Table keeps what holds for every format: names
// and types, nested columns (a backend is never asked for one), the spool
// of a stream, messages naming the file.
type backend interface {
	// chunks is the number of chunks; -1 for a stream.
	chunks() int
	// chunkRows, chunkBytes and columnBytes are a chunk's rows, its
	// uncompressed bytes and one column's (0 where unknown).
	chunkRows(i int) int64
	chunkBytes(i int) int64
	columnBytes(i, col int) int64
	// stats is what the file's statistics say of column col in chunk
	// i (Table.Stats); ok false where the format keeps none.
	stats(i, col int) (Stats, bool)
	// read decodes columns cols of chunk i (with rows, ascending indexes,
	// only those rows); safe for concurrent use.
	read(i int, cols, rows []int) ([]*Column, error)
	// next decodes columns cols of a stream's next chunk and its rows;
	// io.EOF at the end.
	next(cols []int) ([]*Column, int, error)
	close() error
}

// parquetBackend is a Parquet file's backend (parquetTable, parquet.go).
type parquetBackend struct {
	t  *Table
	pq *parquetTable
}

func (b *parquetBackend) chunks() int                  { return b.pq.chunks() }
func (b *parquetBackend) chunkRows(i int) int64        { return b.pq.chunkRows(i) }
func (b *parquetBackend) chunkBytes(i int) int64       { return b.pq.chunkBytes(i) }
func (b *parquetBackend) columnBytes(i, col int) int64 { return b.pq.columnBytes(i, col) }
func (b *parquetBackend) close() error                 { return b.pq.close() }

func (b *parquetBackend) stats(i, col int) (Stats, bool) { return b.pq.stats(i, col, b.t.Types[col]) }

// read decodes a column chunk at a time; with rows, a column skips the
// values between them (pages without a row are not decoded).
func (b *parquetBackend) read(i int, cols, rows []int) ([]*Column, error) {
	out := make([]*Column, len(cols))
	for j, c := range cols {
		col, err := b.pq.read(i, c, b.t.Types[c], rows)
		if err != nil {
			return nil, formatError(b.t.Name, err)
		}
		out[j] = col
	}
	return out, nil
}

// readDict is ReadDict's: the file's errors name it, as read's do.
func (b *parquetBackend) readDict(i, col int, t Type) (*Dict, error) {
	d, err := b.pq.readDict(i, col, t)
	if err != nil {
		return nil, formatError(b.t.Name, err)
	}
	return d, nil
}

func (b *parquetBackend) next([]int) ([]*Column, int, error) {
	return nil, 0, fmt.Errorf("%s: not a stream", b.t.Name)
}

// arrowFile is an Arrow IPC file's backend: its record batches, counted
// at open (countArrow).
type arrowFile struct {
	t     *Table
	af    *ipc.FileReader
	mu    sync.Mutex // af's records
	rows  []int64    // each record batch's rows
	sizes [][]int64  // and the bytes of each column's buffers
}

// openArrowFile reads the schema of the Arrow IPC file src into t and
// counts its record batches.
func openArrowFile(ctx context.Context, t *Table, src ipc.ReadAtSeeker) (*arrowFile, error) {
	af, err := ipc.NewFileReader(src)
	if err != nil {
		return nil, formatError(t.Name, err)
	}
	b := &arrowFile{t: t, af: af}
	if err := t.schema(af.Schema()); err != nil {
		af.Close()
		return nil, err
	}
	if err := b.count(ctx); err != nil {
		af.Close()
		return nil, err
	}
	return b, nil
}

// count reads an Arrow file's record batches once for their rows and
// bytes (its footer has their places, not their lengths), so that a row
// has its number in the file whichever batch is read first. A pass over
// the file at open: Arrow files are read from the page cache at memory
// speed.
func (b *arrowFile) count(ctx context.Context) error {
	for i := range b.af.NumRecords() {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := b.record(i)
		if err != nil {
			return err
		}
		sizes := make([]int64, rec.NumCols())
		for j, c := range rec.Columns() {
			sizes[j] = arrowBytes(c.Data())
		}
		b.rows, b.sizes = append(b.rows, rec.NumRows()), append(b.sizes, sizes)
		rec.Release()
	}
	return nil
}

func (b *arrowFile) record(i int) (arrow.Record, error) {
	b.mu.Lock()
	rec, err := b.af.RecordAt(i)
	b.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("%s: record batch %d: %w: %v", b.t.Name, i, ErrFormat, err)
	}
	return rec, nil
}

func (b *arrowFile) chunks() int                  { return b.af.NumRecords() }
func (b *arrowFile) chunkRows(i int) int64        { return b.rows[i] }
func (b *arrowFile) columnBytes(i, col int) int64 { return b.sizes[i][col] }
func (b *arrowFile) stats(int, int) (Stats, bool) { return Stats{}, false }
func (b *arrowFile) close() error                 { return b.af.Close() }

func (b *arrowFile) chunkBytes(i int) int64 {
	var n int64
	for _, c := range b.sizes[i] {
		n += c
	}
	return n
}

// read takes a batch, in memory already, whole: with rows, its rows taken.
func (b *arrowFile) read(i int, cols, rows []int) ([]*Column, error) {
	rec, err := b.record(i)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	out, err := b.t.fromRecord(rec, cols)
	if err != nil || rows == nil {
		return out, err
	}
	for j, c := range out {
		out[j] = c.Select(rows)
	}
	return out, nil
}

// readDict is ReadDict of a record batch's column that is a dictionary
// array of text or bytes.
func (b *arrowFile) readDict(i, col int, t Type) (*Dict, error) {
	if t.Kind != String && t.Kind != Binary {
		return nil, nil
	}
	rec, err := b.record(i)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	da, ok := rec.Column(col).(*array.Dictionary)
	if !ok {
		return nil, nil
	}
	d, err := arrowDict(da, t)
	if err != nil {
		return nil, fmt.Errorf("%s: column %q: %w", b.t.Name, b.t.Names[col], err)
	}
	return d, nil
}

func (b *arrowFile) next([]int) ([]*Column, int, error) {
	return nil, 0, fmt.Errorf("%s: not a stream", b.t.Name)
}

// arrowStream is an Arrow IPC stream's backend: read once, in order.
type arrowStream struct {
	t  *Table
	as *ipc.Reader
	mu sync.Mutex
}

func (b *arrowStream) chunks() int                  { return -1 }
func (b *arrowStream) chunkRows(int) int64          { return 0 }
func (b *arrowStream) chunkBytes(int) int64         { return 0 }
func (b *arrowStream) columnBytes(int, int) int64   { return 0 }
func (b *arrowStream) stats(int, int) (Stats, bool) { return Stats{}, false }
func (b *arrowStream) close() error                 { b.as.Release(); return nil }

func (b *arrowStream) read(int, []int, []int) ([]*Column, error) {
	return nil, fmt.Errorf("%s: an Arrow stream is read in order (Next)", b.t.Name)
}

func (b *arrowStream) next(cols []int) ([]*Column, int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.as.Next() {
		if err := b.as.Err(); err != nil {
			return nil, 0, formatError(b.t.Name, err)
		}
		return nil, 0, io.EOF
	}
	rec := b.as.Record()
	out, err := b.t.fromRecord(rec, cols)
	return out, int(rec.NumRows()), err
}

// fromRecord decodes columns cols of an Arrow record (fromArrow).
func (t *Table) fromRecord(rec arrow.Record, cols []int) ([]*Column, error) {
	out := make([]*Column, len(cols))
	for j, c := range cols {
		col, err := fromArrow(rec.Column(c), t.Types[c])
		if err != nil {
			return nil, fmt.Errorf("%s: column %q: %w", t.Name, t.Names[c], err)
		}
		out[j] = col
	}
	return out, nil
}

// arrowBytes is the bytes of an array's buffers, its children's and its
// dictionary's included.
func arrowBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += arrowBytes(c)
	}
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
		n += arrowBytes(dict)
	}
	return n
}
