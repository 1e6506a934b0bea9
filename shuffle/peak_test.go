package shuffle

import (
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestPeakBound: 8 writers adding at once to 4 partitions at the
// smallest budget, records of varied lengths (keys of at most 8 bytes, so
// that a batch's 4 KiB of keys is mostly empty; rows mostly short, some
// up to the round's longest, past a builder's share in a third of the
// rounds), then the partitions read back by 4 readers at once: the Arrow
// memory held never passes PeakBound, however the goroutines interleave.
// On the code that counted buffered batches at their buffers' lengths and
// spilling ones as gone, about half the rounds passed it, by up to 11%.
// Each round logs its seed (replay one with ACBFJOIN_SEED=seed and -run
// TestPeakBound).
func TestPeakBound(t *testing.T) {
	const writers, parts = 8, 4
	seed := testutil.Seed(t)
	for round := range uint64(testutil.RaceSize(24, 4)) {
		rs := seed + round
		longest := []int{200, 3000, 20000}[rs%3] // of the seed, for a replay
		opt := Options{Partitions: parts, Writers: writers, MemBudget: MinBudget(writers, parts), TempDir: t.TempDir()}
		s, err := New(opt)
		if err != nil {
			t.Fatal(err)
		}
		// Each writer's records, drawn before the writers start so that the
		// round depends on its seed alone: about 4 budgets' worth in all.
		recs := make([][]Record, writers)
		var most, total int64
		rng := testutil.Rand(rs)
		for w := range recs {
			for total < int64(w+1)*4*opt.MemBudget/writers {
				key := make([]byte, rng.IntN(9))
				n := 40 + rng.IntN(200)
				if rng.IntN(50) == 0 {
					n = rng.IntN(longest - len(key) + 1)
				}
				row := make([]byte, n)
				for i := range row {
					row[i] = byte(i)
				}
				r := Record{Key: key, Tag: uint8(w), Seq: int64(len(recs[w])), Row: row}
				recs[w] = append(recs[w], r)
				most = max(most, int64(len(key)+len(row)))
				total += RecordBytes(r)
			}
		}
		addConcurrently(t, s, writers, func(w int, wr *Writer) error {
			for i, r := range recs[w] {
				if err := wr.Add((w+i)%parts, r); err != nil {
					return err
				}
			}
			return nil
		})
		var wg sync.WaitGroup
		var back [parts]int
		for p := range parts {
			wg.Go(func() {
				if err := s.Partition(p, func(rec arrow.Record) error { back[p] += int(rec.NumRows()); return nil }); err != nil {
					t.Error(err)
				}
				s.Release(p)
			})
		}
		wg.Wait()
		st := s.Stats()
		n := 0
		for w := range recs {
			n += len(recs[w])
		}
		if got := back[0] + back[1] + back[2] + back[3]; got != n || st.Spills == 0 {
			t.Fatalf("round %d (seed %d): %d records back of %d, %d spills", round, rs, got, n, st.Spills)
		}
		bound := PeakBound(opt, most)
		t.Logf("round %d (seed %d): longest record %d bytes, peak %d, bound %d (budget %d), %d spills", round, rs, most, st.PeakBytes, bound, opt.MemBudget, st.Spills)
		if st.PeakBytes > bound {
			t.Errorf("round %d (seed %d): peak Arrow memory %d bytes, past the bound %d by %d (budget %d, longest record %d bytes)",
				round, rs, st.PeakBytes, bound, st.PeakBytes-bound, opt.MemBudget, most)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBatchHeld: a batch's buffers, as the allocator counts them, are
// what it holds (held), then what recordBytes counts for its record,
// and freed with it; they pass the limit only for a first record that
// alone outgrows it, by at most that record's buffers (PeakBound's), and
// add refuses, changing nothing, a record that would grow a batch of
// records past it. Records of every shape: empty keys and rows, and rows
// past the first buffers and the limit.
func TestBatchHeld(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	const limit = 16 << 10
	a := newPoolAllocator(0, 1<<30)
	var b batch
	var refused, single int
	var first int64 // PeakBound's bound of the batch's first record alone
	for i := range 20000 {
		key := make([]byte, rng.IntN(24))
		row := make([]byte, []int{0, 5, 100, 3000, 9000}[rng.IntN(5)])
		r := Record{Key: key, Seq: int64(i), Row: row}
		n, held := b.rows(), b.held
		if n == 0 {
			first = 2*int64(len(key)+len(row)) + 384
		}
		if !b.add(a, r, limit) {
			if n == 0 {
				t.Fatalf("record %d: an empty batch refused a record", i)
			}
			if b.rows() != n || b.held != held {
				t.Fatalf("record %d: refused, yet %d rows (was %d), %d bytes held (was %d)", i, b.rows(), n, b.held, held)
			}
			refused++
			if rec := b.finish(a); rec == nil {
				t.Fatalf("record %d: no record from %d rows", i, n)
			} else {
				rec.Release()
			}
			b.add(a, r, limit)
			first = 2*int64(len(key)+len(row)) + 384
		}
		if b.held != a.inUse {
			t.Fatalf("record %d: batch holds %d bytes, the allocator counts %d", i, b.held, a.inUse)
		}
		if b.held > limit {
			if b.held > first {
				t.Fatalf("record %d: %d bytes held, past the limit %d and its first record's bound %d", i, b.held, limit, first)
			}
			single++
		}
		if rng.IntN(40) == 0 || b.rows() >= 300 {
			held := b.held
			rec := b.finish(a)
			if got := recordBytes(rec); got != held || got != a.inUse {
				t.Fatalf("record %d: recordBytes %d, the batch held %d, the allocator counts %d", i, got, held, a.inUse)
			}
			rec.Release()
			if a.inUse != 0 {
				t.Fatalf("record %d: %d bytes still counted after the record's release", i, a.inUse)
			}
		}
	}
	if refused == 0 || single == 0 {
		t.Fatalf("%d records refused, %d adds past the limit: the test shows nothing", refused, single)
	}
	t.Logf("%d records refused, %d adds past the limit", refused, single)
}

// TestPeakBoundOneWriter: one writer, 6 partitions, a budget whose shares
// (17,000 bytes) are not powers of two, and no record outgrowing a share
// (rows of 8,300 and 8,050 bytes, a fallback batch of two each): five
// partitions spill, the sixth fills the finished batches' half, and the
// five spill files are read at once. Each batch's IPC body, 16,408 bytes,
// is read into a buffer of 32,768, two a reader at a Next: the shuffle
// held up to 528,128 bytes against a budget of 408,000 (in 10 runs of 10),
// within PeakBound, which the shuffle's doc once said was MemBudget here.
func TestPeakBoundOneWriter(t *testing.T) {
	const parts = 6
	opt := Options{Partitions: parts, Writers: 1, MemBudget: 4 * parts * 17000, TempDir: t.TempDir()}
	s, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w := s.NewWriter()
	key := make([]byte, 8)
	var most int64
	add := func(p, n int) {
		for i := range n {
			row := make([]byte, []int{8300, 8050}[i%2])
			most = max(most, int64(len(key)+len(row)))
			if err := w.Add(p, Record{Key: key, Seq: int64(i), Row: row}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for p := range parts - 1 {
		add(p, testutil.RaceSize(2000, 400))
	}
	add(parts-1, 24) // 12 batches of 16,704 bytes: the half's 204,000 nearly full
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Seal(); err != nil {
		t.Fatal(err)
	}
	if one := 2*most + 384; one > s.share {
		t.Fatalf("a record outgrows the share: %d bytes of %d", one, s.share)
	}
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() {
			if err := s.Partition(p, func(arrow.Record) error { return nil }); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	st := s.Stats()
	bound := PeakBound(opt, most)
	t.Logf("peak %d, budget %d, PeakBound %d, %d spills", st.PeakBytes, opt.MemBudget, bound, st.Spills)
	if bound <= opt.MemBudget {
		t.Fatalf("PeakBound %d within the budget %d: the shape no longer shows the reduce's excess", bound, opt.MemBudget)
	}
	if st.PeakBytes > bound {
		t.Fatalf("peak %d past PeakBound %d (budget %d)", st.PeakBytes, bound, opt.MemBudget)
	}
}
