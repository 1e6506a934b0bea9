package extsort

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestSorter: whatever the budget (everything in memory, a few runs, many
// runs merged in passes), however the rows are spread over the buffers and
// whether each line comes whole (Add) or in two parts (AddJoined),
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
		if testutil.Race && tc.workers == 1 { // under -race, the buffers filled at once (spilling or not)
			continue
		}
		tmp := t.TempDir()
		s := New(tmp, tc.budget, tc.workers)
		var wg sync.WaitGroup
		errs := make(chan error, tc.workers)
		for w := range tc.workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b := s.NewBuffer()
				for i := w; i < n; i += tc.workers {
					r := rows[i]
					var err error
					if i%2 == 0 {
						err = b.Add(r.key, r.seq, r.small, []byte(line(r)))
					} else { // the same line, written from its two parts
						err = b.AddJoined(r.key, r.seq, r.small, r.large, r.sm, 2, joinLine)
					}
					if err != nil {
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
		runs := s.Runs()
		var out bytes.Buffer
		if err := s.Merge(context.Background(), func(l []byte) error { _, err := out.Write(l); return err }); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), wantOut.Bytes()) {
			t.Fatalf("budget %d, %d workers: output differs from the sorted rows", tc.budget, tc.workers)
		}
		// The buffers keep to their half of the budget, but for the one
		// huge row, held alone while it lasts.
		if lim := max(tc.budget/2, 4<<10*int64(tc.workers)) + int64(huge) + 64; s.PeakBytes() > lim {
			t.Fatalf("budget %d: buffers held %d bytes, their share is %d plus the huge row", tc.budget, s.PeakBytes(), tc.budget/2)
		}
		if tc.budget < 1<<30 && runs == 0 {
			t.Fatalf("budget %d: no run written", tc.budget)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
			t.Fatalf("budget %d: %d files left", tc.budget, len(ents))
		}
		t.Logf("budget %d, %d workers: %d runs before the merge, fan-in %d, buffers peak %d bytes", tc.budget, tc.workers, runs, s.FanIn(), s.PeakBytes())
	}
}

// joinLine is TestSorter's line of two parts, as AddJoined takes it.
func joinLine(dst, a, b []byte) []byte {
	return append(append(append(append(dst, a...), ','), b...), '\n')
}

// TestSorterCancel: a cancelled merge stops with the context's error.
func TestSorterCancel(t *testing.T) {
	s := New(t.TempDir(), 8<<10, 1)
	defer s.Close()
	b := s.NewBuffer()
	for i := range 5000 {
		if err := b.Add([]byte{byte(i)}, int64(i), 0, []byte("row,k\n")); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Merge(ctx, func([]byte) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("finish after cancel: %v", err)
	}
}

// FuzzSortRun: the reader of the sort's run files refuses or reads arbitrary
// bytes without panicking or allocating beyond its bound, and a run it wrote
// reads back the same rows.
func FuzzSortRun(f *testing.F) {
	var good bytes.Buffer
	w := bufio.NewWriter(&good)
	writeSortRow(w, []byte{0, 0, 0, 0, 0, 0, 0, 42}, 7, 9, []byte("4000001,42,\"x\"\n"))
	writeSortRow(w, []byte("k"), -1, 1<<40, nil)
	w.Flush()
	f.Add(good.Bytes())
	f.Add(good.Bytes()[:good.Len()/2])
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &runReader{path: "run", r: bufio.NewReader(bytes.NewReader(data))}
		var rows []sortRow
		for {
			row, err := r.next()
			if err != nil || row == nil {
				break
			}
			if len(row.key) > MaxField || len(row.line) > MaxField {
				t.Fatalf("row beyond the bound: key %d, line %d bytes", len(row.key), len(row.line))
			}
			rows = append(rows, sortRow{slices.Clone(row.key), row.seq, row.small, slices.Clone(row.line)})
		}
		// What was read writes back and reads again the same.
		var back bytes.Buffer
		bw := bufio.NewWriter(&back)
		for _, row := range rows {
			writeSortRow(bw, row.key, row.seq, row.small, row.line)
		}
		bw.Flush()
		r2 := &runReader{path: "back", r: bufio.NewReader(&back)}
		for i, want := range rows {
			got, err := r2.next()
			if err != nil || got == nil || !bytes.Equal(got.key, want.key) || got.seq != want.seq || got.small != want.small || !bytes.Equal(got.line, want.line) {
				t.Fatalf("row %d does not read back: %+v, %v", i, got, err)
			}
		}
		if got, err := r2.next(); got != nil || err != nil {
			t.Fatalf("extra row after the written ones: %+v, %v", got, err)
		}
	})
}

// TestAddMaxField: Add takes a line of MaxField bytes and refuses one more,
// naming its length; AddJoined refuses a joined line longer, whatever its
// slack allowed.
func TestAddMaxField(t *testing.T) {
	s := New(t.TempDir(), 64<<20, 1)
	defer s.Close()
	b := s.NewBuffer()
	if err := b.Add([]byte("k"), 0, 0, make([]byte, MaxField)); err != nil {
		t.Fatalf("a line of MaxField bytes: %v", err)
	}
	err := b.Add([]byte("k"), 0, 0, make([]byte, MaxField+1))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(MaxField+1)+" line bytes") {
		t.Fatalf("a line of MaxField+1 bytes: %v", err)
	}
	if err := b.AddJoined([]byte("k"), 0, 0, make([]byte, MaxField-2), nil, 2, joinLine); err != nil {
		t.Fatalf("AddJoined of parts that make MaxField bytes: %v", err)
	}
	err = b.AddJoined([]byte("k"), 0, 0, make([]byte, MaxField-1), nil, 2, joinLine)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(MaxField+1)+" line bytes") {
		t.Fatalf("AddJoined of parts that make MaxField+1 bytes: %v", err)
	}
	// A frame whose worst-case slack passes MaxField but whose line fits
	// (a typed row's two short lengths) is taken.
	frame := func(dst, a, c []byte) []byte {
		return append(binary.AppendUvarint(append(binary.AppendUvarint(dst, uint64(len(a))), a...), uint64(len(c))), c...)
	}
	if err := b.AddJoined([]byte("k"), 0, 0, make([]byte, MaxField-6), nil, 2*binary.MaxVarintLen64, frame); err != nil {
		t.Fatalf("a frame of MaxField-1 bytes: %v", err)
	}
}

// TestAddJoinedSlack: a join that writes its parts with slack bytes more
// is held and merged back whole at the edge of MaxField (a frame of two
// uvarint lengths, as a typed output's rows are); one that writes more
// than the slack it was given is an error at once, never a run the merge
// refuses as corrupt (a typed row of 4 MiB did, before the slack).
func TestAddJoinedSlack(t *testing.T) {
	frame := func(dst, a, b []byte) []byte {
		dst = binary.AppendUvarint(dst, uint64(len(a)))
		dst = append(dst, a...)
		dst = binary.AppendUvarint(dst, uint64(len(b)))
		return append(dst, b...)
	}
	const slack = 2 * binary.MaxVarintLen64
	s := New(t.TempDir(), 1<<20, 1) // a buffer far smaller than the row: it is held alone, then spilled
	defer s.Close()
	b := s.NewBuffer()
	a := make([]byte, MaxField-slack-3)
	if err := b.AddJoined([]byte("k"), 0, 0, a, []byte("xyz"), slack, frame); err != nil {
		t.Fatalf("a framed row at MaxField: %v", err)
	}
	if err := b.AddJoined([]byte("j"), 0, 0, []byte("a"), []byte("b"), slack, frame); err != nil {
		t.Fatal(err)
	}
	var lens []int
	if err := s.Merge(t.Context(), func(line []byte) error { lens = append(lens, len(line)); return nil }); err != nil {
		t.Fatalf("merge: %v", err)
	}
	if want := []int{4, len(a) + 3 + 5}; !slices.Equal(lens, want) {
		t.Fatalf("lines of %v bytes, want %v", lens, want)
	}
	s2 := New(t.TempDir(), 1<<20, 1)
	defer s2.Close()
	if err := s2.NewBuffer().AddJoined([]byte("k"), 0, 0, make([]byte, MaxField-10), nil, 2, frame); err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Fatalf("a join past its slack: %v, want an error", err)
	}
}
