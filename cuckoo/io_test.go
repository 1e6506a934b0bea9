package cuckoo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"io"
	"runtime"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/internal/testutil/formattest"
)

var update = flag.Bool("update", false, "rewrite testdata/golden-v1.ckoo and the fuzz seed corpus")

func sampleFilters(t testing.TB) map[string]*Filter {
	out := map[string]*Filter{}
	// The shapes are given in buckets, as the golden file and the fuzz
	// corpus fixed them, independent of New's sizing.
	mk := func(name string, buckets uint64, b, f int, keys [][]byte) {
		g := &Filter{}
		g.setShape(buckets, b, uint(f))
		g.words = make([]uint64, wordCount(buckets, b, uint(f)))
		for _, key := range keys {
			if err := g.Add(key); err != nil {
				t.Fatalf("%s: Add: %v", name, err)
			}
		}
		out[name] = g
	}
	mk("empty", 3, 4, 16, nil)
	mk("b3-f5", 29, 3, 5, testutil.Keys(0, 80))    // 435 bits: 13 bits of the last word are padding
	mk("b4-f16", 27, 4, 16, testutil.Keys(0, 100)) // one word a bucket
	mk("b8-f32", 7, 8, 32, testutil.Keys(7, 40))
	mk("b1-f1", 4, 1, 1, testutil.Keys(0, 3))
	mk("b7-f9", 31, 7, 9, testutil.Keys(1000, 200)) // 63-bit buckets that straddle words
	return out
}

var format = formattest.Format[*Filter]{
	New:        func() *Filter { return &Filter{} },
	Equal:      func(a, b *Filter) bool { return a.Equal(b) },
	ErrFormat:  ErrFormat,
	Samples:    sampleFilters,
	Golden:     "b3-f5",
	GoldenPath: "testdata/golden-v1.ckoo",
}

// TestRoundTrip: the format's round trips (formattest); decoded copies
// answer as the original and evolve alike (the kick generator restarts
// from the seed in both).
func TestRoundTrip(t *testing.T) {
	testutil.SkipUnderRace(t)
	formattest.RoundTrip(t, format)
	for name, f := range sampleFilters(t) {
		data, _ := f.MarshalBinary()
		var h1, h2 Filter
		if err := h1.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		h2.UnmarshalBinary(data)
		for _, key := range testutil.Keys(0, 300) {
			if h1.Contains(key) != f.Contains(key) {
				t.Fatalf("%s: Contains(%x) differs after decoding", name, key)
			}
		}
		for _, key := range testutil.Keys(1<<20, 50) {
			if e1, e2 := h1.Add(key), h2.Add(key); (e1 == nil) != (e2 == nil) {
				t.Fatalf("%s: Add differs between decoded copies: %v, %v", name, e1, e2)
			}
		}
		if !h1.Equal(&h2) {
			t.Fatalf("%s: decoded copies diverged", name)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	data, _ := sampleFilters(t)["b3-f5"].MarshalBinary()
	if b := binary.LittleEndian.Uint64(data[12:]); b != 29 || len(data) != headerSize+7*8+trailerSize {
		t.Fatalf("sample b3-f5: %d buckets, %d bytes; the edits below assume 29 buckets in 7 words", b, len(data))
	}
	formattest.Corruptions(t, format, "b3-f5", "b8-f32")
	check := func(what string, input []byte, want error) {
		t.Helper()
		formattest.Refuses(t, format, "b8-f32", what, input, want)
	}
	check("a cbf header", []byte("CBF4\x01\x00 a cbf header is not a cuckoo one..........."), nil)
	// Edits behind a valid checksum.
	edit := func(what string, off int, v uint64, size int) {
		t.Helper()
		check(what, formattest.Edit(data, off, v, size), nil)
	}
	edit("version 2", 4, 2, 2)
	edit("bucket size 0", 6, 0, 2)
	edit("bucket size 9", 6, 9, 2)
	edit("fingerprint bits 0", 8, 0, 2)
	edit("fingerprint bits 33", 8, 33, 2)
	edit("reserved 1", 10, 1, 2)
	edit("buckets 0", 12, 0, 8)
	edit("buckets 33", 12, 33, 8) // valid, but a longer table than the stream holds
	edit("buckets 2^30+1", 12, MaxBuckets+1, 8)
	edit("buckets 2^31", 12, MaxBuckets*2, 8)
	edit("buckets 2^64-1", 12, 1<<64-1, 8)
	edit("count + 1", 20, binary.LittleEndian.Uint64(data[20:])+1, 8)
	edit("count - 1", 20, binary.LittleEndian.Uint64(data[20:])-1, 8)
	edit("count > slots", 20, binary.LittleEndian.Uint64(data[12:])*3+1, 8)
	// A non-zero padding bit (the table is 29*3*5 = 435 bits: bits 51..63 of
	// the last word are padding).
	bad := bytes.Clone(data)
	bad[len(bad)-trailerSize-1] |= 0x80
	check("padding bit", formattest.Reseal(bad), nil)
	// A header that claims 2^30 buckets of 8 32-bit slots (32 GiB) on a short
	// stream fails without allocating them.
	huge := bytes.Clone(data[:headerSize])
	binary.LittleEndian.PutUint16(huge[6:], 8)
	binary.LittleEndian.PutUint16(huge[8:], 32)
	binary.LittleEndian.PutUint64(huge[12:], MaxBuckets)
	check("huge table", huge, io.ErrUnexpectedEOF)
}

// TestDecodeBoundedAllocation: a header that claims a 32 GiB table on a short
// stream allocates about one 1 MiB chunk, not the table.
func TestDecodeBoundedAllocation(t *testing.T) {
	huge := make([]byte, headerSize, headerSize+1000)
	copy(huge, magic)
	binary.LittleEndian.PutUint16(huge[4:], formatVersion)
	binary.LittleEndian.PutUint16(huge[6:], 8)
	binary.LittleEndian.PutUint16(huge[8:], 32)
	binary.LittleEndian.PutUint64(huge[12:], MaxBuckets)
	huge = append(huge, make([]byte, 1000)...)
	var g Filter
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := g.UnmarshalBinary(huge)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, ErrFormat) {
		t.Fatalf("UnmarshalBinary = %v, want ErrFormat and io.ErrUnexpectedEOF", err)
	}
	if bytes := after.TotalAlloc - before.TotalAlloc; bytes > 2<<20 {
		t.Fatalf("decoding a 32 GiB header on 1 KB allocated %d bytes", bytes)
	}
}

func TestGolden(t *testing.T) {
	// The golden file decodes to the filter, and answers for its keys.
	g := formattest.Golden(t, format, *update)
	for _, key := range testutil.Keys(0, 80) {
		if !g.Contains(key) {
			t.Fatalf("golden filter: Contains(%x) = false, want true", key)
		}
	}
}

// FuzzUnmarshalBinary: arbitrary input never panics; what decodes re-encodes to
// the same bytes, has Len non-zero slots, and goes on working: an Add that
// succeeds is found, and removed.
func FuzzUnmarshalBinary(f *testing.F) {
	formattest.Fuzz(f, format, func(t *testing.T, g *Filter) {
		var n uint64
		for s := range g.buckets * uint64(g.b) {
			if g.slot(s) != 0 {
				n++
			}
		}
		if n != g.Len() {
			t.Fatalf("%d non-zero slots, Len %d", n, g.Len())
		}
		key := []byte("x")
		if err := g.Add(key); err == nil {
			if !g.Contains(key) {
				t.Fatal("Contains after Add = false")
			}
			if err := g.Remove(key); err != nil || g.Len() != n {
				t.Fatalf("Remove after Add = %v, Len %d, want %d", err, g.Len(), n)
			}
		} else if !errors.Is(err, ErrFull) {
			t.Fatalf("Add = %v", err)
		}
		g.Contains([]byte("y"))
	})
}
