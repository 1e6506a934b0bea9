package columnar

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/acbfjoin/acbfjoin/internal/remote"
)

// A Parquet table is read through Apache Arrow's parquet/file package,
// column chunk by column chunk, not through pqarrow, which pulls in Arrow
// Flight and gRPC (their initialisation adds resident memory to every run;
// join/local's Parquet sink avoids it for the same reason).

// parquetTable is an opened Parquet file.
type parquetTable struct {
	f      parquetSource
	size   int64 // the file's bytes
	r      *file.Reader
	col    []*schema.Column // a table column's leaf (nil: nested)
	leaves [][]int          // a table column's leaf columns' indexes: one, or a nested column's
	dicts  dictKeep         // dictionary pages dictionaryMisses read and readFixed will want
	mapped []byte           // the file mapped (mapFile), or nil: the pages decoders read it there
	drops  mapDrops         // the mapping's ranges read and done with, their pages given back in batches
}

// parquetNested names the type of the nested top-level field n: "list",
// "map", "struct", or "repeated int32" (a repeated leaf).
func parquetNested(n schema.Node) string {
	switch lt := n.LogicalType(); lt.(type) {
	case schema.ListLogicalType:
		return "list"
	case schema.MapLogicalType:
		return "map"
	}
	if n.RepetitionType() == parquet.Repetitions.Repeated {
		if pn, ok := n.(*schema.PrimitiveNode); ok {
			return "repeated " + strings.ToLower(pn.PhysicalType().String())
		}
		return "repeated struct"
	}
	if _, ok := n.(*schema.GroupNode); ok {
		return "struct"
	}
	return "nested"
}

// parquetSource is a Parquet file as its reader reads it: a local file or
// a remote one (remote.File).
type parquetSource interface {
	parquet.ReaderAtSeeker
	io.Closer
}

// openParquet opens the Parquet file path (a regular file or a remote one,
// whose reads ctx bounds: Parquet's footer is at its end) and reads its
// schema; name names it in messages.
func openParquet(ctx context.Context, path, name string) (_ *parquetTable, _ []string, _ []Type, err error) {
	defer func() { // a damaged footer that arrow/go panics on, rather than reports
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %w: a damaged footer: %v", name, ErrFormat, r)
		}
	}()
	var f parquetSource
	size := int64(-1)
	if remote.Is(path) {
		rf, err := remote.Open(ctx, path)
		if err != nil {
			return nil, nil, nil, err
		}
		f, size = rf, rf.Size()
	} else {
		lf, err := os.Open(path)
		if err != nil {
			return nil, nil, nil, err
		}
		f = lf
		if st, err := lf.Stat(); err == nil {
			size = st.Size()
		}
	}
	r, err := file.NewParquetReader(f)
	if err != nil {
		f.Close()
		return nil, nil, nil, formatError(name, err)
	}
	if err := checkCodecs(r, name); err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	// A table column is a top-level field: a flat one is one leaf column
	// (leaf), a nested one (list, struct, map) the leaves under it, which
	// a join does not decode (Kind Nested), but counts (columnBytes).
	sc := r.MetaData().Schema
	p := &parquetTable{f: f, r: r, size: size}
	var names []string
	var types []Type
	var last schema.Node
	for i := range sc.NumColumns() {
		c, root := sc.Column(i), sc.ColumnRoot(i)
		if root == last && last != nil {
			p.leaves[len(p.leaves)-1] = append(p.leaves[len(p.leaves)-1], i)
			continue
		}
		last = root
		p.leaves = append(p.leaves, []int{i})
		if c.MaxRepetitionLevel() > 0 || c.ColumnPath().String() != c.Name() || c.MaxDefinitionLevel() > 1 {
			p.col = append(p.col, nil)
			names = append(names, root.Name())
			types = append(types, Type{Kind: Nested, Desc: parquetNested(root)})
			continue
		}
		if _, ok := c.LogicalType().(schema.IntervalLogicalType); ok {
			// Months, days and milliseconds (DuckDB's INTERVAL): a join
			// neither reads nor writes it, as the Arrow reader's
			// intervals, and allows it where it does neither (a review
			// found its 12 bytes in a CSV output raw).
			p.col = append(p.col, nil)
			names = append(names, c.Name())
			types = append(types, Type{Kind: Nested, Desc: intervalDesc})
			continue
		}
		t, err := parquetType(c)
		if err != nil {
			f.Close()
			return nil, nil, nil, fmt.Errorf("%s: column %q: %w", name, c.Name(), err)
		}
		p.col = append(p.col, c)
		names = append(names, c.Name())
		types = append(types, t)
	}
	if lf, ok := f.(*os.File); ok {
		p.mapped = mapFile(lf, size) // last: a file refused above leaves no mapping
	}
	return p, names, types, nil
}

// checkCodecs refuses a file compressed with a codec arrow-go does not
// decode (it was LZ4_RAW, which DuckDB, Polars and pyarrow mean by "lz4",
// until the move from arrow/go v15; the library registers its codecs in a
// map it does not export), naming the codec and the way out, rather than
// failing at the first page as "not a valid file". O(row groups x
// columns), from the footer.
func checkCodecs(r *file.Reader, name string) error {
	md := r.MetaData()
	for i := range r.NumRowGroups() {
		rg := md.RowGroup(i)
		for j := range rg.NumColumns() {
			cc, err := rg.ColumnChunk(j)
			if err != nil {
				continue // the read reports it
			}
			if _, err := compress.GetCodec(cc.Compression()); err != nil {
				return fmt.Errorf("%s: column %q is compressed with %s, which this build's Parquet reader (arrow-go v18) does not decode: write the file with snappy or zstd (DuckDB: COPY ... TO 'x.parquet' (FORMAT parquet, COMPRESSION zstd); Polars: write_parquet(..., compression='zstd'))",
					name, cc.PathInSchema().String(), cc.Compression())
			}
		}
	}
	return nil
}

// parquetType is the Type of a flat Parquet column: its physical type as
// its logical type annotates it.
func parquetType(c *schema.Column) (Type, error) {
	lt := c.LogicalType()
	unit := func(u schema.TimeUnitType) TimeUnit {
		switch u {
		case schema.TimeUnitMillis:
			return Milli
		case schema.TimeUnitMicros:
			return Micro
		}
		return Nano
	}
	if d, ok := lt.(schema.DecimalLogicalType); ok {
		return Type{Kind: Decimal, Precision: int(d.Precision()), Scale: int(d.Scale())}, nil
	}
	switch c.PhysicalType() {
	case parquet.Types.Boolean:
		return Type{Kind: Bool}, nil
	case parquet.Types.Int32, parquet.Types.Int64:
		width := 32
		if c.PhysicalType() == parquet.Types.Int64 {
			width = 64
		}
		switch l := lt.(type) {
		case schema.IntLogicalType:
			if l.IsSigned() {
				return Type{Kind: Int, Width: int(l.BitWidth())}, nil
			}
			return Type{Kind: Uint, Width: int(l.BitWidth())}, nil
		case schema.DateLogicalType:
			return Type{Kind: Date}, nil
		case schema.TimestampLogicalType:
			return Type{Kind: Timestamp, Unit: unit(l.TimeUnit()), UTC: l.IsAdjustedToUTC()}, nil
		case schema.TimeLogicalType:
			// UTC: a time of day adjusted to UTC (DuckDB's TIMETZ), kept
			// so when written back as Parquet.
			return Type{Kind: Time, Unit: unit(l.TimeUnit()), UTC: l.IsAdjustedToUTC()}, nil
		case schema.NoLogicalType, nil:
			return Type{Kind: Int, Width: width}, nil
		}
		return Type{}, fmt.Errorf("a %s of logical type %s, which a join does not read", c.PhysicalType(), lt)
	case parquet.Types.Int96:
		return Type{Kind: Timestamp, Unit: Nano}, nil // Impala's and Spark's legacy timestamps
	case parquet.Types.Float:
		return Type{Kind: Float, Width: 32}, nil
	case parquet.Types.Double:
		return Type{Kind: Float, Width: 64}, nil
	case parquet.Types.ByteArray:
		switch lt.(type) {
		case schema.StringLogicalType, schema.EnumLogicalType, schema.JSONLogicalType:
			return Type{Kind: String}, nil
		}
		return Type{Kind: Binary}, nil
	case parquet.Types.FixedLenByteArray:
		switch lt.(type) {
		case schema.UUIDLogicalType:
			return Type{Kind: String}, nil // rendered 8-4-4-4-12
		case schema.Float16LogicalType:
			return Type{Kind: Float, Width: 32}, nil
		case schema.IntervalLogicalType: // open makes it a Nested column
			return Type{}, fmt.Errorf("an INTERVAL (months, days and milliseconds), which a join does not read")
		}
		return Type{Kind: Binary}, nil
	}
	return Type{}, fmt.Errorf("physical type %s, which a join does not read", c.PhysicalType())
}

func (p *parquetTable) close() error {
	p.drops.close() // no drop of the mapping's pages after this
	err := unmapFile(p.mapped)
	p.mapped = nil
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (p *parquetTable) chunks() int { return p.r.NumRowGroups() }

func (p *parquetTable) chunkRows(i int) int64 { return p.r.MetaData().RowGroup(i).NumRows() }

// chunkBytes is row group i's uncompressed size: its column chunks' (the
// row group's own total_byte_size is not written alike by every writer).
func (p *parquetTable) chunkBytes(i int) int64 {
	var n int64
	for col := range p.col {
		n += p.columnBytes(i, col)
	}
	return n
}

func (p *parquetTable) columnBytes(i, col int) int64 {
	var n int64
	for _, leaf := range p.leaves[col] {
		cc, err := p.r.MetaData().RowGroup(i).ColumnChunk(leaf)
		if err != nil {
			continue
		}
		n += cc.TotalUncompressedSize()
	}
	return n
}

// stats is what row group i's statistics say of column col (Stats);
// ok false where they are not there, not trusted (arrow-go's StatsSet: a
// sort order the writer got wrong, as old writers did for text), or
// without a NULL count. The range is kept only for the types whose
// statistics order as the values do: signed integers, floats (a NaN bound
// as written), dates, times, timestamps but Int96's, booleans, UTF-8 text.
func (p *parquetTable) stats(i, col int, t Type) (Stats, bool) {
	if p.col[col] == nil {
		return Stats{}, false
	}
	cc, err := p.r.MetaData().RowGroup(i).ColumnChunk(p.leaves[col][0])
	if err != nil {
		return Stats{}, false
	}
	if set, err := cc.StatsSet(); err != nil || !set {
		return Stats{}, false
	}
	st, err := cc.Statistics()
	if err != nil || st == nil || !st.HasNullCount() {
		return Stats{}, false
	}
	s := Stats{Rows: p.chunkRows(i), Nulls: st.NullCount()}
	if !st.HasMinMax() || s.Nulls < 0 || s.Nulls > s.Rows {
		return s, s.Nulls >= 0 && s.Nulls <= s.Rows
	}
	r := &Column{Type: t, n: 2}
	switch x := st.(type) {
	case *metadata.Int64Statistics:
		r.ints = []int64{x.Min(), x.Max()}
	case *metadata.Int32Statistics:
		r.ints = []int64{int64(x.Min()), int64(x.Max())}
	case *metadata.BooleanStatistics:
		r.ints = []int64{b2i(x.Min()), b2i(x.Max())}
	case *metadata.Float64Statistics:
		r.floats = []float64{x.Min(), x.Max()}
	case *metadata.Float32Statistics:
		r.floats = []float64{float64(x.Min()), float64(x.Max())}
	case *metadata.ByteArrayStatistics:
		lo, hi := x.Min(), x.Max()
		if len(hi) == 0 {
			// arrow-go (and Arrow C++) leave out a bound of more than 4096
			// bytes and keep the other, and arrow-go's reader then says
			// HasMinMax with the missing bound empty: a chunk of "",
			// "b" and a 5,000-byte value read as ["", ""], and was
			// skipped as holding no key but "" (a review found rows
			// lost, and --where 's == "b"' finding nothing). An empty
			// max is real only where every value is "": no bounds then
			// (such a chunk is not skipped); an empty min is a lower
			// bound whether real or left out.
			return s, true
		}
		r.data = append(append(make([]byte, 0, len(lo)+len(hi)), lo...), hi...)
		r.offs = []int{0, len(lo), len(lo) + len(hi)}
	default:
		return s, true
	}
	switch t.Kind {
	case Int, Date, Time, Bool:
	case Timestamp:
		if p.col[col].PhysicalType() == parquet.Types.Int96 {
			return s, true
		}
	case Float: // a NaN bound is the writer's (DuckDB orders NaN above every number; an old parquet-mr wrote NaN for the whole chunk): kept, the reader decides
	case String:
		if p.col[col].PhysicalType() != parquet.Types.ByteArray {
			return s, true
		}
	default: // unsigned integers, decimals, bytes: not by the values' order
		return s, true
	}
	if r.ints == nil && r.floats == nil && r.offs == nil {
		return s, true
	}
	// Bounds the wrong way round are no bounds: every reader of a Range
	// (a join's row group skip, a predicate's pruning) would take them for
	// a chunk that holds nothing.
	switch {
	case r.ints != nil && r.ints[0] > r.ints[1],
		r.floats != nil && r.floats[0] > r.floats[1],
		r.offs != nil && bytes.Compare(r.Bytes(0), r.Bytes(1)) > 0:
		return s, true
	}
	s.Range = r
	return s, true
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// read decodes column col of row group i; with sel (ascending row
// indexes) only those rows, the column's value j being row sel[j]: the
// pages decoders (readFixed, readBytes) find them in their pages, decoding
// no value between them; a column left to arrow-go's reader is read whole
// and the rows taken. Safe for concurrent use on different (or the same)
// row groups: each call has its own readers.
func (p *parquetTable) read(i, col int, t Type, sel []int) (_ *Column, err error) {
	// arrow/go panics on some damaged pages (a Snappy block that does not
	// decode: "snappy: corrupt input"): the damage is an error like any
	// other, the file's (the caller wraps it in ErrFormat and names it).
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("row group %d, column %q: a damaged page: %v", i, p.col[col].Name(), r)
		}
	}()
	rg := p.r.RowGroup(i)
	n := int(rg.NumRows())
	if p.col[col] == nil {
		return nil, fmt.Errorf("internal error: column %d is nested", col)
	}
	if c, err := p.readFixed(i, col, t, sel); err != errNotFixed {
		return c, err
	}
	if c, err := p.readBytes(i, col, t, sel); err != errNotFixed {
		return c, err
	}
	if sel != nil {
		// arrow-go's Skip: read whole instead, and the rows taken. Its
		// skip of a data page of no values (a writer may end a chunk with
		// one) returned the rows after it shifted, without an error
		// (arrow-go v18.8), where the pages decoders read them right.
		c, err := p.read(i, col, t, nil)
		if err != nil {
			return nil, err
		}
		out := c.Select(sel)
		c.Release()
		return out, nil
	}
	cr, err := rg.Column(p.leaves[col][0])
	if err != nil {
		return nil, err
	}
	cl := &chunkRead{group: i, name: p.col[col].Name(), n: n}
	maxDef := p.col[col].MaxDefinitionLevel()
	if maxDef > 0 {
		cl.defs = getSlice[int16](&int16Pool, n)
		defer putSlice(&int16Pool, cl.defs)
	}
	c := &Column{Type: t, n: n}
	values, err := cl.decode(cr, c, p.col[col].LogicalType())
	if err != nil {
		return nil, err
	}
	if cl.defs != nil && values < n {
		c.spread(cl.defs, maxDef, values)
	} else if values < n && c.pooled { // no levels: every row has a value, but never stale ones
		clear(c.ints[values:])
		clear(c.floats[values:])
	}
	return c, nil
}

// chunkRead is the reading of one column chunk (a column of a row group)
// by arrow-go's reader: its n rows and their definition levels (nil for a
// column that has no NULLs).
type chunkRead struct {
	group int    // the row group, for errors
	name  string // the column's, for errors
	n     int
	defs  []int16
}

// decode reads the chunk's values into c by the reader's physical type
// (widened to c's int64s or float64s, byte arrays copied into c's arena),
// returning the values read (the NULLs left out: c.spread places them).
// Its errors name the row group and the column.
func (cl *chunkRead) decode(cr file.ColumnChunkReader, c *Column, logical schema.LogicalType) (values int, err error) {
	n := cl.n
	switch r := cr.(type) {
	case *file.BooleanColumnChunkReader:
		bs := make([]bool, n)
		values, err = cl.readAll(func(rows, at int, d []int16) (int64, int, error) { return r.ReadBatch(int64(rows), bs[at:], d, nil) })
		c.ints = make([]int64, n)
		for j, b := range bs[:values] {
			if b {
				c.ints[j] = 1
			}
		}
	case *file.Int32ColumnChunkReader:
		vs := getSlice[int32](&int32Pool, n)
		defer putSlice(&int32Pool, vs)
		values, err = cl.readAll(func(rows, at int, d []int16) (int64, int, error) { return r.ReadBatch(int64(rows), vs[at:], d, nil) })
		c.ints, c.pooled = getSlice[int64](&int64Pool, n), true
		for j, v := range vs[:values] {
			c.ints[j] = int64(v)
			if c.Type.Kind == Uint {
				c.ints[j] = int64(uint32(v))
			}
		}
	case *file.Int64ColumnChunkReader:
		c.ints, c.pooled = getSlice[int64](&int64Pool, n), true
		values, err = cl.readAll(func(rows, at int, d []int16) (int64, int, error) {
			return r.ReadBatch(int64(rows), c.ints[at:], d, nil)
		})
	case *file.Int96ColumnChunkReader:
		vs := make([]parquet.Int96, n)
		values, err = cl.readAll(func(rows, at int, d []int16) (int64, int, error) { return r.ReadBatch(int64(rows), vs[at:], d, nil) })
		c.ints, c.pooled = getSlice[int64](&int64Pool, n), true
		for j, v := range vs[:values] {
			c.ints[j] = v.ToTime().UnixNano()
		}
	case *file.Float32ColumnChunkReader:
		vs := make([]float32, n)
		values, err = cl.readAll(func(rows, at int, d []int16) (int64, int, error) { return r.ReadBatch(int64(rows), vs[at:], d, nil) })
		c.floats, c.pooled = getSlice[float64](&float64Pool, n), true
		for j, v := range vs[:values] {
			c.floats[j] = float64(v)
		}
	case *file.Float64ColumnChunkReader:
		c.floats, c.pooled = getSlice[float64](&float64Pool, n), true
		values, err = cl.readAll(func(rows, at int, d []int16) (int64, int, error) {
			return r.ReadBatch(int64(rows), c.floats[at:], d, nil)
		})
	case *file.ByteArrayColumnChunkReader:
		values, err = cl.decodeByteArrays(r, c)
	case *file.FixedLenByteArrayColumnChunkReader:
		vs := make([]parquet.FixedLenByteArray, n)
		values, err = cl.readAll(func(rows, at int, d []int16) (int64, int, error) {
			l, v, err := r.ReadBatch(int64(rows), vs[at:], d, nil)
			for j := at; j < at+v; j++ {
				vs[j] = append([]byte(nil), vs[j]...)
			}
			return l, v, err
		})
		if err == nil {
			err = c.setFixed(vs[:values], logical)
		}
	default:
		return 0, fmt.Errorf("column %q: a reader of %T", cl.name, cr)
	}
	if err != nil {
		return 0, fmt.Errorf("row group %d, column %q: %w", cl.group, cl.name, err)
	}
	return values, nil
}

// decodeByteArrays reads a byte array chunk into c's arena. The values
// point into the page's buffer: their bytes are copied into the column's
// one arena as they come (a copy a value took an allocation a value: the
// key side's 23 columns were most of the build phase).
func (cl *chunkRead) decodeByteArrays(r *file.ByteArrayColumnChunkReader, c *Column) (int, error) {
	vs := make([]parquet.ByteArray, min(cl.n, 1024))
	offs := make([]int, cl.n+1)
	values, err := cl.readAll(func(rows, at int, d []int16) (int64, int, error) {
		l, v, err := r.ReadBatch(int64(min(rows, len(vs))), vs, d, nil)
		for j, b := range vs[:v] {
			c.data = append(c.data, b...)
			offs[at+j+1] = len(c.data)
		}
		return l, v, err
	})
	if err == nil {
		c.setArena(offs, values)
	}
	return values, err
}

// readAll reads the chunk's n rows with read, which reads
// up to rows rows' values from value index at and their levels into defs,
// returning the levels and the values read: ReadBatch may return fewer
// levels than asked; values come packed (the NULLs left out). readAll
// returns the values read.
func (cl *chunkRead) readAll(read func(rows int, at int, defs []int16) (int64, int, error)) (int, error) {
	levels, values := 0, 0
	for levels < cl.n {
		var d []int16
		if cl.defs != nil {
			d = cl.defs[levels:]
		}
		l, v, err := read(cl.n-levels, values, d)
		if err != nil {
			return 0, err
		}
		if l == 0 {
			return 0, fmt.Errorf("%d rows of %d", levels, cl.n) // the caller names the row group and column
		}
		levels += int(l)
		values += v
	}
	return values, nil
}

// setArena sets the column's byte values from c.data, value j (of values)
// being c.data[offs[j]:offs[j+1]]: as they are (String, Binary, a big
// Decimal's two's complement), or as int64s for a Decimal of up to 18
// digits.
func (c *Column) setArena(offs []int, values int) {
	for j := values + 1; j < len(offs); j++ {
		offs[j] = len(c.data)
	}
	if c.Type.Kind == Decimal && c.Type.Precision <= 18 {
		c.ints = make([]int64, c.n)
		for j := range values {
			c.ints[j] = bigFromTwos(c.data[offs[j]:offs[j+1]]).Int64()
		}
		c.data = nil
		return
	}
	c.offs = offs
}

// setBytes sets the column's byte values (String, Binary, a big Decimal's
// two's complement), or int64s for a Decimal of up to 18 digits.
func (c *Column) setBytes(vs []parquet.ByteArray) error {
	if c.Type.Kind == Decimal && c.Type.Precision <= 18 {
		c.ints = make([]int64, c.n)
		for j, v := range vs {
			c.ints[j] = bigFromTwos(v).Int64()
		}
		return nil
	}
	c.offs = make([]int, c.n+1)
	for j, v := range vs {
		c.data = append(c.data, v...)
		c.offs[j+1] = len(c.data)
	}
	for j := len(vs) + 1; j <= c.n; j++ {
		c.offs[j] = len(c.data)
	}
	return nil
}

// setFixed sets the values of a fixed-length column: a UUID rendered
// 8-4-4-4-12, a float16 as a float, a decimal, or bytes.
func (c *Column) setFixed(vs []parquet.FixedLenByteArray, lt schema.LogicalType) error {
	switch lt.(type) {
	case schema.UUIDLogicalType:
		bs := make([]parquet.ByteArray, len(vs))
		for j, v := range vs {
			if len(v) != 16 {
				return errors.New("a UUID of other than 16 bytes")
			}
			bs[j] = []byte(fmt.Sprintf("%x-%x-%x-%x-%x", v[0:4], v[4:6], v[6:8], v[8:10], v[10:16]))
		}
		return c.setBytes(bs)
	case schema.Float16LogicalType:
		c.floats = make([]float64, c.n)
		for j, v := range vs {
			if len(v) != 2 {
				return errors.New("a float16 of other than 2 bytes")
			}
			c.floats[j] = float64(float16.FromLEBytes(v).Float32())
		}
		return nil
	}
	bs := make([]parquet.ByteArray, len(vs))
	for j, v := range vs {
		bs[j] = parquet.ByteArray(v)
	}
	return c.setBytes(bs)
}

// spread moves the packed values (values of them) to their rows, defs
// saying which rows hold one (maxDef) and which are NULL.
func (c *Column) spread(defs []int16, maxDef int16, values int) {
	c.valid = make([]bool, c.n)
	j := values - 1
	for r := c.n - 1; r >= 0; r-- {
		if defs[r] != maxDef {
			continue
		}
		c.valid[r] = true
		switch {
		case c.ints != nil:
			c.ints[r] = c.ints[j]
		case c.floats != nil:
			c.floats[r] = c.floats[j]
		}
		j--
	}
	if c.offs != nil {
		// Offsets: value j's bytes go to the j-th valid row, the NULLs
		// between get empty ranges.
		offs := make([]int, c.n+1)
		j := 0
		for r := range c.n {
			if c.valid[r] {
				offs[r+1] = offs[r] + (c.offs[j+1] - c.offs[j])
				j++
			} else {
				offs[r+1] = offs[r]
			}
		}
		c.offs = offs
	}
	// ints and floats of NULL rows keep stale values: Null says they are
	// NULL; zero them so that nothing reads one by mistake.
	for r := range c.n {
		if c.valid[r] {
			continue
		}
		if c.ints != nil {
			c.ints[r] = 0
		}
		if c.floats != nil {
			c.floats[r] = 0
		}
	}
}
