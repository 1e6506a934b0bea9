package columnar

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
)

// zstdCapped decodes a ZSTD page into its buffer and no further.
var zstdCapped, _ = zstd.NewReader(nil, zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderConcurrency(0))

// The page reader of the fixed-width pages decoder: a column chunk's bytes
// read at once into a reused buffer, each page's header decoded here
// (parquet-format's PageHeader, Thrift's compact protocol) and its body
// decompressed by arrow-go's codec into a second reused buffer. arrow-go's
// own page reader allocates the chunk's bytes anew for every chunk (a
// make of the chunk's size, zeroed and faulted in), copies each page's
// compressed bytes once more before decompressing them, and allocates its
// page buffers a reader: for a join that reads thousands of chunks, about
// a tenth of its CPU (bench/parquet-why.md).

// Page types (parquet-format's PageType).
const (
	pageData       = 0
	pageIndex      = 1
	pageDictionary = 2
	pageDataV2     = 3
)

// pageHeader is what readFixed uses of a page's header.
type pageHeader struct {
	typ          int32
	uncompressed int32
	compressed   int32
	numValues    int32 // of the data page header (either version) or the dictionary page's
	encoding     int32
	defEncoding  int32 // a version 1 data page's definition levels' encoding
	numNulls     int32 // version 2
	numRows      int32 // version 2
	defLen       int32 // version 2: the definition levels' bytes, uncompressed, first
	repLen       int32 // version 2: the repetition levels' bytes, before them
	compressedV2 bool  // version 2: the values are compressed (is_compressed, true by default)
	has          uint8 // which of the nested headers were there: 1 data, 2 dictionary, 4 data v2
}

// chunkPages reads the pages of one column chunk.
type chunkPages struct {
	buf    *[]byte        // the chunk's bytes, from chunkBufs
	data   []byte         // what is left of them
	page   *[]byte        // the decompressed page, from chunkBufs
	codec  compress.Codec // nil: the chunk is not compressed
	snappy bool           // the codec is Snappy's
	zstd   bool
	values int64 // the values (a version 2 page: rows) of the data pages read
	total  int64 // the chunk's, from its metadata
	// split says the part asked was read alone (its metadata placed the
	// dictionary page before the data pages); else the whole chunk was:
	// parquet-mr writes a dictionary page at data_page_offset, the
	// dictionary_page_offset equal to it (PARQUET-1977) or 0 (PARQUET-1402).
	split bool
	// mapped is the chunk's bytes where they are the file's mapping
	// (parquetTable.mapped): release hands them to drops, the file's
	// (mapDrops). end is where they end in the file, and file the file,
	// for intact.
	mapped []byte
	drops  *mapDrops
	end    int64
	file   parquetSource
	// into, if not nil, may give a compressed data page's destination:
	// its body is then decompressed there (len = the header's
	// uncompressed size) rather than into page.
	into func(pageHeader) []byte
}

// intact reports an error where the chunk's bytes were read from the
// file's mapping and the file is now shorter than their end: a file
// truncated under the reader faults only on the pages wholly beyond its
// new end; the rest of the page holding it reads as zeros, which decode
// without a word (an uncompressed PLAIN page of 7s read as 0s, a review
// found). The decoders call it once a chunk is decoded, before its values
// are used. One fstat a chunk.
func (cp *chunkPages) intact() error {
	if cp.mapped == nil {
		return nil
	}
	f, ok := cp.file.(*os.File)
	if !ok {
		return nil
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("the file changed while read: %v", err)
	}
	if st.Size() < cp.end {
		return fmt.Errorf("the file changed while read: %d bytes, its chunk ends at %d", st.Size(), cp.end)
	}
	return nil
}

// chunkBufs holds the byte buffers of chunkPages for reuse.
var chunkBufs sync.Pool // *[]byte

// maxPageBytes bounds a page's sizes as its header says them: a larger
// one is not read here (errNotFixed: arrow-go's reader decides), so that a
// damaged header allocates nothing absurd.
const maxPageBytes = 256 << 20

// getBuf returns a buffer of n bytes, reused where one is there.
func getBuf(n int) *[]byte {
	if p, _ := chunkBufs.Get().(*[]byte); p != nil && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	} // a buffer too small is dropped: put back, it would come again
	b := make([]byte, n, n+n/4)
	return &b
}

// openPages reads column chunk cc of a file of p's whole (its byte range
// as arrow-go's GetColumnPageReader takes it: from the dictionary page, if
// any, for the chunk's total compressed size, padded for the files of old
// parquet-mr writers (PARQUET-816)). errNotFixed for an encrypted chunk
// or a codec arrow-go does not have.
func (p *parquetTable) openPages(cc *metadata.ColumnChunkMetaData) (*chunkPages, error) {
	return p.openPagesOf(cc, wholeChunk)
}

// The parts of a column chunk openPagesOf reads.
const (
	wholeChunk    = iota
	dictPageOnly  // the bytes before the first data page: the dictionary page
	dataPagesOnly // the bytes from the first data page on
)

// openPagesOf is openPages of the whole chunk, or of its dictionary page
// or its data pages only (part), where the metadata places the dictionary
// page before the data pages (else the whole chunk). A dictionary-encoded
// chunk's dictionary is most of its bytes where its values are mostly
// distinct: its data pages are left unread where the dictionary alone
// answers (dictionaryMisses), and the dictionary not read twice
// (dictKeep).
func (p *parquetTable) openPagesOf(cc *metadata.ColumnChunkMetaData, part int) (*chunkPages, error) {
	if cc.CryptoMetadata() != nil {
		return nil, errNotFixed
	}
	codec, err := compress.GetCodec(cc.Compression())
	if err != nil {
		return nil, errNotFixed
	}
	start := cc.DataPageOffset()
	if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && start > cc.DictionaryPageOffset() {
		start = cc.DictionaryPageOffset()
	}
	n := cc.TotalCompressedSize()
	if start < 0 || n < 0 || (p.size >= 0 && (start > p.size || n > p.size-start)) {
		return nil, fmt.Errorf("a column chunk of %d bytes at %d, beyond the file's %d", n, start, p.size)
	}
	if p.r.MetaData().WriterVersion().LessThan(metadata.Parquet816FixedVersion) && p.size >= 0 {
		n += min(100, p.size-(start+n))
	}
	if n > maxPageBytes*4 {
		return nil, errNotFixed
	}
	split := false
	if d := cc.DataPageOffset() - start; d > 0 && d < n {
		switch part {
		case dictPageOnly:
			n, split = d, true
		case dataPagesOnly:
			start, n, split = start+d, n-d, true
		}
	}
	if cc.Compression() == compress.Codecs.Uncompressed {
		codec = nil
	}
	cp := &chunkPages{codec: codec, total: cc.NumValues(), split: split, snappy: cc.Compression() == compress.Codecs.Snappy, zstd: cc.Compression() == compress.Codecs.Zstd}
	if p.mapped != nil && start+n <= int64(len(p.mapped)) {
		cp.data = p.mapped[start : start+n : start+n]
		cp.mapped, cp.end, cp.file, cp.drops = cp.data, start+n, p.f, &p.drops
		return cp, nil
	}
	cp.buf = getBuf(int(n))
	if got, err := p.f.ReadAt(*cp.buf, start); int64(got) < n {
		cp.release()
		return nil, fmt.Errorf("reading %d bytes at %d: %v", n, start, err)
	}
	cp.data = *cp.buf
	return cp, nil
}

// release gives the buffers back.
func (cp *chunkPages) release() {
	for _, b := range []*[]byte{cp.buf, cp.page} {
		if b != nil {
			chunkBufs.Put(b)
		}
	}
	if cp.drops != nil {
		cp.drops.add(cp.mapped)
	}
	cp.buf, cp.page, cp.data, cp.mapped = nil, nil, nil, nil
}

// next returns the next page's header and its body, decompressed (a
// version 2 page: its levels, then its values decompressed), valid until
// the next call; ok false after the last data page (the chunk's values
// all read) or at the chunk's end.
func (cp *chunkPages) next() (h pageHeader, body []byte, ok bool, err error) {
	h, raw, ok, err := cp.nextRaw()
	if !ok || err != nil {
		return h, nil, ok, err
	}
	body, err = cp.decompress(h, raw)
	return h, body, err == nil, err
}

// nextRaw is next without the decompression: the page's body as the
// chunk holds it (decompress makes it the page's).
func (cp *chunkPages) nextRaw() (h pageHeader, raw []byte, ok bool, err error) {
	for cp.values < cp.total && len(cp.data) > 0 {
		r := compactReader{b: cp.data}
		h = r.pageHeader()
		if r.err != nil {
			return h, nil, false, fmt.Errorf("a page header: %w", r.err)
		}
		if h.compressed < 0 || h.uncompressed < 0 || h.numValues < 0 || int(h.compressed) > len(cp.data)-r.pos {
			return h, nil, false, fmt.Errorf("a page of %d bytes (%d uncompressed) with %d of the chunk left", h.compressed, h.uncompressed, len(cp.data)-r.pos)
		}
		if h.uncompressed > maxPageBytes {
			return h, nil, false, errNotFixed
		}
		raw := cp.data[r.pos : r.pos+int(h.compressed)]
		cp.data = cp.data[r.pos+int(h.compressed):]
		switch h.typ {
		case pageData:
			if h.has&1 == 0 {
				return h, nil, false, errors.New("a data page without its header")
			}
			cp.values += int64(h.numValues)
			if cp.values > cp.total {
				return h, nil, false, fmt.Errorf("a page of %d values beyond the chunk's %d", h.numValues, cp.total)
			}
		case pageDataV2:
			if h.has&4 == 0 {
				return h, nil, false, errors.New("a version 2 data page without its header")
			}
			cp.values += int64(h.numRows)
			if cp.values > cp.total || h.numValues > h.numRows {
				return h, nil, false, fmt.Errorf("a page of %d values beyond the chunk's %d", h.numRows, cp.total)
			}
		case pageDictionary:
			if h.has&2 == 0 {
				return h, nil, false, errors.New("a dictionary page without its header")
			}
		default:
			continue // an index page, or one of a type to come: not values
		}
		return h, raw, true, nil
	}
	return h, nil, false, nil
}

// decompress returns a page's body as the codec gives it back, checked
// against the header's uncompressed size.
func (cp *chunkPages) decompress(h pageHeader, raw []byte) ([]byte, error) {
	return cp.decompressTo(h, raw, cp.into)
}

// decompressTo is decompress with into (if not nil) naming where the body
// goes, in place of cp.into.
func (cp *chunkPages) decompressTo(h pageHeader, raw []byte, into func(pageHeader) []byte) ([]byte, error) {
	levels := 0
	if h.typ == pageDataV2 {
		if h.defLen < 0 || h.repLen < 0 || int64(h.defLen)+int64(h.repLen) > int64(len(raw)) {
			return nil, fmt.Errorf("levels of %d and %d bytes in a page of %d", h.repLen, h.defLen, len(raw))
		}
		levels = int(h.defLen + h.repLen)
		if levels > int(h.uncompressed) { // a damaged header: out[levels:] below would panic
			return nil, fmt.Errorf("levels of %d bytes in a page of %d uncompressed", levels, h.uncompressed)
		}
		if !h.compressedV2 || cp.codec == nil {
			if len(raw) != int(h.uncompressed) {
				return nil, fmt.Errorf("an uncompressed page of %d bytes, %d said", len(raw), h.uncompressed)
			}
			return raw, nil
		}
	}
	if cp.codec == nil {
		if len(raw) != int(h.uncompressed) {
			return nil, fmt.Errorf("an uncompressed page of %d bytes, %d said", len(raw), h.uncompressed)
		}
		return raw, nil
	}
	if cp.snappy {
		// A Snappy block says its decoded length first, and the decoder
		// allocates that much where dst is shorter: a damaged length of a
		// few bytes' block asked for 3.75 GiB. It must be the header's.
		if n, err := snappy.DecodedLen(raw[levels:]); err != nil || n != int(h.uncompressed)-levels {
			return nil, fmt.Errorf("a Snappy page of %d bytes decoded (%v), %d said", n, err, int(h.uncompressed)-levels)
		}
	}
	var out []byte
	if into != nil {
		out = into(h)
	}
	if out == nil {
		out = cp.pageBuf(int(h.uncompressed))
	}
	copy(out, raw[:levels])
	if cp.mapped != nil {
		touchPages(raw[levels:])
	}
	var dec []byte
	var err error
	if cp.zstd {
		dec, err = zstdCapped.DecodeAll(raw[levels:], out[levels:levels:h.uncompressed])
	} else {
		dec, err = compress.Decode(cp.codec, out[levels:], raw[levels:])
	}
	if err != nil {
		return nil, fmt.Errorf("decompressing a page: %w", err)
	}
	if len(dec) != int(h.uncompressed)-levels {
		return nil, fmt.Errorf("a page of %d bytes decompressed, %d said", len(dec)+levels, h.uncompressed)
	}
	if len(dec) > 0 && &dec[0] != &out[levels] { // a codec that did not decode in place
		copy(out[levels:], dec)
	}
	return out, nil
}

// pageBuf is the chunk's page buffer, of n bytes (reused from page to
// page: valid until the next page).
func (cp *chunkPages) pageBuf(n int) []byte {
	if cp.page == nil {
		cp.page = getBuf(n)
	} else if cap(*cp.page) < n {
		chunkBufs.Put(cp.page)
		cp.page = getBuf(n)
	}
	return (*cp.page)[:n]
}

// compactReader decodes Thrift's compact protocol from b (parquet-format's
// headers): varints, zigzag integers, field headers with delta ids, and
// any field skipped by its type. The first error stops it (err).
type compactReader struct {
	b   []byte
	pos int
	err error
}

// Compact protocol types.
const (
	ctStop   = 0
	ctTrue   = 1
	ctFalse  = 2
	ctByte   = 3
	ctI16    = 4
	ctI32    = 5
	ctI64    = 6
	ctDouble = 7
	ctBinary = 8
	ctList   = 9
	ctSet    = 10
	ctMap    = 11
	ctStruct = 12
)

func (r *compactReader) fail(msg string) {
	if r.err == nil {
		r.err = errors.New(msg)
	}
}

func (r *compactReader) byte() byte {
	if r.err != nil || r.pos >= len(r.b) {
		r.fail("cut short")
		return 0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

func (r *compactReader) uvarint() uint64 {
	var v uint64
	for s := 0; s < 64; s += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		v |= uint64(c&0x7f) << s
		if c < 0x80 {
			return v
		}
	}
	r.fail("a varint of more than 10 bytes")
	return 0
}

// i32 reads a zigzag varint as an int32 (an i16 or i32 field).
func (r *compactReader) i32() int32 {
	u := r.uvarint()
	v := int64(u>>1) ^ -int64(u&1)
	if v != int64(int32(v)) {
		r.fail("an i32 out of range")
		return 0
	}
	return int32(v)
}

// field reads a field header after the field last: its id and type
// (ctStop at the struct's end).
func (r *compactReader) field(last int16) (int16, byte) {
	c := r.byte()
	typ := c & 0x0f
	if typ == ctStop || r.err != nil {
		return 0, ctStop
	}
	if d := c >> 4; d != 0 {
		return last + int16(d), typ
	}
	return int16(r.i32()), typ
}

// skip skips a value of type typ (depth: the structs and containers it
// is in, bounded against a crafted nest).
func (r *compactReader) skip(typ byte, depth int) {
	if depth > 32 {
		r.fail("nested too deep")
		return
	}
	switch typ {
	case ctTrue, ctFalse:
	case ctByte:
		r.byte()
	case ctI16, ctI32, ctI64:
		r.uvarint()
	case ctDouble:
		r.bytes(8)
	case ctBinary:
		r.bytes(r.uvarint())
	case ctList, ctSet:
		c := r.byte()
		n := uint64(c >> 4)
		if n == 15 {
			n = r.uvarint()
		}
		et := c & 0x0f
		if n > uint64(len(r.b)-r.pos) { // an element takes a byte at least
			r.fail("a list longer than its bytes")
			return
		}
		for i := uint64(0); i < n && r.err == nil; i++ {
			r.elem(et, depth)
		}
	case ctMap:
		n := r.uvarint()
		if n == 0 {
			return
		}
		kv := r.byte()
		if n > uint64(len(r.b)-r.pos) {
			r.fail("a map longer than its bytes")
			return
		}
		for i := uint64(0); i < n && r.err == nil; i++ {
			r.elem(kv>>4, depth)
			r.elem(kv&0x0f, depth)
		}
	case ctStruct:
		var last int16
		for r.err == nil {
			id, t := r.field(last)
			if t == ctStop {
				return
			}
			r.skip(t, depth+1)
			last = id
		}
	default:
		r.fail(fmt.Sprintf("a field of type %d", typ))
	}
}

// elem skips an element of a list, set or map: as a field's value, but a
// boolean takes a byte of its own there.
func (r *compactReader) elem(typ byte, depth int) {
	if typ == ctTrue || typ == ctFalse {
		r.byte()
		return
	}
	r.skip(typ, depth+1)
}

// bytes skips n bytes.
func (r *compactReader) bytes(n uint64) {
	if r.err != nil {
		return
	}
	if n > uint64(len(r.b)-r.pos) {
		r.fail("cut short")
		return
	}
	r.pos += int(n)
}

// structFields reads a struct's fields, calling f with each one's id and
// type; f reads the value, or returns false to have it skipped.
func (r *compactReader) structFields(depth int, f func(id int16, typ byte) bool) {
	var last int16
	for r.err == nil {
		id, t := r.field(last)
		if t == ctStop {
			return
		}
		if !f(id, t) {
			r.skip(t, depth+1)
		}
		last = id
	}
}

// i32Field reads an i32 field of type typ into v, reporting whether it
// was one.
func (r *compactReader) i32Field(typ byte, v *int32) bool {
	if typ != ctI32 {
		return false
	}
	*v = r.i32()
	return true
}

// pageHeader reads a PageHeader. The fields of a nested header are taken
// from the one its type names (a header carrying another one too, which
// no writer makes, does not mix them).
func (r *compactReader) pageHeader() pageHeader {
	var nested [3]pageHeader // data, dictionary, data v2
	h := r.pageHeaderFields(&nested)
	var n *pageHeader
	switch h.typ {
	case pageData:
		n = &nested[0]
	case pageDictionary:
		n = &nested[1]
	case pageDataV2:
		n = &nested[2]
	default:
		return h
	}
	h.numValues, h.encoding, h.defEncoding = n.numValues, n.encoding, n.defEncoding
	h.numNulls, h.numRows, h.defLen, h.repLen, h.compressedV2 = n.numNulls, n.numRows, n.defLen, n.repLen, n.compressedV2
	return h
}

// pageHeaderFields reads a PageHeader's own fields into h and each nested
// header's into nested (data, dictionary, data v2).
func (r *compactReader) pageHeaderFields(nested *[3]pageHeader) pageHeader {
	h := pageHeader{compressedV2: true}
	for k := range nested {
		nested[k].compressedV2 = true
	}
	r.structFields(0, func(id int16, typ byte) bool {
		switch id {
		case 1:
			return r.i32Field(typ, &h.typ)
		case 2:
			return r.i32Field(typ, &h.uncompressed)
		case 3:
			return r.i32Field(typ, &h.compressed)
		case 5, 7, 8:
			if typ != ctStruct {
				return false
			}
			var n *pageHeader
			switch id {
			case 5:
				h.has |= 1
				n = &nested[0]
			case 7:
				h.has |= 2
				n = &nested[1]
			case 8:
				h.has |= 4
				n = &nested[2]
			}
			r.structFields(1, func(fid int16, ft byte) bool {
				switch {
				case fid == 1:
					return r.i32Field(ft, &n.numValues)
				case id == 5 && fid == 2, id == 7 && fid == 2, id == 8 && fid == 4:
					return r.i32Field(ft, &n.encoding)
				case id == 5 && fid == 3:
					return r.i32Field(ft, &n.defEncoding)
				case id == 8 && fid == 2:
					return r.i32Field(ft, &n.numNulls)
				case id == 8 && fid == 3:
					return r.i32Field(ft, &n.numRows)
				case id == 8 && fid == 5:
					return r.i32Field(ft, &n.defLen)
				case id == 8 && fid == 6:
					return r.i32Field(ft, &n.repLen)
				case id == 8 && fid == 7 && (ft == ctTrue || ft == ctFalse):
					n.compressedV2 = ft == ctTrue
					return true
				}
				return false
			})
			return true
		}
		return false
	})
	return h
}

// dictKeep holds the dictionary pages that dictionaryMisses read and
// found holding a passed key: the row group is read next, and readFixed
// takes its key column's dictionary from here instead of reading and
// decompressing it again (a Bloom filter's true positive). A few at
// most (a map worker's chunk each); an entry not taken is dropped for a
// newer one. Safe for concurrent use.
type dictKeep struct {
	mu   sync.Mutex
	kept []keptDict
}

// keptDict is one dictionary page of row group i's column col.
type keptDict struct {
	i, col int
	h      pageHeader
	body   *[]byte // from chunkBufs
}

// maxKeptDicts bounds dictKeep.
const maxKeptDicts = 8

// put keeps the dictionary page (h, body) of row group i's column col,
// taking body.
func (k *dictKeep) put(i, col int, h pageHeader, body *[]byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.kept) == maxKeptDicts {
		chunkBufs.Put(k.kept[0].body)
		k.kept = k.kept[1:]
	}
	k.kept = append(k.kept, keptDict{i: i, col: col, h: h, body: body})
}

// take returns and forgets the dictionary page kept for row group i's
// column col, if any.
func (k *dictKeep) take(i, col int) (keptDict, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for j, e := range k.kept {
		if e.i == i && e.col == col {
			k.kept = append(k.kept[:j], k.kept[j+1:]...)
			return e, true
		}
	}
	return keptDict{}, false
}

// touchPages reads a byte of every 4 KiB of b and its last, so that a
// mapped file truncated under the reader faults here, in Go code, before
// a codec reads b. The fault is a panic the page decoders recover
// (debug.SetPanicOnFault); raised inside a codec's assembly instead
// (klauspost's s2Decode, whose locals have no stack map), a recovery
// whose handler grew the stack was a fatal "missing stackmap" (about one
// run in ten of the columnar tests, TestMappedTruncated's Snappy chunk).
// A file cut between this read and the codec's can still fault in the
// codec. O(len(b)/4096) loads, into touched (kept, so not elided).
func touchPages(b []byte) {
	if len(b) == 0 {
		return
	}
	var x byte
	for i := 0; i < len(b); i += 4096 {
		x ^= b[i]
	}
	touched.Add(uint32(x ^ b[len(b)-1]))
}

// touched keeps touchPages' loads.
var touched atomic.Uint32
