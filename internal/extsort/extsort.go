// Package extsort sorts rows too many for memory: an external merge sort
// within a byte budget, for the join's --sort. A row is a key, two int64
// tie-breakers and a line; rows are ordered by key bytes, then the first
// tie-breaker, then the second, so that a caller that makes the order total
// gets the same output whatever the budget or the number of writers.
//
// Each writer fills its own Buffer; a full buffer is sorted and written as a
// run file (its format: per row a uvarint key length and the key, the two
// tie-breakers as varints, a uvarint line length and the line). Merge merges
// the runs in passes of at most FanIn, then the last runs with the buffers
// still in memory, and streams the lines in order.
package extsort

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/acbfjoin/acbfjoin/internal/atomicfile"
)

// Sorter orders rows within a memory budget: each writer fills its own
// Buffer, sorts it and writes it to a run file when it is full, and Merge
// merges the runs and the buffers left in memory (an external merge sort).
//
// Its budget is split evenly: the buffers share half of it, the merge's file
// readers the other half (so at most fanIn runs are merged at once; more runs
// are merged in passes first). Only a single row bigger than a buffer's share
// makes it hold more. Sorting a buffer of n rows is O(n log n); the
// merge is O(N log fanIn) per pass. Buffers are used by one goroutine each;
// the Sorter's methods are safe for concurrent use. Close removes the run
// files, on every path.
type Sorter struct {
	tempDir   string
	bufLimit  int64 // bytes per buffer
	fanIn     int   // runs merged at once
	readerBuf int   // read buffer per run in a merge

	mu   sync.Mutex
	dir  string   // run folder, created on the first run
	runs []string // run files, each sorted
	bufs []*Buffer
	n    int // files created, for their names

	held atomic.Int64 // bytes held by all buffers
	peak atomic.Int64
}

// sortRowOverhead is what a row costs a buffer beyond its bytes: its entry.
const sortRowOverhead = int64(unsafe.Sizeof(sortEnt{}))

// New returns a Sorter that keeps its buffers and merge readers within budget
// bytes for writers Buffers, and writes its runs to a new folder in tempDir
// ("" for the system's), made on the first run.
func New(tempDir string, budget int64, writers int) *Sorter {
	const readerBuf = 16 << 10
	half := budget / 2
	return &Sorter{
		tempDir:   tempDir,
		bufLimit:  max(half/int64(max(writers, 1)), 4<<10),
		fanIn:     int(min(max(half/readerBuf, 2), 256)),
		readerBuf: readerBuf,
	}
}

// Buffer is one writer's buffer of rows: their bytes in an arena (key, then
// the line) and an entry each. It is for one goroutine.
type Buffer struct {
	s     *Sorter
	arena []byte
	ents  []sortEnt
	held  int64 // bytes counted in s.held
	out   int64 // line bytes added
	// oversized: the arena holds one row bigger than the buffer's share; the
	// next spill lets it go.
	oversized bool
}

type sortEnt struct {
	seq, small int64
	off        int
	klen, llen uint32
}

func (b *Buffer) key(e sortEnt) []byte { return b.arena[e.off : e.off+int(e.klen)] }
func (b *Buffer) line(e sortEnt) []byte {
	return b.arena[e.off+int(e.klen) : e.off+int(e.klen)+int(e.llen)]
}

// NewBuffer returns a buffer for one writer.
func (s *Sorter) NewBuffer() *Buffer {
	b := &Buffer{s: s}
	s.mu.Lock()
	s.bufs = append(s.bufs, b)
	s.mu.Unlock()
	return b
}

// Add adds a row: its key, its tie-breakers and its line. It writes a run
// first when the row does not fit. The bytes are copied.
func (b *Buffer) Add(key []byte, seq, small int64, line []byte) error {
	if len(key) > MaxField || len(line) > MaxField {
		return fmt.Errorf("sort: a row of %d key and %d line bytes, beyond the %d a row may have", len(key), len(line), MaxField)
	}
	return b.add(key, seq, small, len(line), line, nil, appendFirst)
}

// appendFirst is add's join of Add: the first part alone.
func appendFirst(dst, a, _ []byte) []byte { return append(dst, a...) }

// AddJoined is Add of the line join(dst, a, b) appends, which must be at
// most len(a)+len(b)+slack bytes (a comma and a line end: 2; a frame of two
// lengths: their uvarints'): the line is written once, into the buffer,
// from its two parts (a joined row's large and key-side halves), not
// assembled first and copied. join should be a function value that
// captures nothing (a closure over the parts would allocate a row). The
// line's own length is held to MaxField, not the bound's (a typed row's
// frame, whose slack is two uvarints' worst, was refused where it fit);
// a line longer than the bound is an error (it would have been written
// past the room made for it).
func (b *Buffer) AddJoined(key []byte, seq, small int64, a, c []byte, slack int, join func(dst, a, b []byte) []byte) error {
	if len(key) > MaxField || len(a)+len(c) > MaxField {
		return fmt.Errorf("sort: a row of %d key and at least %d line bytes, beyond the %d a row may have", len(key), len(a)+len(c), MaxField)
	}
	return b.add(key, seq, small, len(a)+len(c)+slack, a, c, join)
}

// add adds the row of key and the line join appends, of at most most
// bytes.
func (b *Buffer) add(key []byte, seq, small int64, most int, a, c []byte, join func(dst, a, b []byte) []byte) error {
	need := len(key) + most
	if !b.fit(need) {
		if err := b.spill(); err != nil {
			return err
		}
		if !b.fit(need) { // a row bigger than the buffer: hold it alone
			b.arena = make([]byte, 0, need)
			b.ents = slices.Grow(b.ents, 1)
			b.oversized = true
		}
	}
	off := len(b.arena)
	b.arena = join(append(b.arena, key...), a, c)
	n := len(b.arena) - off // the row's bytes, at most need
	if n > need {
		b.arena = b.arena[:off]
		return fmt.Errorf("sort: internal error: a joined line of %d bytes, beyond the %d its parts allow", n-len(key), most)
	}
	if n-len(key) > MaxField {
		b.arena = b.arena[:off]
		return fmt.Errorf("sort: a row of %d key and %d line bytes, beyond the %d a row may have", len(key), n-len(key), MaxField)
	}
	b.ents = append(b.ents, sortEnt{seq: seq, small: small, off: off, klen: uint32(len(key)), llen: uint32(n - len(key))})
	b.out += int64(n - len(key))
	b.account()
	return nil
}

// fit makes room for a row of need bytes, growing the buffer by doubling
// within its limit (three quarters for the bytes, a quarter for the entries),
// and reports whether it fits.
func (b *Buffer) fit(need int) bool {
	arenaLimit := int(b.s.bufLimit * 3 / 4)
	entsLimit := int(b.s.bufLimit / 4 / sortRowOverhead)
	if len(b.arena)+need > cap(b.arena) {
		c := max(2*cap(b.arena), len(b.arena)+need, 4096)
		if c > arenaLimit {
			c = arenaLimit
		}
		if len(b.arena)+need > c {
			return false
		}
		b.arena = append(make([]byte, 0, c), b.arena...) // exactly c: append's growth could pass the limit
	}
	if len(b.ents) == cap(b.ents) {
		c := min(max(2*cap(b.ents), 64), entsLimit)
		if len(b.ents) >= c {
			return false
		}
		b.ents = append(make([]sortEnt, 0, c), b.ents...)
	}
	return true
}

// account records the buffer's capacity in the sorter's totals.
func (b *Buffer) account() {
	now := int64(cap(b.arena)) + int64(cap(b.ents))*sortRowOverhead
	if now == b.held {
		return
	}
	total := b.s.held.Add(now - b.held)
	b.held = now
	for {
		p := b.s.peak.Load()
		if total <= p || b.s.peak.CompareAndSwap(p, total) {
			return
		}
	}
}

func (b *Buffer) sort() {
	slices.SortFunc(b.ents, func(x, y sortEnt) int {
		if c := bytes.Compare(b.key(x), b.key(y)); c != 0 {
			return c
		}
		if c := cmp.Compare(x.seq, y.seq); c != 0 {
			return c
		}
		return cmp.Compare(x.small, y.small)
	})
}

// spill sorts the buffer, writes it as a run file and empties it, keeping its
// memory for the next rows.
func (b *Buffer) spill() error {
	if len(b.ents) == 0 {
		return nil
	}
	b.sort()
	err := b.s.writeRun(func(w *bufio.Writer) error {
		for _, e := range b.ents {
			if err := writeSortRow(w, b.key(e), e.seq, e.small, b.line(e)); err != nil {
				return err
			}
		}
		return nil
	})
	b.arena, b.ents = b.arena[:0], b.ents[:0]
	if b.oversized {
		b.arena, b.oversized = nil, false
		b.account()
	}
	return err
}

// sortRow is a row in a merge: its sort key and line.
type sortRow struct {
	key        []byte
	seq, small int64
	line       []byte
}

func compareSortRows(x, y *sortRow) int {
	if c := bytes.Compare(x.key, y.key); c != 0 {
		return c
	}
	if c := cmp.Compare(x.seq, y.seq); c != 0 {
		return c
	}
	return cmp.Compare(x.small, y.small)
}

// writeSortRow appends a row to a run: uvarint key length, key, varint seq,
// varint small, uvarint line length, line.
func writeSortRow(w *bufio.Writer, key []byte, seq, small int64, line []byte) error {
	// The varints are appended to the writer's own free buffer
	// (AvailableBuffer): a local array handed to Write escaped to the heap,
	// one allocation per row.
	w.Write(binary.AppendUvarint(w.AvailableBuffer(), uint64(len(key))))
	w.Write(key)
	hdr := binary.AppendVarint(w.AvailableBuffer(), seq)
	hdr = binary.AppendVarint(hdr, small)
	w.Write(binary.AppendUvarint(hdr, uint64(len(line))))
	_, err := w.Write(line) // bufio.Writer keeps the first error
	return err
}

// writeRun creates a run file, fills it with fill and records it.
func (s *Sorter) writeRun(fill func(*bufio.Writer) error) error {
	s.mu.Lock()
	if s.dir == "" {
		dir, err := os.MkdirTemp(s.tempDir, atomicfile.TempPrefix()+"sort-")
		if err != nil {
			s.mu.Unlock()
			return fmt.Errorf("sort: run folder: %w", err)
		}
		s.dir = dir
	}
	s.n++
	path := filepath.Join(s.dir, fmt.Sprintf("run-%06d", s.n))
	s.mu.Unlock()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("sort: %w", err)
	}
	w := bufio.NewWriterSize(f, s.readerBuf)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return fmt.Errorf("sort: write run: %w", err)
	}
	s.mu.Lock()
	s.runs = append(s.runs, path)
	s.mu.Unlock()
	return nil
}

// source is a sorted stream of rows: a run file or a buffer in memory.
type source interface {
	next() (*sortRow, error) // nil, nil at the end
}

// MaxField bounds a key or line (64 MiB): Add refuses longer ones, and the
// run reader refuses them, so that a damaged file cannot make it allocate
// without limit. (A CSV side's record is at most 1 MiB, but a Parquet or
// Arrow side's row has no such bound: at 4 MiB a row of a 4 MB text failed
// --sort. The merge holds a run's next row: rows this big cost their
// size once a run open, beyond the budget, as a row bigger than a
// buffer's share always has.)
const MaxField = 64 << 20

type runReader struct {
	path string
	f    *os.File
	r    *bufio.Reader
	row  sortRow
}

func (r *runReader) next() (*sortRow, error) {
	if _, err := r.r.Peek(1); errors.Is(err, io.EOF) {
		return nil, nil
	}
	var err error
	if r.row.key, err = readField(r.r, r.row.key); err == nil {
		if r.row.seq, err = binary.ReadVarint(r.r); err == nil {
			if r.row.small, err = binary.ReadVarint(r.r); err == nil {
				r.row.line, err = readField(r.r, r.row.line)
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("sort: read run %s: %w", r.path, err)
	}
	return &r.row, nil
}

// readField reads a field, its uvarint length then its bytes, into dst[:0],
// growing it as the bytes arrive (64 KiB at a time) so that a damaged length
// costs only what the file holds.
func readField(r *bufio.Reader, dst []byte) ([]byte, error) {
	n64, err := binary.ReadUvarint(r)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return dst[:0], err
	}
	if n64 > MaxField {
		return dst[:0], errors.New("corrupt row")
	}
	n := int(n64)
	dst = dst[:0]
	for len(dst) < n {
		c := min(n-len(dst), 64<<10)
		dst = slices.Grow(dst, c)
		if _, err := io.ReadFull(r, dst[len(dst):len(dst)+c]); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return dst, err
		}
		dst = dst[:len(dst)+c]
	}
	return dst, nil
}

type bufSource struct {
	b   *Buffer
	i   int
	row sortRow
}

func (s *bufSource) next() (*sortRow, error) {
	if s.i == len(s.b.ents) {
		return nil, nil
	}
	e := s.b.ents[s.i]
	s.i++
	s.row = sortRow{key: s.b.key(e), seq: e.seq, small: e.small, line: s.b.line(e)}
	return &s.row, nil
}

// mergeHeap orders the current rows of the sources; ties go to the lower
// source index, which keeps the merge deterministic.
type mergeHeap struct {
	rows []*sortRow
	src  []int
}

func (h *mergeHeap) Len() int { return len(h.rows) }
func (h *mergeHeap) Less(i, j int) bool {
	if c := compareSortRows(h.rows[i], h.rows[j]); c != 0 {
		return c < 0
	}
	return h.src[i] < h.src[j]
}
func (h *mergeHeap) Swap(i, j int) {
	h.rows[i], h.rows[j] = h.rows[j], h.rows[i]
	h.src[i], h.src[j] = h.src[j], h.src[i]
}
func (h *mergeHeap) Push(any) {}
func (h *mergeHeap) Pop() any {
	n := len(h.rows) - 1
	h.rows, h.src = h.rows[:n], h.src[:n]
	return nil
}

// merge streams the rows of srcs in order to emit. It checks ctx every 4096
// rows.
func merge(ctx context.Context, srcs []source, emit func(*sortRow) error) error {
	h := &mergeHeap{}
	for i, s := range srcs {
		row, err := s.next()
		if err != nil {
			return err
		}
		if row != nil {
			h.rows, h.src = append(h.rows, row), append(h.src, i)
		}
	}
	heap.Init(h)
	for n := 0; h.Len() > 0; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := emit(h.rows[0]); err != nil {
			return err
		}
		row, err := srcs[h.src[0]].next()
		if err != nil {
			return err
		}
		if row == nil {
			heap.Pop(h)
		} else {
			h.rows[0] = row
			heap.Fix(h, 0)
		}
	}
	return nil
}

func (s *Sorter) open(path string) (*runReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sort: %w", err)
	}
	return &runReader{path: path, f: f, r: bufio.NewReaderSize(f, s.readerBuf)}, nil
}

// mergeRuns merges runs into one new run file and removes them.
func (s *Sorter) mergeRuns(ctx context.Context, runs []string) error {
	srcs := make([]source, 0, len(runs))
	defer func() {
		for _, src := range srcs {
			src.(*runReader).f.Close()
		}
	}()
	for _, path := range runs {
		r, err := s.open(path)
		if err != nil {
			return err
		}
		srcs = append(srcs, r)
	}
	err := s.writeRun(func(w *bufio.Writer) error {
		return merge(ctx, srcs, func(row *sortRow) error {
			return writeSortRow(w, row.key, row.seq, row.small, row.line)
		})
	})
	if err != nil {
		return err
	}
	for _, path := range runs {
		os.Remove(path)
	}
	return nil
}

// Merge calls emit with every line, in order: it merges runs in passes until
// at most FanIn are left, then merges them with the buffers still in memory.
// Call it once, after the last Add. It checks ctx every 4096 rows. The line
// is valid only during the call.
func (s *Sorter) Merge(ctx context.Context, emit func(line []byte) error) error {
	s.mu.Lock()
	bufs := s.bufs
	s.mu.Unlock()
	for _, b := range bufs {
		b.sort()
	}
	for {
		s.mu.Lock()
		runs := s.runs
		if len(runs) <= s.fanIn {
			s.mu.Unlock()
			break
		}
		// The oldest runs first: the new run goes to the end, so every row
		// is rewritten O(log_fanIn(runs)) times.
		k := min(s.fanIn, len(runs))
		s.runs = slices.Clone(runs[k:])
		s.mu.Unlock()
		if err := s.mergeRuns(ctx, runs[:k]); err != nil {
			return err
		}
	}
	s.mu.Lock()
	runs := slices.Clone(s.runs)
	s.mu.Unlock()
	srcs := make([]source, 0, len(runs)+len(bufs))
	defer func() {
		for _, src := range srcs {
			if r, ok := src.(*runReader); ok {
				r.f.Close()
			}
		}
	}()
	for _, path := range runs {
		r, err := s.open(path)
		if err != nil {
			return err
		}
		srcs = append(srcs, r)
	}
	for _, b := range bufs {
		srcs = append(srcs, &bufSource{b: b})
	}
	return merge(ctx, srcs, func(row *sortRow) error { return emit(row.line) })
}

// Close removes the run files. It is safe to call more than once.
func (s *Sorter) Close() error {
	s.mu.Lock()
	dir := s.dir
	s.dir, s.runs = "", nil
	s.mu.Unlock()
	if dir != "" {
		return os.RemoveAll(dir)
	}
	return nil
}

// OutBytes is the size of the lines added: call it after the last Add.
func (s *Sorter) OutBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for _, b := range s.bufs {
		n += b.out
	}
	return n
}

// PeakBytes is the most memory the buffers held at once.
func (s *Sorter) PeakBytes() int64 { return s.peak.Load() }

// FanIn is how many runs are merged at once.
func (s *Sorter) FanIn() int { return s.fanIn }

// Runs is how many run files are waiting to be merged.
func (s *Sorter) Runs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.runs)
}
