package local

import (
	"context"
	"fmt"
	"sync"

	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/join"
)

// MaxBroadcastBytes is join.MaxBroadcastBytes: the copies of the filter
// the mappers decode share it.
const MaxBroadcastBytes = join.MaxBroadcastBytes

// broadcastLimit is MaxBroadcastBytes; tests lower it.
var broadcastLimit uint64 = MaxBroadcastBytes

// broadcastCopies is how many copies of a filter of size bytes the mappers
// decode: one each while together they fit join.BroadcastLimit of the
// memory budget mem (and broadcastLimit, which tests lower), else as many
// as fit, at least one.
func broadcastCopies(mappers int, size uint64, mem int64) int {
	limit := min(broadcastLimit, uint64(join.BroadcastLimit(mem)))
	if size == 0 || uint64(mappers)*size <= limit {
		return mappers
	}
	return int(max(1, limit/size))
}

// broadcastStats are what the broadcast shipped.
type broadcastStats struct {
	bytes  int64 // the serialized filter
	copies int   // decoded copies
}

// broadcast serializes the filter once and decodes a copy per mapper (as
// many as fit: broadcastCopies), the copies at once, as mappers on their
// machines would (one after another, the exact set of 100,000 keys took
// twice its decode, which --filter auto's model counts once); it returns
// one filter per mapper.
func (x *execution) broadcast(ctx context.Context, built *filters.Built) ([]filters.Filter, broadcastStats, error) {
	wire, err := built.Marshal()
	if err != nil {
		return nil, broadcastStats{}, err
	}
	st := broadcastStats{bytes: int64(len(wire)), copies: broadcastCopies(x.opt.Mappers, built.ResidentBytes(), x.opt.MemBudget)}
	built.Filter = nil // the mappers use the copies: let the original go
	if err := ctx.Err(); err != nil {
		return nil, st, err
	}
	decoded := make([]filters.Filter, st.copies)
	errs := make([]error, st.copies)
	var wg sync.WaitGroup
	for i := range decoded {
		wg.Go(func() { decoded[i], errs[i] = built.Spec.Decode(wire) })
	}
	wg.Wait()
	for _, err := range errs { // the same bytes: the same error, once
		if err != nil {
			return nil, st, fmt.Errorf("broadcast: %w", err)
		}
	}
	copies := make([]filters.Filter, x.opt.Mappers)
	for i := range copies {
		copies[i] = decoded[i%len(decoded)] // shared copies: Contains only reads
	}
	return copies, st, nil
}
