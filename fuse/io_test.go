package fuse

import (
	"bytes"
	"encoding/binary"
	"flag"
	"io"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/internal/testutil/formattest"
)

var update = flag.Bool("update", false, "rewrite testdata/golden-v1.fuse and the fuzz seed corpus")

var format = formattest.Format[*Filter]{
	New:       func() *Filter { return &Filter{} },
	Equal:     func(a, b *Filter) bool { return a.Equal(b) },
	ErrFormat: ErrFormat,
	Samples: func(t testing.TB) map[string]*Filter {
		return map[string]*Filter{
			"empty": mustBuild(t, nil, 8),
			"one":   mustBuild(t, testutil.Keys(0, 1), 16),
			"f8":    mustBuild(t, testutil.Keys(0, 100), 8),
			"f16":   mustBuild(t, testutil.Keys(9, 300), 16),
			"f32":   mustBuild(t, [][]byte{[]byte("a"), []byte("bb"), []byte("a key of many bytes")}, 32),
		}
	},
	Golden:     "f8",
	GoldenPath: "testdata/golden-v1.fuse",
}

func TestRoundTrip(t *testing.T) { formattest.RoundTrip(t, format) }

func TestDecodeErrors(t *testing.T) {
	data := formattest.Corruptions(t, format, "f8", "f16")
	edit := func(what string, off int, v uint64, size int) {
		t.Helper()
		formattest.Refuses(t, format, "f16", what, formattest.Edit(data, off, v, size), nil)
	}
	edit("version 2", 4, 2, 2)
	edit("fingerprint bits 12", 6, 12, 2)
	edit("fingerprint bits 0", 6, 0, 2)
	edit("keys 0 with an array", 8, 0, 8)
	edit("keys beyond the entries", 8, 1<<20, 8)
	edit("keys 2^31+1", 8, MaxKeys+1, 8)
	edit("segment length 0", 24, 0, 4)
	edit("segment length 3", 24, 3, 4)
	edit("segment length 2^19", 24, 1<<19, 4)
	edit("segment count 0", 28, 0, 4)
	edit("segment count 2^31", 28, 1<<31, 4)
	// A header that claims 2^32-1 entries of 32 bits on a short stream
	// fails without allocating them.
	huge := bytes.Clone(data[:headerSize])
	binary.LittleEndian.PutUint16(huge[6:], 32)
	binary.LittleEndian.PutUint32(huge[24:], 1<<18)
	binary.LittleEndian.PutUint32(huge[28:], 1<<14-3)
	formattest.Refuses(t, format, "f16", "huge array", huge, io.ErrUnexpectedEOF)
}

func TestGolden(t *testing.T) {
	g := formattest.Golden(t, format, *update)
	for _, key := range testutil.Keys(0, 100) {
		if !g.Contains(key) {
			t.Fatalf("golden filter: Contains(%x) = false, want true", key)
		}
	}
}

// FuzzUnmarshalBinary: what decodes answers Contains without reading
// outside its array (any key), and its memory is its entries'.
func FuzzUnmarshalBinary(f *testing.F) {
	formattest.Fuzz(f, format, func(t *testing.T, g *Filter) {
		for _, k := range testutil.Keys(0, 64) {
			g.Contains(k)
		}
		g.Contains([]byte("x"))
		if g.MemoryBits() != g.Slots()*uint64(g.FingerprintBits()) {
			t.Fatal("memory is not the entries'")
		}
	})
}
