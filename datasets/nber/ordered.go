package nber

import (
	"context"
	"sync"
	"sync/atomic"
)

// ordered runs produce(i, buf) for i in [0, n) on workers goroutines and passes
// the results to consume in order of i, so the output does not depend on the
// number of workers or on scheduling. At most 2*workers results exist at once;
// their buffers are recycled (produce gets an emptied buffer to append to).
// The first error of consume or of ctx stops everything and is returned.
func ordered(ctx context.Context, n, workers int, produce func(i int, buf []byte) []byte, consume func(i int, out []byte) error) error {
	if workers < 1 {
		workers = 1
	}
	inflight := 2 * workers
	tokens := make(chan struct{}, inflight)
	for range inflight {
		tokens <- struct{}{}
	}
	free := make(chan []byte, inflight)
	results := make([]chan []byte, n)
	for i := range results {
		results[i] = make(chan []byte, 1)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				// A token before an index: indices are handed out in order
				// to token holders, so the lowest unconsumed index always has a
				// running producer.
				select {
				case <-tokens:
				case <-ctx.Done():
					return
				}
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				var buf []byte
				select {
				case buf = <-free:
				default:
				}
				results[i] <- produce(i, buf[:0])
			}
		}()
	}
	var err error
	for i := 0; i < n && err == nil; i++ {
		select {
		case out := <-results[i]:
			err = consume(i, out)
			select {
			case free <- out:
			default:
			}
			tokens <- struct{}{}
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	cancel()
	wg.Wait()
	return err
}
