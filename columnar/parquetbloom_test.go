package columnar

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/thrift/lib/go/thrift"
	"github.com/cespare/xxhash/v2"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/key"
)

// bloomHeader is a BloomFilterHeader in Thrift's compact protocol, as
// writers make it: numBytes, then the algorithm, hash and compression
// unions, each with member alg, hash, comp (1: BLOCK, XXHASH,
// UNCOMPRESSED); extra, if set, adds an unknown field 9 (a string) first.
func bloomHeader(t testing.TB, numBytes int32, alg, hash, comp int16, extra bool) []byte {
	t.Helper()
	buf := thrift.NewTMemoryBuffer()
	p := thrift.NewTCompactProtocolConf(buf, nil)
	ctx := context.Background()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(p.WriteStructBegin(ctx, "BloomFilterHeader"))
	if extra {
		must(p.WriteFieldBegin(ctx, "future", thrift.STRING, 9))
		must(p.WriteString(ctx, "a field of a later version"))
		must(p.WriteFieldEnd(ctx))
	}
	must(p.WriteFieldBegin(ctx, "numBytes", thrift.I32, 1))
	must(p.WriteI32(ctx, numBytes))
	must(p.WriteFieldEnd(ctx))
	for i, member := range []int16{alg, hash, comp} {
		must(p.WriteFieldBegin(ctx, "union", thrift.STRUCT, int16(i+2)))
		must(p.WriteStructBegin(ctx, "union"))
		must(p.WriteFieldBegin(ctx, "member", thrift.STRUCT, member))
		must(p.WriteStructBegin(ctx, "empty"))
		must(p.WriteFieldStop(ctx))
		must(p.WriteStructEnd(ctx))
		must(p.WriteFieldEnd(ctx))
		must(p.WriteFieldStop(ctx))
		must(p.WriteStructEnd(ctx))
		must(p.WriteFieldEnd(ctx))
	}
	must(p.WriteFieldStop(ctx))
	must(p.WriteStructEnd(ctx))
	must(p.Flush(ctx))
	return buf.Bytes()
}

// testBloom is the test's own split-block filter of nblocks blocks, its
// inserts written from BloomFilter.md, independent of the reader's probe.
type testBloom struct{ words []uint32 }

func (b *testBloom) insert(v []byte) {
	h := xxhash.Sum64(v)
	block := int((h >> 32) * uint64(len(b.words)/8) >> 32)
	salts := []uint32{0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31}
	for i, s := range salts {
		b.words[8*block+i] |= 1 << ((uint32(h) * s) >> 27)
	}
}

// bytes is the filter as a file stores it: header, then the bitset.
func (b *testBloom) bytes(t testing.TB) []byte {
	out := bloomHeader(t, int32(4*len(b.words)), 1, 1, 1, false)
	for _, w := range b.words {
		out = binary.LittleEndian.AppendUint32(out, w)
	}
	return out
}

func int64Plain(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// TestBloomNoFalseNegatives: every value inserted might be contained, and
// the rate of fresh values passing is the split-block filter's at its
// size and load: the Poisson mixture over block loads (Putze, Sanders and
// Singler 2007) of (1 - (31/32)^j)^8, within 4 standard deviations (a
// fresh value's binomial spread and that of the filter's own blocks), and
// the filter's FPP() within 4 binomial sd of the measured rate: two checks
// of the same measurement, so not independent ones to judge together
// (testutil.Deviations).
func TestBloomNoFalseNegatives(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(testutil.Seed(t))
	const n, fresh = 20000, 400000
	nblocks := 700 + rng.IntN(600) // about 11.5 bits a value; any count of blocks, not only powers of two
	tb := &testBloom{words: make([]uint32, 8*nblocks)}
	in := map[uint64]bool{}
	for len(in) < n {
		v := rng.Uint64()
		in[v] = true
		tb.insert(int64Plain(v))
	}
	data := tb.bytes(t)
	f, err := readBloom(bytes.NewReader(data), 0, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if f.Bytes() != 32*nblocks {
		t.Fatalf("%d bytes, want %d", f.Bytes(), 32*nblocks)
	}
	for v := range in {
		if !f.MightContain(int64Plain(v)) {
			t.Fatalf("value %d inserted, MightContain false", v)
		}
	}
	pos := 0
	for range fresh {
		v := rng.Uint64()
		if in[v] {
			continue
		}
		if f.MightContain(int64Plain(v)) {
			pos++
		}
	}
	lambda := float64(n) / float64(nblocks)
	var p, p2 float64
	pois := math.Exp(-lambda)
	for j := 0; j < 200; j++ {
		if j > 0 {
			pois *= lambda / float64(j)
		}
		fj := math.Pow(1-math.Pow(31.0/32, float64(j)), 8)
		p += pois * fj
		p2 += pois * fj * fj
	}
	sd := math.Sqrt(p*(1-p)/fresh + (p2-p*p)/float64(nblocks))
	got := float64(pos) / fresh
	t.Logf("%d blocks, %d values: FP %.5f, formula %.5f, sd %.5f (z %.2f); the filter's own bits say %.5f",
		nblocks, n, got, p, sd, (got-p)/sd, f.FPP())
	if math.Abs(got-p) > 4*sd {
		t.Errorf("false positive rate %.5f, formula %.5f: beyond 4 sd (%.5f)", got, p, sd)
	}
	if math.Abs(f.FPP()-got) > 4*math.Sqrt(p*(1-p)/fresh) {
		t.Errorf("FPP() %.5f, measured %.5f", f.FPP(), got)
	}
}

// TestBloomHeader: the kinds a header may name, unknown fields, sizes.
func TestBloomHeader(t *testing.T) {
	bitset := make([]byte, 64)
	for _, c := range []struct {
		name string
		data []byte
		ok   bool
	}{
		{"plain", append(bloomHeader(t, 64, 1, 1, 1, false), bitset...), true},
		{"an unknown field", append(bloomHeader(t, 64, 1, 1, 1, true), bitset...), true},
		{"another algorithm", append(bloomHeader(t, 64, 2, 1, 1, false), bitset...), false},
		{"another hash", append(bloomHeader(t, 64, 1, 2, 1, false), bitset...), false},
		{"compressed", append(bloomHeader(t, 64, 1, 1, 2, false), bitset...), false},
		{"beyond the file", append(bloomHeader(t, 96, 1, 1, 1, false), bitset...), false},
		{"not whole blocks", append(bloomHeader(t, 48, 1, 1, 1, false), bitset...), false},
		{"negative", append(bloomHeader(t, -32, 1, 1, 1, false), bitset...), false},
		{"over the bound", append(bloomHeader(t, MaxBloomBytes+32, 1, 1, 1, false), bitset...), false},
		{"truncated header", bloomHeader(t, 64, 1, 1, 1, false)[:5], false},
		{"empty", nil, false},
	} {
		f, err := readBloom(bytes.NewReader(c.data), 0, int64(len(c.data)))
		if (err == nil) != c.ok || (f != nil) != c.ok {
			t.Errorf("%s: filter %v, error %v; want ok %v", c.name, f != nil, err, c.ok)
		}
	}
}

// FuzzBloom: the header and bitset decoder never panics, and allocates no
// more than its input holds.
func FuzzBloom(f *testing.F) {
	tb := &testBloom{words: make([]uint32, 16)}
	tb.insert([]byte("x"))
	f.Add(tb.bytes(f))
	f.Add(append(bloomHeader(f, 64, 1, 1, 1, true), make([]byte, 64)...))
	f.Add(append(bloomHeader(f, 64, 3, 1, 1, false), make([]byte, 64)...))
	f.Add(bloomHeader(f, 1<<30, 1, 1, 1, false))
	f.Add([]byte{0x15, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, data []byte) {
		bf, err := readBloom(bytes.NewReader(data), 0, int64(len(data)))
		if err != nil {
			if bf != nil {
				t.Fatal("a filter and an error")
			}
			return
		}
		if bf.Bytes() > len(data) || bf.Bytes()%32 != 0 || bf.Bytes() == 0 {
			t.Fatalf("a filter of %d bytes from %d", bf.Bytes(), len(data))
		}
		bf.MightContain(data)
		bf.MightContainHash(math.MaxUint64)
		if p := bf.FPP(); p < 0 || p > 1 {
			t.Fatalf("FPP %v", p)
		}
	})
}

// TestBloomDuckDB reads the Bloom filters DuckDB wrote
// (testdata/parquet-bloom, bench/parquet-bloom-fixture.sh): every value
// of every row group might be in its filter (no false negatives: the
// hashing of INT64, INT32 and BYTE_ARRAY values is the writer's), and
// for each value of probes.csv the filter says what DuckDB's
// parquet_bloom_probe said, false positives included.
func TestBloomDuckDB(t *testing.T) {
	testutil.SkipUnderRace(t)
	bloomAgrees(t, "bloom.parquet", "probes.csv", []string{"id", "s", "v"}, "row")
}

// TestBloomOurs: the other direction. DuckDB reads the Bloom filters of
// our own Parquet output (testdata/parquet-bloom/ours.parquet, a join's
// output through join/local's Parquet sink, and DuckDB's probes of it,
// probes-ours.csv: bench/parquet-bloom-ours.sh): DuckDB excludes no value
// of a row group from it, and for every probe our reader says what
// DuckDB said, false positives included.
func TestBloomOurs(t *testing.T) {
	testutil.SkipUnderRace(t)
	bloomAgrees(t, "ours.parquet", "probes-ours.csv", []string{"id"}, "s")
}

// TestBloomPassesTruncated: a file cut inside a row group's Bloom filter
// after it was opened gives no filter for that row group, or the filter's
// own answer: never a held value's hash left out (which would skip its
// rows). The cut falls at the filter's start and in its last block (in
// its last memory page, where a mapping would read zeros without a
// fault: the filter is read with pread, which a mapping measured no
// faster than).
func TestBloomPassesTruncated(t *testing.T) {
	src := filepath.Join(testutil.RepoRoot(t), "testdata", "parquet-bloom", "bloom.parquet")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	defer func(b int64) { sparseBloomBytes = b }(sparseBloomBytes)
	sparseBloomBytes = 1
	for _, where := range []string{"start", "last page"} {
		path := filepath.Join(t.TempDir(), "bloom.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tab, err := Open(context.Background(), path, "", Parquet, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		col := tab.Column("id")
		pq := tab.b.(*parquetBackend).pq
		last := tab.Chunks() - 1
		cc, err := pq.r.MetaData().RowGroup(last).ColumnChunk(pq.leaves[col][0])
		if err != nil || cc.BloomFilterOffset() <= 0 {
			t.Fatalf("row group %d: no Bloom filter (%v)", last, err)
		}
		cols, err := tab.Read(last, []int{col})
		if err != nil {
			t.Fatal(err)
		}
		var held []uint64 // a few: the filter is then read a block at a time
		for r := 0; r < cols[0].Len() && len(held) < 4; r++ {
			if cols[0].Null(r) {
				continue
			}
			if h := bloomHashOf(t, tab, col, string(cols[0].AppendText(nil, r))); !slices.Contains(held, h) {
				held = append(held, h)
			}
		}
		cut := cc.BloomFilterOffset() + 20
		if where == "last page" {
			cut = cc.BloomFilterOffset() + int64(cc.BloomFilterLength()) - 8
		}
		if err := os.Truncate(path, cut); err != nil {
			t.Fatal(err)
		}
		passes, ok := tab.BloomPasses(last, col, held, nil)
		if ok && len(passes) != len(held) {
			t.Errorf("cut at %s of the filter: %d of the row group's %d values passed, and the filter said to be read", where, len(passes), len(held))
		}
		tab.Close()
	}
}

// bloomHashOf is the Bloom filter hash (BloomHashes) of the key the text
// value makes in column col: a string key in a text or binary column, an
// integer key in others.
func bloomHashOf(t *testing.T, tab *Table, col int, value string) uint64 {
	t.Helper()
	kt := key.Int
	if tab.Types[col].Kind == String || tab.Types[col].Kind == Binary {
		kt = key.String
	}
	k, err := key.Of(kt, make([]byte, 8), []byte(value))
	if err != nil {
		t.Fatal(err)
	}
	hs, ok := tab.BloomHashes(col, kt, [][]byte{k})
	if !ok || len(hs) != 1 {
		t.Fatalf("column %s: BloomHashes %v, %v", tab.Names[col], hs, ok)
	}
	return hs[0]
}

// bloomAgrees checks file's Bloom filters of cols (testdata/parquet-bloom)
// against its rows (no value missed) and against DuckDB's probes of them in
// probes; column none has no filter.
func bloomAgrees(t *testing.T, file, probes string, cols []string, none string) {
	dir := filepath.Join(testutil.RepoRoot(t), "testdata", "parquet-bloom")
	tab, err := Open(context.Background(), filepath.Join(dir, file), "", Parquet, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	probe := func(col int, value string, rg int) bool {
		h := bloomHashOf(t, tab, col, value)
		f := tab.BloomFilter(rg, col)
		if f == nil {
			t.Fatalf("row group %d, column %s: no filter", rg, tab.Names[col])
		}
		want := f.MightContainHash(h)
		// BloomPasses: the same, read a block at a time and whole.
		for _, sparse := range []int64{1, 1 << 40} {
			sparseBloomBytes = sparse
			hs := []uint64{h ^ 0x9e3779b97f4a7c15, h, h * 31}
			passes, ok := tab.BloomPasses(rg, col, hs, nil)
			sparseBloomBytes = 2048
			if !ok {
				t.Fatalf("row group %d, column %s: BloomPasses found no filter", rg, tab.Names[col])
			}
			var each []uint64
			for _, x := range hs {
				if f.MightContainHash(x) {
					each = append(each, x)
				}
			}
			if !slices.Equal(passes, each) {
				t.Fatalf("row group %d, column %s: BloomPasses %x, the filter %x", rg, tab.Names[col], passes, each)
			}
		}
		return want
	}
	present := map[string]bool{} // column, value, row group
	for _, name := range cols {
		col := tab.Column(name)
		for rg := range tab.Chunks() {
			cols, err := tab.Read(rg, []int{col})
			if err != nil {
				t.Fatal(err)
			}
			for i := range cols[0].Len() {
				if cols[0].Null(i) {
					continue
				}
				v := string(cols[0].AppendText(nil, i))
				present[fmt.Sprint(name, ",", v, ",", rg)] = true
				if !probe(col, v, rg) {
					t.Fatalf("row group %d, column %s: value %s is there, the filter says no", rg, name, v)
				}
			}
		}
		if tab.BloomFilter(0, tab.Column(none)) != nil {
			t.Errorf("column %s has no Bloom filter; read one", none)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, probes))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")[1:]
	fps, in := 0, 0
	for _, l := range lines {
		f := strings.Split(l, ",")
		var rg int
		fmt.Sscan(f[2], &rg)
		value := f[1]
		want := f[3] == "false"
		if got := probe(tab.Column(f[0]), value, rg); got != want {
			t.Errorf("column %s, value %s, row group %d: MightContain %v, DuckDB's probe %v", f[0], value, rg, got, want)
		}
		if present[fmt.Sprint(f[0], ",", value, ",", rg)] {
			in++
			if !want {
				t.Errorf("column %s, value %s, row group %d: in the row group, DuckDB's probe excludes it", f[0], value, rg)
			}
		} else if want {
			fps++
		}
	}
	t.Logf("%s: %d probes agree with DuckDB's (%d of values in the row group, %d false positives)", file, len(lines), in, fps)
}

// TestBloomHashes: a key is hashed as the column's physical type stores
// the value it equals, and left out where no value can equal it; the
// columns whose filters cannot decide say so.
func TestBloomHashes(t *testing.T) {
	open := func(path string) *Table {
		tab, err := Open(context.Background(), path, "", Parquet, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tab.Close() })
		return tab
	}
	rec, _, _ := sample(t) // i8, i64, u32, f64, s, bin, d, dec, ...
	defer rec.Release()
	pq, _, _ := write(t, rec, 3, false)
	one := "1"
	rec2 := columnartest.Record(t, []string{"i32", "u64"}, []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Uint64}, [][]*string{{&one, &one}})
	defer rec2.Release()
	tabs := []*Table{open(pq), open(columnartest.Write(t, t.TempDir(), "h", rec2, 10, false).Parquet)}
	ik := func(vs ...int64) [][]byte {
		var ks [][]byte
		for _, v := range vs {
			ks = append(ks, binary.BigEndian.AppendUint64(nil, uint64(v)^1<<63))
		}
		return ks
	}
	le4 := func(v uint32) uint64 { return xxhash.Sum64(binary.LittleEndian.AppendUint32(nil, v)) }
	le8 := func(v uint64) uint64 { return xxhash.Sum64(binary.LittleEndian.AppendUint64(nil, v)) }
	big := int64(math.MaxUint32) + 1
	for _, c := range []struct {
		col  string
		kt   key.Type
		keys [][]byte
		want []uint64
		ok   bool
	}{
		{"i64", key.Int, ik(-1, 7, big), []uint64{le8(math.MaxUint64), le8(7), le8(uint64(big))}, true},
		{"i32", key.Int, ik(-1, 7, big, math.MinInt32-1), []uint64{le4(math.MaxUint32), le4(7)}, true},
		{"i8", key.Int, ik(-1, 300), []uint64{le4(math.MaxUint32), le4(300)}, true}, // INT32 storage: 300 is just absent
		{"bin", key.String, [][]byte{[]byte("ab")}, []uint64{xxhash.Sum64([]byte("ab"))}, true},
		{"d", key.Int, ik(7), nil, false},
		{"dec", key.String, [][]byte{[]byte("1.00")}, nil, false},
		{"u32", key.Int, ik(-1, 7, math.MaxUint32, big), []uint64{le4(7), le4(math.MaxUint32)}, true},
		{"u64", key.Int, ik(7), nil, false},
		{"s", key.String, [][]byte{[]byte("ab"), {}}, []uint64{xxhash.Sum64([]byte("ab")), xxhash.Sum64(nil)}, true},
		{"s", key.Int, ik(7), nil, false}, // keys made from the text
		{"i64", key.String, [][]byte{[]byte("7")}, nil, false},
		{"f64", key.String, [][]byte{[]byte("1")}, nil, false},
	} {
		tab := tabs[0]
		if tab.Column(c.col) < 0 {
			tab = tabs[1]
		}
		got, ok := tab.BloomHashes(tab.Column(c.col), c.kt, c.keys)
		if ok != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("column %s, key type %s: %x, %v; want %x, %v", c.col, c.kt, got, ok, c.want, c.ok)
		}
	}
}

// TestDictionaryMisses: a row group's dictionary never proves absent a
// value it holds, and proves absent the values it does not hold when
// every data page is dictionary-encoded: DuckDB's fixture (no encoding
// statistics, PLAIN_DICTIONARY), our own output (arrow/go's, with
// statistics), on INT64, BYTE_ARRAY and INT32 columns; a file whose pages
// fell back to PLAIN, or without dictionaries, proves nothing.
func TestDictionaryMisses(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	dir := filepath.Join(testutil.RepoRoot(t), "testdata", "parquet-bloom")
	// values returns each row group's values of col.
	values := func(tab *Table, col int) []map[string]bool {
		var out []map[string]bool
		for rg := range tab.Chunks() {
			cols, err := tab.Read(rg, []int{col})
			if err != nil {
				t.Fatal(err)
			}
			m := map[string]bool{}
			for i := range cols[0].Len() {
				if !cols[0].Null(i) {
					m[string(cols[0].AppendText(nil, i))] = true
				}
			}
			out = append(out, m)
		}
		return out
	}
	for _, c := range []struct {
		file  string
		cols  []string
		proof bool // every chunk dictionary-encoded: absent values proven absent
	}{
		{filepath.Join(dir, "bloom.parquet"), []string{"id", "s", "v"}, true},
		{filepath.Join(dir, "ours.parquet"), []string{"id"}, true},
		{writeDictParquet(t, rng, 2000, 5000, 11, true, 200), []string{"s", "i"}, false}, // fallen back to PLAIN
		{writeDictParquet(t, rng, 2000, 40, 5, false, 1<<20), []string{"s", "i"}, false}, // no dictionary
	} {
		tab, err := Open(context.Background(), c.file, "", Parquet, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range c.cols {
			col := tab.Column(name)
			vals := values(tab, col)
			var all []string
			for _, m := range vals {
				for v := range m {
					all = append(all, v)
				}
			}
			slices.Sort(all)
			all = slices.Compact(all)
			proven := 0
			for rg, m := range vals {
				for range 20 {
					v := all[rng.IntN(len(all))]
					h := bloomHashOf(t, tab, col, v)
					miss := tab.DictionaryMisses(rg, col, []uint64{h})
					if m[v] && miss {
						t.Fatalf("%s, row group %d, column %s: value %s is there, its dictionary says it is not", filepath.Base(c.file), rg, name, v)
					}
					if !m[v] && miss {
						proven++
					}
					if !m[v] && c.proof && !miss {
						t.Errorf("%s, row group %d, column %s: value %s is not there, the dictionary did not prove it", filepath.Base(c.file), rg, name, v)
					}
					// With a value it holds among the hashes: never a proof.
					for p := range m {
						if tab.DictionaryMisses(rg, col, []uint64{h, bloomHashOf(t, tab, col, p)}) {
							t.Fatalf("%s, row group %d, column %s: %s and %s, the second there: proven absent", filepath.Base(c.file), rg, name, v, p)
						}
						break
					}
				}
			}
			if !c.proof && proven > 0 {
				t.Errorf("%s, column %s: %d values proven absent by chunks that are not all dictionary-encoded", filepath.Base(c.file), name, proven)
			}
		}
		tab.Close()
	}
}

// TestDictHolds: a dictionary page cut short, or with a length beyond its
// bytes, holds "everything" (no proof); a whole one is searched.
func TestDictHolds(t *testing.T) {
	h := xxhash.Sum64String("b")
	page := []byte{1, 0, 0, 0, 'a', 1, 0, 0, 0, 'b'}
	for _, c := range []struct {
		data  []byte
		n, w  int
		holds bool
	}{
		{page, 2, -1, true},
		{page[:5], 1, -1, false},
		{page[:5], 2, -1, true},                // cut short
		{[]byte{9, 0, 0, 0, 'a'}, 1, -1, true}, // a length beyond the page
		{[]byte{1, 0}, 1, -1, true},
		{[]byte("ab"), 2, 1, true},
		{[]byte("a"), 2, 1, true}, // cut short
		{[]byte("ac"), 2, 1, false},
	} {
		if got := dictHolds(c.data, c.n, c.w, []uint64{h}); got != c.holds {
			t.Errorf("dictHolds(%q, %d, %d) = %v, want %v", c.data, c.n, c.w, got, c.holds)
		}
	}
}

// TestXXH64Inverse: the values xxh64Inverse8 and xxh64Inverse4 give
// back hash to the hashes they were given (random values' hashes, edges,
// and random words, most of which no 4-byte value hashes to); the
// inverses of the primes are inverses.
func TestXXH64Inverse(t *testing.T) {
	for _, p := range []uint64{xxPrime1, xxPrime2, xxPrime3} {
		if p*oddInverse(p) != 1 {
			t.Fatalf("oddInverse(%#x) = %#x: the product is not 1", p, oddInverse(p))
		}
	}
	rng := testutil.Rand(testutil.Seed(t))
	found4 := 0
	for i := range 100000 {
		v := rng.Uint64()
		if i < 4 {
			v = []uint64{0, 1, ^uint64(0), 1 << 63}[i]
		}
		if got := xxh64Inverse8(xxh64Of8(v)); got != v {
			t.Fatalf("8 bytes %#x: the inverse of its hash is %#x", v, got)
		}
		if got, ok := xxh64Inverse4(xxh64Of4(uint32(v))); !ok || got != uint32(v) {
			t.Fatalf("4 bytes %#x: the inverse of its hash is %#x (%v)", uint32(v), got, ok)
		}
		h := rng.Uint64() // a word: its 8-byte value hashes back to it; a 4-byte one only if there is one
		if got := xxh64Of8(xxh64Inverse8(h)); got != h {
			t.Fatalf("the word %#x: its 8-byte inverse hashes to %#x", h, got)
		}
		if v4, ok := xxh64Inverse4(h); ok {
			found4++
			if got := xxh64Of4(v4); got != h {
				t.Fatalf("the word %#x: its 4-byte inverse %#x hashes to %#x", h, v4, got)
			}
		}
	}
	if found4 > 10 { // about 2^-32 of the words have a 4-byte value
		t.Fatalf("%d of 100000 random words had a 4-byte value hashing to them", found4)
	}
}

// TestXXH64Fixed: the unrolled XXH64 of 8 and 4 bytes is the library's,
// on random values and edges.
func TestXXH64Fixed(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	for i := range 100000 {
		v := rng.Uint64()
		if i < 4 {
			v = []uint64{0, 1, ^uint64(0), 1 << 63}[i]
		}
		if got, want := xxh64Of8(v), xxhash.Sum64(binary.LittleEndian.AppendUint64(nil, v)); got != want {
			t.Fatalf("8 bytes %#x: %#x, want %#x", v, got, want)
		}
		if got, want := xxh64Of4(uint32(v)), xxhash.Sum64(binary.LittleEndian.AppendUint32(nil, uint32(v))); got != want {
			t.Fatalf("4 bytes %#x: %#x, want %#x", uint32(v), got, want)
		}
	}
}
