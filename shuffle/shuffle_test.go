package shuffle

import (
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// collect reads every record of every partition.
func collect(t *testing.T, s *Shuffle, parts int) map[int][]Record {
	t.Helper()
	out := map[int][]Record{}
	for p := 0; p < parts; p++ {
		err := s.Partition(p, func(rec arrow.Record) error {
			keys := rec.Column(0).(*array.Binary)
			tags := rec.Column(1).(*array.Uint8)
			seqs := rec.Column(2).(*array.Int64)
			rows := rec.Column(3).(*array.Binary)
			for i := 0; i < int(rec.NumRows()); i++ {
				out[p] = append(out[p], Record{slices.Clone(keys.Value(i)), tags.Value(i), seqs.Value(i), slices.Clone(rows.Value(i))})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestShuffle: whatever the memory budget (spilling or not) and the number of
// writers, every record comes out of its partition exactly once, the measured
// IPC bytes do not depend on spilling, and the Arrow memory held never exceeds
// PeakBound.
func TestShuffle(t *testing.T) {
	const parts, writers, n = 5, 3, 120000
	min := MinBudget(writers, parts)
	var bytesNoSpill int64
	budgets := []int64{1 << 30, 2 * min, min}
	if testutil.Race { // the budget without a spill (the others' reference), and one that spills
		budgets = append(budgets[:1:1], testutil.RacePick(budgets[1:], 1, testutil.RaceSeed(t))...)
	}
	for _, budget := range budgets {
		t.Run(fmt.Sprintf("budget=%d", budget), func(t *testing.T) {
			tmp := t.TempDir()
			s, err := New(Options{Partitions: parts, Writers: writers, MemBudget: budget, TempDir: tmp, BatchRows: 1000})
			if err != nil {
				t.Fatal(err)
			}
			addConcurrently(t, s, writers, func(w int, wr *Writer) error {
				for i := w; i < n; i += writers {
					var key [8]byte
					binary.BigEndian.PutUint64(key[:], uint64(i%777))
					r := Record{Key: key[:], Tag: uint8(i % 2), Seq: int64(i), Row: row(i)}
					if err := wr.Add(i%parts, r); err != nil {
						return err
					}
				}
				return nil
			})
			got := collect(t, s, parts)
			seen := make([]bool, n)
			for p, recs := range got {
				for _, r := range recs {
					i := int(r.Seq)
					if seen[i] || i%parts != p || !slices.Equal(r.Row, row(i)) || r.Tag != uint8(i%2) ||
						binary.BigEndian.Uint64(r.Key) != uint64(i%777) {
						t.Fatalf("partition %d: bad or repeated record %+v", p, r)
					}
					seen[i] = true
				}
			}
			if slices.Contains(seen, false) {
				t.Fatal("records lost")
			}
			st := s.Stats()
			if st.Records != n {
				t.Fatalf("stats %+v", st)
			}
			if budget == 1<<30 {
				bytesNoSpill = st.Bytes
				if st.Spills != 0 || s.SpillDir() != "" {
					t.Fatalf("spilled with a large budget: %+v", st)
				}
			} else {
				if st.Spills == 0 || st.SpilledBytes == 0 {
					t.Fatalf("no spill with budget %d: %+v", budget, st)
				}
				// Batches differ by writer interleaving, so the IPC size can
				// differ a little; it must be close.
				if d := float64(st.Bytes-bytesNoSpill) / float64(bytesNoSpill); d > 0.05 || d < -0.05 {
					t.Fatalf("IPC bytes %d with spilling, %d without", st.Bytes, bytesNoSpill)
				}
			}
			// The documented bound (PeakBound): rows are at most 150
			// bytes, keys 8.
			if bound := PeakBound(Options{Partitions: parts, Writers: writers, MemBudget: budget}, 8+150); st.PeakBytes > bound {
				t.Fatalf("peak Arrow memory %d bytes, past the bound %d (budget %d)", st.PeakBytes, bound, budget)
			}
			t.Logf("%+v", st)
			dir := s.SpillDir()
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if dir != "" {
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Fatalf("spill folder %s left after Close", dir)
				}
			}
			if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
				t.Fatalf("%d files left in the temp folder", len(ents))
			}
		})
	}
}

// row is record i's row: 50-150 bytes, so that the test's records overflow
// the smallest budgets.
func row(i int) []byte {
	b := fmt.Appendf(nil, "row %d,", i)
	for len(b) < 50+i%101 {
		b = append(b, byte('a'+i%26))
	}
	return b
}

func TestShuffleErrors(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Fatal("0 partitions accepted")
	}
	if _, err := New(Options{Partitions: 4, Writers: 2, MemBudget: MinBudget(2, 4) - 1}); err == nil || !strings.Contains(err.Error(), "minimum of 524288 for 2 writers and 4 partitions") {
		t.Fatalf("budget below the minimum: %v", err)
	}
	s, err := New(Options{Partitions: 1, MemBudget: MinBudget(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Partition(0, func(arrow.Record) error { return nil }); err == nil {
		t.Fatal("Partition before Seal accepted")
	}
	s.Seal()
	w := s.NewWriter()
	w.Add(0, Record{Key: []byte("k")})
	if err := w.Close(); err == nil {
		t.Fatal("Add after Seal accepted")
	}
	s.Close()
	s.Close()
}

// TestShuffleShrink: Shrink between two rounds of writers sends every
// buffered partition to disk (with spill) and empties the reuse lists,
// and every record still comes out of its partition once, in the order a
// single writer added them; without spill nothing goes to disk.
func TestShuffleShrink(t *testing.T) {
	const parts, n = 4, 20000
	for _, spill := range []bool{true, false} {
		t.Run(fmt.Sprintf("spill=%v", spill), func(t *testing.T) {
			s, err := New(Options{Partitions: parts, Writers: 1, MemBudget: 1 << 30, TempDir: t.TempDir(), BatchRows: 500})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			add := func(lo, hi int) {
				wr := s.NewWriter()
				for i := lo; i < hi; i++ {
					if err := wr.Add(i%parts, Record{Key: []byte{byte(i)}, Seq: int64(i), Row: row(i)}); err != nil {
						t.Fatal(err)
					}
				}
				if err := wr.Close(); err != nil {
					t.Fatal(err)
				}
			}
			add(0, n/2)
			if s.alloc.pooled == 0 {
				t.Fatal("nothing kept for reuse before Shrink: the test shows nothing")
			}
			if err := s.Shrink(spill); err != nil {
				t.Fatal(err)
			}
			if s.alloc.pooled != 0 {
				t.Fatalf("%d bytes kept for reuse after Shrink", s.alloc.pooled)
			}
			if st := s.Stats(); spill && st.Spills != parts || !spill && st.Spills != 0 {
				t.Fatalf("spill %v: %d partitions spilled, of %d", spill, st.Spills, parts)
			}
			add(n/2, n)
			if err := s.Seal(); err != nil {
				t.Fatal(err)
			}
			for p, recs := range collect(t, s, parts) {
				for j, r := range recs {
					if want := p + j*parts; int(r.Seq) != want || !slices.Equal(r.Row, row(want)) {
						t.Fatalf("partition %d, record %d: seq %d, want %d", p, j, r.Seq, want)
					}
				}
				if len(recs) != n/parts {
					t.Fatalf("partition %d: %d records, want %d", p, len(recs), n/parts)
				}
			}
		})
	}
}

// TestBatchRecords: records of random shapes (empty keys and rows, rows
// of up to 20 KB, longer than a batch's first buffers) come back exactly,
// in a single writer's order, through batches cut by rows and by bytes,
// with buffers reused from the free lists unzeroed (a small budget that
// spills, so that freed buffers come back dirty) and without.
func TestBatchRecords(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	const parts = 3
	var recs []Record
	for i := range 3000 {
		key := make([]byte, rng.IntN(20))
		row := make([]byte, []int{0, 1, 90, 5000, 20000}[rng.IntN(5)])
		for j := range key {
			key[j] = byte(rng.Uint32())
		}
		for j := range row {
			row[j] = byte(rng.Uint32())
		}
		recs = append(recs, Record{Key: key, Tag: uint8(rng.IntN(3)), Seq: int64(i)*1_000_003 - 7, Row: row})
	}
	for _, budget := range []int64{MinBudget(1, parts), 1 << 30} {
		for _, rows := range []int{1, 7, 8192} {
			s, err := New(Options{Partitions: parts, Writers: 1, MemBudget: budget, TempDir: t.TempDir(), BatchRows: rows})
			if err != nil {
				t.Fatal(err)
			}
			wr := s.NewWriter()
			for i, r := range recs {
				if err := wr.Add(i%parts, r); err != nil {
					t.Fatal(err)
				}
			}
			if err := wr.Close(); err != nil {
				t.Fatal(err)
			}
			if err := s.Seal(); err != nil {
				t.Fatal(err)
			}
			for p, got := range collect(t, s, parts) {
				for j, r := range got {
					w := recs[p+j*parts]
					if !slices.Equal(r.Key, w.Key) || !slices.Equal(r.Row, w.Row) || r.Tag != w.Tag || r.Seq != w.Seq {
						t.Fatalf("budget %d, %d rows a batch: partition %d record %d differs (seq %d, want %d)", budget, rows, p, j, r.Seq, w.Seq)
					}
				}
				if want := (len(recs) - p + parts - 1) / parts; len(got) != want {
					t.Fatalf("budget %d, %d rows a batch: partition %d has %d records, want %d", budget, rows, p, len(got), want)
				}
			}
			if st := s.Stats(); budget < 1<<30 && st.Spills == 0 {
				t.Fatalf("budget %d: nothing spilled, so no buffer came back dirty", budget)
			}
			s.Close()
		}
	}
}

// TestRecordTooLong: a record past MaxRecordBytes is refused with its
// size, and the writer's other records still come back.
func TestRecordTooLong(t *testing.T) {
	s, err := New(Options{Partitions: 1, Writers: 1, MemBudget: 1 << 30, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wr := s.NewWriter()
	if err := wr.Add(0, Record{Key: []byte("k"), Seq: 1, Row: []byte("ok")}); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, MaxRecordBytes) // with the key, one byte too many
	if err := wr.Add(0, Record{Key: []byte("k"), Seq: 2, Row: big}); err == nil || !strings.Contains(err.Error(), "at most 1073741824") {
		t.Fatalf("a record of %d bytes: %v", len(big)+1, err)
	}
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Seal(); err != nil {
		t.Fatal(err)
	}
	if got := collect(t, s, 1)[0]; len(got) != 1 || got[0].Seq != 1 {
		t.Fatalf("records back: %+v", got)
	}
}

// addConcurrently runs add on writers goroutines, each with its own Writer
// (closed after add), then seals s; an error of add or Close fails t.
func addConcurrently(t *testing.T, s *Shuffle, writers int, add func(w int, wr *Writer) error) {
	t.Helper()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			wr := s.NewWriter()
			if err := add(w, wr); err != nil {
				t.Error(err)
			}
			if err := wr.Close(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := s.Seal(); err != nil {
		t.Fatal(err)
	}
}

// TestFixedBytes: a shuffle whose writers each write one record to every
// partition takes, in Stats.Bytes, its records' RecordBytes and
// FixedBytes, within the padding of the batches' buffers (at most 8 bytes
// a buffer of a batch).
func TestFixedBytes(t *testing.T) {
	for _, c := range []struct{ parts, writers int }{{1, 1}, {2, 2}, {8, 2}, {8, 3}} {
		s, err := New(Options{Partitions: c.parts, Writers: c.writers, MemBudget: 64 << 20})
		if err != nil {
			t.Fatal(err)
		}
		var records int64
		for w := range c.writers {
			wr := s.NewWriter()
			for p := range c.parts {
				r := Record{Key: []byte(fmt.Sprint("key", p)), Tag: 1, Seq: int64(w), Row: []byte("a,row")}
				records += RecordBytes(r)
				if err := wr.Add(p, r); err != nil {
					t.Fatal(err)
				}
			}
			if err := wr.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Seal(); err != nil {
			t.Fatal(err)
		}
		got, want := s.Stats().Bytes, records+s.FixedBytes(c.writers)
		if slack := int64(c.parts*c.writers) * 2 * 8; got < want || got > want+slack {
			t.Errorf("%d partitions, %d writers: %d bytes, want %d to %d", c.parts, c.writers, got, want, want+slack)
		}
		s.Close()
	}
}
