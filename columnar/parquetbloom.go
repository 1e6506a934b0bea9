package columnar

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"runtime/debug"
	"slices"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/thrift/lib/go/thrift"
	"github.com/cespare/xxhash/v2"

	"github.com/acbfjoin/acbfjoin/key"
)

// A Parquet column chunk may carry a split-block Bloom filter
// (parquet-format's BloomFilter.md; written by DuckDB, Spark, DataFusion,
// arrow-rs): at the chunk's bloom_filter_offset a BloomFilterHeader in
// Thrift's compact protocol (numBytes, and the algorithm, hash and
// compression, unions of one empty struct each: BLOCK, XXHASH,
// UNCOMPRESSED are the only ones defined), then numBytes of bitset, in
// blocks of 256 bits: eight little-endian 32-bit words. A value's hash is
// XXH64 (seed 0) of its PLAIN encoding; its upper 32 bits choose the block,
// its lower 32 bits times each of eight salts, shifted right by 27, the bit
// set in each word. arrow/go v15 reads the offset but not the filter.

// MaxBloomBytes bounds a Bloom filter's bitset: a header that claims more
// (or more than the file holds past it) is treated as no filter, so that
// no allocation follows an untrusted size.
const MaxBloomBytes = 128 << 20

// bloomHeaderBytes is what is read for a filter's header: its four fields
// take about 15 bytes; unknown fields a writer may add, up to this.
const bloomHeaderBytes = 1024

// bloomSalts are the split-block filter's eight salts (BloomFilter.md).
var bloomSalts = [8]uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}

// BloomFilter is the split-block Bloom filter of one Parquet column chunk,
// read whole into memory (its bitset's bytes, one allocation). Its methods only read it:
// safe for concurrent use.
type BloomFilter struct {
	bits []byte // blocks of 32 bytes: eight little-endian words
}

// errNoBloom marks a filter that is absent or not one this reader uses
// (another algorithm, hash or compression); other errors are damage.
var errNoBloom = errors.New("no split-block xxhash Bloom filter")

// readBloom reads the Bloom filter at off of a file of size bytes through
// r: its header (bounded by bloomHeaderBytes), then its bitset, checked
// against MaxBloomBytes and the file's end before anything is allocated
// for it. An error for a filter that is absent, of another kind (wraps
// errNoBloom), or damaged. Cost: one read of up to 1 KiB, one of the
// bitset, and an allocation of its size.
func readBloom(r io.ReaderAt, off, size int64) (*BloomFilter, error) {
	if off < 0 || off >= size {
		return nil, fmt.Errorf("%w: offset %d of a file of %d bytes", errNoBloom, off, size)
	}
	head := make([]byte, min(bloomHeaderBytes, size-off))
	n, err := r.ReadAt(head, off)
	if n < len(head) {
		return nil, fmt.Errorf("reading a Bloom filter's header: %v", err)
	}
	numBytes, used, err := parseBloomHeader(head)
	if err != nil {
		return nil, err
	}
	switch {
	case numBytes <= 0 || numBytes%32 != 0:
		return nil, fmt.Errorf("a Bloom filter of %d bytes (a positive multiple of 32 wanted)", numBytes)
	case numBytes > MaxBloomBytes:
		return nil, fmt.Errorf("a Bloom filter of %d bytes, over the %d this reader takes", numBytes, MaxBloomBytes)
	case int64(numBytes) > size-off-int64(used):
		return nil, fmt.Errorf("a Bloom filter of %d bytes at %d, beyond the file's %d", numBytes, off+int64(used), size)
	}
	bitset := make([]byte, numBytes)
	if n, err := r.ReadAt(bitset, off+int64(used)); n < len(bitset) {
		return nil, fmt.Errorf("reading a Bloom filter's bitset: %v", err)
	}
	return &BloomFilter{bits: bitset}, nil
}

// parseBloomHeader decodes a BloomFilterHeader from the start of head: its
// numBytes and the bytes the header took. Unknown fields are skipped; an
// algorithm, hash or compression other than BLOCK, XXHASH and UNCOMPRESSED
// (or none given) is errNoBloom.
func parseBloomHeader(head []byte) (numBytes int32, used int, err error) {
	cfg := &thrift.TConfiguration{MaxMessageSize: bloomHeaderBytes, MaxFrameSize: bloomHeaderBytes}
	buf := thrift.NewTMemoryBufferLen(len(head))
	buf.Write(head)
	p := thrift.NewTCompactProtocolConf(buf, cfg)
	ctx := context.Background()
	if _, err := p.ReadStructBegin(ctx); err != nil {
		return 0, 0, err
	}
	var seen [5]bool
	for {
		_, typ, id, err := p.ReadFieldBegin(ctx)
		if err != nil {
			return 0, 0, err
		}
		if typ == thrift.STOP {
			break
		}
		switch {
		case id == 1 && typ == thrift.I32:
			if numBytes, err = p.ReadI32(ctx); err != nil {
				return 0, 0, err
			}
			seen[1] = true
		case id >= 2 && id <= 4 && typ == thrift.STRUCT:
			// A union whose one member must be field 1 (an empty struct).
			ok, err := readUnionOne(ctx, p)
			if err != nil {
				return 0, 0, err
			}
			if !ok {
				return 0, 0, fmt.Errorf("%w: field %d is not BLOCK, XXHASH or UNCOMPRESSED", errNoBloom, id)
			}
			seen[id] = true
		default:
			if err := p.Skip(ctx, typ); err != nil {
				return 0, 0, err
			}
		}
		if err := p.ReadFieldEnd(ctx); err != nil {
			return 0, 0, err
		}
	}
	if err := p.ReadStructEnd(ctx); err != nil {
		return 0, 0, err
	}
	if !seen[1] || !seen[2] || !seen[3] || !seen[4] {
		return 0, 0, fmt.Errorf("%w: a header without all of numBytes, algorithm, hash and compression", errNoBloom)
	}
	return numBytes, len(head) - buf.Len(), nil
}

// readUnionOne reads a union of empty structs and reports whether its
// member was field 1 and only it (BLOCK, XXHASH, UNCOMPRESSED in their
// unions).
func readUnionOne(ctx context.Context, p thrift.TProtocol) (bool, error) {
	if _, err := p.ReadStructBegin(ctx); err != nil {
		return false, err
	}
	one, other := false, false
	for {
		_, typ, id, err := p.ReadFieldBegin(ctx)
		if err != nil {
			return false, err
		}
		if typ == thrift.STOP {
			break
		}
		if id == 1 && typ == thrift.STRUCT {
			one = true
		} else {
			other = true
		}
		if err := p.Skip(ctx, typ); err != nil {
			return false, err
		}
		if err := p.ReadFieldEnd(ctx); err != nil {
			return false, err
		}
	}
	return one && !other, p.ReadStructEnd(ctx)
}

// MightContain reports whether the value whose PLAIN encoding is v may be
// in the column chunk (false: it is not). O(len(v)) for the hash, then
// eight word tests in one block.
func (f *BloomFilter) MightContain(v []byte) bool { return f.MightContainHash(xxhash.Sum64(v)) }

// MightContainHash is MightContain of a value whose XXH64 (seed 0) is h
// (BloomHash): the hash of a value probed into many filters is made once.
func (f *BloomFilter) MightContainHash(h uint64) bool {
	blk := (h >> 32) * uint64(len(f.bits)/32) >> 32
	b := f.bits[32*blk : 32*blk+32]
	x := uint32(h)
	for i, s := range bloomSalts {
		if binary.LittleEndian.Uint32(b[4*i:])&(1<<((x*s)>>27)) == 0 {
			return false
		}
	}
	return true
}

// BloomHash is the hash a Bloom filter's probes take of a value's PLAIN
// encoding v: XXH64 with seed 0.
func BloomHash(v []byte) uint64 { return xxhash.Sum64(v) }

// Bytes is the size of the filter's bitset.
func (f *BloomFilter) Bytes() int { return len(f.bits) }

// FPP is the probability that a value not in the column chunk passes the
// filter, from its bits: a value's hash picks a block uniformly and in
// each of its eight words a bit uniformly (the salts are odd), so the rate
// is the blocks' mean of the product of their words' shares of ones. O(its
// bytes).
func (f *BloomFilter) FPP() float64 {
	var sum float64
	for b := 0; b+32 <= len(f.bits); b += 32 {
		p := 1.0
		for w := b; w < b+32; w += 4 {
			p *= float64(bits.OnesCount32(binary.LittleEndian.Uint32(f.bits[w:]))) / 32
		}
		sum += p
	}
	return sum / float64(max(len(f.bits)/32, 1))
}

// bloom is the Bloom filter of column col in row group i, or nil (none, or
// not readable: bloomFilter).
func (p *parquetTable) bloom(i, col int) (f *BloomFilter) {
	defer func() { // damaged metadata that arrow/go panics on: no filter
		if recover() != nil {
			f = nil
		}
	}()
	if p.col[col] == nil {
		return nil
	}
	cc, err := p.r.MetaData().RowGroup(i).ColumnChunk(p.leaves[col][0])
	if err != nil {
		return nil
	}
	off := cc.BloomFilterOffset()
	if off <= 0 {
		return nil
	}
	f, err = readBloom(p.f, off, p.size)
	if err != nil {
		return nil
	}
	return f
}

// nullCount is column col's NULLs in row group i from its statistics; ok
// false without them.
func (p *parquetTable) nullCount(i, col int) (n int64, ok bool) {
	defer func() { // damaged statistics that arrow/go panics on: none
		if recover() != nil {
			n, ok = 0, false
		}
	}()
	if p.col[col] == nil {
		return 0, false
	}
	cc, err := p.r.MetaData().RowGroup(i).ColumnChunk(p.leaves[col][0])
	if err != nil {
		return 0, false
	}
	if set, err := cc.StatsSet(); err != nil || !set {
		return 0, false
	}
	st, err := cc.Statistics()
	if err != nil || st == nil || !st.HasNullCount() {
		return 0, false
	}
	return st.NullCount(), true
}

// bloomHashes are the hashes of keys (key.Of's bytes of type kt) as column
// col's values are hashed: the PLAIN encoding of the value each key
// equals. A key no value of the column can equal (an integer beyond an
// INT32 column's, a negative one in an unsigned column, a string of
// another length than a fixed-length column's) is left out: it cannot
// match. ok false when the column's filters cannot decide for such keys
// (keys compared as text of another type; a decimal, a date, a UUID; a
// UINT64).
func (p *parquetTable) bloomHashes(col int, t Type, kt key.Type, keys [][]byte) (hashes []uint64, ok bool) {
	c := p.col[col]
	if c == nil {
		return nil, false
	}
	var buf [8]byte
	phys := c.PhysicalType()
	switch {
	case kt == key.Int && (t.Kind == Int && (phys == parquet.Types.Int32 || phys == parquet.Types.Int64) || t.Kind == Uint && phys == parquet.Types.Int32):
		// Not a UINT64: its values beyond int64 are errors when read (a
		// key cannot hold them), which a skipped row group would hide.
		for _, k := range keys {
			if len(k) != 8 {
				continue
			}
			v := int64(binary.BigEndian.Uint64(k) ^ 1<<63)
			switch {
			case phys == parquet.Types.Int64 && t.Kind == Int:
				binary.LittleEndian.PutUint64(buf[:], uint64(v))
				hashes = append(hashes, xxhash.Sum64(buf[:8]))
			case t.Kind == Int:
				if v >= math.MinInt32 && v <= math.MaxInt32 {
					binary.LittleEndian.PutUint32(buf[:], uint32(int32(v)))
					hashes = append(hashes, xxhash.Sum64(buf[:4]))
				}
			default: // an unsigned INT32: stored as its 32 bits
				if v >= 0 && v <= math.MaxUint32 {
					binary.LittleEndian.PutUint32(buf[:], uint32(v))
					hashes = append(hashes, xxhash.Sum64(buf[:4]))
				}
			}
		}
		return hashes, true
	case kt == key.String && (t.Kind == String || t.Kind == Binary) && phys == parquet.Types.ByteArray:
		for _, k := range keys {
			hashes = append(hashes, xxhash.Sum64(k))
		}
		return hashes, true
	case kt == key.String && t.Kind == Binary && phys == parquet.Types.FixedLenByteArray:
		for _, k := range keys {
			if len(k) == c.TypeLength() {
				hashes = append(hashes, xxhash.Sum64(k))
			}
		}
		return hashes, true
	}
	return nil, false
}

// HasBloomFilter reports whether chunk i's column col says it has a
// Bloom filter (a Parquet column chunk's metadata: its offset), without
// reading it. O(1).
func (t *Table) HasBloomFilter(i, col int) bool {
	b, j, ok := t.parquetChunk(i)
	if !ok || col < 0 || col >= len(t.Types) || b.pq.col[col] == nil {
		return false
	}
	cc, err := b.pq.r.MetaData().RowGroup(j).ColumnChunk(b.pq.leaves[col][0])
	return err == nil && cc.BloomFilterOffset() > 0
}

// BloomFilter returns the split-block Bloom filter of column col in chunk
// i (a Parquet column chunk's), or nil: none, another algorithm, hash or
// compression, a size over MaxBloomBytes or beyond the file, a damaged
// header; never an error (a filter is an aid: without it the chunk is
// read). Cost: two reads of the file and an allocation of the filter's
// size (DuckDB's: about 1.2 bytes a distinct value). Safe for concurrent
// use.
func (t *Table) BloomFilter(i, col int) *BloomFilter {
	if b, j, ok := t.parquetChunk(i); ok && t.Types[col].Kind != Nested {
		return b.pq.bloom(j, col)
	}
	return nil
}

// BloomHashes returns the hashes to probe column col's Bloom filters
// (BloomFilter) with for keys, key.Of's bytes of type kt: one for each
// key that a value of the column can equal (as the column's values make
// their keys: Column.AppendKey), the others left out (they cannot match).
// ok false when the filters cannot decide for keys of type kt (a column
// whose keys are made from its text, not its values: an integer key in a
// string column; not a Parquet table). O(len(keys)); safe for concurrent
// use.
func (t *Table) BloomHashes(col int, kt key.Type, keys [][]byte) (hashes []uint64, ok bool) {
	if t.Types[col].Kind == Nested {
		return nil, false
	}
	switch b := t.b.(type) {
	case *parquetBackend:
		return b.pq.bloomHashes(col, t.Types[col], kt, keys)
	case *multiBackend: // the files' hashes, if they agree (one physical type)
		for k, p := range b.parts {
			h, ok := p.BloomHashes(col, kt, keys)
			if !ok || k > 0 && !slices.Equal(h, hashes) {
				return nil, false
			}
			hashes = h
		}
		return hashes, true
	}
	return nil, false
}

// BloomValues returns the integer values that hashes (BloomHashes' of
// an integer key, or those of them a Bloom filter passed: BloomPasses)
// stand for in column col of chunk i, as Column.Int64 reads them: XXH64
// of an 8- or 4-byte PLAIN value is inverted (xxh64Inverse8,
// xxh64Inverse4), so the values are exactly the keys whose hashes they
// were. ok false for a column of another type. O(len(hashes)); safe for
// concurrent use.
func (t *Table) BloomValues(i, col int, hashes []uint64, dst []int64) (vals []int64, ok bool) {
	b, _, isPq := t.parquetChunk(i)
	if !isPq || t.Types[col].Kind != Int || b.pq.col[col] == nil {
		return dst, false
	}
	switch b.pq.col[col].PhysicalType() {
	case parquet.Types.Int64:
		for _, h := range hashes {
			dst = append(dst, int64(xxh64Inverse8(h)))
		}
	case parquet.Types.Int32:
		for _, h := range hashes {
			if v, ok := xxh64Inverse4(h); ok {
				dst = append(dst, int64(int32(v)))
			}
		}
	default:
		return dst, false
	}
	return dst, true
}

// NullCount returns the NULLs of column col in chunk i from the file's
// statistics (Parquet); ok false where they are not there. O(1).
func (t *Table) NullCount(i, col int) (int64, bool) {
	if b, j, ok := t.parquetChunk(i); ok && t.Types[col].Kind != Nested {
		return b.pq.nullCount(j, col)
	}
	return 0, false
}

// DictionaryMisses reports that column col of chunk i (a Parquet row
// group) holds none of the values whose PLAIN encodings hash to one of
// hashes (BloomHashes' XXH64): every data page of its column chunk is
// dictionary-encoded, so every value of it is an entry of its dictionary
// page, and no entry hashes to one of them. A row group whose Bloom
// filter passed a key that it does not hold (a false positive: about 20p
// of those holding no key, for 20 keys at the file's rate p) is proven
// keyless so. false is no verdict: no dictionary, a page of another
// encoding (a writer's fallback to PLAIN when the dictionary grew too
// big), a damaged page, an entry hashing to one of hashes (a 64-bit hash
// collision only leaves the row group to be read). Cost: a read and
// decompression of the dictionary page, a hash an entry (a few ns), and
// the data pages' reads where the chunk's metadata cannot say their
// encodings. Safe for concurrent use.
func (t *Table) DictionaryMisses(i, col int, hashes []uint64) bool {
	if b, j, ok := t.parquetChunk(i); ok && t.Types[col].Kind != Nested {
		return b.pq.dictionaryMisses(j, col, hashes)
	}
	return false
}

func (p *parquetTable) dictionaryMisses(i, col int, hashes []uint64) (miss bool) {
	defer func() { // damaged metadata or pages that arrow/go panics on: no verdict
		if recover() != nil {
			miss = false
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // a mapped file truncated: no verdict
	c := p.col[col]
	if c == nil || len(hashes) == 0 {
		return false
	}
	width := 0 // a value's PLAIN bytes; -1: a length and the bytes (BYTE_ARRAY)
	switch c.PhysicalType() {
	case parquet.Types.Int32:
		width = 4
	case parquet.Types.Int64:
		width = 8
	case parquet.Types.FixedLenByteArray:
		width = c.TypeLength()
	case parquet.Types.ByteArray:
		width = -1
	}
	if width == 0 {
		return false
	}
	leaf := p.leaves[col][0]
	rg := p.r.RowGroup(i)
	cc, err := rg.MetaData().ColumnChunk(leaf)
	if err != nil || !cc.HasDictionaryPage() {
		return false
	}
	// Every data page dictionary-encoded, proven: not dictPages' rule,
	// which decides only how to read a chunk (its "PLAIN named twice" is
	// arrow/go's sign of a fallback, not every writer's), where a wrong
	// answer here would skip rows. Said by the encoding statistics
	// (one entry a page type and encoding) where the writer gave them;
	// else by the chunk's encodings where they are PLAIN_DICTIONARY and
	// the levels' RLE and BIT_PACKED only (a dictionary page is PLAIN
	// under format 2.0, which makes a page fallen back to PLAIN look the
	// same: parquet-mr's DictionaryFilter reads the list so, and DuckDB
	// writes no statistics); else by the data pages' own headers, read.
	stats := cc.EncodingStats()
	for _, s := range stats {
		if s.PageType != file.PageTypeDictionaryPage && !dictEncoded(s.Encoding) {
			return false
		}
	}
	proven := len(stats) > 0
	if !proven {
		v1 := false
		proven = true
		for _, e := range cc.Encodings() {
			switch e {
			case parquet.Encodings.PlainDict:
				v1 = true
			case parquet.Encodings.RLE, parquet.Encodings.BitPacked:
			default:
				proven = false
			}
		}
		proven = proven && v1
	}
	// The dictionary page alone where the encodings are proven by the
	// metadata; else the whole chunk, for its data pages' headers.
	part := wholeChunk
	if proven {
		part = dictPageOnly
	}
	pages, err := p.openPagesOf(cc, part)
	if err != nil {
		return false
	}
	defer pages.release()
	h, body, ok, err := pages.next()
	if err != nil || !ok || h.typ != pageDictionary {
		return false
	}
	holds := dictHolds(body, int(h.numValues), width, hashes)
	if pages.intact() != nil {
		return false // read from a file that shrank: no verdict
	}
	if holds {
		// The row group is read next: its dictionary kept for readFixed,
		// where it will read the column.
		if proven && pages.split && pages.page != nil && fixedWidth(c.PhysicalType()) > 0 && !arrowPages && len(body) > 0 && &body[0] == &(*pages.page)[0] {
			*pages.page = (*pages.page)[:len(body)]
			p.dicts.put(i, col, h, pages.page)
			pages.page = nil
		}
		return false
	}
	if proven {
		return true
	}
	datapages := 0
	for {
		h, _, ok, err := pages.next()
		if err != nil {
			return false
		}
		if !ok {
			break
		}
		if !dictEncoded(parquet.Encoding(h.encoding)) {
			return false
		}
		datapages++
	}
	return datapages > 0 && pages.values == pages.total && pages.intact() == nil
}

// dictEncoded says a data page of encoding e holds dictionary indexes.
func dictEncoded(e parquet.Encoding) bool {
	return e == parquet.Encodings.RLEDict || e == parquet.Encodings.PlainDict
}

// dictHolds reports whether a dictionary page's data (n PLAIN values of
// width bytes, or of a 4-byte length and its bytes for width -1) holds a
// value whose XXH64 is one of hashes, or cannot be read whole (true: no
// proof). A fixed 8- or 4-byte value is compared with the values the
// hashes stand for (xxh64Inverse8, xxh64Inverse4: XXH64 of so few bytes
// is invertible), not hashed: an 8-byte compare an entry a hash, where an
// entry's hash took about 2 ns (the 20-key Bloom join's proofs hash 3.3
// million entries); the verdict is the same. O(n) compares or hashes.
func dictHolds(data []byte, n, width int, hashes []uint64) bool {
	switch {
	case width == 8 && len(data) >= 8*n:
		for _, h := range hashes {
			if wordsHold(data[:8*n], xxh64Inverse8(h)) {
				return true
			}
		}
		return false
	case width == 4 && len(data) >= 4*n:
		for _, h := range hashes {
			if v, ok := xxh64Inverse4(h); ok && wordsHold4(data[:4*n], v) {
				return true
			}
		}
		return false
	}
	for range n {
		w := width
		if w < 0 {
			if len(data) < 4 {
				return true
			}
			l := binary.LittleEndian.Uint32(data)
			if uint64(l) > uint64(len(data)-4) {
				return true
			}
			data, w = data[4:], int(l)
		}
		if len(data) < w {
			return true
		}
		if slices.Contains(hashes, xxhash.Sum64(data[:w])) {
			return true
		}
		data = data[w:]
	}
	return false
}

// BloomPasses appends to dst the hashes (BloomHashes') that column col's
// Bloom filter in chunk i passes, and reports whether the chunk has a
// filter to ask (as BloomFilter: false for none, or one not readable). It
// reads only the blocks the hashes fall in, 32 bytes each, where they are
// few against the filter's size and the file is local (a key side of 20
// keys against DuckDB's 128 KiB filters reads 640 bytes a row group, not
// the whole bitset, allocated and copied, and reads the same where many
// hashes would make many reads). Safe for concurrent use.
func (t *Table) BloomPasses(i, col int, hashes, dst []uint64) ([]uint64, bool) {
	if b, j, ok := t.parquetChunk(i); ok && t.Types[col].Kind != Nested {
		return b.pq.bloomPasses(j, col, hashes, dst)
	}
	return dst, false
}

// sparseBloomBytes is the bitset bytes a hash probed must stand for at
// least for a filter to be read a block at a time: a read of 32 bytes
// costs about what a copy of this many does (a system call against
// memory bandwidth). A variable for the tests, which read every filter
// a block at a time.
var sparseBloomBytes int64 = 2048

func (p *parquetTable) bloomPasses(i, col int, hashes, dst []uint64) (_ []uint64, ok bool) {
	defer func() { // damaged metadata that arrow/go panics on: no filter
		if recover() != nil {
			ok = false
		}
	}()
	if p.col[col] == nil {
		return dst, false
	}
	cc, err := p.r.MetaData().RowGroup(i).ColumnChunk(p.leaves[col][0])
	if err != nil {
		return dst, false
	}
	whole := func() ([]uint64, bool) { // the filter read whole (bloom)
		f := p.bloom(i, col)
		if f == nil {
			return dst, false
		}
		for _, h := range hashes {
			if f.MightContainHash(h) {
				dst = append(dst, h)
			}
		}
		return dst, true
	}
	off := cc.BloomFilterOffset()
	_, local := p.f.(*os.File)
	if off <= 0 || off >= p.size || !local {
		return whole()
	}
	var head [bloomHeaderBytes]byte
	n, _ := p.f.ReadAt(head[:min(bloomHeaderBytes, p.size-off)], off)
	numBytes, used, err := parseBloomHeader(head[:n])
	if err != nil || numBytes <= 0 || numBytes%32 != 0 || numBytes > MaxBloomBytes || int64(numBytes) > p.size-off-int64(used) {
		return dst, false // as readBloom refuses it
	}
	if int64(len(hashes))*sparseBloomBytes > int64(numBytes) {
		return whole()
	}
	var blk [32]byte
	f := BloomFilter{bits: blk[:]}
	blocks := uint64(numBytes / 32)
	for _, h := range hashes {
		b := (h >> 32) * blocks >> 32 // MightContainHash's block
		if k, _ := p.f.ReadAt(blk[:], off+int64(used)+32*int64(b)); k < 32 {
			return dst, false
		}
		// The block alone, as a one-block filter: every hash's block in it
		// is block 0, and its bits within the block are the same.
		if f.MightContainHash(h) {
			dst = append(dst, h)
		}
	}
	return dst, true
}

// XXH64's primes (Collet's xxHash, XXH64).
const (
	xxPrime1 uint64 = 11400714785074694791
	xxPrime2 uint64 = 14029467366897019727
	xxPrime3 uint64 = 1609587929392839161
	xxPrime4 uint64 = 9650029242287828579
	xxPrime5 uint64 = 2870177450012600261
)

// xxh64Of8 is XXH64 (seed 0) of the 8 bytes of v, little-endian (an
// INT64's or a DOUBLE's PLAIN value): xxhash.Sum64 of them, unrolled for
// that length (XXH64's short-input path: one 8-byte round, then the
// avalanche), a third of its time a value. TestXXH64Fixed checks it
// against the library.
func xxh64Of8(v uint64) uint64 {
	k := bits.RotateLeft64(v*xxPrime2, 31) * xxPrime1
	h := (xxPrime5 + 8) ^ k
	h = bits.RotateLeft64(h, 27)*xxPrime1 + xxPrime4
	return xxAvalanche(h)
}

// xxh64Of4 is XXH64 (seed 0) of the 4 bytes of v, little-endian (an
// INT32's or a FLOAT's PLAIN value): the 4-byte step, then the avalanche.
func xxh64Of4(v uint32) uint64 {
	h := (xxPrime5 + 4) ^ uint64(v)*xxPrime1
	h = bits.RotateLeft64(h, 23)*xxPrime2 + xxPrime3
	return xxAvalanche(h)
}

// wordsHold reports whether data, little-endian 8-byte words, holds v.
func wordsHold(data []byte, v uint64) bool {
	for ; len(data) >= 8; data = data[8:] {
		if binary.LittleEndian.Uint64(data) == v {
			return true
		}
	}
	return false
}

// wordsHold4 reports whether data, little-endian 4-byte words, holds v.
func wordsHold4(data []byte, v uint32) bool {
	for ; len(data) >= 4; data = data[4:] {
		if binary.LittleEndian.Uint32(data) == v {
			return true
		}
	}
	return false
}

// The inverses of XXH64's primes modulo 2^64 (each is odd). A product
// by one of them undoes a product by its prime.
var (
	xxInv1 = oddInverse(xxPrime1)
	xxInv2 = oddInverse(xxPrime2)
	xxInv3 = oddInverse(xxPrime3)
)

// oddInverse returns the x with p*x = 1 modulo 2^64, for an odd p, by
// Newton's iteration x <- x(2 - px), which doubles the low bits that are
// right: p is its own inverse modulo 8 (3 bits), so 5 steps give 96.
func oddInverse(p uint64) uint64 {
	x := p
	for range 5 {
		x *= 2 - p*x
	}
	return x
}

// xxh64Inverse8 returns the v with xxh64Of8(v) = h: every step of XXH64
// of 8 bytes (products by odd primes, rotations, xors with a constant or
// with the word shifted right) is a bijection of 64-bit words, undone
// here in reverse order. TestXXH64Inverse checks it.
func xxh64Inverse8(h uint64) uint64 {
	h = xxUnavalanche(h)
	h = bits.RotateLeft64((h-xxPrime4)*xxInv1, -27) ^ (xxPrime5 + 8)
	return bits.RotateLeft64(h*xxInv1, -31) * xxInv2
}

// xxh64Inverse4 returns the v with xxh64Of4(v) = h, and false where no
// 4-byte value hashes to h (the 64-bit word the steps give back is over
// 32 bits).
func xxh64Inverse4(h uint64) (uint32, bool) {
	h = xxUnavalanche(h)
	h = bits.RotateLeft64((h-xxPrime3)*xxInv2, -23) ^ (xxPrime5 + 4)
	v := h * xxInv1
	return uint32(v), v <= math.MaxUint32
}

// xxUnavalanche undoes xxAvalanche. A xor with the word shifted right by
// 32 or 33 is its own inverse; by 29, y = x ^ x>>29 gives back
// x = y ^ y>>29 ^ y>>58.
func xxUnavalanche(h uint64) uint64 {
	h ^= h >> 32
	h *= xxInv3
	h ^= h>>29 ^ h>>58
	h *= xxInv2
	return h ^ h>>33
}

// xxAvalanche is XXH64's final mix.
func xxAvalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= xxPrime2
	h ^= h >> 29
	h *= xxPrime3
	return h ^ h>>32
}
