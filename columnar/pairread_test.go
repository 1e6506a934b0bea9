package columnar

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/klauspost/compress/snappy"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// writePairFile writes n rows of an INT64 (patent-like numbers, sorted
// or not), a nullable INT64 and a nullable DOUBLE, in row groups of
// about group rows, with the page version, codec and page size given.
func writePairFile(t *testing.T, path string, rng interface{ IntN(int) int }, n, group int, nullRate float64, ver parquet.DataPageVersion, codec compress.Compression, pageSize int64, sorted bool) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64},
		{Name: "i64n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f64n", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	rb := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer rb.Release()
	v := int64(3_000_000)
	for range n {
		if sorted {
			v += int64(rng.IntN(3))
		} else {
			v = int64(3_000_000 + rng.IntN(3_000_000))
		}
		rb.Field(0).(*array.Int64Builder).Append(v)
		for j := 1; j < 3; j++ {
			if float64(rng.IntN(1_000_000)) < nullRate*1_000_000 {
				rb.Field(j).AppendNull()
				continue
			}
			switch b := rb.Field(j).(type) {
			case *array.Int64Builder:
				b.Append(v ^ 0x5a5a)
			case *array.Float64Builder:
				b.Append(float64(v) / 3)
			}
		}
	}
	rec := rb.NewRecord()
	defer rec.Release()
	f, err := os.Create(path)
	testutil.Check(t, err)
	props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(ver), parquet.WithCompression(codec),
		parquet.WithDataPageSize(pageSize), parquet.WithMaxRowGroupLength(int64(group)), parquet.WithBatchSize(int64(1+rng.IntN(2000))))
	w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.DefaultWriterProps())
	testutil.Check(t, err)
	testutil.Check(t, w.Write(rec))
	testutil.Check(t, w.Close())
}

// needPairs skips t where ReadPair reads nothing in pairs: a CPU without
// the assembly, or ACBFJOIN_CPU=portable or ACBFJOIN_PAIR=off.
func needPairs(t *testing.T) {
	t.Helper()
	if !snappyPairAsm {
		t.Skip("no pair decoder on this CPU, or ACBFJOIN_CPU=portable or ACBFJOIN_PAIR=off")
	}
}

// TestReadPairSame: ReadPair gives each chunk's column as Read does, bit
// for bit, for every pair of row groups (a group with itself too) of
// files of both page versions, four codecs (only Snappy's pairs), pages
// of one to many a chunk, NULLs from none to most, and sorted values
// (long copies); and it decodes pairs where it should.
func TestReadPairSame(t *testing.T) {
	needPairs(t)
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	paired0 := pairedPages.Load()
	codecs := []compress.Compression{compress.Codecs.Snappy, compress.Codecs.Snappy, compress.Codecs.Uncompressed, compress.Codecs.Zstd}
	for trial := range testutil.RaceSize(24, 6) {
		n := 1 + rng.IntN(30000)
		group := 1 + rng.IntN(n)
		nullRate := []float64{0, 0, 0.001, 0.3, 0.99}[rng.IntN(5)]
		ver := []parquet.DataPageVersion{parquet.DataPageV1, parquet.DataPageV1, parquet.DataPageV2}[rng.IntN(3)]
		codec := codecs[rng.IntN(len(codecs))]
		pageSize := []int64{300, 4000, 1 << 20}[rng.IntN(3)]
		sorted := rng.IntN(2) == 0
		if trial == 0 { // at least one file whose pages pair, whatever the draws
			codec, ver = compress.Codecs.Snappy, parquet.DataPageV1
		}
		path := filepath.Join(t.TempDir(), "pair.parquet")
		writePairFile(t, path, rng, n, group, nullRate, ver, codec, pageSize, sorted)
		tb, err := Open(context.Background(), path, "pair.parquet", Parquet, "")
		testutil.Check(t, err)
		what := fmt.Sprintf("trial %d (seed %d; %d rows in groups of %d, NULLs %v, %v, %v, pages of %d bytes, sorted %v)", trial, seed, n, group, nullRate, ver, codec, pageSize, sorted)
		for col := range tb.Types {
			if got, want := tb.PairsPay(col), codec == compress.Codecs.Snappy && tb.Chunks() >= 2; got != want {
				t.Fatalf("%s: PairsPay(%d) %v", what, col, got)
			}
			for g := range tb.Chunks() {
				for _, h := range []int{g, min(g+1, tb.Chunks()-1)} {
					a, b, err := tb.ReadPair(g, h, col)
					testutil.Check(t, err)
					if codec != compress.Codecs.Snappy {
						if a != nil || b != nil {
							t.Fatalf("%s: %v chunks read in pairs", what, codec)
						}
						continue
					}
					if a == nil || b == nil {
						t.Fatalf("%s: groups %d and %d of %s not read in a pair", what, g, h, tb.Names[col])
					}
					for k, c := range []*Column{a, b} {
						i := []int{g, h}[k]
						want, err := tb.Read(i, []int{col})
						testutil.Check(t, err)
						fixedColumnsSame(t, fmt.Sprintf("%s: group %d (paired with %d), %s", what, i, g+h-i, tb.Names[col]), c, want[0])
						want[0].Release()
						c.Release()
					}
				}
			}
		}
		tb.Close()
	}
	if pairedPages.Load() == paired0 {
		t.Errorf("no page decoded in a pair: the test did not exercise snappyPair")
	}
}

// TestReadPairDamaged: a Snappy file with bytes of its pages changed
// reads in pairs as a chunk at a time: an error where either chunk's Read
// fails, else the same values.
func TestReadPairDamaged(t *testing.T) {
	needPairs(t)
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean.parquet")
	writePairFile(t, clean, rng, 20000, 5000, 0, parquet.DataPageV1, compress.Codecs.Snappy, 1<<20, false)
	orig, err := os.ReadFile(clean)
	testutil.Check(t, err)
	errs, same := 0, 0
	for trial := range testutil.RaceSize(150, 30) {
		b := append([]byte(nil), orig...)
		for range 1 + rng.IntN(4) {
			b[4+rng.IntN(len(b)*3/4)] = byte(rng.IntN(256)) // the pages, not the footer
		}
		path := filepath.Join(dir, fmt.Sprintf("damaged%d.parquet", trial))
		testutil.Check(t, os.WriteFile(path, b, 0o644))
		tb, err := Open(context.Background(), path, "damaged.parquet", Parquet, "")
		if err != nil {
			continue
		}
		for g := 0; g+1 < tb.Chunks(); g++ {
			a, bb, perr := tb.ReadPair(g, g+1, 0)
			wa, ea := tb.Read(g, []int{0})
			wb, eb := tb.Read(g+1, []int{0})
			switch {
			case ea != nil || eb != nil:
				if perr == nil && a != nil {
					t.Fatalf("trial %d (seed %d): groups %d and %d: Read fails (%v, %v), ReadPair does not", trial, seed, g, g+1, ea, eb)
				}
				errs++
			case perr != nil:
				t.Fatalf("trial %d (seed %d): groups %d and %d: ReadPair: %v, Read reads both", trial, seed, g, g+1, perr)
			case a != nil:
				fixedColumnsSame(t, fmt.Sprintf("trial %d, group %d", trial, g), a, wa[0])
				fixedColumnsSame(t, fmt.Sprintf("trial %d, group %d", trial, g+1), bb, wb[0])
				same++
			}
			for _, c := range []*Column{a, bb} {
				if c != nil {
					c.Release()
				}
			}
			if ea == nil {
				wa[0].Release()
			}
			if eb == nil {
				wb[0].Release()
			}
		}
		tb.Close()
	}
	t.Logf("%d pairs failed as Read does, %d read the same", errs, same)
	if errs == 0 {
		t.Errorf("no damage found: the test did not exercise the errors")
	}
}

// BenchmarkSnappyPairFile times the first data pages of row groups 1 and
// 2 of a Parquet file's column (ACBFJOIN_BENCH_PARQUET, column
// ACBFJOIN_BENCH_COL, default 1: the NBER twins' CITED in
// bench/out/data/parquet/cite75_99.parquet) decoded alone by s2
// (arrow-go's codec), as a pair (snappyPair), and alone by s2 with each
// 1-byte-offset copy rewritten as a 2-byte-offset one: the same literals,
// lengths and offsets, copies of one kind, which s2's branch on the kind
// then predicts (bench/parquet-why.md). Skipped without the file.
//
//	ACBFJOIN_BENCH_PARQUET=bench/out/data/parquet/cite75_99.parquet go test ./columnar -run XXX -bench SnappyPairFile
func BenchmarkSnappyPairFile(b *testing.B) {
	path := os.Getenv("ACBFJOIN_BENCH_PARQUET")
	if path == "" {
		b.Skip("ACBFJOIN_BENCH_PARQUET names no file")
	}
	col := 1
	if v := os.Getenv("ACBFJOIN_BENCH_COL"); v != "" {
		var err error
		if col, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	tb, err := Open(context.Background(), path, filepath.Base(path), Parquet, "")
	testutil.Check(b, err)
	defer tb.Close()
	p := tb.b.(*parquetBackend).pq
	var raws [2][]byte
	var outs [2][]byte
	for k, g := range []int{1, 2} {
		cc, err := p.r.RowGroup(g).MetaData().ColumnChunk(p.leaves[col][0])
		testutil.Check(b, err)
		pages, err := p.openPagesOf(cc, wholeChunk)
		testutil.Check(b, err)
		h, raw, ok, err := pages.nextRaw()
		if err != nil || !ok || !pages.snappy || h.typ != pageData {
			b.Skipf("row group %d's first page: not a Snappy data page (%v)", g, err)
		}
		raws[k], outs[k] = append([]byte(nil), raw...), make([]byte, h.uncompressed)
		pages.release()
	}
	b.Run("alone", func(b *testing.B) {
		for b.Loop() {
			for k := range raws {
				if _, err := snappy.Decode(outs[k], raws[k]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("pair", func(b *testing.B) {
		for b.Loop() {
			if err := snappyPair(outs[0], raws[0], outs[1], raws[1]); err != nil {
				b.Fatal(err)
			}
		}
	})
	var one [2][]byte
	for k := range raws {
		one[k] = oneCopyKind(b, raws[k])
		want, err := snappy.Decode(nil, raws[k])
		testutil.Check(b, err)
		got, err := snappy.Decode(nil, one[k])
		testutil.Check(b, err)
		if !bytes.Equal(got, want) {
			b.Fatal("the rewritten block decodes otherwise")
		}
	}
	b.Run("alone-one-kind", func(b *testing.B) {
		for b.Loop() {
			for k := range one {
				if _, err := snappy.Decode(outs[k], one[k]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// oneCopyKind rewrites a Snappy block's 1-byte-offset copies as
// 2-byte-offset copies of the same length and offset.
func oneCopyKind(b *testing.B, src []byte) []byte {
	_, k := binary.Uvarint(src)
	out := append([]byte(nil), src[:k]...)
	for s := k; s < len(src); {
		t := src[s]
		switch t & 3 {
		case 0:
			n, h := int(t>>2), 1
			if n >= 60 {
				h += n - 59
				n = 0
				for i := range h - 1 {
					n |= int(src[s+1+i]) << (8 * i)
				}
			}
			out = append(out, src[s:s+h+n+1]...)
			s += h + n + 1
		case 1:
			n, off := 4+int(t>>2)&7, int(t>>5)<<8|int(src[s+1])
			out = append(out, byte(2|(n-1)<<2), byte(off), byte(off>>8))
			s += 2
		case 2:
			out = append(out, src[s:s+3]...)
			s += 3
		default:
			out = append(out, src[s:s+5]...)
			s += 5
		}
	}
	return out
}

// TestReadPairNamesThePart: a table of many files names the damaged file
// in ReadPair's error, as Read does (not the folder).
func TestReadPairNamesThePart(t *testing.T) {
	needPairs(t)
	rng := testutil.Rand(testutil.Seed(t))
	dir := t.TempDir()
	p1, p2 := filepath.Join(dir, "p1.parquet"), filepath.Join(dir, "p2.parquet")
	writePairFile(t, p1, rng, 4000, 1000, 0, parquet.DataPageV1, compress.Codecs.Snappy, 1<<20, false)
	tb := openDamagedTwin(t, p1, p2)
	first := tb.Chunks() / 2 // p2's first row group
	_, readErr := tb.Read(first, []int{0})
	_, _, pairErr := tb.ReadPair(first, first+1, 0)
	if readErr == nil || pairErr == nil {
		t.Fatalf("the damaged file read: Read %v, ReadPair %v", readErr, pairErr)
	}
	for _, err := range []error{readErr, pairErr} {
		if !strings.HasPrefix(err.Error(), p2+":") && !strings.HasPrefix(err.Error(), "p2.parquet:") {
			t.Errorf("the error does not begin with the damaged file's name: %v", err)
		}
	}
}

// openDamagedTwin writes p2 as a copy of the Parquet file p1 whose first
// half but its magic bytes (the first row groups' pages) is 0xff, and
// opens the two as one table of their folder (closed at t's end).
func openDamagedTwin(t *testing.T, p1, p2 string) *Table {
	t.Helper()
	b, err := os.ReadFile(p1)
	testutil.Check(t, err)
	for i := 4; i < len(b)/2; i++ {
		b[i] = 0xff
	}
	testutil.Check(t, os.WriteFile(p2, b, 0o644))
	tb, err := OpenFiles(context.Background(), []string{p1, p2}, filepath.Dir(p1), Parquet, "")
	testutil.Check(t, err)
	t.Cleanup(func() { tb.Close() })
	return tb
}

// TestReadPairMappedTruncated: a mapped file cut short in the middle of
// one row group's key chunk fails ReadPair with an error that names that
// row group alone, whether it is the pair's first or second, and never
// fails a pair before the cut (the fault's panic named "row groups i and
// j" before the reader kept the one whose page it read).
func TestReadPairMappedTruncated(t *testing.T) {
	needPairs(t)
	if noMap {
		t.Skip("ACBFJOIN_PARQUET_MMAP=off")
	}
	rng := testutil.Rand(testutil.Seed(t))
	path := filepath.Join(t.TempDir(), "cut.parquet")
	writePairFile(t, path, rng, 40_000, 5_000, 0, parquet.DataPageV1, compress.Codecs.Snappy, 1<<20, false)
	tb, err := Open(context.Background(), path, "cut.parquet", Parquet, "")
	testutil.Check(t, err)
	defer tb.Close()
	pq := tb.b.(*parquetBackend).pq
	if pq.mapped == nil {
		t.Skip("not mapped on this system")
	}
	if tb.Chunks() < 8 || !tb.PairsPay(0) {
		t.Fatalf("%d row groups, pairs pay %v: the file is not what the test needs", tb.Chunks(), tb.PairsPay(0))
	}
	want := make([]*Column, tb.Chunks())
	for g := range want {
		cs, err := tb.Read(g, []int{0})
		testutil.Check(t, err)
		want[g] = cs[0]
	}
	const k = 5 // the row group cut
	cc, err := pq.r.MetaData().RowGroup(k).ColumnChunk(pq.leaves[0][0])
	testutil.Check(t, err)
	start, size := cc.DataPageOffset(), cc.TotalCompressedSize()
	if size < 3*4096 {
		t.Fatalf("row group %d's key chunk is %d bytes: too small to cut inside a page of memory", k, size)
	}
	testutil.Check(t, os.Truncate(path, start+size/2))
	for _, pair := range [][2]int{{k - 3, k - 2}, {k - 1, k}, {k, k + 1}} {
		a, b, err := tb.ReadPair(pair[0], pair[1], 0)
		if pair[1] < k {
			if err != nil || a == nil {
				t.Fatalf("row groups %v, before the cut: %v", pair, err)
			}
			fixedColumnsSame(t, "before the cut", a, want[pair[0]])
			fixedColumnsSame(t, "before the cut", b, want[pair[1]])
			ReleaseAll([]*Column{a, b})
			continue
		}
		if err == nil {
			t.Fatalf("row groups %v: read across the cut", pair)
		}
		if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("row group %d,", k)) || strings.Contains(msg, "row groups") {
			t.Errorf("row groups %v: %v, not naming row group %d alone", pair, err, k)
		}
	}
}
