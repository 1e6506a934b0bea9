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
	held            int64 // the buffers' capacities: the allocator's bytes they take
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

// rows is the records added since the last finish.
func (b *batch) rows() int { return len(b.tags) }

// add appends r and reports true; or, when the room r needs would take
// the batch's buffers past limit bytes, it changes nothing and reports
// false, for the caller to finish the batch first. An empty batch takes
// any record. O(len(r.Key) + len(r.Row)), amortised.
func (b *batch) add(a *poolAllocator, r Record, limit int64) bool {
	n := b.rows()
	// Room first, so that the appends below never reallocate. rowOff
	// grows with keyOff, to the same capacity. The common case, a
	// comparison a buffer, stays here; grow is the rare one.
	if 4*(n+2) > cap(b.keyOff) || n+1 > cap(b.tags) || 8*(n+1) > cap(b.seqs) ||
		len(b.keyData)+len(r.Key) > cap(b.keyData) || len(b.rowData)+len(r.Row) > cap(b.rowData) {
		if !b.grow(a, r, limit) {
			return false
		}
	}
	b.keyData = append(b.keyData, r.Key...)
	b.keyOff = binary.LittleEndian.AppendUint32(b.keyOff, uint32(len(b.keyData)))
	b.rowData = append(b.rowData, r.Row...)
	b.rowOff = binary.LittleEndian.AppendUint32(b.rowOff, uint32(len(b.rowData)))
	b.tags = append(b.tags, r.Tag)
	b.seqs = binary.LittleEndian.AppendUint64(b.seqs, uint64(r.Seq))
	return true
}

// grow makes room for r. An empty batch (finish and free leave no
// buffers) gets its first buffers: as large as the last batch's, when
// those with r fit in limit, else just large enough for r. A batch with
// records gets each short buffer copied into one of a's at least twice its
// capacity and the old one freed, unless its buffers would then take more
// than limit: then grow changes nothing and reports false. The old copy
// of a buffer being grown is not held against limit, or a batch's row
// bytes could not double from 4 KiB to 8 KiB beside its 4 KiB of keys in
// MinBudget's 16 KiB share: a Writer grows one buffer at a time, at most
// half the share, and the budget's quarter kept for reuse has room for
// one a writer (see the budget's split in shuffle.go). O(the bytes
// copied).
func (b *batch) grow(a *poolAllocator, r Record, limit int64) bool {
	if n := b.rows(); n > 0 {
		bufs := [...]*[]byte{&b.keyOff, &b.rowOff, &b.tags, &b.seqs, &b.keyData, &b.rowData}
		need := [...]int{4 * (n + 2), 4 * (n + 2), n + 1, 8 * (n + 1), len(b.keyData) + len(r.Key), len(b.rowData) + len(r.Row)}
		// keyData and rowData are nil after a first record without a key
		// or a row; the others never are in a batch with records.
		start := [...]int{0, 0, 0, 0, max(batchStartBytes, b.lastKeyBytes), max(batchStartBytes, b.lastRowLen)}
		var sizes [len(bufs)]int64
		held := b.held
		for i, buf := range bufs {
			if need[i] > cap(*buf) {
				sizes[i] = classBytes(max(need[i], 2*cap(*buf), start[i]))
				held += sizes[i] - int64(cap(*buf))
			}
		}
		if held > limit {
			return false
		}
		for i, buf := range bufs {
			if sizes[i] > 0 {
				nb := a.allocateDirty(int(sizes[i]))
				nb = nb[:copy(nb[:cap(nb)], *buf)]
				if cap(*buf) > 0 {
					a.Free(*buf)
				}
				*buf = nb
			}
		}
		b.held = held
		return true
	}
	rows := max(batchStartRows, b.lastN)
	keys := max(batchStartBytes, b.lastKeyBytes, len(r.Key))
	data := max(batchStartBytes, b.lastRowLen, len(r.Row))
	if 2*classBytes(4*(rows+1))+classBytes(rows)+classBytes(8*rows)+classBytes(keys)+classBytes(data) > limit {
		rows, keys, data = 1, len(r.Key), len(r.Row)
	}
	b.keyOff = b.first(a, 4*(rows+1))[:4] // offsets start at 0
	b.rowOff = b.first(a, 4*(rows+1))[:4]
	clear(b.keyOff)
	clear(b.rowOff)
	b.tags = b.first(a, rows)
	b.seqs = b.first(a, 8*rows)
	b.keyData = b.first(a, keys)
	b.rowData = b.first(a, data)
	return true
}

// first is an empty batch's buffer of size bytes, counted in held.
func (b *batch) first(a *poolAllocator, size int) []byte {
	buf := a.allocateDirty(size)[:0]
	b.held += int64(cap(buf))
	return buf
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
