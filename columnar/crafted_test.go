package columnar

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/klauspost/compress/snappy"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// Hand-made Parquet files of one INT64 column and one row group, page by
// page, for what arrow-go's writer never makes and its reader is no
// reference for (an adversarial review of the pages decoders): offsets
// as parquet-mr writes them, empty and index pages, uncompressed version
// 2 pages in a compressed chunk, damaged encodings and lengths. The
// values read are checked against the values written.

// compactEnc writes Thrift's compact protocol: a struct's fields in
// ascending id order.
type compactEnc struct {
	b    []byte
	last []int16
}

func (e *compactEnc) begin() { e.last = append(e.last, 0) }
func (e *compactEnc) end()   { e.b = append(e.b, ctStop); e.last = e.last[:len(e.last)-1] }

func (e *compactEnc) field(id int16, typ byte) {
	if d := id - e.last[len(e.last)-1]; d > 0 && d <= 15 {
		e.b = append(e.b, byte(d)<<4|typ)
	} else {
		e.b = append(e.b, typ)
		e.b = binary.AppendUvarint(e.b, zigzag(int64(id)))
	}
	e.last[len(e.last)-1] = id
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func (e *compactEnc) i32(id int16, v int32) {
	e.field(id, ctI32)
	e.b = binary.AppendUvarint(e.b, zigzag(int64(v)))
}

func (e *compactEnc) i64(id int16, v int64) {
	e.field(id, ctI64)
	e.b = binary.AppendUvarint(e.b, zigzag(v))
}

func (e *compactEnc) str(id int16, s string) {
	e.field(id, ctBinary)
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *compactEnc) boolean(id int16, v bool) {
	if v {
		e.field(id, ctTrue)
	} else {
		e.field(id, ctFalse)
	}
}

// list writes a list field's header; its n elements follow.
func (e *compactEnc) list(id int16, et byte, n int) {
	e.field(id, ctList)
	if n < 15 {
		e.b = append(e.b, byte(n)<<4|et)
		return
	}
	e.b = append(e.b, 0xf0|et)
	e.b = binary.AppendUvarint(e.b, uint64(n))
}

func (e *compactEnc) strct(id int16) { e.field(id, ctStruct); e.begin() }

// craftPage is one page of a crafted chunk.
type craftPage struct {
	typ      int32 // pageData, pageDictionary, pageDataV2, pageIndex
	nv       int32
	enc      int32
	body     []byte // uncompressed: v1 its levels and values, v2 its levels then values
	v2Levels int32  // v2: the definition levels' bytes at the body's start
	v2Plain  bool   // v2: values stored uncompressed (is_compressed false)
	stored   []byte // if not nil: the stored bytes as they are (a damaged block)
}

// craftChunk is a crafted column chunk of an INT64 column.
type craftChunk struct {
	pages    []craftPage
	snappy   bool
	optional bool
	rows     int64
	dictOff  string // "": the dictionary page's offset; "equal": the data page's (PARQUET-1977); "zero": 0 (PARQUET-1402)
	bytes    bool   // a BYTE_ARRAY column (UTF8), not INT64
	plain    bool   // the encodings list names PLAIN (a page fell back), so no proof by it
	values   int64  // the column chunk's num_values, if not rows (a damaged footer)
}

// pageHeaderBytes encodes a page's header for its stored size.
func pageHeaderBytes(p craftPage, stored int) []byte {
	var e compactEnc
	e.begin()
	e.i32(1, p.typ)
	e.i32(2, int32(len(p.body)))
	e.i32(3, int32(stored))
	switch p.typ {
	case pageData:
		e.strct(5)
		e.i32(1, p.nv)
		e.i32(2, p.enc)
		e.i32(3, 3) // RLE levels
		e.i32(4, 3)
		e.end()
	case pageIndex:
		e.strct(6)
		e.end()
	case pageDictionary:
		e.strct(7)
		e.i32(1, p.nv)
		e.i32(2, p.enc)
		e.end()
	case pageDataV2:
		e.strct(8)
		e.i32(1, p.nv)
		e.i32(2, 0)
		e.i32(3, p.nv)
		e.i32(4, p.enc)
		e.i32(5, p.v2Levels)
		e.i32(6, 0)
		e.boolean(7, !p.v2Plain)
		e.end()
	}
	e.end()
	return e.b
}

// writeCraft writes c as a file of one INT64 column x and one row group.
func writeCraft(t *testing.T, c craftChunk) string {
	t.Helper()
	var buf bytes.Buffer
	buf.WriteString("PAR1")
	start := int64(buf.Len())
	dictOff, dataOff, unc := int64(-1), int64(-1), int64(0)
	for _, p := range c.pages {
		stored := p.body
		switch {
		case p.stored != nil:
			stored = p.stored
		case c.snappy && p.typ == pageDataV2 && !p.v2Plain:
			stored = append(slices.Clip(p.body[:p.v2Levels]), snappy.Encode(nil, p.body[p.v2Levels:])...)
		case c.snappy && p.typ != pageDataV2:
			stored = snappy.Encode(nil, p.body)
		}
		off := int64(buf.Len())
		switch {
		case p.typ == pageDictionary && dictOff < 0:
			dictOff = off
		case (p.typ == pageData || p.typ == pageDataV2) && dataOff < 0:
			dataOff = off
		}
		h := pageHeaderBytes(p, len(stored))
		unc += int64(len(h) + len(p.body))
		buf.Write(h)
		buf.Write(stored)
	}
	switch c.dictOff {
	case "equal":
		dataOff = dictOff
	case "zero":
		dataOff, dictOff = dictOff, 0
	}
	var e compactEnc
	e.begin()
	e.i32(1, 1)
	e.list(2, ctStruct, 2)
	e.begin()
	e.str(4, "schema")
	e.i32(5, 1)
	e.end()
	e.begin()
	ptype := int32(2) // INT64
	if c.bytes {
		ptype = 6 // BYTE_ARRAY
	}
	e.i32(1, ptype)
	rep := int32(0)
	if c.optional {
		rep = 1
	}
	e.i32(3, rep)
	e.str(4, "x")
	if c.bytes {
		e.i32(6, 0) // converted type UTF8: text
	}
	e.end()
	e.i64(3, c.rows)
	e.list(4, ctStruct, 1)
	e.begin() // RowGroup
	e.list(1, ctStruct, 1)
	e.begin() // ColumnChunk
	e.i64(2, start)
	e.strct(3) // ColumnMetaData
	e.i32(1, ptype)
	encs := []int64{2, 3} // PLAIN_DICTIONARY, RLE: every data page proven dictionary-encoded
	if c.plain {
		encs = append(encs, 0)
	}
	e.list(2, ctI32, len(encs))
	for _, enc := range encs {
		e.b = binary.AppendUvarint(e.b, zigzag(enc))
	}
	e.list(3, ctBinary, 1)
	e.b = append(binary.AppendUvarint(e.b, 1), 'x')
	codec := int32(0)
	if c.snappy {
		codec = 1
	}
	e.i32(4, codec)
	if c.values != 0 {
		e.i64(5, c.values)
	} else {
		e.i64(5, c.rows)
	}
	e.i64(6, unc)
	e.i64(7, int64(buf.Len())-start)
	e.i64(9, max(dataOff, start))
	if dictOff >= 0 {
		e.i64(11, dictOff)
	}
	e.end() // ColumnMetaData
	e.end() // ColumnChunk
	e.i64(2, unc)
	e.i64(3, c.rows)
	e.end() // RowGroup
	e.str(6, "parquet-cpp-arrow version 18.0.0")
	e.end()
	buf.Write(e.b)
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(e.b))))
	buf.WriteString("PAR1")
	path := filepath.Join(t.TempDir(), "crafted.parquet")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// plainInts is the PLAIN bytes of vs.
func plainInts(vs ...int64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return b
}

// packedRun is a bit-packed run of vs at width w, after the bit width
// byte of a dictionary page's indices.
func packedRun(w int, vs ...uint32) []byte {
	groups := (len(vs) + 7) / 8
	b := binary.AppendUvarint([]byte{byte(w)}, uint64(groups<<1|1))
	packed := make([]byte, groups*w)
	for j, v := range vs {
		for k := range w {
			if v>>k&1 == 1 {
				packed[(j*w+k)/8] |= 1 << ((j*w + k) % 8)
			}
		}
	}
	return append(b, packed...)
}

// openCraft opens path and returns its table's Parquet reader.
func openCraft(t *testing.T, path string) *parquetTable {
	t.Helper()
	tb, err := Open(context.Background(), path, "crafted.parquet", Parquet, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	return tb.b.(*parquetBackend).pq
}

// readCraft reads column x whole and at sel within 10 seconds (a hang
// fails the test), returning the values or the error.
func readCraft(t *testing.T, pq *parquetTable, sel []int) ([]int64, error) {
	t.Helper()
	type res struct {
		c   *Column
		err error
	}
	done := make(chan res, 1)
	go func() {
		c, err := pq.read(0, 0, Type{Kind: Int}, sel)
		done <- res{c, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, r.err
		}
		return slices.Clone(r.c.ints[:r.c.Len()]), nil
	case <-time.After(10 * time.Second):
		t.Fatal("the read hangs")
		return nil, nil
	}
}

// TestCraftedPages: pages arrow-go's writer never makes, read right, and
// damage read to an error naming the row group and the column, never a
// hang or a huge allocation.
func TestCraftedPages(t *testing.T) {
	dict := craftPage{typ: pageDictionary, nv: 3, enc: 0, body: plainInts(10, 20, 30)}
	idx := []uint32{0, 1, 2, 0, 1, 2, 2, 2, 1, 0}
	want := []int64{10, 20, 30, 10, 20, 30, 30, 30, 20, 10}
	data := craftPage{typ: pageData, nv: 10, enc: 8, body: packedRun(2, idx...)}

	// parquet-mr's offsets: a dictionary kept by dictionaryMisses for the
	// read of a chunk that cannot be split (it was read again: "a second
	// dictionary page").
	for _, off := range []string{"", "equal", "zero"} {
		pq := openCraft(t, writeCraft(t, craftChunk{pages: []craftPage{dict, data}, snappy: true, rows: 10, dictOff: off}))
		h := bloomHashOf64(20)
		if pq.dictionaryMisses(0, 0, []uint64{h}) {
			t.Fatalf("offsets %q: a held value proven absent", off)
		}
		got, err := readCraft(t, pq, nil)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("offsets %q: %v (%v), want %v", off, got, err, want)
		}
		if _, left := pq.dicts.take(0, 0); left {
			t.Fatalf("offsets %q: a kept dictionary left", off)
		}
		if off == "" {
			// The dictionary kept, and taken by the read (split chunks only).
			pq.dictionaryMisses(0, 0, []uint64{h})
			if _, kept := pq.dicts.take(0, 0); !kept {
				t.Fatal("a splittable chunk's dictionary not kept")
			}
		}
	}

	// An empty data page, an index page, an uncompressed version 2 page in
	// a Snappy chunk: read right whole and at rows (arrow-go v18.8's skip
	// of the empty page shifted the rows after it).
	v2 := craftPage{typ: pageDataV2, nv: 10, enc: 0, body: plainInts(want...), v2Plain: true}
	pages := []craftPage{dict, data, {typ: pageData, nv: 0, enc: 8, body: nil}, {typ: pageIndex}, v2,
		{typ: pageDataV2, nv: 10, enc: 8, body: packedRun(2, idx...)}}
	pq := openCraft(t, writeCraft(t, craftChunk{pages: pages, snappy: true, rows: 30}))
	all := slices.Concat(want, want, want)
	if got, err := readCraft(t, pq, nil); err != nil || !slices.Equal(got, all) {
		t.Fatalf("empty, index and uncompressed pages: %v (%v), want %v", got, err, all)
	}
	sel := []int{0, 9, 10, 15, 19, 20, 29}
	if got, err := readCraft(t, pq, sel); err != nil || len(got) != len(sel) {
		t.Fatalf("at rows: %v (%v)", got, err)
	} else {
		for j, r := range sel {
			if got[j] != all[r] {
				t.Fatalf("at rows: row %d is %d, want %d", r, got[j], all[r])
			}
		}
	}

	// arrow-go's reader (a column the pages decoders leave to it), at rows
	// past an empty page: read whole and the rows taken, not skipped.
	pq = openCraft(t, writeCraft(t, craftChunk{pages: []craftPage{dict, data, {typ: pageData, nv: 0, enc: 8}, data}, rows: 20}))
	arrowPages = true
	got, err := readCraft(t, pq, []int{0, 15, 19})
	arrowPages = false
	if err != nil || !slices.Equal(got, []int64{want[0], want[5], want[9]}) {
		t.Fatalf("arrow-go at rows past an empty page: %v (%v), want %v", got, err, []int64{want[0], want[5], want[9]})
	}

	// Damage: each an error naming the row group and the column.
	bomb := snappy.Encode(nil, make([]byte, 16))
	bomb = append(binary.AppendUvarint(nil, 0xF0000000), bomb[1:]...) // the block's length says 3.75 GiB
	cases := []struct {
		name  string
		pages []craftPage
		snap  bool
	}{
		// A good page, then one of no encoding there is: arrow-go spins on it.
		{"encoding 13", []craftPage{dict, data, {typ: pageData, nv: 10, enc: 13, body: packedRun(2, idx...)}}, false},
		{"encoding -13", []craftPage{dict, data, {typ: pageData, nv: 10, enc: -13, body: packedRun(2, idx...)}}, false},
		{"a Snappy length of 3.75 GiB", []craftPage{dict, {typ: pageData, nv: 10, enc: 8, body: make([]byte, 16), stored: bomb}}, true},
		// A repeated index of 5 at bit width 2: read whole and at rows alike.
		{"a run wider than its bit width", []craftPage{{typ: pageDictionary, nv: 8, enc: 0, body: plainInts(0, 1, 2, 3, 4, 5, 6, 7)}, {typ: pageData, nv: 10, enc: 8, body: []byte{2, 20, 5}}}, false},
		{"an index beyond the dictionary", []craftPage{dict, {typ: pageData, nv: 10, enc: 8, body: packedRun(2, 0, 3, 0, 0, 0, 0, 0, 3, 0, 0)}}, false},
		{"a dictionary page of encoding 13", []craftPage{{typ: pageDictionary, nv: 3, enc: 13, body: plainInts(1, 2, 3)}, data}, false},
	}
	for _, c := range cases {
		pq := openCraft(t, writeCraft(t, craftChunk{pages: c.pages, snappy: c.snap, rows: int64(10 * (len(c.pages) - 1))}))
		for _, sel := range [][]int{nil, {1, 7}} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got, err := readCraft(t, pq, sel)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Errorf("%s, rows %v: read %v, no error", c.name, sel, got)
			} else if !strings.Contains(err.Error(), `row group 0, column "x"`) {
				t.Errorf("%s, rows %v: %v: the error does not name the row group and column", c.name, sel, err)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("%s, rows %v: %d MiB allocated", c.name, sel, grew>>20)
			}
		}
	}
}

// bloomHashOf64 is the Bloom filter hash of an INT64 value (its PLAIN
// bytes' XXH64).
func bloomHashOf64(v int64) uint64 { return BloomHash(plainInts(v)) }

// encodeHybrid encodes vals (each below 2^w) as RLE/bit-packed hybrid
// runs, mixed at random: a repeated run where values repeat (or where
// chance says so, a run of one), else groups of 8 packed (the last padded
// with zeros).
func encodeHybrid(rng *rand.Rand, w int, vals []uint32) []byte {
	var b []byte
	for j := 0; j < len(vals); {
		same := 1
		for j+same < len(vals) && vals[j+same] == vals[j] {
			same++
		}
		if same >= 8 || rng.IntN(4) == 0 {
			n := 1 + rng.IntN(same)
			b = binary.AppendUvarint(b, uint64(n)<<1)
			for k := range (w + 7) / 8 {
				b = append(b, byte(vals[j]>>(8*k)))
			}
			j += n
			continue
		}
		groups := 1 + rng.IntN(3)
		take := min(groups*8, len(vals)-j)
		groups = (take + 7) / 8
		b = binary.AppendUvarint(b, uint64(groups)<<1|1)
		packed := make([]byte, groups*w)
		for q, v := range vals[j : j+take] {
			for k := range w {
				if v>>k&1 == 1 {
					packed[(q*w+k)/8] |= 1 << ((q*w + k) % 8)
				}
			}
		}
		b = append(b, packed...)
		j += take
	}
	return b
}

// TestCraftedRandom: random files page by page (an INT64 or a text
// column, required or with NULLs; a dictionary of 1 to 40 entries at any
// bit width from the least to 32, runs mixed at random, or PLAIN pages,
// fallbacks among them; pages of both versions, Snappy or none) read by
// the pages decoders whole, at random rows and as dictionaries, give the
// values written: arrow-go is not the reference here.
func TestCraftedRandom(t *testing.T) {
	seed := testutil.Seed(t)
	rng := testutil.Rand(seed)
	trials := 400
	if testing.Short() {
		trials = 100
	}
	for trial := range trials {
		c := craftChunk{bytes: rng.IntN(2) == 0, optional: rng.IntN(2) == 0, snappy: rng.IntN(2) == 0}
		entries := 1 + rng.IntN(40)
		value := func(e int) string { // entry e's value, as text
			if c.bytes {
				return strings.Repeat("é", e%3) + fmt.Sprint(e*7919%1000)
			}
			return fmt.Sprint(int64(e)*1_000_000_007 - 3)
		}
		plainOf := func(e int) []byte {
			if c.bytes {
				v := value(e)
				return append(binary.LittleEndian.AppendUint32(nil, uint32(len(v))), v...)
			}
			return plainInts(int64(e)*1_000_000_007 - 3)
		}
		var dictBody []byte
		for e := range entries {
			dictBody = append(dictBody, plainOf(e)...)
		}
		dictEncoded := rng.IntN(5) > 0
		if dictEncoded {
			c.pages = append(c.pages, craftPage{typ: pageDictionary, nv: int32(entries), enc: 0, body: dictBody})
		}
		nullRate := []float64{0, 0.3, 1}[rng.IntN(3)]
		var want []*string // each row's value, nil for NULL
		for range 1 + rng.IntN(6) {
			nv := rng.IntN(120)
			var levels []uint32
			var present []uint32
			for range nv {
				if c.optional && rng.Float64() < nullRate {
					levels = append(levels, 0)
					want = append(want, nil)
					continue
				}
				e := rng.IntN(entries)
				if rng.IntN(3) > 0 { // runs of repeats
					e = 0
					if len(present) > 0 {
						e = int(present[len(present)-1])
					}
				}
				levels = append(levels, 1)
				present = append(present, uint32(e))
				v := value(e)
				want = append(want, &v)
			}
			p := craftPage{nv: int32(nv), typ: pageData}
			v2 := rng.IntN(2) == 0
			if v2 {
				p.typ = pageDataV2
				p.v2Plain = rng.IntN(3) == 0
			}
			var lv []byte
			if c.optional {
				lv = encodeHybrid(rng, 1, levels)
			}
			var vals []byte
			if dictEncoded && rng.IntN(6) > 0 {
				p.enc = 8
				w := bits.Len(uint(entries - 1))
				w += rng.IntN(33 - w)
				if len(present) > 0 || rng.IntN(2) == 0 {
					vals = append([]byte{byte(w)}, encodeHybrid(rng, w, present)...)
				}
			} else {
				p.enc = 0
				c.plain = true
				for _, e := range present {
					vals = append(vals, plainOf(int(e))...)
				}
			}
			switch {
			case v2:
				p.v2Levels = int32(len(lv))
				p.body = append(lv, vals...)
			case c.optional:
				p.body = append(binary.LittleEndian.AppendUint32(nil, uint32(len(lv))), lv...)
				p.body = append(p.body, vals...)
			default:
				p.body = vals
			}
			c.pages = append(c.pages, p)
		}
		c.rows = int64(len(want))
		what := fmt.Sprintf("trial %d (seed %d; %d rows, bytes %v, optional %v, dictionary %v)", trial, seed, c.rows, c.bytes, c.optional, dictEncoded)
		pq := openCraft(t, writeCraft(t, c))
		typ := Type{Kind: Int}
		if c.bytes {
			typ = Type{Kind: String}
		}
		check := func(how string, col *Column, rows []int) {
			t.Helper()
			if col.Len() != len(rows) {
				t.Fatalf("%s, %s: %d rows, want %d", what, how, col.Len(), len(rows))
			}
			for j, r := range rows {
				w := want[r]
				switch {
				case w == nil && !col.Null(j):
					t.Fatalf("%s, %s: row %d not NULL", what, how, r)
				case w == nil:
				case col.Null(j):
					t.Fatalf("%s, %s: row %d NULL, want %s", what, how, r, *w)
				case string(col.AppendText(nil, j)) != *w:
					t.Fatalf("%s, %s: row %d is %s, want %s", what, how, r, col.AppendText(nil, j), *w)
				}
			}
		}
		all := make([]int, len(want))
		for r := range all {
			all[r] = r
		}
		col, err := pq.read(0, 0, typ, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		check("whole", col, all)
		var sel []int
		for r := range want {
			if rng.IntN(4) == 0 {
				sel = append(sel, r)
			}
		}
		if len(sel) == 0 && len(want) > 0 { // nil would read every row
			sel = []int{rng.IntN(len(want))}
		}
		if sel != nil {
			if col, err = pq.read(0, 0, typ, sel); err != nil {
				t.Fatalf("%s, at rows: %v", what, err)
			}
			check("at rows", col, sel)
		}
		if !dictEncoded || c.plain {
			continue
		}
		var d *Dict
		if c.bytes {
			d, err = pq.readDictBytes(0, 0, typ)
		} else {
			d, col, err = pq.readIntKey(0, 0, typ)
		}
		if err != nil {
			t.Fatalf("%s, as a dictionary: %v", what, err)
		}
		if d != nil {
			col = d.Column(nil)
		}
		check("as a dictionary", col, all)
	}
}

// TestMappedTruncated: a local file is read through its mapping (mapFile);
// truncated under the reader after its footer was read, at the file's
// start or inside a chunk (not on a page boundary: the rest of the page
// holding the new end reads as zeros, not as a fault), a read of a chunk
// that ends beyond the cut is an error naming the row group and the
// column: a fault made a panic and recovered (SIGBUS, not a crash of the
// process), or the file's size checked after the decoding (intact). A
// chunk before the cut reads its values. For Snappy and ZSTD chunks too
// (a fault in the codec's code, Snappy's assembly).
func TestMappedTruncated(t *testing.T) {
	if noMap {
		t.Skip("ACBFJOIN_PARQUET_MMAP=off")
	}
	rng := testutil.Rand(testutil.Seed(t))
	for _, codec := range []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Zstd} {
		for _, cut := range []string{"start", "middle"} {
			mappedTruncated(t, rng, codec, cut)
		}
	}
	// A file of one page of memory, cut inside its one data page: no
	// fault at all, the rest reads as zeros (a review: 190 of 200 values
	// 0, no error, before intact).
	sevens := make([]int64, 200)
	for i := range sevens {
		sevens[i] = 7
	}
	path := writeCraft(t, craftChunk{pages: []craftPage{{typ: pageData, nv: 200, enc: 0, body: plainInts(sevens...)}}, rows: 200, plain: true})
	pq := openCraft(t, path)
	if pq.mapped == nil {
		return
	}
	if err := os.Truncate(path, 4+40+80); err != nil { // past the header, 10 values in
		t.Fatal(err)
	}
	if got, err := readCraft(t, pq, nil); err == nil || !strings.Contains(err.Error(), "changed while read") {
		t.Errorf("a page cut short in its last memory page: %v, %v", got, err)
	}
}

// mappedTruncated is TestMappedTruncated of a file of codec cut at its
// start or in its middle.
func mappedTruncated(t *testing.T, rng *rand.Rand, codec compress.Compression, where string) {
	path, tb, pq := openMappedFixed(t, rng, codec)
	want := map[[2]int]*Column{}
	for g := range tb.Chunks() {
		for col, typ := range tb.Types {
			c, err := pq.read(g, col, typ, nil)
			if err != nil {
				t.Fatal(err)
			}
			want[[2]int{g, col}] = c
		}
	}
	cut := int64(4)
	if where == "middle" {
		cut = pq.size/2 | 1
	}
	if err := os.Truncate(path, cut); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for g := range tb.Chunks() {
		for col, typ := range tb.Types {
			cc, err := pq.r.MetaData().RowGroup(g).ColumnChunk(pq.leaves[col][0])
			if err != nil {
				t.Fatal(err)
			}
			start := cc.DataPageOffset()
			if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
				start = cc.DictionaryPageOffset()
			}
			end := start + cc.TotalCompressedSize()
			got, err := pq.read(g, col, typ, nil)
			what := fmt.Sprintf("%v, cut at %d, group %d, %s (bytes %d to %d)", codec, cut, g, tb.Names[col], start, end)
			switch {
			case end > cut && err == nil:
				t.Errorf("%s: read a chunk cut short", what)
			case end > cut:
				failed++
				if !strings.Contains(err.Error(), "row group") {
					t.Errorf("%s: %v", what, err)
				}
			case err != nil:
				t.Errorf("%s: a chunk before the cut: %v", what, err)
			default:
				fixedColumnsSame(t, what, got, want[[2]int{g, col}])
			}
		}
	}
	if failed == 0 {
		t.Errorf("%v, cut at %d: no read failed", codec, cut)
	}
}

// TestMapRefusedOpen: a file that Open refuses (a column of the Null
// type, which a join does not read) leaves no mapping behind (it was
// mapped before its schema was read: 50 opens left 50 mappings).
func TestMapRefusedOpen(t *testing.T) {
	if _, err := os.Stat("/proc/self/maps"); err != nil {
		t.Skip("no /proc/self/maps")
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "b", Type: arrow.Null, Nullable: true}}, nil)
	rb := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer rb.Release()
	rb.Field(0).(*array.Int64Builder).Append(1)
	rb.Field(1).AppendNull()
	rec := rb.NewRecord()
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.Record{rec})
	defer tbl.Release()
	path := filepath.Join(t.TempDir(), "refused.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pqarrow.WriteTable(tbl, f, 10, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if tb, err := Open(context.Background(), path, "refused.parquet", Parquet, ""); err == nil {
			tb.Close()
			t.Skip("the file opens: nothing to refuse")
		}
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(maps), path); n > 0 {
		t.Errorf("%d mappings of a file refused left behind", n)
	}
}

// openMappedFixed writes a file of writeFixedParquet's (3,000 rows,
// dictionaries, codec) and opens it mapped, closed after the test; it
// skips the test where the system maps no file.
func openMappedFixed(t *testing.T, rng *rand.Rand, codec compress.Compression) (string, *Table, *parquetTable) {
	t.Helper()
	path := writeFixedParquet(t, rng, 3000, true, false, codec, 4096)
	tb, err := Open(context.Background(), path, "fixed.parquet", Parquet, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	pq := tb.b.(*parquetBackend).pq
	if pq.mapped == nil {
		t.Skip("not mapped on this system")
	}
	return path, tb, pq
}
