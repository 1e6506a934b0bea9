package columnar

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// The fixed-width pages decoder: a flat column chunk of INT32, INT64,
// FLOAT or DOUBLE whose pages are PLAIN or dictionary-encoded is decoded
// here from arrow-go's decompressed pages, rather than by its column
// reader (issue 44). Its reader materializes a dictionary-encoded INT64
// chunk through dictConverter, which grows its values a page at a time
// (memmove, growslice), and its Skip decodes every skipped value into a
// scratch buffer: a row group read at a few hundred selected rows (the
// rows a filter passed) cost as much as the whole chunk, twice. Here a
// dictionary page becomes one slice of values, its indices are unpacked
// straight into the rows' values (a gather), and a selected read unpacks
// only the indices and takes the rows it needs. Every other chunk (other
// physical types, DELTA or BYTE_STREAM_SPLIT pages, levels of the old
// BIT_PACKED encoding, repeated columns) is arrow-go's, as before.
// ACBFJOIN_PARQUET_PAGES=arrow turns this off (read once at start), for
// comparing the two (bench/parquet-bloom.sh) and for the differential
// tests (TestFixedPagesSame).
var arrowPages = os.Getenv("ACBFJOIN_PARQUET_PAGES") == "arrow"

// noMap turns the mapping of local Parquet files off
// (ACBFJOIN_PARQUET_MMAP=off, read once at start): the pages decoders
// then read each chunk with ReadAt into a buffer (mapFile).
var noMap = os.Getenv("ACBFJOIN_PARQUET_MMAP") == "off"

// errNotFixed says readFixed cannot decode a chunk: the caller reads it
// with arrow-go's column reader instead.
var errNotFixed = errors.New("not a chunk of the fixed-width pages decoder")

// fixedWidth is the bytes of a PLAIN value of a column chunk readFixed
// can decode, 0 for any other.
func fixedWidth(pt parquet.Type) int {
	switch pt {
	case parquet.Types.Int32, parquet.Types.Float:
		return 4
	case parquet.Types.Int64, parquet.Types.Double:
		return 8
	}
	return 0
}

// fixedEncodings says whether a column chunk's encodings (from its
// metadata) are all ones readFixed or readBytes decode: PLAIN,
// dictionary, byte-stream-split and DELTA values (a page of one its
// column's type has not is an error when met), RLE levels (BIT_PACKED is
// named by writers for levels a flat required column does not have; a
// page that does use it is refused when met).
func fixedEncodings(es []parquet.Encoding) bool {
	for _, e := range es {
		switch e {
		case parquet.Encodings.Plain, parquet.Encodings.PlainDict, parquet.Encodings.RLEDict,
			parquet.Encodings.RLE, parquet.Encodings.BitPacked, parquet.Encodings.ByteStreamSplit,
			parquet.Encodings.DeltaBinaryPacked, parquet.Encodings.DeltaLengthByteArray, parquet.Encodings.DeltaByteArray:
		default:
			return false
		}
	}
	return true
}

// readFixed is read (the same column, with sel the same rows) by the
// fixed-width pages decoder, or errNotFixed, having read nothing the
// caller would miss, where the chunk is not one it decodes. Its values are
// arrow-go's to the bit (TestFixedPagesSame): an INT32 widened to int64
// (zero-extended for Uint), a FLOAT to float64, the NULL rows' values 0.
// Cost: the pages' read and decompression (arrow-go's page reader), the
// dictionary's values once, and an unpack and a gather a row (of sel
// only, with sel: the other rows' indices are unpacked but not taken).
// Safe for concurrent use, as read.
func (p *parquetTable) readFixed(i, col int, t Type, sel []int) (_ *Column, err error) {
	f, err := p.startFixed(i, col, t, sel)
	if err != nil {
		return nil, err
	}
	defer f.free()
	defer func() { // as read: a damaged page is an error, not a panic
		if r := recover(); r != nil {
			err = fmt.Errorf("row group %d, column %q: a damaged page: %v", i, p.col[col].Name(), r)
		}
	}()
	if err := p.eachPage(i, col, f.cc, f.d.page, f.d.place); err != nil {
		return nil, err
	}
	return f.column(p.col[col].Name(), t)
}

// fixedChunk is readFixed's decoder of one column chunk and what its end
// needs.
type fixedChunk struct {
	d       fixedDecoder
	cc      *metadata.ColumnChunkMetaData
	i       int // the row group
	rows, n int // the row group's rows, the rows read
}

// startFixed is readFixed's start: the chunk's metadata checked and its
// decoder made (errNotFixed for a column or chunk it does not take).
// free gives its buffers back.
func (p *parquetTable) startFixed(i, col int, t Type, sel []int) (*fixedChunk, error) {
	descr := p.col[col]
	width := fixedWidth(descr.PhysicalType())
	if arrowPages || width == 0 || descr.MaxRepetitionLevel() != 0 || descr.MaxDefinitionLevel() > 1 {
		return nil, errNotFixed
	}
	rg := p.r.RowGroup(i)
	cc, err := rg.MetaData().ColumnChunk(p.leaves[col][0])
	if err != nil || !fixedEncodings(cc.Encodings()) {
		return nil, errNotFixed
	}
	rows := int(rg.NumRows())
	n := rows
	if sel != nil {
		n = len(sel)
	}
	f := &fixedChunk{cc: cc, i: i, rows: rows, n: n}
	f.d = fixedDecoder{pt: descr.PhysicalType(), width: width, uint32s: t.Kind == Uint, nullable: descr.MaxDefinitionLevel() == 1, sel: sel, groupRows: rows}
	f.d.base = getSlice[int64](&int64Pool, placeHead+n)
	f.d.vals = f.d.base[placeHead:]
	return f, nil
}

// free gives back the buffers of f's decoder that column did not take.
func (f *fixedChunk) free() {
	d := &f.d
	if d.vals != nil {
		putSlice(&int64Pool, d.base)
		d.vals = nil
	}
	if d.dict != nil {
		putSlice(&int64Pool, d.dict)
		d.dict = nil
	}
	putSlice(&int64Pool, d.delta)
	d.delta = nil
	d.cur.release()
}

// column is readFixed's end, once every page is decoded: the rows
// counted, and the Column made of the values (taking them).
func (f *fixedChunk) column(name string, t Type) (*Column, error) {
	d := &f.d
	if d.row != f.rows || d.out != f.n {
		return nil, fmt.Errorf("row group %d, column %q: %d rows of %d", f.i, name, d.row, f.rows)
	}
	c := &Column{Type: t, n: f.n, valid: d.valid, pooled: true}
	if d.pt == parquet.Types.Int32 || d.pt == parquet.Types.Int64 {
		c.ints, c.intsBase, d.vals = d.vals, d.base, nil
		return c, nil
	}
	c.floats = getSlice[float64](&float64Pool, f.n)
	for j, v := range d.vals {
		c.floats[j] = math.Float64frombits(uint64(v))
	}
	return c, nil
}

// eachPage calls page with each page of row group i's column col (chunk
// metadata cc): its header and body, decompressed, valid for the call.
// The dictionary page comes from dictKeep where dictionaryMisses kept it
// (the data pages alone are then read). Its errors name the row group and
// the column, except errNotFixed, returned as it is (from page or where
// the chunk cannot be read here). into, if not nil, may name where a
// compressed data page is to be decompressed (chunkPages.into).
func (p *parquetTable) eachPage(i, col int, cc *metadata.ColumnChunkMetaData, page func(pageHeader, []byte) error, into func(pageHeader) []byte) error {
	// A mapped file truncated under the read faults: a panic, which the
	// decoders' recover makes an error of the row group and column.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	name := p.col[col].Name()
	wrap := func(err error) error {
		if err == nil || err == errNotFixed {
			return err
		}
		return fmt.Errorf("row group %d, column %q: %w", i, name, err)
	}
	part := wholeChunk
	kept, haveDict := p.dicts.take(i, col)
	if haveDict {
		defer chunkBufs.Put(kept.body)
		part = dataPagesOnly
	}
	pages, err := p.openPagesOf(cc, part)
	if err != nil {
		return wrap(err)
	}
	defer pages.release()
	pages.into = into
	if haveDict {
		if err := page(kept.h, *kept.body); err != nil {
			return wrap(err)
		}
	}
	h, body, ok, err := pages.next()
	return wrap(pages.feed(h, body, ok, err, page, haveDict))
}

// feed hands page the page (h, body), as next gave it with ok and err,
// and each after it, and checks the chunk intact once they are all read;
// with keptDict, a dictionary page met in a chunk read whole is passed
// over (eachPage's kept one, met again). The first error ends it.
func (cp *chunkPages) feed(h pageHeader, body []byte, ok bool, err error, page func(pageHeader, []byte) error, keptDict bool) error {
	for {
		if err == nil && ok && keptDict && h.typ == pageDictionary && !cp.split {
			h, body, ok, err = cp.next()
			continue
		}
		if err == nil && ok {
			err = page(h, body)
		}
		if err == nil && !ok {
			err = cp.intact()
		}
		if err != nil || !ok {
			return err
		}
		h, body, ok, err = cp.next()
	}
}

// fixedDecoder is the state of readFixed across a chunk's pages.
type fixedDecoder struct {
	pt       parquet.Type
	width    int
	uint32s  bool // an INT32 read as unsigned (Uint)
	nullable bool // definition levels 0 (NULL) and 1
	sel      []int
	dict     []int64 // the dictionary page's values, widened as vals
	vals     []int64 // the rows' values (float bits for FLOAT and DOUBLE)
	// base is vals' pooled slice with placeHead words before vals[0]
	// (readFixed's; nil otherwise), where place decompresses a page's
	// levels; saved holds the bytes of vals a page's levels overwrote,
	// savedN of them from byte savedAt of base, for restore.
	base    []int64
	placed  bool // the page being decoded was decompressed by place
	saved   [8 * placeHead]byte
	savedAt int
	savedN  int
	valid   []bool   // nil while every row taken holds a value
	idx     []uint32 // a page's dictionary indices
	delta   []int64  // a DELTA_BINARY_PACKED page's values
	defs    []uint32 // a page's definition levels
	row     int      // the chunk's rows seen
	out     int      // the values written to vals
	k       int      // with sel: the next of sel's rows to take
	asDict  bool     // rows as dictionary indices (readIntKey), not values
	rows    []int32  // with asDict: each row's entry, -1 for a NULL
	// chooseDict, if not 0, is the chunk's rows: the dictionary page sets
	// asDict where its entries are at most half of them (readIntKey), and
	// vals is made for the values otherwise.
	chooseDict int
	groupRows  int          // the row group's rows: no page holds more than are left
	cur        hybridCursor // with sel: a dictionary page's indices, found where chosen
	lc         levelCursor  // with sel: a page's definition levels, found where chosen
	bad        int          // an index beyond the dictionary that get met, or -1
}

// value widens a PLAIN value (the first width bytes of b) as read does:
// an int64, or the bits of a float64.
func (d *fixedDecoder) value(b []byte) int64 {
	switch d.pt {
	case parquet.Types.Int32:
		v := binary.LittleEndian.Uint32(b)
		if d.uint32s {
			return int64(v)
		}
		return int64(int32(v))
	case parquet.Types.Float:
		return int64(math.Float64bits(float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))))
	}
	return int64(binary.LittleEndian.Uint64(b))
}

// page decodes one page of the chunk: h its header, data its body.
func (d *fixedDecoder) page(h pageHeader, data []byte) error {
	nv := int(h.numValues)
	switch h.typ {
	case pageDictionary:
		if d.dict != nil {
			return errors.New("a second dictionary page")
		}
		if e := parquet.Encoding(h.encoding); e != parquet.Encodings.Plain && e != parquet.Encodings.PlainDict {
			return fmt.Errorf("a dictionary page of encoding %d", e)
		}
		if len(data)/d.width < nv {
			return fmt.Errorf("a dictionary page of %d values in %d bytes", nv, len(data))
		}
		if d.chooseDict > 0 {
			if d.asDict = 2*nv <= d.chooseDict; d.asDict {
				d.rows = getSlice[int32](&int32Pool, d.chooseDict)[:0] // Dict.Release gives it back
			} else {
				d.vals = getSlice[int64](&int64Pool, d.chooseDict)
			}
		}
		d.dict = getSlice[int64](&int64Pool, nv)
		switch {
		case d.width == 8 && littleEndian:
			copy(wordBytes(d.dict), data[:8*nv])
		default:
			for j := range d.dict {
				d.dict[j] = d.value(data[j*d.width:])
			}
		}
		return nil
	case pageData, pageDataV2:
		if d.placed {
			defer d.restore()
		}
		values, levels, err := dataPageParts(h, data, d.nullable)
		if err != nil {
			return err
		}
		return d.values(parquet.Encoding(h.encoding), values, nv, levels)
	}
	return nil
}

// placeHead is the words readFixed keeps before a chunk's values for a
// placed page's levels (fixedDecoder.place): a page of a nullable column
// without NULLs written by DuckDB has 31 bytes of them.
const placeHead = 32

// place is chunkPages.into for a PLAIN data page of 8-byte values (an
// INT64 or DOUBLE column; the machine little-endian) when every row is
// read (no sel) into vals: the page's body is decompressed where its
// values end at the end of this page's rows in vals, so that where every
// row holds a value (the header cannot tell) they are in place and values
// copies nothing; where some are NULL the values lie after the rows'
// start and values' loop moves each down to its row, reading ahead of
// what it writes. The body's first bytes (a version 1 page's definition
// levels) fall before the page's rows: into the head kept before vals[0]
// and the values of the pages before, saved here and put back once the
// page is decoded (restore). nil (decompressed elsewhere, and copied) for
// any other page, or one of more levels than placeHead words of bytes.
// The NBER twins' 16.5 million rows of two INT64 columns were 265 MB
// copied, 18 ms of the join's 470 of CPU.
func (d *fixedDecoder) place(h pageHeader) []byte {
	if (h.typ != pageData && h.typ != pageDataV2) || parquet.Encoding(h.encoding) != parquet.Encodings.Plain ||
		d.width != 8 || !littleEndian || d.base == nil || d.sel != nil || d.asDict || d.dict != nil || d.placed {
		return nil
	}
	nv := int(h.numValues)
	if h.typ == pageDataV2 {
		nv = int(h.numRows)
	}
	prefix := int(h.uncompressed) - 8*nv
	end := 8 * (placeHead + d.out + nv) // in base's bytes
	if nv <= 0 || prefix < 0 || prefix > 8*placeHead || d.out+nv > len(d.vals) {
		return nil
	}
	b := wordBytes(d.base)
	start := end - int(h.uncompressed)
	if over := 8*(placeHead+d.out) - max(start, 8*placeHead); over > 0 { // the earlier pages' values it overwrites
		d.savedAt = max(start, 8*placeHead)
		d.savedN = copy(d.saved[:], b[d.savedAt:d.savedAt+over])
	}
	d.placed = true
	placedPages.Add(1)
	return b[start:end:end]
}

// placedPages counts the pages place placed, placedMoved those of them
// with NULLs (their values moved down to their rows), for tests.
var placedPages, placedMoved atomic.Int64

// restore puts back the values of earlier pages that a placed page's
// levels overwrote.
func (d *fixedDecoder) restore() {
	b := wordBytes(d.base)
	copy(b[d.savedAt:], d.saved[:d.savedN])
	d.savedN, d.placed = 0, false
}

// otherEncoding is the verdict on a data page of an encoding that a
// decoder does not read: errNotFixed for a DELTA page where the decoder
// reads a chunk as its dictionary (a writer's fallback: the chunk is read
// otherwise), an error for any other (a damaged header: arrow-go would
// spin on it, reading nothing and reporting nothing).
func otherEncoding(e parquet.Encoding) error {
	switch e {
	case parquet.Encodings.DeltaBinaryPacked, parquet.Encodings.DeltaLengthByteArray,
		parquet.Encodings.DeltaByteArray:
		return errNotFixed
	}
	return fmt.Errorf("a data page of encoding %d", e)
}

// dataPageParts splits a data page's body (h its header) into its values
// and its definition levels (RLE/bit-packed, bit width 1; nil for a
// column that is not nullable). errNotFixed for levels of another
// encoding (the deprecated BIT_PACKED) or repetition levels.
func dataPageParts(h pageHeader, data []byte, nullable bool) (values, levels []byte, err error) {
	if h.typ == pageDataV2 {
		rl, dl := int(h.repLen), int(h.defLen)
		if rl != 0 || dl > len(data) {
			return nil, nil, fmt.Errorf("levels of %d and %d bytes in a page of %d", rl, dl, len(data))
		}
		if h.numRows != h.numValues {
			return nil, nil, fmt.Errorf("a page of %d values in %d rows", h.numValues, h.numRows)
		}
		if nullable {
			levels = data[:dl]
		}
		return data[dl:], levels, nil
	}
	if !nullable {
		return data, nil, nil
	}
	switch parquet.Encoding(h.defEncoding) {
	case parquet.Encodings.RLE:
	case parquet.Encodings.BitPacked:
		return nil, nil, errNotFixed // the deprecated levels: arrow-go's
	default:
		return nil, nil, fmt.Errorf("definition levels of encoding %d", h.defEncoding)
	}
	if len(data) < 4 {
		return nil, nil, fmt.Errorf("a page of %d bytes", len(data))
	}
	l := binary.LittleEndian.Uint32(data)
	if uint64(l) > uint64(len(data)-4) {
		return nil, nil, fmt.Errorf("definition levels of %d bytes in a page of %d", l, len(data))
	}
	return data[4+l:], data[4 : 4+l], nil
}

// levelsOf is pageLevels, unless chosen (a page read at chosen rows, not
// as a dictionary's rows): then a page with NULLs keeps its levels packed
// for lc (reset to them), the rows' count of values checked as pageLevels
// checks it, and sparse says so. Not chosen, or without NULLs, it is
// pageLevels'. The two page decoders' one way to their levels.
func levelsOf(levels []byte, nv int, chosen bool, scratch *[]uint32, lc *levelCursor) (defs []uint32, present int, sparse bool, err error) {
	if !chosen || levels == nil || noSparseLevels {
		defs, present, err = pageLevels(levels, nv, scratch)
		return defs, present, false, err
	}
	if present, err = countOnes(levels, nv); err != nil {
		return nil, 0, false, fmt.Errorf("definition levels: %w", err)
	}
	if present == nv {
		return nil, nv, false, nil
	}
	lc.reset(levels, nv)
	sparseLevelPages.Add(1)
	return nil, present, true, nil
}

// pageLevels counts the rows of a page's nv that hold a value (levels:
// its definition levels, nil for a column that is not nullable) and, if
// some do not, unpacks each row's level into *scratch: defs nil says
// every row holds one.
func pageLevels(levels []byte, nv int, scratch *[]uint32) (defs []uint32, present int, err error) {
	if levels == nil {
		return nil, nv, nil
	}
	if present, err = countOnes(levels, nv); err != nil {
		return nil, 0, fmt.Errorf("definition levels: %w", err)
	}
	if present == nv {
		return nil, nv, nil
	}
	*scratch = grow32(*scratch, nv)
	if _, err := unpackHybrid(levels, 1, *scratch); err != nil {
		return nil, 0, fmt.Errorf("definition levels: %w", err)
	}
	return *scratch, present, nil
}

// pageFits refuses a data page of nv values where only groupRows-row of
// the row group's rows are left: a flat column's page holds a value (or
// NULL) a row, so more is a damaged header (or chunk metadata), which
// would size the page's levels and values (a review: 2.8 GiB for a DELTA
// page of 13 bytes in a row group of 10 rows). Both pages decoders ask.
func pageFits(nv, row, groupRows int) error {
	if nv > groupRows-row {
		return fmt.Errorf("a page of %d values with %d of the row group's rows left", nv, groupRows-row)
	}
	return nil
}

// dictIndices unpacks a dictionary-encoded page's present indices (data:
// a bit width byte, then RLE/bit-packed runs) into *scratch, each checked
// below entries.
func dictIndices(data []byte, present, entries int, scratch *[]uint32) ([]uint32, error) {
	if present == 0 {
		return nil, nil // a page of NULLs may hold no bit width
	}
	*scratch = grow32(*scratch, present)
	idx := *scratch
	if err := dictIndicesInto(data, entries, idx); err != nil {
		return nil, err
	}
	return idx, nil
}

// dictIndicesInto is dictIndices into out, one index for each of its
// len(out) (>= 1) values. O(len(out)).
func dictIndicesInto(data []byte, entries int, out []uint32) error {
	if len(data) < 1 {
		return errors.New("no bit width")
	}
	w := int(data[0])
	if w > 32 {
		return fmt.Errorf("a bit width of %d", w)
	}
	if _, err := unpackHybrid(data[1:], w, out); err != nil {
		return fmt.Errorf("dictionary indices: %w", err)
	}
	for _, x := range out {
		if int(x) >= entries {
			return fmt.Errorf("dictionary index %d of %d entries", x, entries)
		}
	}
	return nil
}

// appendDictIndices appends to rows the nv (>= 1) indices of a
// dictionary-encoded page without NULLs (dictIndicesInto), unpacked
// straight into rows' new room: no scratch and no copy (7.8 MB of
// scratch a flights-3m.parquet join, its key column's pages). Both pages
// decoders' Dict rows. O(nv).
func appendDictIndices(rows []int32, data []byte, nv, entries int) ([]int32, error) {
	start := len(rows)
	rows = slices.Grow(rows, nv)[:start+nv]
	return rows, dictIndicesInto(data, entries, int32sAsUint32s(rows[start:]))
}

// int32sAsUint32s is s's memory as uint32s (the same length): for
// indices unpacked in place into a slice of int32 rows. Every index
// dictIndicesInto accepts is below 2^31 (a count of entries), so each
// reads back as the same non-negative int32.
func int32sAsUint32s(s []int32) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// values decodes a page's values (data, of encoding e) for its nv rows
// into vals, levels their definition levels (RLE/bit-packed of width 1;
// nil for a required column: every row holds a value).
func (d *fixedDecoder) values(e parquet.Encoding, data []byte, nv int, levels []byte) (err error) {
	if nv < 0 || nv > math.MaxInt32 || d.row+nv < d.row {
		return fmt.Errorf("a page of %d values", nv)
	}
	if err := pageFits(nv, d.row, d.groupRows); err != nil {
		return err
	}
	d.bad = -1
	defs, present, sparse, err := levelsOf(levels, nv, d.sel != nil && !d.asDict, &d.defs, &d.lc)
	if err != nil {
		return err
	}
	if d.placed && present < nv {
		placedMoved.Add(1)
	}
	if d.asDict {
		if e == parquet.Encodings.Plain {
			return errNotFixed // a fallback page: its values are no entries
		}
		if e != parquet.Encodings.RLEDict && e != parquet.Encodings.PlainDict {
			return otherEncoding(e)
		}
		if d.dict == nil {
			return errors.New("a dictionary-encoded page without a dictionary page")
		}
		if defs == nil && nv > 0 { // every row's entry
			if d.rows, err = appendDictIndices(d.rows, data, nv, len(d.dict)); err != nil {
				return err
			}
			d.row += nv
			d.out += nv
			return nil
		}
		idx, err := dictIndices(data, present, len(d.dict), &d.idx)
		if err != nil {
			return err
		}
		j := 0
		for r := range nv {
			if defs != nil && defs[r] == 0 {
				d.rows = append(d.rows, -1)
				continue
			}
			d.rows = append(d.rows, int32(idx[j]))
			j++
		}
		d.row += nv
		d.out += nv
		return nil
	}
	if d.chooseDict > 0 && d.dict == nil && d.vals == nil {
		return errNotFixed // no dictionary page came first: Read reads it
	}
	// get(j) is the page's j-th present value.
	var get func(j int) int64
	switch e {
	case parquet.Encodings.Plain:
		if len(data)/d.width < present {
			return fmt.Errorf("%d values in %d bytes", present, len(data))
		}
		if d.placed && present < nv && len(data) > present*d.width {
			// A placed page with NULLs and bytes after its values (a
			// damaged page; arrow-go reads the first present values):
			// values' loop below reads ahead of what it writes only
			// where the values end the page, so they are moved there.
			v := len(data) - present*d.width
			copy(data[v:], data[:present*d.width])
			data = data[v:]
		}
		get = func(j int) int64 { return d.value(data[j*d.width:]) }
	case parquet.Encodings.ByteStreamSplit:
		// Byte k of value j is data[k*present+j] (parquet-format's
		// Encodings.md). arrow-go spun on a page a value short.
		if len(data) != present*d.width {
			return fmt.Errorf("%d byte-stream-split values in %d bytes", present, len(data))
		}
		get = func(j int) int64 {
			var b [8]byte
			for k := range d.width {
				b[k] = data[k*present+j]
			}
			return d.value(b[:])
		}
		if d.sel == nil && defs == nil {
			out := d.vals[d.out : d.out+nv]
			for j := range out {
				out[j] = get(j)
			}
			if d.valid != nil {
				fill(d.valid[d.out:d.out+nv], true)
			}
			d.row += nv
			d.out += nv
			return nil
		}
	case parquet.Encodings.DeltaBinaryPacked:
		int32s := d.pt == parquet.Types.Int32
		if !int32s && d.pt != parquet.Types.Int64 {
			return fmt.Errorf("a DELTA_BINARY_PACKED page of a %s column", d.pt)
		}
		if cap(d.delta) < nv { // a pooled scratch: a new one a chunk was zeroed each time
			putSlice(&int64Pool, d.delta)
			d.delta = getSlice[int64](&int64Pool, nv)
		}
		if d.delta, _, err = deltaInts(data, int32s, present, nv, d.delta[:0]); err != nil {
			return err
		}
		delta := d.delta
		get = func(j int) int64 {
			switch {
			case !int32s:
				return delta[j]
			case d.uint32s:
				return int64(uint32(delta[j]))
			}
			return int64(int32(delta[j]))
		}
	case parquet.Encodings.RLEDict, parquet.Encodings.PlainDict:
		if d.dict == nil {
			return errors.New("a dictionary-encoded page without a dictionary page")
		}
		dict := d.dict
		if d.sel == nil && defs == nil && present > 0 {
			// Every row's value: gathered as the indices are unpacked.
			if len(data) < 1 || data[0] > 32 {
				return errors.New("no bit width, or one over 32")
			}
			if err := gatherHybrid(data[1:], int(data[0]), dict, d.vals[d.out:d.out+nv]); err != nil {
				return fmt.Errorf("dictionary indices: %w", err)
			}
			if d.valid != nil {
				fill(d.valid[d.out:d.out+nv], true)
			}
			d.row += nv
			d.out += nv
			return nil
		}
		if d.sel != nil && present > 0 {
			// Chosen rows: their indices found in the runs, the others
			// never unpacked.
			if len(data) < 1 || data[0] > 32 {
				return errors.New("no bit width, or one over 32")
			}
			if err := d.cur.scan(data[1:], int(data[0]), present); err != nil {
				return fmt.Errorf("dictionary indices: %w", err)
			}
			get = func(j int) int64 {
				x := d.cur.at(j)
				if int(x) >= len(dict) {
					d.bad = int(x)
					return 0
				}
				return dict[x]
			}
			break
		}
		idx, err := dictIndices(data, present, len(dict), &d.idx)
		if err != nil {
			return err
		}
		if d.sel == nil && defs != nil {
			// Every row, some NULL (a nullable column as DuckDB writes
			// them): one loop without the general one's call a value;
			// the NBER twins' key side (22 such columns of 65,771 rows)
			// decoded in 11 ms of its 35 before.
			return d.gatherDefs(dict, idx, defs[:nv])
		}
		get = func(j int) int64 { return dict[idx[j]] }
	default:
		return otherEncoding(e)
	}
	defer func() {
		if d.bad >= 0 && err == nil {
			err = fmt.Errorf("dictionary index %d of %d entries", d.bad, len(d.dict))
		}
	}()
	if d.sel == nil && defs == nil {
		// Every row, every value: the common case, without a call a value.
		out := d.vals[d.out : d.out+nv]
		switch {
		case e == parquet.Encodings.Plain && d.width == 8 && littleEndian:
			// The values' bytes as they are: a copy (memmove), or none
			// where the page was decompressed in place (place).
			if dst := wordBytes(out); unsafe.SliceData(dst) != unsafe.SliceData(data) {
				copy(dst, data[:8*len(out)])
			}
		case e == parquet.Encodings.Plain && d.width == 8:
			for j := range out {
				out[j] = int64(binary.LittleEndian.Uint64(data[j*8:]))
			}
		case e == parquet.Encodings.Plain:
			for j := range out {
				out[j] = d.value(data[j*4:])
			}
		case e == parquet.Encodings.DeltaBinaryPacked:
			for j := range out {
				out[j] = get(j)
			}
		} // a dictionary page's rows, every one a value, were gathered above
		if d.valid != nil {
			fill(d.valid[d.out:d.out+nv], true)
		}
		d.row += nv
		d.out += nv
		return nil
	}
	end := d.row + nv
	if sparse || defs == nil {
		// sel's rows in this page alone: each its value, or (sparse)
		// their levels and values' places found by d.lc.
		for ; d.k < len(d.sel) && d.sel[d.k] < end; d.k++ {
			r := d.sel[d.k]
			if r < d.row {
				return fmt.Errorf("internal error: row %d selected out of order", r)
			}
			has, j := true, r-d.row
			if sparse {
				var err error
				if has, j, err = d.lc.at(r - d.row); err != nil {
					return err
				}
			}
			if has {
				d.vals[d.out] = get(j)
			} else {
				d.vals[d.out] = 0
				if d.valid == nil {
					d.valid = make([]bool, len(d.vals))
					fill(d.valid[:d.out], true)
				}
			}
			if d.valid != nil {
				d.valid[d.out] = has
			}
			d.out++
		}
		d.row = end
		return nil
	}
	j := 0 // the present values passed
	for r := d.row; r < end; r++ {
		has := defs == nil || defs[r-d.row] == 1
		take := d.sel == nil || (d.k < len(d.sel) && d.sel[d.k] == r)
		if take {
			if has {
				d.vals[d.out] = get(j)
			} else {
				d.vals[d.out] = 0
				if d.valid == nil {
					d.valid = make([]bool, len(d.vals))
					for q := range d.out {
						d.valid[q] = true
					}
				}
			}
			if d.valid != nil {
				d.valid[d.out] = has
			}
			d.out++
			d.k++
		}
		if has {
			j++
		}
	}
	d.row = end
	return nil
}

// gatherDefs writes a dictionary page's rows, every one taken: row r is
// dict[idx[j]] for its j-th present value where defs[r] is 1, else NULL
// (0, and not valid). idx holds the present rows' indices, each checked
// below len(dict).
func (d *fixedDecoder) gatherDefs(dict []int64, idx []uint32, defs []uint32) error {
	out := d.vals[d.out : d.out+len(defs)]
	if d.valid == nil && len(idx) < len(defs) {
		d.valid = make([]bool, len(d.vals))
		fill(d.valid[:d.out], true)
	}
	if len(idx) == 0 {
		clear(out)
	} else {
		// Without a branch a row (NULLs at random were mispredicted):
		// a NULL row reads the next present row's entry (the last one's
		// past it) and masks it to 0. defs are 0 or 1 (bit width 1).
		j, ones, last := 0, 0, len(idx)-1
		for r, def := range defs {
			out[r] = dict[idx[j]] & -int64(def)
			ones += int(def)
			j = min(j+int(def), last)
		}
		if ones != len(idx) {
			return fmt.Errorf("definition levels of %d values, %d counted", ones, len(idx))
		}
	}
	if d.valid != nil {
		valid := d.valid[d.out : d.out+len(defs)]
		for r, def := range defs {
			valid[r] = def == 1
		}
	}
	d.row += len(defs)
	d.out += len(defs)
	return nil
}

// wordBytes is the memory of s as bytes (8 a value, the machine's order).
func wordBytes(s []int64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 8*len(s))
}

// littleEndian says the machine stores an int64 as PLAIN does.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// countOnes is the number of 1s among the first n values of an
// RLE/bit-packed hybrid run of bit width 1 (definition levels of a flat
// column: the rows holding a value), without unpacking them: a repeated
// run counts at once, a bit-packed one by its bytes' population counts.
func countOnes(data []byte, n int) (int, error) {
	pos, j, ones := 0, 0, 0
	for j < n {
		r, next, err := readRun(data, pos, 1, n-j)
		if err != nil {
			return 0, fmt.Errorf("%w, %d values of %d", err, j, n)
		}
		if r.packed == nil {
			ones += r.count * int(r.v)
		} else {
			full, rest := r.count/8, r.count%8
			for _, b := range r.packed[:full] {
				ones += bits.OnesCount8(b)
			}
			if rest > 0 {
				ones += bits.OnesCount8(r.packed[full] & (1<<rest - 1))
			}
		}
		j += r.count
		pos = next
	}
	return ones, nil
}

// grow32 returns s resized to n, new where it is too small.
func grow32(s []uint32, n int) []uint32 {
	if cap(s) < n {
		return make([]uint32, n, n+n/4)
	}
	return s[:n]
}

// unpackHybrid decodes len(out) values of the RLE/bit-packed hybrid
// encoding of bit width w (parquet-format's Encodings.md: runs, each a
// ULEB128 header; an even header h is h>>1 repeats of one value in
// ceil(w/8) little-endian bytes, an odd one h>>1 groups of 8 values
// packed w bits each, least significant bit first) from data into out,
// returning the bytes read. A last bit-packed run may be cut short after
// the values needed. O(len(out)).
func unpackHybrid(data []byte, w int, out []uint32) (int, error) {
	if w < 0 || w > 32 {
		return 0, fmt.Errorf("a bit width of %d", w)
	}
	pos, j := 0, 0
	for j < len(out) {
		r, next, err := readRun(data, pos, w, len(out)-j)
		if err != nil {
			return pos, fmt.Errorf("%w, %d values of %d", err, j, len(out))
		}
		run := out[j : j+r.count]
		if r.packed == nil {
			for q := range run {
				run[q] = r.v
			}
		} else {
			unpackBits(r.packed, w, run)
		}
		j += r.count
		pos = next
	}
	return pos, nil
}

// hybridRunOf is one run of the RLE/bit-packed hybrid encoding as
// readRun reads it: count values (those of the run wanted), a repeated
// value v where packed is nil, else packed, the bytes the values are
// packed in (at least those of the count wanted).
type hybridRunOf struct {
	count  int
	v      uint32
	packed []byte
}

// readRun reads the run at byte pos of data (bit width w, at most 32),
// of which at most left values are wanted, checked: a header that
// decodes, a repeated run of one value at least, its value within w bits,
// a bit-packed run of at most 2^28 groups whose wanted values' bytes are
// there (a last run may be cut short after them). It returns the run and
// the byte after it. The one reader of runs of unpackHybrid, gatherHybrid,
// countOnes and hybridCursor.
func readRun(data []byte, pos, w, left int) (hybridRunOf, int, error) {
	var h uint64
	if pos < len(data) && data[pos] < 0x80 { // a one-byte header: most runs
		h = uint64(data[pos])
		pos++
	} else {
		n := 0
		if pos <= len(data) {
			h, n = binary.Uvarint(data[pos:])
		}
		if n <= 0 {
			return hybridRunOf{}, pos, fmt.Errorf("a damaged run header at byte %d", pos)
		}
		pos += n
	}
	if h&1 == 0 { // repeated
		count, vb := h>>1, (w+7)/8
		if count == 0 || pos+vb > len(data) {
			return hybridRunOf{}, pos, errors.New("a damaged repeated run")
		}
		var v uint32
		for b := range vb {
			v |= uint32(data[pos+b]) << (8 * b)
		}
		if w < 32 && v>>w != 0 {
			return hybridRunOf{}, pos, fmt.Errorf("a run's value %d wider than %d bits", v, w)
		}
		return hybridRunOf{count: int(min(count, uint64(left))), v: v}, pos + vb, nil
	}
	groups := h >> 1
	if groups == 0 || groups > 1<<28 {
		return hybridRunOf{}, pos, fmt.Errorf("a bit-packed run of %d groups", groups)
	}
	take := min(int(groups)*8, left)
	if pos+(take*w+7)/8 > len(data) {
		return hybridRunOf{}, pos, errors.New("a bit-packed run cut short")
	}
	end := min(pos+int(groups)*w, len(data))
	return hybridRunOf{count: take, packed: data[pos:end]}, end, nil
}

// hybridCursor finds values of an RLE/bit-packed hybrid run by their
// index without unpacking the others: scan reads the runs' headers, and
// at a value's index its run's value, or its bits in its bit-packed run.
// Ascending indexes are found in O(1) each, after O(runs) for the scan.
type hybridCursor struct {
	data []byte
	w    int
	runs []hybridRun
	ri   int
}

// hybridRun is one run: the index of its first value, and its repeated
// value (pos -1) or the byte its packed values begin at.
type hybridRun struct {
	start int
	pos   int
	v     uint32
}

// scan reads the runs holding the first n values of data (bit width w),
// checked as unpackHybrid checks them.
func (c *hybridCursor) scan(data []byte, w, n int) error {
	if c.runs == nil {
		c.runs = getSlice[hybridRun](&hybridRunPool, 0)
	}
	c.data, c.w, c.runs, c.ri = data, w, c.runs[:0], 0
	pos, j := 0, 0
	for j < n {
		r, next, err := readRun(data, pos, w, n-j)
		if err != nil {
			return fmt.Errorf("%w, %d values of %d", err, j, n)
		}
		hr := hybridRun{start: j, pos: -1, v: r.v}
		if r.packed != nil {
			hr.pos = next - len(r.packed)
		}
		c.runs = append(c.runs, hr)
		j += r.count
		pos = next
	}
	return nil
}

// release gives the runs back for another cursor's scans (the cursor
// takes new ones if it scans again).
func (c *hybridCursor) release() {
	putSlice(&hybridRunPool, c.runs)
	c.runs = nil
}

// at returns value j (ascending over the calls since scan; the same j
// again is fine).
func (c *hybridCursor) at(j int) uint32 {
	for c.ri+1 < len(c.runs) && c.runs[c.ri+1].start <= j {
		c.ri++
	}
	r := c.runs[c.ri]
	if r.pos < 0 || c.w == 0 {
		return r.v
	}
	var one [1]uint32
	bit := (j - r.start) * c.w
	unpackBitsAt(c.data[r.pos:], bit, c.w, one[:])
	return one[0]
}

// unpackBitsAt is unpackBits of one value whose w bits start at bit bit
// of data.
func unpackBitsAt(data []byte, bit, w int, out []uint32) {
	mask := uint64(1)<<w - 1
	b := bit >> 3
	if b+8 <= len(data) {
		out[0] = uint32(binary.LittleEndian.Uint64(data[b:]) >> (bit & 7) & mask)
		return
	}
	var v uint64
	for q := b; q <= (bit+w-1)>>3; q++ {
		v |= uint64(data[q]) << (8 * (q - b))
	}
	out[0] = uint32(v >> (bit & 7) & mask)
}

// gatherHybrid is unpackHybrid (bit width w) of len(out) dictionary
// indices, each replaced by its entry of dict as it is unpacked: a
// repeated run fills its entry, a bit-packed group is unpacked 8 indices
// at a time into a small buffer and gathered. An index beyond dict is an
// error. O(len(out)), one pass.
func gatherHybrid(data []byte, w int, dict []int64, out []int64) error {
	var group [8]uint32
	pos, j := 0, 0
	for j < len(out) {
		r, next, err := readRun(data, pos, w, len(out)-j)
		if err != nil {
			return fmt.Errorf("%w, %d values of %d", err, j, len(out))
		}
		if r.packed == nil {
			if int(r.v) >= len(dict) {
				return fmt.Errorf("dictionary index %d of %d entries", r.v, len(dict))
			}
			v, run := dict[r.v], out[j:j+r.count]
			for q := range run {
				run[q] = v
			}
			j += r.count
			pos = next
			continue
		}
		for g := 0; g < r.count; g += 8 {
			k := min(8, r.count-g)
			unpackBits(r.packed[g*w/8:], w, group[:k])
			for q, x := range group[:k] {
				if int(x) >= len(dict) {
					return fmt.Errorf("dictionary index %d of %d entries", x, len(dict))
				}
				out[j+q] = dict[x]
			}
			j += k
		}
		pos = next
	}
	return nil
}

// unpackBits unpacks len(out) values of w bits each (w <= 32), packed
// least significant bit first, from data, which holds at least
// ceil(len(out)*w/8) bytes. Eight bytes are loaded a value where they
// are there, the last few values byte by byte.
func unpackBits(data []byte, w int, out []uint32) {
	if w == 0 {
		clear(out)
		return
	}
	mask := uint64(1)<<w - 1
	j := 0
	// A value's w bits start at bit s&7 of byte s>>3 and end within the
	// 8 bytes loaded there (7 + 32 < 64).
	for ; j < len(out); j++ {
		s := j * w
		b := s >> 3
		if b+8 > len(data) {
			break
		}
		out[j] = uint32(binary.LittleEndian.Uint64(data[b:]) >> (s & 7) & mask)
	}
	for ; j < len(out); j++ {
		s := j * w
		var v uint64
		for b := s >> 3; b <= (s+w-1)>>3; b++ {
			v |= uint64(data[b]) << (8 * (b - s>>3))
		}
		out[j] = uint32(v >> (s & 7) & mask)
	}
}

// RowsCheap reports whether reading columns cols of chunk i at chosen
// rows (ReadRows) costs no more than reading them whole (Read): every
// one a flat Parquet column chunk that the pages decoders take (a number,
// date or time of INT32, INT64, FLOAT or DOUBLE, or text or bytes; PLAIN
// or dictionary pages), which unpack the rows between those chosen
// without decoding their values. Any other column's ReadRows skips
// through arrow-go's reader, which decodes every value it skips. O(cols),
// from the footer. Safe for concurrent use.
func (t *Table) RowsCheap(i int, cols []int) bool {
	b, j, ok := t.parquetChunk(i)
	if !ok || arrowPages {
		return false
	}
	p := b.pq
	md := p.r.MetaData().RowGroup(j)
	for _, col := range cols {
		c := p.col[col]
		if c == nil || c.MaxRepetitionLevel() != 0 || c.MaxDefinitionLevel() > 1 {
			return false
		}
		if fixedWidth(c.PhysicalType()) == 0 && (c.PhysicalType() != parquet.Types.ByteArray || !bytesKinds(t.Types[col])) {
			return false
		}
		cc, err := md.ColumnChunk(p.leaves[col][0])
		if err != nil || !fixedEncodings(cc.Encodings()) || cc.CryptoMetadata() != nil {
			return false
		}
	}
	return true
}

// readIntKey reads a flat INT32 or INT64 chunk of integers (Int) once,
// as a Dict (its dictionary page's values as a column of entries, and
// each row's index) where its dictionary has at most half as many entries
// as it has rows, else as read gives it (its values, the dictionary's
// gathered): an entry probed costs what a row does, and where most values
// are distinct a row's verdict looked up costs more than its value
// gathered (the 10M-row Bloom file's key column: 100,000 entries a row
// group of as many rows, 1.12x the time by entries). errNotFixed where
// the chunk is not a dictionary-encoded one the decoder takes (the caller
// then reads it with Read); a page fallen back to PLAIN after a Dict was
// chosen is errNotFixed too. Cost: the pages' read and decompression
// once. Safe for concurrent use.
func (p *parquetTable) readIntKey(i, col int, t Type) (_ *Dict, _ *Column, err error) {
	descr := p.col[col]
	pt := descr.PhysicalType()
	if arrowPages || t.Kind != Int || (pt != parquet.Types.Int32 && pt != parquet.Types.Int64) ||
		descr.MaxRepetitionLevel() != 0 || descr.MaxDefinitionLevel() > 1 {
		return nil, nil, errNotFixed
	}
	rg := p.r.RowGroup(i)
	cc, err := rg.MetaData().ColumnChunk(p.leaves[col][0])
	if err != nil || !fixedEncodings(cc.Encodings()) || !dictPages(cc) {
		return nil, nil, errNotFixed
	}
	defer func() { // as read: a damaged page is an error, not a panic
		if r := recover(); r != nil {
			err = fmt.Errorf("row group %d, column %q: a damaged page: %v", i, descr.Name(), r)
		}
	}()
	rows := int(rg.NumRows())
	d := fixedDecoder{pt: pt, width: fixedWidth(pt), nullable: descr.MaxDefinitionLevel() == 1, chooseDict: rows, groupRows: rows}
	defer func() {
		if d.dict != nil {
			putSlice(&int64Pool, d.dict)
		}
		if d.vals != nil {
			putSlice(&int64Pool, d.vals)
		}
		putSlice(&int64Pool, d.delta)
		d.cur.release()
	}()
	if err := p.eachPage(i, col, cc, d.page, nil); err != nil {
		return nil, nil, err
	}
	if d.row != rows || (d.asDict && len(d.rows) != rows) || (!d.asDict && d.out != rows) {
		return nil, nil, fmt.Errorf("row group %d, column %q: %d rows of %d", i, descr.Name(), d.row, rows)
	}
	if !d.asDict {
		c := &Column{Type: t, n: rows, valid: d.valid, pooled: true, ints: d.vals}
		d.vals = nil
		return nil, c, nil
	}
	entries := &Column{Type: t, n: len(d.dict), ints: make([]int64, len(d.dict))}
	copy(entries.ints, d.dict)
	return &Dict{Values: entries, Rows: d.rows, pooled: true}, nil, nil
}
