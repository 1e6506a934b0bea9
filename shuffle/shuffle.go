// Package shuffle is the partitioned, memory-budgeted exchange between the map
// and reduce phases of the join. Records are buffered as Apache Arrow record
// batches (github.com/apache/arrow/go/v15), one stream per partition; when the
// buffered batches exceed the memory budget, the largest partitions spill to
// Arrow IPC files in a temporary folder that Close removes. The bytes a cluster
// would ship are measured exactly: every batch is also encoded as an Arrow IPC
// stream into a counter, spilled or not. It knows nothing of filters or NBER.
//
// Concurrency: a Shuffle is shared; each map goroutine adds records through its
// own Writer. Partition may be called concurrently for different partitions
// after Seal.
package shuffle

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
)

// Record is one map output: the join key, the source tag, the row's order in its
// input (its byte offset) and the row as it will be emitted.
type Record struct {
	Key []byte
	Tag uint8
	Seq int64
	Row []byte
}

// Schema is the Arrow schema of shuffled batches.
var Schema = arrow.NewSchema([]arrow.Field{
	{Name: "key", Type: arrow.BinaryTypes.Binary},
	{Name: "tag", Type: arrow.PrimitiveTypes.Uint8},
	{Name: "seq", Type: arrow.PrimitiveTypes.Int64},
	{Name: "row", Type: arrow.BinaryTypes.Binary},
}, nil)

// Options configures a Shuffle.
type Options struct {
	Partitions int   // reduce partitions, >= 1
	MemBudget  int64 // bytes of buffered batches before spilling; <= 0 means 256 MiB
	TempDir    string
	BatchRows  int // rows per batch; 0 means 8192
}

// Stats counts what went through the shuffle.
type Stats struct {
	Records      int64 // records shuffled
	Bytes        int64 // Arrow IPC stream bytes of every partition (schema, batches, end marker)
	SpilledBytes int64 // IPC bytes written to spill files
	Spills       int64 // spill events
}

type partition struct {
	mem      []arrow.Record // in order of arrival, after the spilled ones
	memBytes int64
	meter    *ipc.Writer // encodes every batch into counter
	counter  *countWriter
	spill    *os.File
	spillW   *ipc.Writer
	spilled  bool
}

// Shuffle buffers the records of every partition.
type Shuffle struct {
	opt    Options
	alloc  memory.Allocator
	mu     sync.Mutex
	parts  []*partition
	memAll int64
	stats  Stats
	dir    string // spill folder, created on first spill
	sealed bool
	closed bool
}

// New returns an empty Shuffle.
func New(opt Options) (*Shuffle, error) {
	if opt.Partitions < 1 {
		return nil, fmt.Errorf("shuffle: %d partitions, want >= 1", opt.Partitions)
	}
	if opt.MemBudget <= 0 {
		opt.MemBudget = 256 << 20
	}
	if opt.BatchRows <= 0 {
		opt.BatchRows = 8192
	}
	s := &Shuffle{opt: opt, alloc: &poolAllocator{}, parts: make([]*partition, opt.Partitions)}
	for i := range s.parts {
		c := &countWriter{}
		s.parts[i] = &partition{counter: c, meter: ipc.NewWriter(c, ipc.WithSchema(Schema), ipc.WithAllocator(s.alloc))}
	}
	return s, nil
}

// Writer buffers one map goroutine's records per partition and hands full
// batches to the Shuffle. Not safe for concurrent use.
type Writer struct {
	s        *Shuffle
	builders []*array.RecordBuilder
}

// NewWriter returns a Writer for one goroutine.
func (s *Shuffle) NewWriter() *Writer {
	w := &Writer{s: s, builders: make([]*array.RecordBuilder, s.opt.Partitions)}
	return w
}

// Add appends r to partition p. The record's bytes are copied.
func (w *Writer) Add(p int, r Record) error {
	b := w.builders[p]
	if b == nil {
		b = array.NewRecordBuilder(w.s.alloc, Schema)
		w.builders[p] = b
	}
	b.Field(0).(*array.BinaryBuilder).Append(r.Key)
	b.Field(1).(*array.Uint8Builder).Append(r.Tag)
	b.Field(2).(*array.Int64Builder).Append(r.Seq)
	b.Field(3).(*array.BinaryBuilder).Append(r.Row)
	if b.Field(1).Len() >= w.s.opt.BatchRows {
		return w.flush(p)
	}
	return nil
}

func (w *Writer) flush(p int) error {
	b := w.builders[p]
	if b == nil || b.Field(1).Len() == 0 {
		return nil
	}
	rec := b.NewRecord()
	return w.s.add(p, rec)
}

// Close hands the remaining records to the Shuffle and releases the builders.
func (w *Writer) Close() error {
	var err error
	for p, b := range w.builders {
		if b == nil {
			continue
		}
		if err == nil {
			err = w.flush(p)
		}
		b.Release()
		w.builders[p] = nil
	}
	return err
}

// recordBytes is the memory held by a batch's buffers: their capacity, which
// the builders grow by doubling, not just their length.
func recordBytes(rec arrow.Record) int64 {
	var n int64
	for _, col := range rec.Columns() {
		for _, buf := range col.Data().Buffers() {
			if buf != nil {
				n += int64(buf.Cap())
			}
		}
	}
	return n
}

// add takes ownership of rec.
func (s *Shuffle) add(p int, rec arrow.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sealed || s.closed {
		rec.Release()
		return errors.New("shuffle: add after Seal or Close")
	}
	part := s.parts[p]
	if err := part.meter.Write(rec); err != nil {
		rec.Release()
		return fmt.Errorf("shuffle: measure batch: %w", err)
	}
	s.stats.Records += rec.NumRows()
	size := recordBytes(rec)
	part.mem = append(part.mem, rec)
	part.memBytes += size
	s.memAll += size
	for s.memAll > s.opt.MemBudget {
		if err := s.spillLargest(); err != nil {
			return err
		}
	}
	return nil
}

// spillLargest writes the partition with the most buffered bytes to its spill
// file and releases its batches. Called with s.mu held.
func (s *Shuffle) spillLargest() error {
	var big *partition
	for _, part := range s.parts {
		if len(part.mem) > 0 && (big == nil || part.memBytes > big.memBytes) {
			big = part
		}
	}
	if big == nil {
		return nil
	}
	if s.dir == "" {
		dir, err := os.MkdirTemp(s.opt.TempDir, "acbfjoin-shuffle-")
		if err != nil {
			return fmt.Errorf("shuffle: spill folder: %w", err)
		}
		s.dir = dir
	}
	if big.spill == nil {
		f, err := os.CreateTemp(s.dir, "part-*.arrow")
		if err != nil {
			return fmt.Errorf("shuffle: spill: %w", err)
		}
		big.spill = f
		big.spillW = ipc.NewWriter(f, ipc.WithSchema(Schema), ipc.WithAllocator(s.alloc))
	}
	for _, rec := range big.mem {
		if err := big.spillW.Write(rec); err != nil {
			return fmt.Errorf("shuffle: spill: %w", err)
		}
		rec.Release()
	}
	s.stats.Spills++
	s.memAll -= big.memBytes
	big.mem, big.memBytes, big.spilled = nil, 0, true
	return nil
}

// Seal ends the map phase: no more Adds. It finishes the IPC streams.
func (s *Shuffle) Seal() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sealed {
		return nil
	}
	s.sealed = true
	for _, part := range s.parts {
		if err := part.meter.Close(); err != nil {
			return err
		}
		s.stats.Bytes += part.counter.n
		if part.spillW != nil {
			if err := part.spillW.Close(); err != nil {
				return fmt.Errorf("shuffle: spill: %w", err)
			}
			st, err := part.spill.Stat()
			if err != nil {
				return err
			}
			s.stats.SpilledBytes += st.Size()
		}
	}
	return nil
}

// Stats returns the counters; Bytes is complete after Seal.
func (s *Shuffle) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// SpillDir returns the spill folder, or "" if nothing spilled.
func (s *Shuffle) SpillDir() string { return s.dir }

// Partition calls fn with every batch of partition p: first the spilled ones,
// read back from the IPC file, then the buffered ones. The batch is valid only
// during the call. Call after Seal.
func (s *Shuffle) Partition(p int, fn func(arrow.Record) error) error {
	s.mu.Lock()
	part := s.parts[p]
	sealed := s.sealed
	s.mu.Unlock()
	if !sealed {
		return errors.New("shuffle: Partition before Seal")
	}
	if part.spill != nil {
		f, err := os.Open(part.spill.Name())
		if err != nil {
			return fmt.Errorf("shuffle: read spill: %w", err)
		}
		defer f.Close()
		rd, err := ipc.NewReader(f, ipc.WithAllocator(s.alloc))
		if err != nil {
			return fmt.Errorf("shuffle: read spill: %w", err)
		}
		defer rd.Release()
		for rd.Next() {
			if err := fn(rd.Record()); err != nil {
				return err
			}
		}
		if err := rd.Err(); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("shuffle: read spill: %w", err)
		}
	}
	for _, rec := range part.mem {
		if err := fn(rec); err != nil {
			return err
		}
	}
	return nil
}

// Release drops partition p's buffered batches once it has been reduced, so
// that memory goes back before the other partitions finish.
func (s *Shuffle) Release(p int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	part := s.parts[p]
	for _, rec := range part.mem {
		rec.Release()
	}
	s.memAll -= part.memBytes
	part.mem, part.memBytes = nil, 0
}

// Close releases every batch and removes the spill folder. Safe to call more
// than once and after errors.
func (s *Shuffle) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	for _, part := range s.parts {
		for _, rec := range part.mem {
			rec.Release()
		}
		part.mem = nil
		if part.spill != nil {
			part.spill.Close()
		}
	}
	if s.dir != "" {
		return os.RemoveAll(s.dir)
	}
	return nil
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}
