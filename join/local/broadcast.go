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
// decode: one each while together they take at most MaxBroadcastBytes and
// half the memory budget mem (none given: 0), else as many as fit, at
// least one. The copies are outside the budget, but a second copy is the
// one memory a tight budget can do without: the mappers share a copy at
// the same speed (Contains only reads), and at 10^7 keys under --mem
// 64MiB the ACBF's second copy was 45 MB of the map phase's heap.
func broadcastCopies(mappers int, size, mem uint64) int {
	limit := broadcastLimit
	if mem > 0 {
		limit = min(limit, mem/2)
	}
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
	st := broadcastStats{bytes: int64(len(wire)), copies: broadcastCopies(x.opt.Mappers, built.ResidentBytes(), uint64(max(0, x.opt.MemBudget)))}
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
