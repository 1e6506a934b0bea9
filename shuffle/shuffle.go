// Package shuffle is the partitioned, memory-budgeted exchange between the map
// and reduce phases of the join. Records are buffered as Apache Arrow record
// batches (github.com/apache/arrow-go/v18), one stream per partition; when the
// buffered batches exceed their share of the memory budget, the largest
// partition spills to an Arrow IPC file in a temporary folder that Close
// removes, and all of its later batches go straight to that file. Every Arrow
// buffer comes from one counting allocator, so the budget covers the batches
// being built, the buffered ones and the buffers kept for reuse. The bytes a cluster
// would ship are measured exactly: every batch is also encoded as an Arrow IPC
// stream into a counter, spilled or not. It knows nothing of filters or NBER.
//
// Concurrency: a Shuffle is shared; each map goroutine adds records through its
// own Writer; batches of different partitions are measured and spilled in
// parallel, and a Writer whose finished batch finds the budget's half for
// them full waits for the spills in progress to free it. Partition may be
// called concurrently for different partitions after Seal.
package shuffle

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
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
	MemBudget  int64 // bytes of Arrow memory the shuffle may hold, at least MinBudget (the join sets its default)
	Writers    int   // Writers adding at once (the map goroutines); 0 means 1
	TempDir    string
	BatchRows  int // most rows per batch; 0 means 8192
}

// The memory budget is split three ways, and every Arrow buffer the
// shuffle allocates is counted (Stats.PeakBytes) at its size class:
//
//   - a quarter for the batches the Writers are building, a share a builder
//     (a writer's batch of one partition): a batch whose next record would
//     grow its buffers past the share is finished first, so only a batch
//     whose first record alone outgrows it holds more, that record's
//     buffers;
//   - half for finished batches, from the moment one is buffered until its
//     memory is freed (a spilled batch once it is written): a batch that
//     would pass it waits for spills to free room, or spills the largest
//     partition itself;
//   - a quarter for freed buffers kept for reuse, which give way to new
//     buffers rather than pass the budget: it also holds each writer's old
//     copy of a buffer it grows (at most half a share), the IPC encoders'
//     metadata (512 bytes a partition) and, in the reduce, with the
//     builders' quarter, the spill files' batches being read.
//
// So in the map phase the shuffle's Arrow memory stays within MemBudget
// plus, for a builder whose first record alone outgrows its share, that
// record's buffers; in the reduce, with one writer and shares that are not
// powers of two, the spill files' batch bodies (two a partition being read,
// each rounded up to a power of two, up to twice a share) can take it past
// MemBudget too, by up to half of it (29% in TestPeakBoundOneWriter):
// PeakBound states both. Counting a batch at its buffers' lengths, not their
// capacities, and a spilling one as gone when its spill began, let it
// pass the budget by up to 11% at MinBudget(8, 4) (TestPeakBound).
const (
	minBatchBytes = 8 << 10
	maxBatchBytes = 4 << 20
)

// MinBudget is the smallest MemBudget New accepts for the given writers and
// partitions: room for a batch of 8 KiB per writer and partition, twice over
// for the builders' doubling, in the builders' quarter of the budget.
func MinBudget(writers, partitions int) int64 {
	return 8 * int64(max(writers, 1)) * int64(max(partitions, 1)) * minBatchBytes
}

// Stats counts what went through the shuffle.
type Stats struct {
	Records      int64 // records shuffled
	Bytes        int64 // Arrow IPC stream bytes of every partition (schema, batches, end marker)
	SpilledBytes int64 // IPC bytes written to spill files
	Spills       int64 // partitions sent to disk
	PeakBytes    int64 // most Arrow memory held at once (batches, builders, reusable buffers)
}

// partition is one reduce partition's stream. mu orders its batches and guards
// the encoders and the spill file; mem and memBytes change under both mu and
// Shuffle.mu (lock order: partition, then Shuffle), so either lock suffices to
// read them.
type partition struct {
	mu       sync.Mutex
	mem      []arrow.Record // buffered batches, in order of arrival
	memBytes int64
	meter    *ipc.Writer // encodes every batch into counter
	counter  *countWriter
	spill    *os.File
	spillW   *ipc.Writer
	spilled  bool // from now on every batch goes straight to the spill file
}

// Shuffle buffers the records of every partition in memory until its budget
// runs out; then the partition with the most buffered bytes goes to disk, and
// from then on all of its batches are written straight to its spill file, so
// memory stays within the budget however much data follows.
type Shuffle struct {
	opt        Options
	alloc      *poolAllocator
	batchBytes int64 // a Writer's batch is finished at this many bytes
	share      int64 // a builder's buffers take at most this much, bar a single record
	memLimit   int64 // finished batches in memory wait or spill beyond this
	mu         sync.Mutex
	room       sync.Cond // on mu: signalled as spills free memory
	parts      []*partition
	memAll     int64 // finished batches' bytes held: buffered, and being spilled until freed
	spilling   int64 // the part of memAll that spills in progress are freeing
	stats      Stats
	dir        string // spill folder, created on first spill
	sealed     bool
	closed     bool
	added      atomic.Int64 // RecordBytes of every record handed over so far
}

// AddedBytes returns the RecordBytes of every record the writers have handed
// to the Shuffle so far (a Writer's unflushed records excluded): after the
// key side's writers close, its shuffle cost before framing. Safe for
// concurrent use. O(1).
func (s *Shuffle) AddedBytes() int64 { return s.added.Load() }

// New returns an empty Shuffle, or an error if the options are out of range
// (MemBudget below MinBudget among them).
func New(opt Options) (*Shuffle, error) {
	if opt.Partitions < 1 {
		return nil, fmt.Errorf("shuffle: %d partitions, want >= 1", opt.Partitions)
	}
	if opt.Writers <= 0 {
		opt.Writers = 1
	}
	if opt.BatchRows <= 0 {
		opt.BatchRows = 8192
	}
	if min := MinBudget(opt.Writers, opt.Partitions); opt.MemBudget < min {
		return nil, fmt.Errorf("shuffle: memory budget of %d bytes is below the minimum of %d for %d writers and %d partitions",
			opt.MemBudget, min, opt.Writers, opt.Partitions)
	}
	builders := int64(opt.Writers) * int64(opt.Partitions)
	s := &Shuffle{
		opt:        opt,
		alloc:      newPoolAllocator(opt.MemBudget/4, opt.MemBudget),
		batchBytes: min(opt.MemBudget/(8*builders), maxBatchBytes),
		share:      opt.MemBudget / (4 * builders),
		memLimit:   opt.MemBudget / 2,
		parts:      make([]*partition, opt.Partitions),
	}
	s.room.L = &s.mu
	for i := range s.parts {
		c := &countWriter{}
		s.parts[i] = &partition{counter: c, meter: ipc.NewWriter(c, ipc.WithSchema(Schema), ipc.WithAllocator(s.alloc))}
	}
	return s, nil
}

// Writer buffers one map goroutine's records per partition and hands finished
// batches to the Shuffle. Not safe for concurrent use.
type Writer struct {
	s       *Shuffle
	batches []batch
	bytes   []int64 // RecordBytes of each partition's batch
}

// NewWriter returns a Writer for one goroutine.
func (s *Shuffle) NewWriter() *Writer {
	return &Writer{s: s, batches: make([]batch, s.opt.Partitions), bytes: make([]int64, s.opt.Partitions)}
}

// MaxRecordBytes is the longest key plus row a record may carry (1 GiB):
// a batch is cut once it passes at most 4 MiB, so its offsets, Arrow's
// int32s, never overflow.
const MaxRecordBytes = 1 << 30

// Add appends r to partition p. The record's bytes are copied. O(len(r)),
// plus the cost of a batch when this one fills it or r would grow it past
// its share of the budget (which may wait for spills, see Shuffle). A
// record longer than MaxRecordBytes is an error, and nothing is added.
func (w *Writer) Add(p int, r Record) error {
	if n := len(r.Key) + len(r.Row); n > MaxRecordBytes {
		return fmt.Errorf("shuffle: a record of %d bytes (key and row), at most %d", n, MaxRecordBytes)
	}
	b := &w.batches[p]
	if !b.add(w.s.alloc, r, w.s.share) {
		// r would grow the batch past its share of the budget: the batch
		// goes first, and r starts the next, which takes any record.
		if err := w.flush(p); err != nil {
			return err
		}
		b.add(w.s.alloc, r, w.s.share)
	}
	w.bytes[p] += RecordBytes(r)
	if b.rows() >= w.s.opt.BatchRows || w.bytes[p] >= w.s.batchBytes {
		return w.flush(p)
	}
	return nil
}

func (w *Writer) flush(p int) error {
	rec := w.batches[p].finish(w.s.alloc)
	if rec == nil {
		return nil
	}
	w.s.added.Add(w.bytes[p])
	w.bytes[p] = 0
	return w.s.add(p, rec)
}

// Close hands the remaining records to the Shuffle and releases the
// batches' buffers.
func (w *Writer) Close() error {
	var err error
	for p := range w.batches {
		if err == nil {
			err = w.flush(p)
		}
		w.batches[p].free(w.s.alloc)
	}
	return err
}

// RecordBytes is what a record adds to the Arrow IPC body of its batch: its
// key and row bytes with their 4-byte offsets, the tag's byte and the seq's 8
// (buffers of columns without nulls carry no validity bitmap). The one
// definition of a record's shuffle cost: the writers cut batches by it, and
// the join counts the records its filter dropped by it.
func RecordBytes(r Record) int64 { return int64(len(r.Key)+len(r.Row)) + 4 + 4 + 1 + 8 }

// recordBytes is the memory held by a batch's buffers: the capacity of
// each, its size class in the allocator, which covers the builders'
// doubling and the allocator's rounding, not just the bytes in use. Not
// memory.Buffer.Cap, which is the slice's length: by that a batch of 60
// records of an 8-byte key and a 120-byte row was counted at 9,792 of its
// 13,888 bytes. O(columns).
func recordBytes(rec arrow.Record) int64 {
	var n int64
	for _, col := range rec.Columns() {
		for _, buf := range col.Data().Buffers() {
			if buf != nil {
				n += int64(cap(buf.Buf()))
			}
		}
	}
	return n
}

// add takes ownership of rec: it measures it, then buffers it, once the
// finished batches have room for it, or, if the partition has spilled,
// writes it to the spill file. Until it returns rec's memory is its
// builder's: the Writer builds nothing meanwhile.
func (s *Shuffle) add(p int, rec arrow.Record) error {
	defer rec.Release()
	part := s.parts[p]
	size := recordBytes(rec)
	part.mu.Lock()
	for {
		s.mu.Lock()
		if s.sealed || s.closed {
			s.mu.Unlock()
			part.mu.Unlock()
			return errors.New("shuffle: add after Seal or Close")
		}
		if part.spilled {
			break
		}
		if s.memAll+size <= s.memLimit {
			rec.Retain()
			part.mem = append(part.mem, rec)
			part.memBytes += size
			s.memAll += size
			break
		}
		// No room: make some without holding part, which spill takes,
		// then look again (another writer may take it first).
		s.mu.Unlock()
		part.mu.Unlock()
		if err := s.makeRoom(part, size); err != nil {
			return err
		}
		part.mu.Lock()
	}
	s.stats.Records += rec.NumRows()
	s.mu.Unlock()
	defer part.mu.Unlock()
	if err := part.meter.Write(rec); err != nil {
		return fmt.Errorf("shuffle: measure batch: %w", err)
	}
	if !part.spilled {
		return nil
	}
	if part.spillW == nil {
		return errors.New("shuffle: spill file missing after an earlier failure")
	}
	if err := part.spillW.Write(rec); err != nil {
		return fmt.Errorf("shuffle: spill: %w", err)
	}
	return nil
}

// makeRoom returns once part has spilled or the finished batches have
// room for size more bytes: while the batches buffered (those being
// spilled aside) leave no room, it spills the largest partition, part
// counted with its new batch; while they do, it waits for the spills in
// progress to free their batches. Called with no lock held; O(partitions)
// a spill, plus the spills' writes.
func (s *Shuffle) makeRoom(part *partition, size int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for !part.spilled && s.memAll+size > s.memLimit {
		if s.closed {
			return errors.New("shuffle: add after Close")
		}
		if s.memAll-s.spilling+size <= s.memLimit {
			s.room.Wait() // spills in progress will free enough
			continue
		}
		big, most := part, part.memBytes+size
		for _, q := range s.parts {
			if !q.spilled && q.memBytes > most {
				big, most = q, q.memBytes
			}
		}
		s.mu.Unlock()
		err := s.spill(big)
		s.mu.Lock()
		if err != nil {
			return err
		}
	}
	return nil
}

// spill writes part's buffered batches to its new spill file, freeing
// each once written, and marks it spilled. Another goroutine may have done
// so first: then it does nothing. O(the buffered bytes) of writes.
func (s *Shuffle) spill(part *partition) error {
	part.mu.Lock()
	defer part.mu.Unlock()
	if part.spilled {
		return nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errors.New("shuffle: spill after Close")
	}
	if s.dir == "" {
		dir, err := os.MkdirTemp(s.opt.TempDir, atomicfile.TempPrefix()+"shuffle-")
		if err != nil {
			s.mu.Unlock()
			return fmt.Errorf("shuffle: spill folder: %w", err)
		}
		s.dir = dir
	}
	dir := s.dir
	recs := part.mem
	// The batches stay in memAll until they are freed, as spilling.
	s.spilling += part.memBytes
	part.mem, part.memBytes, part.spilled = nil, 0, true
	s.stats.Spills++
	s.mu.Unlock()
	next := 0
	defer func() { // after an error too
		for _, rec := range recs[next:] {
			s.free(rec)
		}
	}()
	f, err := os.CreateTemp(dir, "part-*.arrow")
	if err != nil {
		return fmt.Errorf("shuffle: spill: %w", err)
	}
	part.spill = f
	part.spillW = ipc.NewWriter(f, ipc.WithSchema(Schema), ipc.WithAllocator(s.alloc))
	for _, rec := range recs {
		err := part.spillW.Write(rec)
		next++
		s.free(rec)
		if err != nil {
			return fmt.Errorf("shuffle: spill: %w", err)
		}
	}
	return nil
}

// free releases a batch that was being spilled and wakes the writers
// waiting for room. O(columns).
func (s *Shuffle) free(rec arrow.Record) {
	size := recordBytes(rec)
	rec.Release()
	s.mu.Lock()
	s.memAll -= size
	s.spilling -= size
	s.room.Broadcast()
	s.mu.Unlock()
}

// Shrink gives back the memory the shuffle holds between its writers'
// work, for a caller about to need it elsewhere (the join, before it builds
// the filter of a large key side): with spill, every partition's buffered
// batches go to disk (and the partition's later batches with them, as a
// partition that spilled by the budget does); then the buffers kept for
// reuse go to the collector. The records are unchanged. O(the buffered
// bytes) of writes with spill; safe for concurrent use, but meant for a
// moment when no Writer is adding.
func (s *Shuffle) Shrink(spill bool) error {
	if spill {
		for _, part := range s.parts {
			s.mu.Lock()
			buffered := !part.spilled && part.memBytes > 0
			s.mu.Unlock()
			if buffered {
				if err := s.spill(part); err != nil {
					return err
				}
			}
		}
	}
	s.alloc.drop()
	return nil
}

// Seal ends the map phase: no more Adds. It finishes the IPC streams. Call it
// after every Writer is closed.
func (s *Shuffle) Seal() error {
	s.mu.Lock()
	if s.sealed {
		s.mu.Unlock()
		return nil
	}
	s.sealed = true
	s.mu.Unlock()
	for _, part := range s.parts {
		part.mu.Lock()
		err := s.sealPartition(part)
		part.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Shuffle) sealPartition(part *partition) error {
	if err := part.meter.Close(); err != nil {
		return err
	}
	s.mu.Lock()
	s.stats.Bytes += part.counter.n
	s.mu.Unlock()
	if part.spillW == nil {
		return nil
	}
	if err := part.spillW.Close(); err != nil {
		return fmt.Errorf("shuffle: spill: %w", err)
	}
	st, err := part.spill.Stat()
	if err != nil {
		return fmt.Errorf("shuffle: spill: %w", err)
	}
	s.mu.Lock()
	s.stats.SpilledBytes += st.Size()
	s.mu.Unlock()
	return nil
}

// Stats returns the counters; Bytes and SpilledBytes are complete after Seal,
// PeakBytes covers the reduce too once it has read the partitions.
func (s *Shuffle) Stats() Stats {
	s.mu.Lock()
	st := s.stats
	s.mu.Unlock()
	st.PeakBytes = s.alloc.peakBytes()
	return st
}

// SpillDir returns the spill folder, or "" if nothing spilled.
func (s *Shuffle) SpillDir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dir
}

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
	part := s.parts[p]
	part.mu.Lock()
	defer part.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, rec := range part.mem {
		rec.Release()
	}
	s.memAll -= part.memBytes
	part.mem, part.memBytes = nil, 0
}

// Close releases every batch and removes the spill folder. Safe to call more
// than once and after errors; it waits for a spill in progress.
func (s *Shuffle) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	for p, part := range s.parts {
		s.Release(p)
		part.mu.Lock()
		if part.spill != nil {
			part.spill.Close()
		}
		part.mu.Unlock()
	}
	if dir := s.SpillDir(); dir != "" {
		return os.RemoveAll(dir)
	}
	return nil
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// PeakBound is the most Arrow memory (Stats.PeakBytes) a Shuffle of opt
// holds, map and reduce, when no record's key and row together are longer
// than longest bytes. In the map phase that is MemBudget, plus, for each
// builder (a writer's batch of one partition) whose first record alone
// outgrows its share, the buffers past the share: the record's key and
// row, each rounded up to a power of two (at most twice its bytes, plus
// 62), and four of 64 bytes. In the reduce it is the finished batches'
// half of the budget plus, for each partition, the two batch bodies
// Arrow's IPC reader holds at once (the one it reads and the last), each
// at most the smaller of a batch's buffers and its content (records up to
// the batch size, one record more, and 50 bytes of offsets and padding)
// rounded up to a power of two: within the budget when no record outgrows
// a share and there are two writers or more, or the shares are powers of
// two, as MinBudget's are. O(1); safe for concurrent use.
func PeakBound(opt Options, longest int64) int64 {
	w, p := int64(max(opt.Writers, 1)), int64(max(opt.Partitions, 1))
	share := opt.MemBudget / (4 * w * p)
	batch := min(opt.MemBudget/(8*w*p), maxBatchBytes)
	one := 2*longest + 384 // a builder holding a single record
	mapPeak := opt.MemBudget + w*p*max(0, one-share)
	body := min(max(share, one), batch+RecordBytes(Record{})+longest+50)
	reducePeak := opt.MemBudget/2 + 2*p*classBytes(int(body))
	return max(mapPeak, reducePeak)
}
