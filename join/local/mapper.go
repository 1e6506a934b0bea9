package local

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// mapStats are what the map phase counted.
type mapStats struct {
	records int64 // large-side rows read (bad rows skipped not counted)
	output  int64 // rows the filter let through
	// droppedBytes is what the dropped rows would have added to the
	// shuffle's batches (shuffle.RecordBytes each).
	droppedBytes int64
}

// mapInput reads the large side with one goroutine per mapper, each with its
// filter copy: every row's join key is tested (join.MapInputRow) and the
// survivors, tagged TagInput, go to their partition of the shuffle.
func (x *execution) mapInput(ctx context.Context, copies []filters.Filter) (mapStats, error) {
	type worker struct {
		f                              filters.Filter
		w                              *shuffle.Writer
		rows, out, dropRows, dropBytes int64
		kb                             [8]byte
	}
	var mu sync.Mutex
	var st mapStats
	var next atomic.Int32
	stop := x.progress("map", x.input.in.Progress, x.input.size)
	err := scan(ctx, x.input, x.opt.Mappers, func() *worker {
		return &worker{f: copies[int(next.Add(1)-1)%len(copies)], w: x.sh.NewWriter()}
	}, func(m *worker, r *csvscan.Reader) error {
		for r.Next() {
			if m.rows++; m.rows%checkEvery == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			rec, ok, err := join.MapInputRow(m.f, x.opt.KeyType, r.Fields(), r.Raw(), x.joinIdx, r.Offset(), m.kb[:])
			if err != nil {
				if err := x.keyError(r, x.opt.JoinCol, err); err != nil {
					return err
				}
				m.rows--
				continue
			}
			if !ok {
				// What the row would have cost the shuffle, without reading
				// rec (copying the 11-word result out of its stack slot on
				// this path cost 8% of the map phase): its row's and key's
				// bytes here, the per-record rest below.
				m.dropRows++
				m.dropBytes += int64(len(r.Raw()))
				if x.opt.KeyType == join.StringKeys {
					m.dropBytes += int64(len(r.Fields()[x.joinIdx]))
				}
				continue
			}
			m.out++
			if err := m.w.Add(join.Partition(rec.Key, x.opt.Reducers), rec); err != nil {
				return err
			}
		}
		return r.Err()
	}, func(m *worker) error {
		mu.Lock()
		st.records += m.rows
		st.output += m.out
		// shuffle.RecordBytes of each dropped row, summed: its row and key
		// bytes, and an empty record's cost, plus IntKey's 8 bytes with
		// integer keys.
		perRow := shuffle.RecordBytes(shuffle.Record{})
		if x.opt.KeyType == join.IntKeys {
			perRow += int64(len(m.kb))
		}
		st.droppedBytes += m.dropBytes + m.dropRows*perRow
		mu.Unlock()
		return m.w.Close()
	})
	stop()
	return st, err
}

// seal ends the shuffle's writing: every partition's stream is complete and
// its bytes counted.
func (x *execution) seal() (shuffle.Stats, error) {
	if err := x.sh.Seal(); err != nil {
		return shuffle.Stats{}, err
	}
	return x.sh.Stats(), nil
}
