package columnar

import (
	"bytes"
	"encoding/binary"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// setCodec rewrites the codec of a writeCraft file (uncompressed) to
// codec, in place: the ColumnMetaData's path_in_schema ["x"] then codec 0.
func setCodec(t *testing.T, path string, codec byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pat := []byte{0x19, 0x18, 0x01, 'x', 0x15, 0x00}
	at := bytes.LastIndex(b, pat)
	if at < 0 {
		t.Fatal("no codec field")
	}
	b[at+5] = byte(zigzag(int64(codec)))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// allocDuring is the bytes allocated while f runs.
func allocDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestCraftedZstdLength: a ZSTD page whose frame says 1 GiB of content
// (not single-segment, so the window stays small) in 16 bytes, or holds
// 512 MiB of RLE blocks without a content size: an error, with about
// nothing allocated (arrow-go's codec grew its output past the page's
// size). From a review of the pages decoders, as the tests below.
func TestCraftedZstdLength(t *testing.T) {
	dict := craftPage{typ: pageDictionary, nv: 3, enc: 0, body: plainInts(10, 20, 30)}
	idx := []uint32{0, 1, 2, 0, 1, 2, 2, 2, 1, 0}
	data := packedRun(2, idx...)
	enc, _ := zstd.NewWriter(nil)
	frame := func(b []byte) []byte { return enc.EncodeAll(b, nil) }
	// A frame: magic, FHD 0xC0 (8-byte FCS, not single segment), window
	// descriptor 0 (1 KiB), FCS, one raw last block of the bytes.
	bomb := func(b []byte, fcs uint64) []byte {
		f := []byte{0x28, 0xB5, 0x2F, 0xFD, 0xC0, 0x00}
		f = binary.LittleEndian.AppendUint64(f, fcs)
		h := uint32(1 | len(b)<<3)
		f = append(f, byte(h), byte(h>>8), byte(h>>16))
		return append(f, b...)
	}
	// A frame without a content size (FHD 0), a 128 KiB window, the
	// bytes as a raw block, then n RLE blocks of 128 KiB each (4 bytes each).
	rleBomb := func(b []byte, n int) []byte {
		f := []byte{0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x38}
		h := uint32(0 | len(b)<<3)
		f = append(f, byte(h), byte(h>>8), byte(h>>16))
		f = append(f, b...)
		for k := range n {
			h := uint32(1<<1 | (128<<10)<<3)
			if k == n-1 {
				h |= 1
			}
			f = append(f, byte(h), byte(h>>8), byte(h>>16), 0)
		}
		return f
	}
	for _, c := range []struct {
		name   string
		stored []byte
		ok     bool
	}{
		{"good", frame(data), true},
		{"FCS of 1 GiB", bomb(data, 1<<30), false},
		{"RLE blocks of 512 MiB, no FCS", rleBomb(data, 4096), false},
	} {
		pages := []craftPage{{typ: pageDictionary, nv: 3, enc: 0, body: dict.body, stored: frame(dict.body)}, {typ: pageData, nv: 10, enc: 8, body: data, stored: c.stored}}
		path := writeCraft(t, craftChunk{pages: pages, rows: 10})
		setCodec(t, path, 6)
		pq := openCraft(t, path)
		for _, sel := range [][]int{nil, {1, 7}} {
			var got []int64
			var err error
			grew := allocDuring(func() { got, err = readCraft(t, pq, sel) })
			t.Logf("%s, rows %v: %v, %v; %d MiB allocated", c.name, sel, got, err, grew>>20)
			if (err == nil) != c.ok {
				t.Errorf("%s, rows %v: err %v", c.name, sel, err)
			}
			if grew > 64<<20 {
				t.Errorf("%s, rows %v: %d MiB allocated for a page of 16 bytes", c.name, sel, grew>>20)
			}
		}
		if !c.ok {
			grew := allocDuring(func() { pq.dictionaryMisses(0, 0, []uint64{bloomHashOf64(20)}) })
			_, _, err := pq.readIntKey(0, 0, Type{Kind: Int})
			t.Logf("%s: readIntKey %v; dictionaryMisses %d MiB", c.name, err, grew>>20)
		}
	}
}

// TestCraftedPageValues: a data page whose header claims far more values
// than the chunk has rows (a damaged num_values), its indices one
// repeated run of that many: an error, without allocating for them all.
func TestCraftedPageValues(t *testing.T) {
	const nv = 1 << 25
	dict := craftPage{typ: pageDictionary, nv: 3, enc: 0, body: plainInts(10, 20, 30)}
	run := binary.AppendUvarint([]byte{2}, uint64(nv)<<1)
	run = append(run, 1)
	for _, c := range []struct {
		name     string
		optional bool
		body     []byte
	}{
		{"required", false, run},
		// levels: one repeated run of nv zeros (NULLs): every row NULL
		{"optional, all NULL", true, func() []byte {
			lv := append(binary.AppendUvarint(nil, uint64(nv)<<1), 0)
			return append(binary.LittleEndian.AppendUint32(nil, uint32(len(lv))), lv...)
		}()},
	} {
		pages := []craftPage{dict, {typ: pageData, nv: nv, enc: 8, body: c.body}}
		pq := openCraft(t, writeCraft(t, craftChunk{pages: pages, rows: 10, optional: c.optional}))
		for _, how := range []string{"read", "readIntKey"} {
			var err error
			grew := allocDuring(func() {
				if how == "read" {
					_, err = readCraft(t, pq, nil)
				} else {
					_, _, err = pq.readIntKey(0, 0, Type{Kind: Int})
				}
			})
			t.Logf("%s, %s: %v; %d MiB allocated", c.name, how, err, grew>>20)
			if err == nil || !strings.Contains(err.Error(), `row group 0, column "x"`) {
				t.Errorf("%s, %s: %v", c.name, how, err)
			}
			if grew > 64<<20 {
				t.Errorf("%s, %s: %d MiB allocated for a file of 10 rows", c.name, how, grew>>20)
			}
		}
	}
}

// TestCraftedPageValuesBytes is TestCraftedPageValues of a text column.
func TestCraftedPageValuesBytes(t *testing.T) {
	const nv = 1 << 25
	var db []byte
	for _, s := range []string{"a", "b", "c"} {
		db = append(binary.LittleEndian.AppendUint32(db, uint32(len(s))), s...)
	}
	dict := craftPage{typ: pageDictionary, nv: 3, enc: 0, body: db}
	run := append(binary.AppendUvarint([]byte{2}, uint64(nv)<<1), 1)
	lv := append(binary.AppendUvarint(nil, uint64(nv)<<1), 0)
	nulls := append(binary.LittleEndian.AppendUint32(nil, uint32(len(lv))), lv...)
	for _, c := range []struct {
		name     string
		optional bool
		body     []byte
	}{{"required", false, run}, {"optional, all NULL", true, nulls}} {
		pages := []craftPage{dict, {typ: pageData, nv: nv, enc: 8, body: c.body}}
		pq := openCraft(t, writeCraft(t, craftChunk{pages: pages, rows: 10, optional: c.optional, bytes: true}))
		for _, how := range []string{"read", "read at rows", "readDictBytes"} {
			var err error
			grew := allocDuring(func() {
				switch how {
				case "read":
					_, err = pq.read(0, 0, Type{Kind: String}, nil)
				case "read at rows":
					_, err = pq.read(0, 0, Type{Kind: String}, []int{1, 5})
				default:
					_, err = pq.readDictBytes(0, 0, Type{Kind: String})
				}
			})
			t.Logf("%s, %s: %v; %d MiB allocated", c.name, how, err, grew>>20)
			if err == nil {
				t.Errorf("%s, %s: no error", c.name, how)
			}
			if grew > 64<<20 {
				t.Errorf("%s, %s: %d MiB allocated for a file of 10 rows", c.name, how, grew>>20)
			}
		}
	}
}

// TestCraftedNoDictPage: a chunk whose metadata names PLAIN_DICTIONARY
// (and PLAIN once) but whose pages are PLAIN only, no dictionary page:
// read reads it, and readIntKey hands it back to Read (errNotFixed)
// rather than failing the join.
func TestCraftedNoDictPage(t *testing.T) {
	pages := []craftPage{{typ: pageData, nv: 3, enc: 0, body: plainInts(5, 6, 7)}}
	pq := openCraft(t, writeCraft(t, craftChunk{pages: pages, rows: 3, plain: true}))
	got, err := readCraft(t, pq, nil)
	t.Logf("read: %v, %v", got, err)
	d, c, err := pq.readIntKey(0, 0, Type{Kind: Int})
	t.Logf("readIntKey: %v %v, %v", d, c, err)
	if err != nil && err != errNotFixed {
		t.Errorf("readIntKey: %v where read reads %v", err, got)
	}
	if !slices.Equal(got, []int64{5, 6, 7}) {
		t.Errorf("read: %v", got)
	}
}

// TestCraftedShortStreamSplit: a BYTE_STREAM_SPLIT page a value short
// (72 bytes for 10 INT64 values), on which arrow-go's reader spun: an
// error naming the row group and the column; a whole one reads right.
func TestCraftedShortStreamSplit(t *testing.T) {
	vals := []int64{1, -2, 3 << 40, 4, 5, 6, 7, 8, 9, -10}
	var split []byte
	for k := range 8 {
		for _, v := range vals {
			split = append(split, byte(uint64(v)>>(8*k)))
		}
	}
	for _, n := range []int{72, 79, 80} {
		pq := openCraft(t, writeCraft(t, craftChunk{pages: []craftPage{{typ: pageData, nv: 10, enc: 9, body: split[:n]}}, rows: 10, plain: true}))
		got, err := readCraft(t, pq, nil)
		switch {
		case n < 80 && (err == nil || !strings.Contains(err.Error(), `row group 0, column "x"`)):
			t.Errorf("%d bytes: %v, %v", n, got, err)
		case n == 80 && (err != nil || !slices.Equal(got, vals)):
			t.Errorf("%d bytes: %v, %v; want %v", n, got, err, vals)
		}
	}
}
