package columnar

import (
	"fmt"
	"runtime/debug"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/klauspost/compress/snappy"
)

// ReadPair reads column col of chunks i and j, as Read(i, []int{col})
// and Read(j, []int{col}) do, the first data page of each decompressed
// with the other's (snappyPair: two Snappy pages in about the time of
// one, bench/parquet-why.md), where both are Parquet row groups of one
// file whose column chunk is an INT64 or DOUBLE (any 8-byte type) of
// PLAIN Snappy-compressed pages without a dictionary, and the process may
// run the assembly (ACBFJOIN_CPU, ACBFJOIN_PAIR=off); nil, nil and nil
// otherwise, with nothing read (the caller reads each with Read). The
// same values or the same error as Read's (TestReadPairSame). Safe for
// concurrent use, as Read.
func (t *Table) ReadPair(i, j, col int) (a, b *Column, err error) {
	if !snappyPairAsm || col < 0 || col >= len(t.Types) {
		return nil, nil, nil
	}
	bi, ii, ok := t.parquetChunk(i)
	bj, jj, ok2 := t.parquetChunk(j)
	if !ok || !ok2 || bi != bj || bi.pq.col[col] == nil {
		return nil, nil, nil
	}
	a, b, err = bi.pq.readFixedPair(ii, jj, col, t.Types[col])
	if err == errNotFixed {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, formatError(bi.t.Name, err) // the file's name, as Read's errors (a part of many files)
	}
	return a, b, nil
}

// PairsPay reports whether ReadPair would decode column col of this
// table's chunks in pairs, as its first chunk says (a reader may then
// take its chunks two at a time). O(1).
func (t *Table) PairsPay(col int) bool {
	if !snappyPairAsm || col < 0 || col >= len(t.Types) || t.Stream() || t.Chunks() < 2 {
		return false
	}
	b, i, ok := t.parquetChunk(0)
	if !ok || b.pq.col[col] == nil {
		return false
	}
	cc, err := b.pq.r.RowGroup(i).MetaData().ColumnChunk(b.pq.leaves[col][0])
	return err == nil && pairable(b.pq.col[col].PhysicalType(), cc)
}

// pairable says a column chunk's pages may be decoded in pairs: 8-byte
// values, Snappy, no dictionary, PLAIN values (levels aside).
func pairable(pt parquet.Type, cc *metadata.ColumnChunkMetaData) bool {
	if fixedWidth(pt) != 8 || cc.Compression() != compress.Codecs.Snappy || cc.HasDictionaryPage() {
		return false
	}
	for _, e := range cc.Encodings() {
		switch e {
		case parquet.Encodings.Plain, parquet.Encodings.RLE, parquet.Encodings.BitPacked:
		default:
			return false
		}
	}
	return true
}

// pairedPages counts the pages snappyPair decoded, for tests.
var pairedPages atomic.Int64

// readFixedPair is readFixed of row groups i and j's column col (no
// sel), their first data pages decompressed together (pairFirst);
// errNotFixed where either chunk is not pairable.
func (p *parquetTable) readFixedPair(i, j, col int, t Type) (a, b *Column, err error) {
	fa, err := p.startFixed(i, col, t, nil)
	if err != nil {
		return nil, nil, err
	}
	defer fa.free()
	fb, err := p.startFixed(j, col, t, nil)
	if err != nil {
		return nil, nil, err
	}
	defer fb.free()
	pt := p.col[col].PhysicalType()
	if !pairable(pt, fa.cc) || !pairable(pt, fb.cc) {
		return nil, nil, errNotFixed
	}
	name := p.col[col].Name()
	at := -1       // the row group whose page is read (pairPages), -1: both at once
	defer func() { // as readFixed: a damaged page is an error, not a panic
		if r := recover(); r != nil {
			which := fmt.Sprintf("row groups %d and %d", i, j)
			if at >= 0 {
				which = fmt.Sprintf("row group %d", at)
			}
			err = fmt.Errorf("%s, column %q: a damaged page: %v", which, name, r)
		}
	}()
	if err := p.pairPages(fa, fb, name, &at); err != nil {
		return nil, nil, err
	}
	if a, err = fa.column(name, t); err != nil {
		return nil, nil, err
	}
	if b, err = fb.column(name, t); err != nil {
		a.Release()
		return nil, nil, err
	}
	return a, b, nil
}

// pairPages is eachPage of two chunks (no dictionary page kept for
// either: pairable chunks have none), their first pages decompressed by
// pairFirst, then each chunk's other pages as eachPage reads them. It
// keeps in *at the row group whose pages it reads (-1 while it reads
// both), so that a fault's panic names the one whose page faulted.
func (p *parquetTable) pairPages(fa, fb *fixedChunk, name string, at *int) error {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	wrap := func(f *fixedChunk, err error) error {
		if err == nil || err == errNotFixed {
			return err
		}
		return fmt.Errorf("row group %d, column %q: %w", f.i, name, err)
	}
	*at = fa.i
	pa, err := p.openPagesOf(fa.cc, wholeChunk)
	if err != nil {
		return wrap(fa, err)
	}
	defer pa.release()
	*at = fb.i
	pb, err := p.openPagesOf(fb.cc, wholeChunk)
	if err != nil {
		return wrap(fb, err)
	}
	defer pb.release()
	pa.into, pb.into = fa.d.place, fb.d.place
	*at = fa.i
	hA, rawA, okA, err := pa.nextRaw()
	if err != nil {
		return wrap(fa, err)
	}
	if okA && pa.mapped != nil {
		touchPages(rawA) // a mapped file cut short faults here, named
	}
	*at = fb.i
	hB, rawB, okB, err := pb.nextRaw()
	if err != nil {
		return wrap(fb, err)
	}
	if okB && pb.mapped != nil {
		touchPages(rawB)
	}
	*at = -1
	var bodyA, bodyB []byte
	var errA, errB error
	if okA && okB {
		bodyA, bodyB, errA, errB = pairFirst(pa, hA, rawA, pb, hB, rawB)
	} else {
		if okA {
			bodyA, errA = pa.decompress(hA, rawA)
		}
		if okB {
			bodyB, errB = pb.decompress(hB, rawB)
		}
	}
	*at = fa.i
	if err := wrap(fa, pa.feed(hA, bodyA, okA, errA, fa.d.page, false)); err != nil {
		return err
	}
	*at = fb.i
	return wrap(fb, pb.feed(hB, bodyB, okB, errB, fb.d.page, false))
}

// pairFirst decompresses the pages (hA, rawA) of a and (hB, rawB) of b,
// as decompress does each: together with snappyPair where both are
// version 1 data pages of Snappy of their headers' lengths, where their
// chunks' into places them (fixedDecoder.place: the column's own memory)
// or else into their page buffers; a pair that does not decode is
// decompressed again a page at a time, by the codec that decompresses
// every other page, whose verdict stands. A mapped file's raw pages are
// touched first (touchPages, by pairPages): a file cut short faults
// there, in Go code, not in the assembly.
func pairFirst(a *chunkPages, hA pageHeader, rawA []byte, b *chunkPages, hB pageHeader, rawB []byte) (bodyA, bodyB []byte, errA, errB error) {
	if !a.snappy || !b.snappy || hA.typ != pageData || hB.typ != pageData ||
		!decodedIs(rawA, hA.uncompressed) || !decodedIs(rawB, hB.uncompressed) {
		bodyA, errA = a.decompress(hA, rawA)
		bodyB, errB = b.decompress(hB, rawB)
		return bodyA, bodyB, errA, errB
	}
	outA, outB := a.outFor(hA), b.outFor(hB)
	if snappyPair(outA, rawA, outB, rawB) == nil {
		pairedPages.Add(2)
		return outA, outB, nil, nil
	}
	bodyA, errA = a.decompressTo(hA, rawA, func(pageHeader) []byte { return outA })
	bodyB, errB = b.decompressTo(hB, rawB, func(pageHeader) []byte { return outB })
	return bodyA, bodyB, errA, errB
}

// outFor is where decompress puts data page h's body: where into places
// it, or the chunk's page buffer.
func (cp *chunkPages) outFor(h pageHeader) []byte {
	if cp.into != nil {
		if out := cp.into(h); out != nil {
			return out
		}
	}
	return cp.pageBuf(int(h.uncompressed))
}

// decodedIs says a Snappy block says it decodes to n bytes.
func decodedIs(raw []byte, n int32) bool {
	m, err := snappy.DecodedLen(raw)
	return err == nil && m == int(n)
}

// PairedPages is the number of pages this process has decoded two at a
// time (ReadPair), for tests and measurements. O(1).
func PairedPages() int64 { return pairedPages.Load() }
