package shuffle

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// batch is one partition's records being written by a Writer, straight
// into the Arrow buffers of Schema's columns: the keys' int32 offsets and
// bytes, the tags, the seqs, the rows' offsets and bytes (a record a tag:
// rows). Through Arrow's record builder Writer.Add took 341-363 ns a
// record (a Reserve, a bounds check and a validity bit a column, every
// buffer zeroed twice), through add 186-241 (BenchmarkWriterAdd). The
// buffers come from the shuffle's allocator, so the budget counts them
// as it counted the builder's, and go to the record that finish makes.
// Not safe for concurrent use.
type batch struct {
	keyOff, keyData []byte
	tags, seqs      []byte
	rowOff, rowData []byte
	// The last finished batch's records and bytes: the next one's
	// buffers start that large, since it is cut by the same rule, and
	// grow no more (growing copied 0.35 s of the 27 s of CPU of a join
	// of 10^7 keys).
	lastN, lastKeyBytes, lastRowLen int
}

// batchStartRows and batchStartBytes are a new batch's first buffers:
// they double as the batch grows.
const (
	batchStartRows  = 64
	batchStartBytes = 4 << 10
)

// grow returns buf with room for need bytes, its len kept: a buffer of
// a's at least twice the capacity, the bytes copied and the old one
// freed, when buf has less. Amortised O(1) a byte.
func grow(a *poolAllocator, buf []byte, need, start int) []byte {
	if need <= cap(buf) { // inlined: the common case, six times a record
		return buf
	}
	return regrow(a, buf, need, start)
}

// regrow is grow's copy into a larger buffer.
func regrow(a *poolAllocator, buf []byte, need, start int) []byte {
	nb := a.allocateDirty(max(need, 2*cap(buf), start))
	nb = nb[:copy(nb[:cap(nb)], buf)]
	if cap(buf) > 0 {
		a.Free(buf)
	}
	return nb
}

// rows is the records added since the last finish.
func (b *batch) rows() int { return len(b.tags) }

// add appends r. O(len(r.Key) + len(r.Row)), amortised.
func (b *batch) add(a *poolAllocator, r Record) {
	n := b.rows()
	rows := max(batchStartRows, b.lastN)
	if len(b.keyOff) == 0 {
		b.keyOff = grow(a, b.keyOff, 4*(rows+1), 0)[:4] // offsets start at 0
		b.rowOff = grow(a, b.rowOff, 4*(rows+1), 0)[:4]
		clear(b.keyOff)
		clear(b.rowOff)
	}
	// Room first, so that the appends below never reallocate.
	b.keyOff = grow(a, b.keyOff, 4*(n+2), 0)
	b.rowOff = grow(a, b.rowOff, 4*(n+2), 0)
	b.tags = grow(a, b.tags, n+1, rows)
	b.seqs = grow(a, b.seqs, 8*(n+1), 8*rows)
	b.keyData = grow(a, b.keyData, len(b.keyData)+len(r.Key), max(batchStartBytes, b.lastKeyBytes))
	b.rowData = grow(a, b.rowData, len(b.rowData)+len(r.Row), max(batchStartBytes, b.lastRowLen))

	b.keyData = append(b.keyData, r.Key...)
	b.keyOff = binary.LittleEndian.AppendUint32(b.keyOff, uint32(len(b.keyData)))
	b.rowData = append(b.rowData, r.Row...)
	b.rowOff = binary.LittleEndian.AppendUint32(b.rowOff, uint32(len(b.rowData)))
	b.tags = append(b.tags, r.Tag)
	b.seqs = binary.LittleEndian.AppendUint64(b.seqs, uint64(r.Seq))
}

// finish hands the records added so far to a new record of Schema (nil
// when there are none) and starts an empty batch: the buffers go to the
// record, which frees them to a when it is released. O(columns).
func (b *batch) finish(a *poolAllocator) arrow.Record {
	n := b.rows()
	if n == 0 {
		return nil
	}
	wrap := func(d []byte) *memory.Buffer {
		if cap(d) == 0 {
			return memory.NewBufferBytes(nil)
		}
		return memory.NewBufferWithAllocator(d, a)
	}
	binCol := func(off, data []byte) arrow.Array {
		bufs := []*memory.Buffer{nil, wrap(off), wrap(data)}
		d := array.NewData(arrow.BinaryTypes.Binary, n, bufs, nil, 0, 0)
		for _, x := range bufs[1:] {
			x.Release()
		}
		defer d.Release()
		return array.NewBinaryData(d)
	}
	fixed := func(t arrow.DataType, data []byte) arrow.Array {
		buf := wrap(data)
		d := array.NewData(t, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
		buf.Release()
		defer d.Release()
		return array.MakeFromData(d)
	}
	cols := []arrow.Array{binCol(b.keyOff, b.keyData), fixed(arrow.PrimitiveTypes.Uint8, b.tags), fixed(arrow.PrimitiveTypes.Int64, b.seqs), binCol(b.rowOff, b.rowData)}
	rec := array.NewRecord(Schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	*b = batch{lastN: n, lastKeyBytes: len(b.keyData), lastRowLen: len(b.rowData)}
	return rec
}

// free gives the buffers of a batch that will not be finished back to a.
func (b *batch) free(a *poolAllocator) {
	for _, buf := range [][]byte{b.keyOff, b.keyData, b.tags, b.seqs, b.rowOff, b.rowData} {
		if cap(buf) > 0 {
			a.Free(buf)
		}
	}
	*b = batch{}
}
