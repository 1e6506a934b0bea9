package columnar

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// writeFixedParquet writes n random rows of every type the fixed-width
// pages decoder reads (INT32 signed and unsigned, INT64, FLOAT, DOUBLE,
// DATE, TIMESTAMP; nullable with NULLs, and required), of few distinct
// values and of many (whose dictionary outgrows dictLimit: pages fall
// back to PLAIN), through pqarrow with the given page version, codec and
// dictionary setting, in pages of a few hundred bytes.
func writeFixedParquet(t *testing.T, rng *rand.Rand, n int, dict bool, v2 bool, codec compress.Compression, dictLimit int64) string {
	t.Helper()
	return writeFixedParquetEnc(t, rng, n, dict, v2, codec, dictLimit, false)
}

// writeFixedParquetEnc is writeFixedParquet, with delta its required
// integer column (i64) DELTA_BINARY_PACKED and its text and bytes columns
// DELTA_LENGTH_BYTE_ARRAY or DELTA_BYTE_ARRAY (one of them at random), no
// dictionary.
func writeFixedParquetEnc(t *testing.T, rng *rand.Rand, n int, dict bool, v2 bool, codec compress.Compression, dictLimit int64, delta bool) string {
	t.Helper()
	f := func(name string, typ arrow.DataType, nullable bool) arrow.Field {
		return arrow.Field{Name: name, Type: typ, Nullable: nullable}
	}
	schema := arrow.NewSchema([]arrow.Field{
		f("i32", arrow.PrimitiveTypes.Int32, true),
		f("u32", arrow.PrimitiveTypes.Uint32, true),
		f("i64", arrow.PrimitiveTypes.Int64, false),
		f("i64n", arrow.PrimitiveTypes.Int64, true),
		f("few", arrow.PrimitiveTypes.Int64, true),
		f("f32", arrow.PrimitiveTypes.Float32, true),
		f("f64", arrow.PrimitiveTypes.Float64, false),
		f("date", arrow.FixedWidthTypes.Date32, true),
		f("ts", &arrow.TimestampType{Unit: arrow.Microsecond}, true),
		f("allnull", arrow.PrimitiveTypes.Int64, true),
		f("s", arrow.BinaryTypes.String, true),
		f("sfew", arrow.BinaryTypes.String, true),
		f("bin", arrow.BinaryTypes.Binary, false),
	}, nil)
	rb := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer rb.Release()
	nullRate := []float64{0, 0.1, 0.5, 0.97}[rng.IntN(4)]
	null := func(j int) bool {
		if schema.Field(j).Nullable && rng.Float64() < nullRate {
			rb.Field(j).AppendNull()
			return true
		}
		return false
	}
	edges := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32}
	for range n {
		i64 := rng.Int64() >> rng.IntN(64)
		if rng.IntN(20) == 0 {
			i64 = edges[rng.IntN(len(edges))]
		}
		if !null(0) {
			rb.Field(0).(*array.Int32Builder).Append(int32(i64))
		}
		if !null(1) {
			rb.Field(1).(*array.Uint32Builder).Append(uint32(i64))
		}
		rb.Field(2).(*array.Int64Builder).Append(i64)
		if !null(3) {
			rb.Field(3).(*array.Int64Builder).Append(i64 ^ 0x5555)
		}
		if !null(4) {
			rb.Field(4).(*array.Int64Builder).Append(int64(rng.IntN(7)) - 3)
		}
		if !null(5) {
			rb.Field(5).(*array.Float32Builder).Append([]float32{float32(i64), float32(math.NaN()), float32(math.Inf(-1)), float32(math.Copysign(0, -1)), 1.5}[rng.IntN(5)])
		}
		rb.Field(6).(*array.Float64Builder).Append([]float64{float64(i64) / 7, math.NaN(), math.Inf(1), math.Copysign(0, -1), 0.1}[rng.IntN(5)])
		if !null(7) {
			rb.Field(7).(*array.Date32Builder).Append(arrow.Date32(int32(i64 % 3000000)))
		}
		if !null(8) {
			rb.Field(8).(*array.TimestampBuilder).Append(arrow.Timestamp(i64 >> 10))
		}
		rb.Field(9).AppendNull()
		if !null(10) {
			rb.Field(10).(*array.StringBuilder).Append(fmt.Sprintf("v%d,\"%x", i64%1000, i64))
		}
		if !null(11) {
			rb.Field(11).(*array.StringBuilder).Append([]string{"", "a", "bb", "ünï", "x\ny"}[rng.IntN(5)])
		}
		rb.Field(12).(*array.BinaryBuilder).Append(make([]byte, rng.IntN(3)))
	}
	rec := rb.NewRecord()
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.Record{rec})
	defer tbl.Release()
	path := filepath.Join(t.TempDir(), "fixed.parquet")
	ver := parquet.DataPageV1
	if v2 {
		ver = parquet.DataPageV2
	}
	opts := []parquet.WriterProperty{parquet.WithMaxRowGroupLength(int64(n/3 + 1)), parquet.WithDictionaryDefault(dict),
		parquet.WithDictionaryPageSizeLimit(dictLimit), parquet.WithDataPageSize(int64(200 + rng.IntN(2000))), parquet.WithBatchSize(int64(1 + rng.IntN(100))),
		parquet.WithDataPageVersion(ver), parquet.WithCompression(codec)}
	for _, fl := range schema.Fields() {
		opts = append(opts, parquet.WithDictionaryCostFallbackFor(fl.Name, false))
	}
	if rng.IntN(3) == 0 { // the floats and an integer column byte-stream-split
		for _, name := range []string{"f32", "f64", "i64"} {
			opts = append(opts, parquet.WithDictionaryFor(name, false), parquet.WithEncodingFor(name, parquet.Encodings.ByteStreamSplit))
		}
	}
	base := opts
	var bytesEnc parquet.Encoding
	if delta {
		bytesEnc = []parquet.Encoding{parquet.Encodings.DeltaLengthByteArray, parquet.Encodings.DeltaByteArray}[rng.IntN(2)]
	}
	// withDelta is opts with the DELTA encodings, the nullable byte arrays'
	// too if nullBytes.
	withDelta := func(nullBytes bool) []parquet.WriterProperty {
		opts := slices.Clone(base)
		if !delta {
			return opts
		}
		for _, fl := range schema.Fields() {
			enc := parquet.Encodings.DeltaBinaryPacked
			switch fl.Name {
			case "f32", "f64":
				continue
			case "i32", "u32", "i64n", "few", "date", "ts", "allnull":
				// arrow-go v18.8's DELTA_BINARY_PACKED writer panics on
				// some nullable columns (seed 1796005056250904788: i32,
				// then i64n, "slice bounds out of range [:521] with
				// capacity 256"): the integers DELTA-encoded here are
				// i64's, every width to 64. TestDeltaDuckDB has NULLs and
				// negative INT32s in DuckDB's DELTA pages; TestDeltaInts
				// wraps INT32 deltas with an encoder of its own.
				continue
			case "s", "sfew":
				if !nullBytes {
					continue
				}
				enc = bytesEnc
			case "bin":
				enc = bytesEnc
			}
			opts = append(opts, parquet.WithDictionaryFor(fl.Name, false), parquet.WithEncodingFor(fl.Name, enc))
		}
		return opts
	}
	write := func(opts []parquet.WriterProperty) (panicked any) {
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if panicked = recover(); panicked != nil {
				out.Close()
			}
		}()
		if err := pqarrow.WriteTable(tbl, out, int64(n/3+1), parquet.NewWriterProperties(opts...), pqarrow.DefaultWriterProps()); err != nil {
			t.Fatal(err)
		}
		return nil // WriteTable closed out
	}
	if p := write(withDelta(true)); p != nil {
		// arrow-go v18.8's DELTA_BINARY_PACKED writer also panics, now and
		// then, on the lengths of a nullable byte-array column it writes
		// DELTA_LENGTH_BYTE_ARRAY (seed 1796019953308972158: "slice bounds
		// out of range [:313] with capacity 256", about once in 180 runs):
		// that file is written again without it.
		if !delta {
			panic(p)
		}
		t.Logf("arrow-go's writer panicked (%v): written again with s and sfew not DELTA-encoded", p)
		if p := write(withDelta(false)); p != nil {
			panic(p)
		}
	}
	return path
}

// fixedColumnsSame fails t unless a and b hold the same rows: the same
// NULLs and, bit for bit, the same values (the NULL rows' too: 0).
func fixedColumnsSame(t *testing.T, what string, a, b *Column) {
	t.Helper()
	if a.Len() != b.Len() {
		t.Fatalf("%s: %d rows against %d", what, a.Len(), b.Len())
	}
	for j := range a.Len() {
		if a.Null(j) != b.Null(j) {
			t.Fatalf("%s: row %d NULL %v against %v", what, j, a.Null(j), b.Null(j))
		}
		switch {
		case a.offs != nil || b.offs != nil:
			if !a.Null(j) && string(a.Bytes(j)) != string(b.Bytes(j)) {
				t.Fatalf("%s: row %d: %q against %q", what, j, a.Bytes(j), b.Bytes(j))
			}
		case a.ints != nil || b.ints != nil:
			if a.ints[j] != b.ints[j] {
				t.Fatalf("%s: row %d: %d against %d", what, j, a.ints[j], b.ints[j])
			}
		case a.floats != nil || b.floats != nil:
			if math.Float64bits(a.floats[j]) != math.Float64bits(b.floats[j]) {
				t.Fatalf("%s: row %d: %v against %v", what, j, a.floats[j], b.floats[j])
			}
		default:
			t.Fatalf("%s: neither ints nor floats", what)
		}
	}
}

// TestFixedPagesSame: the fixed-width pages decoder (readFixed) reads
// every column chunk it takes as arrow-go's column reader does
// (ACBFJOIN_PARQUET_PAGES=arrow), whole and at random ascending rows
// (sparse, dense, the first and last), for data pages of both versions,
// three codecs, dictionary pages (with fallbacks to PLAIN) or none, NULLs
// from none to nearly all, and edge values (NaN, -0, the integers'
// bounds). It also checks that readFixed took every chunk.
func TestFixedPagesSame(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	trials := 24
	if testing.Short() {
		trials = 8
	}
	keptReads, dictReads := int64(0), 0
	codecs := []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Zstd}
	// Past the trials, more until a read took a kept dictionary page and a
	// byte array chunk was read as a dictionary (the checks at the end), up
	// to four times as many: -short's 8 trials of seed
	// 1796048814214178589 had no kept page, a chance of the draws, not of
	// the decoder.
	for trial := 0; trial < trials || (keptReads == 0 || dictReads == 0) && trial < 4*trials; trial++ {
		n := 1 + rng.IntN(4000)
		dict, v2 := trial%2 == 0, trial%4 >= 2
		delta := trial%8 >= 6 // the integers and byte arrays DELTA-encoded
		dict = dict && !delta
		codec := codecs[rng.IntN(len(codecs))]
		dictLimit := int64(64 + rng.IntN(4096))
		path := writeFixedParquetEnc(t, rng, n, dict, v2, codec, dictLimit, delta)
		tb, err := Open(context.Background(), path, "fixed.parquet", Parquet, "")
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("trial %d (seed %d; %d rows, dict %v, v2 %v, delta %v, %v)", trial, seed, n, dict, v2, delta, codec)
		pq := tb.b.(*parquetBackend).pq
		for g := range tb.Chunks() {
			rows := int(pq.chunkRows(g))
			sels := [][]int{nil}
			for _, p := range []float64{0.002, 0.05, 0.5, 1} {
				var sel []int
				for r := range rows {
					if rng.Float64() < p || r == rows-1 && p > 0.01 {
						sel = append(sel, r)
					}
				}
				if len(sel) == 0 {
					sel = []int{rng.IntN(rows)}
				}
				sels = append(sels, sel)
			}
			for col, typ := range tb.Types {
				for _, sel := range sels {
					kept := false
					if dict && pq.col[col].PhysicalType() == parquet.Types.Int64 && rng.IntN(2) == 0 {
						// The dictionary page that dictionaryMisses reads
						// and finds holding a value is kept for readFixed.
						whole, err := pq.read(g, col, typ, nil)
						if err != nil {
							t.Fatal(err)
						}
						for r := range whole.Len() {
							if !whole.Null(r) {
								h := xxhash.Sum64(binary.LittleEndian.AppendUint64(nil, uint64(whole.ints[r])))
								if pq.dictionaryMisses(g, col, []uint64{h}) {
									t.Fatalf("%s: group %d, %s: a held value proven absent", what, g, tb.Names[col])
								}
								_, kept = pq.dicts.take(g, col)
								if kept {
									pq.dictionaryMisses(g, col, []uint64{h}) // again, for readFixed
								}
								break
							}
						}
					}
					ours, err := pq.readFixed(g, col, typ, sel)
					if err == errNotFixed {
						ours, err = pq.readBytes(g, col, typ, sel)
					}
					if _, left := pq.dicts.take(g, col); left {
						t.Fatalf("%s: group %d, %s: readFixed left the kept dictionary", what, g, tb.Names[col])
					}
					keptReads += b2i(kept)
					if err != nil {
						t.Fatalf("%s: group %d, %s: %v", what, g, tb.Names[col], err)
					}
					arrowPages = true
					theirs, err := pq.read(g, col, typ, sel)
					arrowPages = false
					if err != nil {
						t.Fatal(err)
					}
					fixedColumnsSame(t, fmt.Sprintf("%s: group %d, %s, %d rows selected", what, g, tb.Names[col], len(sel)), ours, theirs)
				}
			}
		}
		for g := range tb.Chunks() { // integers as dictionaries
			for col, typ := range tb.Types {
				if typ.Kind != Int {
					continue
				}
				d, vals, err := pq.readIntKey(g, col, typ)
				if err == errNotFixed {
					continue // not dictionary-encoded, or fell back to PLAIN
				}
				if err != nil {
					t.Fatal(err)
				}
				if d != nil {
					dictReads++
					if 2*d.Values.Len() > d.Len() {
						t.Fatalf("%s: group %d, %s: a dictionary of %d entries for %d rows", what, g, tb.Names[col], d.Values.Len(), d.Len())
					}
					vals = d.Column(nil)
				}
				arrowPages = true
				theirs, err := pq.read(g, col, typ, nil)
				arrowPages = false
				if err != nil {
					t.Fatal(err)
				}
				fixedColumnsSame(t, fmt.Sprintf("%s: group %d, %s as a key", what, g, tb.Names[col]), vals, theirs)
			}
		}
		for g := range tb.Chunks() { // byte arrays as dictionaries
			for col, typ := range tb.Types {
				if !bytesKinds(typ) {
					continue
				}
				ours, err := pq.readDictBytes(g, col, typ)
				if err == errNotFixed {
					continue // a page fell back to PLAIN
				}
				if err != nil {
					t.Fatal(err)
				}
				dictReads++
				arrowPages = true
				theirs, err := pq.readDictChunk(g, col, typ)
				arrowPages = false
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("%s: group %d, %s as a dictionary", what, g, tb.Names[col])
				if !slices.Equal(ours.Rows, theirs.Rows) {
					t.Fatalf("%s: the rows' entries differ", what)
				}
				fixedColumnsSame(t, what, ours.Values, theirs.Values)
			}
		}
		tb.Close()
	}
	if dictReads == 0 {
		t.Error("no byte array chunk read as a dictionary")
	}
	if keptReads == 0 {
		t.Error("no read took a kept dictionary page")
	}
}

// TestUnpackHybrid: unpackHybrid decodes runs of the RLE/bit-packed
// hybrid encoding, made by a simple encoder here, of every bit width and
// run mix, and values cut short in the last bit-packed group; damaged
// runs are errors, not panics.
func TestUnpackHybrid(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	for trial := range 2000 {
		w := trial % 33
		want, data := randomHybrid(rng, w, rng.IntN(300))
		take := len(want)
		if take > 0 && rng.IntN(3) == 0 {
			take = rng.IntN(take)
		}
		got := make([]uint32, take)
		if _, err := unpackHybrid(data, w, got); err != nil {
			t.Fatalf("width %d, %d values: %v", w, take, err)
		}
		if !slices.Equal(got, want[:take]) {
			t.Fatalf("width %d: %v, want %v", w, got, want[:take])
		}
		if take > 0 { // hybridCursor: chosen values, ascending, found in the runs
			var c hybridCursor
			if err := c.scan(data, w, take); err != nil {
				t.Fatalf("hybridCursor, width %d: %v", w, err)
			}
			for j := 0; j < take; j += 1 + rng.IntN(5) {
				if got := c.at(j); got != want[j] {
					t.Fatalf("hybridCursor, width %d: value %d is %d, want %d", w, j, got, want[j])
				}
			}
		}
		if w <= 12 { // gatherHybrid: the entries of the values taken
			dict := make([]int64, 1<<w)
			for e := range dict {
				dict[e] = rng.Int64()
			}
			out := make([]int64, take)
			if err := gatherHybrid(data, w, dict, out); err != nil {
				t.Fatalf("gatherHybrid, width %d: %v", w, err)
			}
			for q, x := range want[:take] {
				if out[q] != dict[x] {
					t.Fatalf("gatherHybrid, width %d: value %d is %d, want entry %d's %d", w, q, out[q], x, dict[x])
				}
			}
			if take > 0 && w > 0 { // an index beyond a shorter dictionary
				if big := slices.Max(want[:take]); big > 0 {
					if err := gatherHybrid(data, w, dict[:big], out); err == nil {
						t.Fatalf("gatherHybrid, width %d: index %d of %d entries taken", w, big, big)
					}
				}
			}
		}
		if w == 1 { // countOnes: the 1s among the values taken
			ones := 0
			for _, v := range want[:take] {
				ones += int(v)
			}
			if got, err := countOnes(data, take); err != nil || got != ones {
				t.Fatalf("countOnes of %d values: %d (%v), want %d", take, got, err, ones)
			}
		}
		if len(data) > 0 { // damaged: cut or flipped, never a panic
			cut := data[:rng.IntN(len(data))]
			_, _ = unpackHybrid(cut, w, make([]uint32, len(want)))
		}
	}
	if _, err := unpackHybrid([]byte{0x02}, 8, make([]uint32, 1)); err == nil {
		t.Error("an RLE run without its value decoded")
	}
	if _, err := unpackHybrid([]byte{0x02, 0x09}, 3, make([]uint32, 1)); err == nil {
		t.Error("a run value wider than the bit width decoded")
	}
	if _, err := unpackHybrid([]byte{0x00, 0x01}, 1, make([]uint32, 1)); err == nil {
		t.Error("an empty run decoded, which would loop")
	}
}

// randomHybrid returns about n values below 2^w, in runs of repeats and
// singles, and their RLE/bit-packed hybrid encoding (encodeHybrid: runs
// mixed at random).
func randomHybrid(rng *rand.Rand, w, n int) ([]uint32, []byte) {
	var vals []uint32
	for len(vals) < n {
		v := uint32(0)
		if w > 0 {
			v = uint32(rng.Uint64() & (1<<w - 1))
		}
		count := 1
		if rng.IntN(2) == 0 {
			count += rng.IntN(40)
		}
		for range count {
			vals = append(vals, v)
		}
	}
	return vals, encodeHybrid(rng, w, vals)
}

// FuzzUnpackHybrid: unpackHybrid never panics on any bytes, width and
// count, and what it decodes from a valid encoding is the encoded values.
func FuzzUnpackHybrid(f *testing.F) {
	f.Add([]byte{0x03, 0xff}, uint8(1), uint16(8))
	f.Add([]byte{0x10, 0x05}, uint8(3), uint16(8))
	f.Fuzz(func(t *testing.T, data []byte, w uint8, n uint16) {
		out := make([]uint32, int(n)%2048)
		_, _ = unpackHybrid(data, int(w%40), out)
		if ones, err := countOnes(data, len(out)); err == nil {
			if _, err := unpackHybrid(data, 1, out); err != nil {
				t.Fatalf("countOnes read what unpackHybrid refuses: %v", err)
			}
			sum := 0
			for _, v := range out {
				sum += int(v)
			}
			if sum != ones {
				t.Fatalf("countOnes %d, unpacked %d", ones, sum)
			}
		}
		rng := rand.New(rand.NewPCG(uint64(len(data)), uint64(n)))
		width := int(w % 33)
		want, enc := randomHybrid(rng, width, int(n)%500)
		got := make([]uint32, len(want))
		if _, err := unpackHybrid(enc, width, got); err != nil || !slices.Equal(got, want) {
			t.Fatalf("width %d: %v (%v), want %v", width, got, err, want)
		}
	})
}

// FuzzPageHeader: the compact protocol reader never panics or reads past
// its bytes on any input (a header of a damaged file), and a header it
// reads whole says where it ended.
func FuzzPageHeader(f *testing.F) {
	// A version 1 data page header: type 0, sizes 100 and 80, a data page
	// header of 10 values, RLE_DICTIONARY, RLE levels; then statistics.
	f.Add([]byte{0x15, 0x00, 0x15, 0xc8, 0x01, 0x15, 0xa0, 0x01, 0x2c, 0x15, 0x14, 0x15, 0x10, 0x15, 0x06, 0x15, 0x06, 0x1c, 0x18, 0x01, 0x00, 0x00, 0x00})
	f.Add([]byte{0x19, 0xfc, 0xff, 0xff, 0xff, 0x0f, 0x1b, 0x02, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := compactReader{b: b}
		_ = r.pageHeader()
		if r.pos > len(b) {
			t.Fatalf("read to %d of %d bytes", r.pos, len(b))
		}
	})
}

// TestFixedPagesDamaged: a file damaged in its column chunks' bytes (bytes
// flipped at random) reads through readFixed to an error or to values,
// never to a panic (which readFixed would report as "a damaged page"),
// a hang or an absurd allocation; where both readers give values, they
// are the same (both decode the same bytes).
func TestFixedPagesDamaged(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	trials := 60
	if testing.Short() {
		trials = 20
	}
	for trial := range trials {
		// DELTA pages too (trial%8 >= 6), not compared with arrow-go,
		// whose readers of them spun on damaged byte arrays: ours must
		// end in values or an error.
		delta := trial%8 >= 6
		// Snappy pages a third of the time: a page's header damaged
		// moves where fixedDecoder.place decompresses it.
		codec := compress.Codecs.Uncompressed
		if trial%3 == 1 {
			codec = compress.Codecs.Snappy
		}
		path := writeFixedParquetEnc(t, rng, 500+rng.IntN(1500), trial%2 == 0 && !delta, trial%4 >= 2, codec, 4096, delta)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		body := len(b) * 6 / 10 // the column chunks, before the footer
		for range 1 + rng.IntN(8) {
			b[4+rng.IntN(body-4)] ^= byte(1 + rng.IntN(255))
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		tb, err := Open(context.Background(), path, "fixed.parquet", Parquet, "")
		if err != nil {
			continue
		}
		pq := tb.b.(*parquetBackend).pq
		for g := range tb.Chunks() {
			for col, typ := range tb.Types {
				ours, err := pq.readFixed(g, col, typ, nil)
				if err == errNotFixed {
					ours, err = pq.readBytes(g, col, typ, nil)
				}
				if err != nil {
					if strings.Contains(err.Error(), "a damaged page:") {
						t.Fatalf("trial %d (seed %d), group %d, %s: a panic: %v", trial, seed, g, tb.Names[col], err)
					}
					continue
				}
				if delta {
					continue
				}
				arrowPages = true
				theirs, err := pq.read(g, col, typ, nil)
				arrowPages = false
				if err == nil && !zeroWidthIndexes(t, pq, g, col) {
					fixedColumnsSame(t, fmt.Sprintf("trial %d (seed %d), group %d, %s", trial, seed, g, tb.Names[col]), ours, theirs)
				}
			}
		}
		tb.Close()
	}
}

// zeroWidthIndexes reports whether a dictionary-encoded data page of
// column col in row group g says its indexes are 0 bits wide. Every index
// of such a page is then 0 (parquet-format's RLE/bit-packed hybrid: a run
// of bit width 0 holds no value bytes), which readFixed reads; arrow-go
// v18.8 reads a repeated run of it as a stale byte of its bit reader's
// buffer (BitReader.getAlignedUint8 of 0 bytes returns raw[0]), so the two
// differ where a damaged page's bit width became 0 (seed
// 1796003387785838418: 0 -> 3 rows of the dictionary's second entry).
func zeroWidthIndexes(t *testing.T, pq *parquetTable, g, col int) bool {
	cc, err := pq.r.MetaData().RowGroup(g).ColumnChunk(pq.leaves[col][0])
	if err != nil {
		return false
	}
	pages, err := pq.openPages(cc)
	if err != nil {
		return false
	}
	defer pages.release()
	nullable := pq.col[col].MaxDefinitionLevel() > 0
	for {
		h, body, ok, err := pages.next()
		if err != nil || !ok {
			return false
		}
		if h.typ == pageDictionary || !dictEncoded(parquet.Encoding(h.encoding)) {
			continue
		}
		if values, _, err := dataPageParts(h, body, nullable); err == nil && len(values) > 0 && values[0] == 0 {
			return true
		}
	}
}

// TestRowsCheap: the columns the pages decoders take (numbers, dates,
// times, text, bytes) read cheaply at chosen rows; a boolean, a FIXED_LEN
// decimal or arrow-go's reader (ACBFJOIN_PARQUET_PAGES=arrow) do not.
func TestRowsCheap(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	path := writeFixedParquet(t, rng, 300, true, false, compress.Codecs.Snappy, 4096)
	tb, err := Open(context.Background(), path, "fixed.parquet", Parquet, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	all := make([]int, len(tb.Types))
	for i := range all {
		all[i] = i
	}
	if !tb.RowsCheap(0, all) {
		t.Error("the decoders' columns are not cheap at chosen rows")
	}
	arrowPages = true
	if tb.RowsCheap(0, all) {
		t.Error("cheap with arrow-go's reader")
	}
	arrowPages = false

	schema := arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.FixedWidthTypes.Boolean}, {Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rb := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer rb.Release()
	rb.Field(0).(*array.BooleanBuilder).Append(true)
	rb.Field(1).(*array.Int64Builder).Append(1)
	rec := rb.NewRecord()
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.Record{rec})
	defer tbl.Release()
	bpath := filepath.Join(t.TempDir(), "bool.parquet")
	f, err := os.Create(bpath)
	if err != nil {
		t.Fatal(err)
	}
	if err := pqarrow.WriteTable(tbl, f, 10, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	bt, err := Open(context.Background(), bpath, "bool.parquet", Parquet, "")
	if err != nil {
		t.Fatal(err)
	}
	defer bt.Close()
	if bt.RowsCheap(0, []int{0, 1}) || !bt.RowsCheap(0, []int{1}) {
		t.Errorf("a boolean column: RowsCheap %v; the int64 alone: %v", bt.RowsCheap(0, []int{0, 1}), bt.RowsCheap(0, []int{1}))
	}
}

// TestPlacedPagesSame: PLAIN pages of 8-byte values decompressed where
// their values go (fixedDecoder.place) read as arrow-go reads them, in
// chunks of one page and of many (the levels of a page written over the
// values of the one before, and put back), version 1 and 2 pages, every
// codec, NULLs none, rare (values moved down to their rows) and many
// (not placed).
func TestPlacedPagesSame(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	placed0, moved0 := placedPages.Load(), placedMoved.Load()
	codecs := []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Zstd, compress.Codecs.Gzip}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64},
		{Name: "i64n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f64n", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	}, nil)
	for trial := range testutil.RaceSize(32, 8) {
		n := 1 + rng.IntN(20000)
		nullRate := []float64{0, 0, 0.0005, 0.003, 0.02, 0.3}[rng.IntN(6)]
		rb := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
		for range n {
			v := rng.Int64() >> rng.IntN(64)
			rb.Field(0).(*array.Int64Builder).Append(v)
			for j := 1; j < 4; j++ {
				if rng.Float64() < nullRate {
					rb.Field(j).AppendNull()
					continue
				}
				switch b := rb.Field(j).(type) {
				case *array.Int64Builder:
					b.Append(v ^ 0x5a5a)
				case *array.Float64Builder:
					b.Append(float64(v) / 3)
				case *array.TimestampBuilder:
					b.Append(arrow.Timestamp(v >> 8))
				}
			}
		}
		rec := rb.NewRecord()
		rb.Release()
		ver := []parquet.DataPageVersion{parquet.DataPageV1, parquet.DataPageV2}[rng.IntN(2)]
		codec := codecs[rng.IntN(len(codecs))]
		pageSize := []int64{300, 4000, 64 << 10, 1 << 20}[rng.IntN(4)]
		path := filepath.Join(t.TempDir(), "placed.parquet")
		f, err := os.Create(path)
		testutil.Check(t, err)
		props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(ver), parquet.WithCompression(codec),
			parquet.WithDataPageSize(pageSize), parquet.WithMaxRowGroupLength(int64(1+rng.IntN(n))), parquet.WithBatchSize(int64(1+rng.IntN(2000))))
		w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.DefaultWriterProps())
		testutil.Check(t, err)
		testutil.Check(t, w.Write(rec))
		testutil.Check(t, w.Close())
		rec.Release()
		tb, err := Open(context.Background(), path, "placed.parquet", Parquet, "")
		testutil.Check(t, err)
		what := fmt.Sprintf("trial %d (seed %d; %d rows, NULLs %v, %v, %v, pages of %d bytes)", trial, seed, n, nullRate, ver, codec, pageSize)
		pq := tb.b.(*parquetBackend).pq
		for g := range tb.Chunks() {
			for col, typ := range tb.Types {
				ours, err := pq.readFixed(g, col, typ, nil)
				if err != nil {
					t.Fatalf("%s: group %d, %s: %v", what, g, tb.Names[col], err)
				}
				arrowPages = true
				theirs, err := pq.read(g, col, typ, nil)
				arrowPages = false
				testutil.Check(t, err)
				fixedColumnsSame(t, fmt.Sprintf("%s: group %d, %s", what, g, tb.Names[col]), ours, theirs)
				ours.Release()
				theirs.Release()
			}
		}
		tb.Close()
	}
	placed, moved := placedPages.Load()-placed0, placedMoved.Load()-moved0
	t.Logf("%d pages placed, %d of them with NULLs", placed, moved)
	if placed == 0 || moved == 0 && !testutil.Race {
		t.Errorf("%d pages placed, %d of them with NULLs: the test did not exercise place", placed, moved)
	}
}
