package scalable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/internal/testutil/formattest"
)

var update = flag.Bool("update", false, "rewrite testdata/golden-v1.sbf and the fuzz seed corpus")

// small is the Config of most samples: 50 keys at 1%, then 100 at 0.5%, 200
// at 0.25%, ...
var small = Config{InitialCapacity: 50, FPP: 0.01}

func sampleFilters(t testing.TB) map[string]*Filter {
	out := map[string]*Filter{}
	mk := func(name string, cfg Config, keys [][]byte) {
		f := mustNew(t, cfg)
		mustAdd(t, f, keys)
		out[name] = f
	}
	mk("empty", small, nil)
	mk("partial", small, testutil.Keys(0, 30))
	mk("three", small, testutil.Keys(0, 300))     // 50 + 100 + 150 of 200
	mk("last-full", small, testutil.Keys(0, 150)) // 50 + 100, no third yet
	mk("growth-1.5", Config{InitialCapacity: 7, FPP: 0.3, Growth: 1.5, Tightening: 0.9}, testutil.Keys(100, 100))
	mk("defaults", Config{}, testutil.Keys(0, 1500))
	return out
}

var format = formattest.Format[*Filter]{
	New: func() *Filter { return &Filter{} },
	Equal: func(a, b *Filter) bool {
		return a.Equal(b) && a.Len() == b.Len() && a.MemoryBits() == b.MemoryBits() && a.Config() == b.Config() && a.FPP() == b.FPP()
	},
	ErrFormat:  ErrFormat,
	Samples:    sampleFilters,
	Golden:     "three",
	GoldenPath: "testdata/golden-v1.sbf",
}

// TestRoundTrip: the format's round trips (formattest), and a decoded
// filter goes on growing as the original does.
func TestRoundTrip(t *testing.T) {
	formattest.RoundTrip(t, format)
	for name, f := range sampleFilters(t) {
		data, _ := f.MarshalBinary()
		var g Filter
		if err := g.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		more := testutil.Keys(1<<40, 200)
		mustAdd(t, f, more)
		mustAdd(t, &g, more)
		if !g.Equal(f) {
			t.Fatalf("%s: decoded filter differs after 200 more keys", name)
		}
	}
}

// sub1 is the offset of sub-filter 1's header in a serialized filter of small.
func sub1(t *testing.T) int {
	sh, err := small.withDefaults().shape(0)
	if err != nil {
		t.Fatal(err)
	}
	return headerSize + subHeaderSize + 8*int(sh.words())
}

func TestDecodeErrors(t *testing.T) {
	samples := sampleFilters(t)
	formattest.Corruptions(t, format, "three", "growth-1.5")
	check := func(what string, input []byte, want error) {
		t.Helper()
		formattest.Refuses(t, format, "growth-1.5", what, input, want)
	}
	check("a cbf header", []byte("CBF4\x01\x00 a cbf header is not a scalable one........................"), nil)

	// Edits with a valid checksum, each caught by its own check.
	s1 := sub1(t)
	edits := []struct {
		what   string
		sample string
		edit   func(b []byte)
		msg    string
	}{
		{"version 2", "three", func(b []byte) { b[4] = 2 }, "format version 2"},
		{"n0 zero", "three", func(b []byte) { clear(b[6:14]) }, "InitialCapacity = 0"},
		{"FPP NaN", "three", func(b []byte) { binary.LittleEndian.PutUint64(b[14:], math.Float64bits(math.NaN())) }, "FPP = NaN"},
		{"Growth 0.5", "three", func(b []byte) { binary.LittleEndian.PutUint64(b[22:], math.Float64bits(0.5)) }, "Growth = 0.5"},
		{"Tightening 1", "three", func(b []byte) { binary.LittleEndian.PutUint64(b[30:], math.Float64bits(1)) }, "Tightening = 1"},
		{"no sub-filters", "three", func(b []byte) { binary.LittleEndian.PutUint32(b[38:], 0) }, "0 sub-filters"},
		{"65 sub-filters", "three", func(b []byte) { binary.LittleEndian.PutUint32(b[38:], MaxFilters+1) }, "65 sub-filters"},
		{"capacity", "three", func(b []byte) { b[s1]++ }, "capacity 101"},
		{"keys past capacity", "last-full", func(b []byte) { b[s1+8]++ }, "holds 101 keys"},
		{"earlier sub-filter not full", "three", func(b []byte) { b[headerSize+8]-- }, "holds 49 keys"},
		{"k", "three", func(b []byte) { b[s1+16]++ }, "9 slices"},
		{"slice bits", "three", func(b []byte) { b[s1+20]++ }, "of 139 bits"},
		{"padding bit", "empty", func(b []byte) { b[len(b)-trailerSize-1] |= 0x80 }, "padding"},
		{"ones without keys", "empty", func(b []byte) { b[headerSize+subHeaderSize] = 1 }, "1 ones with 0 keys"},
		{"more ones than keys", "partial", func(b []byte) {
			for i := range 8 {
				b[headerSize+subHeaderSize+i] = 0xff // 64 ones in slice 0 (69 bits), 30 keys
			}
		}, "ones with 30 keys"},
		{"keys without ones", "partial", func(b []byte) { clear(b[headerSize+subHeaderSize : len(b)-trailerSize]) }, "0 ones with 30 keys"},
	}
	for _, e := range edits {
		b, _ := samples[e.sample].MarshalBinary()
		e.edit(b)
		check(e.what, formattest.Reseal(b), nil)
		var g Filter
		if err := g.UnmarshalBinary(b); !strings.Contains(err.Error(), e.msg) {
			t.Errorf("%s: UnmarshalBinary = %v, want the error to say %q", e.what, err, e.msg)
		}
	}

	// A header that claims a first sub-filter of nearly MaxBits bits (8 GiB)
	// on a short stream fails without allocating it.
	cfg := Config{InitialCapacity: 4_700_000_000, FPP: 0.001, Growth: 2, Tightening: 0.5}
	sh, err := cfg.shape(0)
	if err != nil || sh.bits() < MaxBits/2 {
		t.Fatalf("shape(0) = %+v, %v; want a sub-filter of more than 2^35 bits", sh, err)
	}
	var hdr bytes.Buffer
	for _, v := range []any{[]byte(magic), uint16(formatVersion), cfg.InitialCapacity, cfg.FPP, cfg.Growth, cfg.Tightening,
		uint32(1), sh.capacity, uint64(0), uint32(sh.k), sh.slice, make([]byte, 4096)} {
		binary.Write(&hdr, binary.LittleEndian, v)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	check("huge sub-filter", hdr.Bytes(), io.ErrUnexpectedEOF)
	runtime.ReadMemStats(&after)
	if a := after.TotalAlloc - before.TotalAlloc; a > 16<<20 {
		t.Fatalf("decoding a short stream that claims %d bits allocated %d bytes", sh.bits(), a)
	}
}

func TestGolden(t *testing.T) {
	// The golden file decodes, on any machine, to a filter that has its keys.
	g := formattest.Golden(t, format, *update)
	for i, key := range testutil.Keys(0, 300) {
		if !g.Contains(key) {
			t.Fatalf("golden filter: Contains(key %d) = false", i)
		}
	}
	if g.Filters() != 3 || g.Len() != 300 {
		t.Fatalf("golden filter: %d sub-filters, Len %d; want 3, 300", g.Filters(), g.Len())
	}
}

// FuzzUnmarshalBinary: arbitrary input never panics; what decodes re-encodes
// to the same bytes, is consistent, and goes on working. Each input is tried
// as it is and with its checksum rewritten, so that mutations reach the checks
// and the code behind the checksum, which the fuzzer cannot forge.
func FuzzUnmarshalBinary(f *testing.F) {
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzDecode(t, data)
		if len(data) >= headerSize+trailerSize {
			fuzzDecode(t, formattest.Reseal(bytes.Clone(data)))
		}
	})
}

func fuzzDecode(t *testing.T, data []byte) {
	var g Filter
	if err := g.UnmarshalBinary(data); err != nil {
		if !errors.Is(err, ErrFormat) {
			t.Fatalf("error %v does not wrap ErrFormat", err)
		}
		return
	}
	again, err := g.MarshalBinary()
	if err != nil || !bytes.Equal(again, data) {
		t.Fatalf("re-encoding differs (%v)", err)
	}
	var n, bits uint64
	for i := range g.subs {
		n += g.subs[i].keys
		bits += g.subs[i].bits()
	}
	if n != g.Len() || bits != g.MemoryBits() || g.Filters() < 1 || !(g.FPP() >= 0 && g.FPP() <= 1) {
		t.Fatalf("inconsistent: Len %d (sum %d), bits %d (sum %d), %d sub-filters, FPP %v", g.Len(), n, g.MemoryBits(), bits, g.Filters(), g.FPP())
	}
	// Add, unless it would allocate a large next sub-filter.
	last := &g.subs[len(g.subs)-1]
	if last.keys == last.capacity {
		if sh, err := g.next(); err == nil && sh.bits() > 1<<24 {
			return
		}
	}
	key := []byte("x")
	if err := g.Add(key); err != nil {
		if !errors.Is(err, ErrFull) {
			t.Fatalf("Add = %v", err)
		}
		return
	}
	if !g.Contains(key) {
		t.Fatal("Contains = false after Add")
	}
	out := make([]bool, 1)
	if g.ContainsBatch([][]byte{key}, out); !out[0] {
		t.Fatal("ContainsBatch = false after Add")
	}
}
