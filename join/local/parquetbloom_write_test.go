package local

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/key"
)

// writeBloomJoin joins every id of a 10,000-row CSV (id 0..9999 in order,
// a string column s of 5,000 values) to all of them, writing Parquet in
// row groups of opt.RowGroup rows (0: 1,000) with opt's Bloom filters (and, with cols, only
// those columns); it returns the output's path.
func writeBloomJoin(t *testing.T, dir string, opt ParquetOptions, cols []string) string {
	t.Helper()
	var large, keys strings.Builder
	large.WriteString("id,s\n")
	keys.WriteString("id\n")
	for i := range 10000 {
		fmt.Fprintf(&large, "%d,s-%d\n", i, i%5000)
		fmt.Fprintf(&keys, "%d\n", i)
	}
	lf, kf := filepath.Join(dir, "large.csv"), filepath.Join(dir, "keys.csv")
	if err := os.WriteFile(lf, []byte(large.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kf, []byte(keys.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, fmt.Sprintf("out-%v-%d-%d.parquet", opt.BloomFPP, opt.RowGroup, len(cols)))
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if opt.RowGroup == 0 {
		opt.RowGroup = 1000
	}
	jo := join.Options{Sides: join.Sides{Keys: kf, Input: lf}, Keying: join.Keying{KeyCol: "id", JoinCol: "id"},
		Output: join.Output{Sort: true, Columns: cols}, Resources: join.Resources{Mappers: 2, Reducers: 2, TempDir: t.TempDir()}}
	if _, err := Run(context.Background(), jo, NewParquetWith(f, t.TempDir(), opt)); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestParquetBloomWritten: a Parquet output carries a split-block Bloom
// filter of its join column in every row group, read back by this
// package's own reader (columnar's, which agrees with DuckDB's
// parquet_bloom_probe on DuckDB's files): no value of a row group is
// missed, and values in no row group pass at the filter's own rate from
// its bits (columnar.BloomFilter.FPP) within 4 standard deviations, a rate
// near the one asked. No other column has one, none is written with a
// negative rate, and a join column that --columns leaves out has none.
// Joined as the large side to keys of two row groups, the other eight are
// skipped unread by their statistics (four beyond the keys, four between
// them: keyPoints), the two groups' filters read, with the rows of the
// join without the skip.
func TestParquetBloomWritten(t *testing.T) {
	dir := t.TempDir()
	// Row groups of 1,000 rows get filters sized for their rows; of 5,000,
	// arrow-go's adaptive filters.
	for _, c := range []struct {
		fpp float64
		n   int
	}{{0, 1000}, {0.001, 1000}, {0.05, 1000}, {0, 5000}, {0.05, 5000}} {
		fpp, n := c.fpp, c.n
		path := writeBloomJoin(t, dir, ParquetOptions{BloomFPP: fpp, RowGroup: n}, nil)
		want := fpp
		if want == 0 {
			want = DefaultParquetBloomFPP
		}
		tab, err := columnar.Open(context.Background(), path, "", columnar.Parquet, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if tab.Chunks() != 10000/n || tab.Names[0] != "id" || tab.Names[1] != "s" {
			t.Fatalf("fpp %v: %d row groups, columns %v", fpp, tab.Chunks(), tab.Names)
		}
		var probes, passed float64
		var rate float64
		for rg := range tab.Chunks() {
			f := tab.BloomFilter(rg, 0)
			if f == nil {
				t.Fatalf("fpp %v: row group %d: no Bloom filter of id", fpp, rg)
			}
			if tab.BloomFilter(rg, 1) != nil {
				t.Errorf("fpp %v: row group %d: a Bloom filter of s, which is no join column", fpp, rg)
			}
			var v [8]byte
			for id := rg * n; id < rg*n+n; id++ { // the rows of the group, in order (sorted output)
				binary.LittleEndian.PutUint64(v[:], uint64(id))
				if !f.MightContain(v[:]) {
					t.Fatalf("fpp %v: row group %d: id %d, which it holds, fails its filter", fpp, rg, id)
				}
			}
			for id := int64(1_000_000 + rg*20_000); id < int64(1_000_000+rg*20_000+20_000); id++ {
				binary.LittleEndian.PutUint64(v[:], uint64(id))
				probes++
				if f.MightContain(v[:]) {
					passed++
				}
			}
			rate += f.FPP() / float64(tab.Chunks())
			if f.FPP() > 2*want {
				t.Errorf("fpp %v: row group %d: the filter's rate %.4g from its bits, more than twice %v (%d bytes)", fpp, rg, f.FPP(), want, f.Bytes())
			}
		}
		tab.Close()
		sd := math.Sqrt(rate * (1 - rate) / probes)
		t.Logf("fpp %v, row groups of %d: measured %.5f, the filters' own %.5f (sd %.5f)", fpp, n, passed/probes, rate, sd)
		if math.Abs(passed/probes-rate) > 4*sd+1e-9 {
			t.Errorf("fpp %v: %v of %v non-members passed (%.5f), the filters' bits say %.5f, 4 sd %.5f", fpp, passed, probes, passed/probes, rate, 4*sd)
		}
		if fpp != 0 || n != 1000 {
			continue
		}
		// The output as the large side of a join to keys of row groups 2 and 7.
		kf := filepath.Join(dir, "two.csv")
		if err := os.WriteFile(kf, []byte("id\n2500\n7001\n7002\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		opt := join.Options{Sides: join.Sides{Keys: kf, Input: path}, Keying: join.Keying{KeyCol: "id", JoinCol: "id"}, JoinType: join.JoinInner,
			Output: join.Output{Sort: true}, Resources: join.Resources{Mappers: 2, Reducers: 2, TempDir: t.TempDir()}}
		rep, out := runJoin(t, opt)
		opt.IgnoreFileBloom = true
		_, offOut := runJoin(t, opt)
		if string(out) != string(offOut) || strings.Count(string(out), "\n") != 4 {
			t.Fatalf("join on the written file: %q, without the skip %q", out, offOut)
		}
		tr := rep.InputTable
		// Groups 0, 1, 8 and 9 fall outside the keys' range, and 3 to 6
		// between two keys (keyPoints): the statistics skip all eight,
		// and the filters of groups 2 and 7, which hold keys, are read
		// and pass them.
		if tr.ChunksSkipped != 8 || tr.ChunksSkippedBloom != 0 || tr.BloomChecked != 2 {
			t.Errorf("join on the written file: of the 8 row groups that hold no key, %d skipped by statistics (want 8) and %d by Bloom filters (want 0); %d filters read (want 2)", tr.ChunksSkipped, tr.ChunksSkippedBloom, tr.BloomChecked)
		}
	}
	// No filters: a negative rate; the join column left out by Columns.
	for _, c := range []struct {
		fpp  float64
		cols []string
	}{{-1, nil}, {0, []string{"s"}}} {
		path := writeBloomJoin(t, dir, ParquetOptions{BloomFPP: c.fpp}, c.cols)
		tab, err := columnar.Open(context.Background(), path, "", columnar.Parquet, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for rg := range tab.Chunks() {
			for col := range tab.Names {
				if tab.BloomFilter(rg, col) != nil {
					t.Errorf("fpp %v, columns %v: row group %d, column %s: a Bloom filter", c.fpp, c.cols, rg, tab.Names[col])
				}
			}
		}
		tab.Close()
	}
}

// TestParquetBloomOptions: a rate of 1 or more, NaN (arrow-go panics on
// those) or below MinParquetBloomFPP is refused naming it, as is a BloomColumns name the output does
// not have; a named column gets its filter.
func TestParquetBloomOptions(t *testing.T) {
	for _, fpp := range []float64{1, 2, math.NaN(), 1e-7, 1e-300} {
		if err := CheckParquetBloomFPP(fpp); err == nil || !strings.Contains(err.Error(), "false-positive rate of") {
			t.Errorf("fpp %v: %v", fpp, err)
		}
		var buf strings.Builder
		s := NewParquetWith(&buf, t.TempDir(), ParquetOptions{BloomFPP: fpp})
		if err := s.Begin(join.Header{Names: []string{"a"}, Join: key.Spec{Cols: []int{0}, Names: []string{"a"}}}); err != nil {
			t.Fatal(err)
		}
		w := s.Writer().(*lineBuffer)
		if err := w.WriteLine([]byte("1\n")); err == nil && w.Flush() == nil {
			err = s.Finish(context.Background())
			if err == nil || !strings.Contains(err.Error(), strconv.FormatFloat(fpp, 'g', -1, 64)) {
				t.Errorf("fpp %v: Finish: %v", fpp, err)
			}
		}
		s.Close()
	}
	dir := t.TempDir()
	s := NewParquetWith(&strings.Builder{}, dir, ParquetOptions{BloomColumns: []string{"zz"}})
	if err := s.Begin(join.Header{Names: []string{"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(context.Background()); err == nil || !strings.Contains(err.Error(), `"zz"`) {
		t.Errorf("a Bloom filter of a column the output lacks: %v", err)
	}
	s.Close()
	path := filepath.Join(dir, "b.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	s = NewParquetWith(f, dir, ParquetOptions{BloomColumns: []string{"b"}})
	if err := s.Begin(join.Header{Names: []string{"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	w := s.Writer().(*lineBuffer)
	if err := w.WriteLine([]byte("1,x\n2,y\n")); err != nil || w.Flush() != nil {
		t.Fatal(err)
	}
	if err := s.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	f.Close()
	tab, err := columnar.Open(context.Background(), path, "", columnar.Parquet, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	if tab.BloomFilter(0, 0) != nil || tab.BloomFilter(0, 1) == nil || !tab.BloomFilter(0, 1).MightContain([]byte("y")) {
		t.Errorf("BloomColumns b: filters a %v, b %v", tab.BloomFilter(0, 0), tab.BloomFilter(0, 1))
	}
}

// TestParquetRowGroupBytes: a row group of a given row count also ends
// where its values reach maxRowGroupBytes (set small here), so that a huge
// --row-group does not hold a whole output in memory; every row is
// written, in order.
func TestParquetRowGroupBytes(t *testing.T) {
	defer func(b int) { maxRowGroupBytes = b }(maxRowGroupBytes)
	maxRowGroupBytes = 16 << 10
	path := filepath.Join(t.TempDir(), "rg.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	s := NewParquetRowGroups(f, t.TempDir(), 1_000_000)
	if err := s.Begin(join.Header{Names: []string{"id", "s"}}); err != nil {
		t.Fatal(err)
	}
	w := s.Writer().(*lineBuffer)
	for i := range 5000 {
		if err := w.WriteLine(fmt.Appendf(nil, "%d,a value of some forty bytes in row %d\n", i, i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	f.Close()
	tab, err := columnar.Open(context.Background(), path, "", columnar.Parquet, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	if tab.Chunks() < 5 {
		t.Fatalf("%d row groups of 5,000 rows of about 60 bytes held at 16 KiB each, want many", tab.Chunks())
	}
	next := 0
	for rg := range tab.Chunks() {
		cols, err := tab.Read(rg, nil)
		if err != nil {
			t.Fatal(err)
		}
		for r := columnar.NewRows(tab.Name, cols, 0); r.Next(); next++ {
			if want := fmt.Sprintf("%d,a value of some forty bytes in row %d", next, next); string(r.Raw()) != want {
				t.Fatalf("row group %d: %q, want %q", rg, r.Raw(), want)
			}
		}
	}
	if next != 5000 {
		t.Fatalf("%d rows, want 5000", next)
	}
}
