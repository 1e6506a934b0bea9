package columnar

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// Dict is a column chunk read as its dictionary: its distinct values and
// each row's entry among them. A filter tests each entry once instead of
// each row (issue 44), and the rows' values are copied only for the rows a
// caller keeps (Column).
type Dict struct {
	// Values are the entries, a column of the chunk's column type.
	Values *Column
	// Rows holds each row's entry in Values, -1 for a NULL.
	Rows []int32

	pooled bool // Rows came from int32Pool (a Parquet chunk's decoder): Release gives them back
}

// Release gives the rows' entries back for reuse by later reads (a
// Parquet chunk's: 4 bytes a row, 12 MB a flights-3m.parquet join made
// and dropped) and leaves d without rows. Call it once nothing refers
// to them: not d.Rows, and not a column Column(nil) returned, which
// shares them. Not safe for concurrent use with d's readers. O(1)
// (O(rows) with PoisonReleased).
func (d *Dict) Release() {
	if d == nil || !d.pooled {
		return
	}
	d.pooled = false
	if poison.Load() {
		fill(d.Rows[:cap(d.Rows)], 0) // entry 0: a wrong value where a use after Release reads it
	}
	putSlice(&int32Pool, d.Rows)
	d.Rows = nil
}

// Len is the number of rows.
func (d *Dict) Len() int { return len(d.Rows) }

// Column returns the values of rows (ascending or not; nil: every row) as a
// column that refers to the entries: value j is row rows[j]'s, and no
// value's bytes are copied. With rows nil a text column shares d.Rows
// (Release ends it too). O(rows).
func (d *Dict) Column(rows []int) *Column {
	if d.Values.ints != nil || d.Values.Type.Kind == Int {
		return d.intColumn(rows)
	}
	idx := d.Rows
	if rows != nil {
		idx = make([]int32, len(rows))
		for j, r := range rows {
			idx[j] = d.Rows[r]
		}
	}
	out := &Column{Type: d.Values.Type, n: len(idx), dict: d.Values, idx: idx}
	for j, e := range idx {
		if e < 0 {
			if out.valid == nil {
				out.valid = make([]bool, len(idx))
				for k := range j {
					out.valid[k] = true
				}
			}
			continue
		}
		if out.valid != nil {
			out.valid[j] = true
		}
	}
	return out
}

// intColumn is Column of an integer dictionary: the entries' values
// gathered (8 bytes a row, from the read buffers' pool: Release gives them
// back), a NULL's 0.
func (d *Dict) intColumn(rows []int) *Column {
	n := len(d.Rows)
	if rows != nil {
		n = len(rows)
	}
	out := &Column{Type: d.Values.Type, n: n, ints: getSlice[int64](&int64Pool, n), pooled: true}
	for j := range n {
		r := j
		if rows != nil {
			r = rows[j]
		}
		e := d.Rows[r]
		if e < 0 {
			out.ints[j] = 0
			if out.valid == nil {
				out.valid = make([]bool, n)
				fill(out.valid[:j], true)
			}
			continue
		}
		out.ints[j] = d.Values.ints[e]
		if out.valid != nil {
			out.valid[j] = true
		}
	}
	return out
}

// dictPages says whether a column chunk's data pages are all
// dictionary-encoded, by its metadata: a dictionary page (its offset, or a
// dictionary encoding named: some writers leave the offset out, as
// vega-datasets' flights-3m.parquet), and no sign of a data page that fell
// back to plain encoding (a writer falls back when the dictionary outgrows
// its limit: many distinct values, where the dictionary would not pay, and
// arrow/go's dictionary reader would hash every plain value into its memo
// table: 4x slower than reading the values, bench/join-tried.md). The
// signs: the page encoding statistics naming a data page that is not
// dictionary-encoded (parquet-cpp, parquet-mr), or PLAIN named twice among
// the encodings (arrow/go: the dictionary page's and the fallback's).
func dictPages(cc *metadata.ColumnChunkMetaData) bool {
	dict, plain := cc.HasDictionaryPage(), 0
	for _, e := range cc.Encodings() {
		switch e {
		case parquet.Encodings.RLEDict, parquet.Encodings.PlainDict:
			dict = true
		case parquet.Encodings.Plain:
			plain++
		}
	}
	if !dict || plain > 1 {
		return false
	}
	for _, st := range cc.EncodingStats() {
		const dictionaryPage = 2 // parquet-format's PageType DICTIONARY_PAGE
		if st.PageType != dictionaryPage && st.Encoding != parquet.Encodings.RLEDict && st.Encoding != parquet.Encodings.PlainDict {
			return false
		}
	}
	return true
}

// ReadIntKey reads column col of chunk i, a Parquet integer column (Int)
// whose chunk is dictionary-encoded, once: as a Dict where its dictionary
// has at most half as many entries as the chunk has rows (a filter then
// tests each entry once), else as a column (Read's). nil, nil where
// neither (another column, format or encoding, ACBFJOIN_PARQUET_PAGES=
// arrow): nothing read, and the caller reads the column with Read. Safe
// for concurrent use, as Read is.
func (t *Table) ReadIntKey(i, col int) (*Dict, *Column, error) {
	b, j, ok := t.parquetChunk(i)
	if !ok || t.Types[col].Kind != Int || b.pq.col[col] == nil {
		return nil, nil, nil
	}
	d, c, err := b.pq.readIntKey(j, col, t.Types[col])
	if err == errNotFixed {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, formatError(b.t.Name, err) // the file's name, as Read's errors (a part of many files)
	}
	return d, c, nil
}

// dictReader is a backend that can read a column chunk as a dictionary.
type dictReader interface {
	readDict(i, col int, t Type) (*Dict, error)
}

// ReadDict reads column col of chunk i as a Dict when the file keeps that
// column chunk dictionary-encoded: a Parquet String or Binary column whose
// chunk's data pages are all dictionary-encoded (dictPages), or an Arrow
// file's record batch whose column is a dictionary array of text. It returns
// nil, and reads nothing, for any other column, chunk or format: the
// caller then reads the column with Read. Safe for concurrent use, as
// Read is.
func (t *Table) ReadDict(i, col int) (*Dict, error) {
	d, ok := t.b.(dictReader)
	if !ok || t.Stream() || (t.Types[col].Kind != String && t.Types[col].Kind != Binary) {
		return nil, nil
	}
	return d.readDict(i, col, t.Types[col])
}

// readDict is ReadDict of a Parquet file: the column chunk's pages through
// arrow/go's dictionary record reader (file.NewRecordReader with a
// dictionary type), which keeps the indices as they are decoded and the
// dictionary page once, and one column of the entries.
func (p *parquetTable) readDict(i, col int, t Type) (_ *Dict, err error) {
	if p.col[col] == nil || len(p.leaves[col]) != 1 || p.col[col].PhysicalType() != parquet.Types.ByteArray {
		return nil, nil
	}
	cc, err := p.r.RowGroup(i).MetaData().ColumnChunk(p.leaves[col][0])
	if err != nil || !dictPages(cc) {
		return nil, nil
	}
	return p.readDictChunk(i, col, t)
}

// readDictChunk is readDict once the column chunk is known to be
// dictionary-encoded (pages that fell back to plain encoding are read too,
// their values added to the dictionary).
func (p *parquetTable) readDictChunk(i, col int, t Type) (_ *Dict, err error) {
	if d, err := p.readDictBytes(i, col, t); err != errNotFixed {
		return d, err
	}
	rg := p.r.RowGroup(i)
	leaf := p.leaves[col][0]
	defer func() { // as read: a damaged page is an error, not a panic
		if r := recover(); r != nil {
			err = fmt.Errorf("row group %d, column %q: a damaged page: %v", i, p.col[col].Name(), r)
		}
	}()
	pr, err := rg.GetColumnPageReader(leaf)
	if err != nil {
		return nil, fmt.Errorf("row group %d, column %q: %w", i, p.col[col].Name(), err)
	}
	descr := p.col[col]
	info := file.LevelInfo{NullSlotUsage: 1, DefLevel: descr.MaxDefinitionLevel(), RepLevel: descr.MaxRepetitionLevel()}
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.Binary}
	rr := file.NewRecordReader(descr, info, dt, memory.DefaultAllocator, p.r.BufferPool()).(file.BinaryRecordReader)
	defer rr.Release()
	rr.SetPageReader(pr)
	n := rg.NumRows()
	for read := int64(0); read < n; {
		k, err := rr.ReadRecords(n - read)
		if err != nil {
			return nil, fmt.Errorf("row group %d, column %q: %w", i, p.col[col].Name(), err)
		}
		if k == 0 {
			return nil, fmt.Errorf("row group %d, column %q: %d rows of %d", i, p.col[col].Name(), read, n)
		}
		read += k
	}
	chunks := rr.GetBuilderChunks()
	defer func() {
		for _, c := range chunks {
			c.Release()
		}
	}()
	d := &Dict{Values: &Column{Type: t, offs: []int{0}}, Rows: make([]int32, 0, n)}
	for _, c := range chunks {
		da, ok := c.(*array.Dictionary)
		if !ok {
			return nil, fmt.Errorf("row group %d, column %q: internal error: a %T from the dictionary reader", i, p.col[col].Name(), c)
		}
		vals, ok := da.Dictionary().(*array.Binary)
		if !ok {
			return nil, fmt.Errorf("row group %d, column %q: internal error: a dictionary of %T", i, p.col[col].Name(), da.Dictionary())
		}
		base := int32(d.Values.n) // the entries of a later dictionary follow the earlier ones'
		for e := range vals.Len() {
			d.Values.data = append(d.Values.data, vals.Value(e)...)
			d.Values.offs = append(d.Values.offs, len(d.Values.data))
		}
		d.Values.n += vals.Len()
		idx := da.Indices().(*array.Int32)
		for r := range da.Len() {
			if da.IsNull(r) {
				d.Rows = append(d.Rows, -1)
				continue
			}
			d.Rows = append(d.Rows, base+idx.Value(r))
		}
	}
	if int64(len(d.Rows)) != n {
		return nil, fmt.Errorf("row group %d, column %q: %d rows of %d", i, p.col[col].Name(), len(d.Rows), n)
	}
	return d, nil
}
