package local

import (
	"sync"
	"sync/atomic"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/join/source"
)

// helpBoard lets the mappers of a table side that have no chunk left to
// take help write the survivors of a chunk another mapper is writing:
// the last of a file's few row groups otherwise ran on one core while the
// others waited (vega's flights-3m.parquet, 11 row groups on 2 mappers:
// the last alone for about 25 ms of the map phase's 180), and a file of
// one row group on one core from start to end. The owner of a chunk
// whose survivors are many shares them (rowHelp) when a mapper is idle;
// idle mappers take blocks of them and write them through their own
// shuffle writers, each row with its own sequence number, so the output
// and its order rules are those of one mapper writing them all. One chunk
// is shared at a time. Safe for concurrent use.
type helpBoard struct {
	mu     sync.Mutex
	cond   sync.Cond
	owners int          // mappers still taking chunks (not yet in helpUntilDone)
	idle   int          // mappers in helpUntilDone
	failed bool         // a mapper's chunk failed: the helpers stop waiting
	cur    *rowHelp     // the chunk being shared, or nil
	gen    int64        // counts the chunks shared
	helped atomic.Int64 // rows written by helpers
}

// helpedRows counts every map phase's rows written by helpers, and
// parallelReads the chunks whose columns readColumns read on two
// goroutines (tests).
var helpedRows, parallelReads atomic.Int64

// helpBlock is how many survivors a helper or the owner takes at a time,
// and helpMin the fewest survivors a chunk shares.
const (
	helpBlock = 256
	helpMin   = 4 * helpBlock
)

// newHelpBoard is the board of a map phase of mappers mappers, none idle
// yet. O(1).
func newHelpBoard(mappers int) *helpBoard {
	b := &helpBoard{owners: max(mappers, 1)}
	b.cond.L = &b.mu
	return b
}

// rowHelp is one chunk's survivors being written: the owner's state,
// read-only while shared, and the blocks taken.
type rowHelp struct {
	c        *source.Chunk
	t        *tableMapper // the owner's: surv, skeys, sends, all, native
	sel      []int
	row      func([]byte, []*columnar.Column, int) []byte // the owner's rendering: text rows or typed cells
	unprobed bool                                         // the owner's guard had turned the filter off for the chunk
	next     atomic.Int64
	blocks   int64
	wg       sync.WaitGroup // the helpers registered
	errMu    sync.Mutex
	err      error // a helper's first error
}

// fail says a mapper's chunk failed: helpers waiting for a chunk to share
// stop, as no owner may come to helpUntilDone.
func (b *helpBoard) fail() {
	b.mu.Lock()
	b.failed = true
	b.cond.Broadcast()
	b.mu.Unlock()
}

// share publishes h when a mapper is idle and no chunk is shared, and
// reports whether it did; the owner then calls unshare once its own
// blocks are written.
func (b *helpBoard) share(h *rowHelp) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.idle == 0 || b.cur != nil || b.failed {
		return false
	}
	b.cur = h
	b.gen++
	b.cond.Broadcast()
	return true
}

// unshare takes h off the board and waits for its helpers, returning the
// first error one of them met.
func (b *helpBoard) unshare(h *rowHelp) error {
	b.mu.Lock()
	b.cur = nil
	b.mu.Unlock()
	h.wg.Wait()
	return h.err
}

// helpUntilDone is a mapper's end: it helps write the chunks shared until
// no mapper is taking chunks any more (or one failed).
func (b *helpBoard) helpUntilDone(m *mapWorker) {
	b.mu.Lock()
	b.owners--
	b.idle++
	b.cond.Broadcast()
	var seen int64
	for {
		for (b.cur == nil || b.gen == seen) && b.owners > 0 && !b.failed {
			b.cond.Wait()
		}
		if b.cur == nil || b.gen == seen {
			break
		}
		h := b.cur
		seen = b.gen
		h.wg.Add(1)
		b.mu.Unlock()
		n, err := h.write(m)
		b.helped.Add(n)
		if err != nil {
			h.errMu.Lock()
			if h.err == nil {
				h.err = err
			}
			h.errMu.Unlock()
		}
		h.wg.Done()
		b.mu.Lock()
	}
	b.idle--
	b.mu.Unlock()
}

// write writes blocks of h's survivors through m until none is left, and
// returns how many rows it wrote.
func (h *rowHelp) write(m *mapWorker) (int64, error) {
	t := h.t
	var raw []byte
	if m.tm != nil {
		raw = m.tm.raw
		defer func() { m.tm.raw = raw[:0] }()
	}
	var n int64
	for {
		blk := h.next.Add(1) - 1
		if blk >= h.blocks {
			return n, nil
		}
		lo := int(blk) * helpBlock
		hi := min(lo+helpBlock, len(t.surv))
		var err error
		if raw, err = t.emitSurvivors(m, h.c, h.sel, h.row, lo, hi, raw, h.unprobed); err != nil {
			return n, err
		}
		n += int64(hi - lo)
	}
}

// readColumns is read(cols) of a chunk's columns cols, a column at a time
// on two goroutines, the owner's and one more, when a mapper is idle (b's
// helpUntilDone) and the chunk is a Parquet row group of two columns or
// more to read, whose columns are decoded apart (Table.Read is safe for
// concurrent use); else one read of all of them. The columns come back
// in cols' order; on an error those read are released and the first
// column's error in that order returned. A nil b reads them at once. The
// 4 columns flights-3m.parquet's rows carry beside the key, read at their
// survivors, took about 40 ms of its one row group's 230 ms map phase on
// one core.
func (b *helpBoard) readColumns(c *source.Chunk, cols []int, read func(cols []int) ([]*columnar.Column, error)) ([]*columnar.Column, error) {
	if b == nil || len(cols) < 2 || c.Index < 0 || c.Side.Tab.Format != columnar.Parquet || !b.idleNow() {
		return read(cols)
	}
	parallelReads.Add(1)
	out := make([]*columnar.Column, len(cols))
	errs := make([]error, len(cols))
	var next atomic.Int64
	work := func() {
		for {
			k := int(next.Add(1) - 1)
			if k >= len(cols) {
				return
			}
			part, err := read(cols[k : k+1])
			if err != nil {
				errs[k] = err
				continue
			}
			out[k] = part[0]
		}
	}
	var wg sync.WaitGroup
	wg.Go(work)
	work()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			columnar.ReleaseAll(out)
			return nil, err
		}
	}
	return out, nil
}

// idleNow reports whether a mapper waits in helpUntilDone.
func (b *helpBoard) idleNow() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.idle > 0 && !b.failed
}
