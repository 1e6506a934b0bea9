package blocked

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"io"
	"math"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/internal/testutil/formattest"
)

var update = flag.Bool("update", false, "rewrite testdata/golden-v1.bbf and the fuzz seed corpus")

func sampleFilters(t testing.TB) map[string]*Filter {
	out := map[string]*Filter{}
	mk := func(name string, bits uint64, k int, keys [][]byte) {
		f := mustNew(t, bits, k)
		for _, key := range keys {
			f.Add(key)
		}
		out[name] = f
	}
	mk("empty", 0, 1, nil)
	mk("one-block", 512, 7, testutil.Keys(0, 40))
	mk("k3", 4000, 3, testutil.Keys(0, 400))
	mk("k16", 8192, MaxK, testutil.Keys(500, 300))
	return out
}

var format = formattest.Format[*Filter]{
	New:        func() *Filter { return &Filter{} },
	Equal:      func(a, b *Filter) bool { return a.Equal(b) && a.blocks == b.blocks },
	ErrFormat:  ErrFormat,
	Samples:    sampleFilters,
	Golden:     "k3",
	GoldenPath: "testdata/golden-v1.bbf",
}

func TestRoundTrip(t *testing.T) { formattest.RoundTrip(t, format) }

func TestDecodeErrors(t *testing.T) {
	data := formattest.Corruptions(t, format, "k3", "k16")
	check := func(what string, input []byte, want error) {
		t.Helper()
		formattest.Refuses(t, format, "k16", what, input, want)
	}
	check("a cbf header", []byte("CBF4\x01\x00 a cbf header is not a blocked one........"), nil)
	// Fields that are wrong behind a right checksum.
	field := func(off int, v uint64, size int) []byte { return formattest.Edit(data, off, v, size) }
	check("version 2", field(4, 2, 2), nil)
	check("k = 0", field(6, 0, 2), nil)
	check("k = MaxK+1", field(6, MaxK+1, 2), nil)
	check("reserved", field(8, 1, 4), nil)
	check("bits not a multiple of 512", field(12, 4096-64, 8), nil)
	check("bits 0", field(12, 0, 8), nil)
	check("bits over MaxBits", field(12, MaxBits+512, 8), nil)
	check("more ones than k*Len", field(20, 10, 8), nil)
	// A header that claims MaxBits on a short stream fails without allocating
	// them.
	check("huge m", field(12, MaxBits, 8), io.ErrUnexpectedEOF)
}

func TestGolden(t *testing.T) {
	f := sampleFilters(t)["k3"]
	g := formattest.Golden(t, format, *update)
	// The golden file also pins the probe scheme: the decoded filter answers
	// for its keys and for the same non-members as a freshly built one.
	for _, key := range testutil.Keys(0, 2000) {
		if g.Contains(key) != f.Contains(key) {
			t.Fatalf("golden Contains(%x) = %v, built %v", key, g.Contains(key), f.Contains(key))
		}
	}
}

// FuzzUnmarshalBinary: arbitrary input never panics and fails only with
// ErrFormat; what decodes re-encodes to the same bytes, holds at most k*Len
// ones, is aligned, has FPP and FillFPP in [0, 1], and takes Add and Contains,
// after which it still round-trips (a Len of 2^64-1 in the seeds).
func FuzzUnmarshalBinary(f *testing.F) {
	data, _ := sampleFilters(f)["one-block"].MarshalBinary()
	binary.LittleEndian.PutUint64(data[20:], math.MaxUint64)
	f.Add(formattest.Reseal(data))
	formattest.Fuzz(f, format, func(t *testing.T, g *Filter) {
		if !aligned(g.words) || uint64(len(g.words)) != g.bits/64 || g.blocks*BlockBits != g.bits {
			t.Fatalf("decoded filter: %d words for %d bits, %d blocks, aligned %v", len(g.words), g.bits, g.blocks, aligned(g.words))
		}
		if p, q := g.FPP(), g.FillFPP(); !(p >= 0 && p <= 1 && q >= 0 && q <= 1) {
			t.Fatalf("decoded filter: FPP %g, FillFPP %g; want both in [0, 1]", p, q)
		}
		g.Add([]byte("x"))
		if !g.Contains([]byte("x")) {
			t.Fatal("false negative after Add on a decoded filter")
		}
		g.Contains([]byte("y"))
		var h Filter
		if again, err := g.MarshalBinary(); err != nil || h.UnmarshalBinary(again) != nil || !h.Equal(g) {
			t.Fatalf("after an Add the decoded filter does not round-trip (%v)", err)
		}
	})
}

// TestZeroFilterWrite: the zero Filter has no encoding that decodes, so
// WriteTo and MarshalBinary refuse it (ErrConfig) rather than write one.
func TestZeroFilterWrite(t *testing.T) {
	var f Filter
	var buf bytes.Buffer
	if n, err := f.WriteTo(&buf); !errors.Is(err, ErrConfig) || n != 0 || buf.Len() != 0 {
		t.Errorf("zero Filter WriteTo = %d, %v (%d bytes written); want 0, ErrConfig", n, err, buf.Len())
	}
	if data, err := f.MarshalBinary(); !errors.Is(err, ErrConfig) || data != nil {
		t.Errorf("zero Filter MarshalBinary = %d bytes, %v; want ErrConfig", len(data), err)
	}
}

// TestLenSaturates: a header may claim 2^64-1 Adds; one more Add keeps Len
// there instead of wrapping to 0 (FPP 0, and an encoding that fails the
// k*Len check), and the filter still round-trips.
func TestLenSaturates(t *testing.T) {
	data, _ := sampleFilters(t)["k3"].MarshalBinary()
	binary.LittleEndian.PutUint64(data[20:], math.MaxUint64)
	data = formattest.Reseal(data)
	var f Filter
	if err := f.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	f.Add([]byte("one more"))
	if f.Len() != math.MaxUint64 || f.FPP() != 1 {
		t.Fatalf("after Add at Len 2^64-1: Len %d, FPP %g; want 2^64-1, 1", f.Len(), f.FPP())
	}
	again, err := f.MarshalBinary()
	var g Filter
	if err != nil || g.UnmarshalBinary(again) != nil || !g.Equal(&f) {
		t.Fatalf("round trip after a saturated Add: %v", err)
	}
}
