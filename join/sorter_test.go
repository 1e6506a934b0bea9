package join

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestSorter: whatever the budget (everything in memory, a few runs, many
// runs merged in passes) and however the rows are spread over the buffers,
// the output is the rows in (key, seq, small) order, the buffers stay within
// their share, and no run file is left.
func TestSorter(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	type row struct {
		key        []byte
		seq, small int64
		large, sm  []byte
	}
	const n = 20000
	rows := make([]row, n)
	for i := range rows {
		rows[i] = row{
			key:   fmt.Appendf(nil, "%d", rng.IntN(500)),
			seq:   int64(rng.IntN(1 << 20)),
			small: int64(i), // unique: the order is total
			large: bytes.Repeat([]byte{'a' + byte(rng.IntN(26))}, rng.IntN(60)),
			sm:    fmt.Appendf(nil, "s%d", i),
		}
	}
	// One row far bigger than the small budgets' buffers.
	huge := 100 << 10
	rows[n/2].large = bytes.Repeat([]byte{'h'}, huge)
	line := func(r row) string { return string(r.large) + "," + string(r.sm) + "\n" }
	want := slices.Clone(rows)
	slices.SortFunc(want, func(a, b row) int {
		return compareSortRows(&sortRow{key: a.key, seq: a.seq, small: a.small}, &sortRow{key: b.key, seq: b.seq, small: b.small})
	})
	var wantOut bytes.Buffer
	for _, r := range want {
		wantOut.WriteString(line(r))
	}
	for _, tc := range []struct {
		budget  int64
		workers int
	}{{1 << 30, 1}, {1 << 30, 3}, {256 << 10, 2}, {32 << 10, 4}, {1, 1}} {
		tmp := t.TempDir()
		s := newSorter(tmp, tc.budget, tc.workers)
		var wg sync.WaitGroup
		errs := make(chan error, tc.workers)
		for w := range tc.workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b := s.newBuf()
				for i := w; i < n; i += tc.workers {
					r := rows[i]
					if err := b.add(r.key, r.seq, r.small, r.large, r.sm); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		runs := len(s.runs)
		var out bytes.Buffer
		if err := s.finish(context.Background(), &out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), wantOut.Bytes()) {
			t.Fatalf("budget %d, %d workers: output differs from the sorted rows", tc.budget, tc.workers)
		}
		// The buffers keep to their half of the budget, but for the one
		// huge row, held alone while it lasts.
		if lim := max(tc.budget/2, 4<<10*int64(tc.workers)) + int64(huge) + 64; s.peakBytes() > lim {
			t.Fatalf("budget %d: buffers held %d bytes, their share is %d plus the huge row", tc.budget, s.peakBytes(), tc.budget/2)
		}
		if tc.budget < 1<<30 && runs == 0 {
			t.Fatalf("budget %d: no run written", tc.budget)
		}
		if err := s.close(); err != nil {
			t.Fatal(err)
		}
		if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
			t.Fatalf("budget %d: %d files left", tc.budget, len(ents))
		}
		t.Logf("budget %d, %d workers: %d runs before the merge, fan-in %d, buffers peak %d bytes", tc.budget, tc.workers, runs, s.fanIn, s.peakBytes())
	}
}

// TestSorterCancel: a cancelled merge stops with the context's error.
func TestSorterCancel(t *testing.T) {
	s := newSorter(t.TempDir(), 8<<10, 1)
	defer s.close()
	b := s.newBuf()
	for i := range 5000 {
		if err := b.add([]byte{byte(i)}, int64(i), 0, []byte("row"), []byte("k")); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.finish(ctx, &bytes.Buffer{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("finish after cancel: %v", err)
	}
}
