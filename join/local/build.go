package local

import (
	"context"
	"fmt"
	"sync"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/shuffle"
)

// buildStats are what the build phase counted.
type buildStats struct {
	records  int64 // key-side rows
	distinct int   // distinct keys
}

// build reads the key side with one goroutine per mapper: each keeps the
// distinct keys of its parts in a local table and ships its key-side rows,
// tagged TagKeys, to the shuffle; the tables merge by union into the key set.
func (x *execution) build(ctx context.Context) ([][]byte, buildStats, error) {
	type worker struct {
		keys map[string]struct{}
		w    *shuffle.Writer
		rows int64
		buf  []byte
	}
	var mu sync.Mutex
	global := map[string]struct{}{}
	var st buildStats
	stop := x.progress("build", x.keys.in.Progress, x.keys.size)
	err := scan(ctx, x.keys, x.opt.Mappers, func() *worker {
		return &worker{keys: map[string]struct{}{}, w: x.sh.NewWriter()}
	}, func(b *worker, r *csvscan.Reader) error {
		for n := 1; r.Next(); n++ {
			if n%checkEvery == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			rec, buf, err := join.MapKeyRow(x.opt.KeyType, r.Fields(), x.keyIdx, r.Offset(), b.buf[:0])
			if err != nil {
				if err := x.keyError(r, x.opt.KeyCol, err); err != nil {
					return err
				}
				continue
			}
			b.buf = buf
			b.rows++
			if _, ok := b.keys[string(rec.Key)]; !ok {
				b.keys[string(rec.Key)] = struct{}{}
			}
			if err := b.w.Add(join.Partition(rec.Key, x.opt.Reducers), rec); err != nil {
				return err
			}
		}
		return r.Err()
	}, func(b *worker) error {
		mu.Lock()
		for k := range b.keys {
			global[k] = struct{}{}
		}
		st.records += b.rows
		mu.Unlock()
		return b.w.Close()
	})
	stop()
	if err != nil {
		return nil, st, err
	}
	keys := make([][]byte, 0, len(global))
	for k := range global {
		keys = append(keys, []byte(k))
	}
	st.distinct = len(keys)
	return keys, st, nil
}

// filter builds the filter of the key set, or reads the filter file and
// checks it was built for this join and these keys.
func (x *execution) filter(ctx context.Context, keys [][]byte) (*filters.Built, error) {
	if x.opt.FilterFile != "" {
		ff, name, err := readFilterFile(ctx, x.opt.FilterFile)
		if err != nil {
			return nil, err
		}
		if err := ff.Check(name, x.opt, keys); err != nil {
			return nil, err
		}
		return ff.Built, nil
	}
	sp, err := filters.Lookup(string(x.opt.Filter))
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 && sp.Sized {
		return nil, fmt.Errorf("%s: no keys (a header and no rows): a %s filter cannot be sized for none; the exact or none filter gives the empty join", x.keys.name, x.opt.Filter)
	}
	return filters.Build(x.opt.Filter, keys, x.opt.Sizing)
}
