package columnar

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/acbfjoin/acbfjoin/csvscan"
)

// A table of many files (a side given as a folder or a glob: the part
// files Spark, DuckDB's PARTITION_BY and Hive write) is one Table whose
// chunks are its files' chunks, one file after the other: chunk i of the
// whole is chunk j of one file (multiBackend.locate). Every reader of a
// Table (the map phase by chunk, the statistics, dictionaries and Bloom
// filters of a chunk) reads it as one file, and a message about a chunk's
// data names the file it is in (the file's own Table names it).

// OpenFiles opens paths, regular files of one format, as one table named
// name (the folder or the glob, in messages about the whole): the chunks of
// the first file, then of the second, and so on. Every file must have the
// columns of the first, by name and type, in the same order; a file that
// differs is refused naming it, the first and the column. A file of the
// Arrow IPC stream format is refused (its chunks are read once, in order,
// not one by one). opts are Open's. On an error every file opened is
// closed.
func OpenFiles(ctx context.Context, paths []string, name string, format Format, tempDir string, opts ...OpenOption) (*Table, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no file", name)
	}
	m := &multiBackend{}
	t := &Table{Name: name, Format: format, b: m}
	var firstEmpty error
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			m.close()
			return nil, err
		}
		part, err := open(ctx, p, "", format, tempDir)
		if err != nil && len(paths) > 1 && errors.Is(err, ErrNoObject) {
			// An empty JSON lines file of several holds no row (as an
			// empty CSV part, csvscan.OpenInputs): skipped, unless every
			// file is one.
			if firstEmpty == nil {
				firstEmpty = err
			}
			continue
		}
		if err != nil {
			m.close()
			return nil, err
		}
		m.parts = append(m.parts, part)
		if part.Stream() {
			m.close()
			return nil, fmt.Errorf("%s: an Arrow IPC stream, whose batches are read once in order, cannot be one of the files of %s: write them in the IPC file format (.arrow)", p, name)
		}
		if len(m.parts) == 1 {
			t.Names, t.Types = part.Names, part.Types
		} else if err := sameColumns(m.parts[0], part); err != nil {
			m.close()
			return nil, err
		}
		t.size += part.size
	}
	if len(m.parts) == 0 {
		return nil, firstEmpty
	}
	m.starts = make([]int, len(m.parts)+1)
	for k, part := range m.parts {
		m.starts[k+1] = m.starts[k] + part.Chunks()
	}
	return allowed(t, nil, opts)
}

// ErrColumnsDiffer marks the refusal of a file whose columns are not its
// side's first file's (OpenFiles).
var ErrColumnsDiffer = errors.New("the files of a side must have the same columns")

// sameColumns refuses b, a file of the side whose first file is a, unless
// its columns are a's: the same names (csvscan.DiffNames) and types, in the
// same order.
func sameColumns(a, b *Table) error {
	if d := csvscan.DiffNames(a.Name, a.Names, b.Name, b.Names); d != "" {
		return fmt.Errorf("%s: %w", d, ErrColumnsDiffer)
	}
	for c := range a.Types {
		if a.Types[c] != b.Types[c] {
			return fmt.Errorf("%s: its column %q is %s where %s's is %s: %w", b.Name, b.Names[c], b.Types[c], a.Name, a.Types[c], ErrColumnsDiffer)
		}
	}
	return nil
}

// multiBackend is the backend of a table of many files: parts, whose
// chunks are numbered from starts[k] (starts[len(parts)] is the whole's).
type multiBackend struct {
	parts  []*Table
	starts []int
}

// locate returns the file of chunk i and its index there.
func (m *multiBackend) locate(i int) (*Table, int) {
	k := sort.SearchInts(m.starts, i+1) - 1
	return m.parts[k], i - m.starts[k]
}

func (m *multiBackend) chunks() int { return m.starts[len(m.parts)] }

func (m *multiBackend) chunkRows(i int) int64 {
	p, j := m.locate(i)
	return p.b.chunkRows(j)
}

func (m *multiBackend) chunkBytes(i int) int64 {
	p, j := m.locate(i)
	return p.b.chunkBytes(j)
}

func (m *multiBackend) columnBytes(i, col int) int64 {
	p, j := m.locate(i)
	return p.b.columnBytes(j, col)
}

func (m *multiBackend) stats(i, col int) (Stats, bool) {
	p, j := m.locate(i)
	return p.b.stats(j, col)
}

func (m *multiBackend) read(i int, cols, rows []int) ([]*Column, error) {
	p, j := m.locate(i)
	return p.b.read(j, cols, rows)
}

func (m *multiBackend) next([]int) ([]*Column, int, error) {
	return nil, 0, errors.New("a table of many files is read by chunk (a bug: it was read as a stream)")
}

func (m *multiBackend) close() error {
	var errs []error
	for _, p := range m.parts {
		errs = append(errs, p.Close())
	}
	m.parts = nil
	return errors.Join(errs...)
}

// readDict is ReadDict of the chunk's file.
func (m *multiBackend) readDict(i, col int, t Type) (*Dict, error) {
	p, j := m.locate(i)
	if d, ok := p.b.(dictReader); ok {
		return d.readDict(j, col, t)
	}
	return nil, nil
}

// parquetChunk is the Parquet file of chunk i of t, and its index there;
// ok false for a table of another format.
func (t *Table) parquetChunk(i int) (*parquetBackend, int, bool) {
	switch b := t.b.(type) {
	case *parquetBackend:
		return b, i, true
	case *multiBackend:
		if i < 0 || i >= b.chunks() {
			return nil, 0, false
		}
		p, j := b.locate(i)
		pb, ok := p.b.(*parquetBackend)
		return pb, j, ok
	}
	return nil, 0, false
}

// Files is the number of files the table was opened from (OpenFiles'; 1
// for Open's).
func (t *Table) Files() int {
	if m, ok := t.b.(*multiBackend); ok {
		return len(m.parts)
	}
	return 1
}

// ChunkOrigin is the file of chunk i of a table of many files and the
// index in that file of the chunk's first row, for messages about a row
// (the file's name and its own row number); ok false for a table of one
// file. O(the file's chunks before i).
func (t *Table) ChunkOrigin(i int) (name string, first int64, ok bool) {
	m, isMulti := t.b.(*multiBackend)
	if !isMulti || i < 0 || i >= m.chunks() {
		return "", 0, false
	}
	p, j := m.locate(i)
	for k := range j {
		first += p.ChunkRows(k)
	}
	return p.Name, first, true
}
