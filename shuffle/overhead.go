package shuffle

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// ipcOverhead is what an Arrow IPC stream of Schema takes beyond its
// records' RecordBytes: the stream's own bytes (its schema message and
// end marker) and a batch's (its message's metadata and the buffers'
// padding), measured once by encoding, as the shuffle encodes its
// batches (batch.add, batch.finish), a stream without a batch and one
// with a batch of one empty record. A batch of many records pads its
// buffers a little more (at most 8 bytes a buffer), which this leaves out.
var ipcOverhead = sync.OnceValues(func() (streamBytes, batchBytes int64) {
	enc := func(batches int) (int64, error) {
		a := newPoolAllocator(0, 1<<20)
		c := &countWriter{}
		w := ipc.NewWriter(c, ipc.WithSchema(Schema), ipc.WithAllocator(a))
		for range batches {
			var b batch
			b.add(a, Record{}, 1<<20)
			rec := b.finish(a)
			err := w.Write(rec)
			rec.Release()
			if err != nil {
				return 0, err
			}
		}
		err := w.Close()
		return c.n, err
	}
	s0, err0 := enc(0)
	s1, err1 := enc(1)
	if err0 != nil || err1 != nil { // an in-memory stream of our own schema: not expected; then no overhead is predicted
		return 0, 0
	}
	return s0, s1 - s0 - RecordBytes(Record{})
})

// FixedBytes is what the shuffle's Stats.Bytes will hold beyond its
// records' RecordBytes when writers writers (the build's and the map's)
// each end a batch in every partition: a stream a partition and a batch
// a writer and partition. The filter's choice predicts the shuffle's
// bytes with it (filters/choose): with 8 partitions it is about 5% of a
// small join's. O(1) after the first call, which encodes two small
// streams; safe for concurrent use.
func (s *Shuffle) FixedBytes(writers int) int64 {
	stream, batch := ipcOverhead()
	return int64(len(s.parts)) * (stream + int64(max(writers, 0))*batch)
}
