package cbf

import (
	"bytes"
	"flag"
	"io"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/internal/testutil/formattest"
)

var update = flag.Bool("update", false, "rewrite testdata/golden-v1.cbf and the fuzz seed corpus")

func sampleFilters(t testing.TB) map[string]*Filter {
	out := map[string]*Filter{}
	mk := func(name string, m uint64, k int, keys [][]byte) {
		f := mustNew(t, m, k)
		for _, key := range keys {
			f.Add(key)
		}
		out[name] = f
	}
	mk("empty", 10, 3, nil)
	mk("odd-m", 1001, 4, testutil.Keys(0, 100))
	mk("saturated", 3, 2, testutil.Keys(0, 40))
	mk("k7", 2000, 7, testutil.Keys(500, 200))
	return out
}

var format = formattest.Format[*Filter]{
	New:        func() *Filter { return &Filter{} },
	Equal:      func(a, b *Filter) bool { return a.Equal(b) },
	ErrFormat:  ErrFormat,
	Samples:    sampleFilters,
	Golden:     "odd-m",
	GoldenPath: "testdata/golden-v1.cbf",
}

func TestRoundTrip(t *testing.T) { formattest.RoundTrip(t, format) }

func TestDecodeErrors(t *testing.T) {
	data := formattest.Corruptions(t, format, "odd-m", "k7")
	formattest.Refuses(t, format, "k7", "an acbf header", []byte("ACBF\x01\x00 an acbf header is not a cbf one........."), nil)
	// A header that claims 2^36 counters on a short stream fails without
	// allocating them.
	huge := bytes.Clone(data[:headerSize])
	huge[8], huge[9], huge[10], huge[11], huge[12] = 0, 0, 0, 0, 0x10
	formattest.Refuses(t, format, "k7", "huge m", huge, io.ErrUnexpectedEOF)
}

func TestGolden(t *testing.T) { formattest.Golden(t, format, *update) }

// FuzzUnmarshalBinary: arbitrary input never panics; what decodes re-encodes to
// the same bytes and has a consistent saturation count.
func FuzzUnmarshalBinary(f *testing.F) {
	formattest.Fuzz(f, format, func(t *testing.T, g *Filter) {
		var stuck uint64
		for p := uint64(0); p < g.m; p++ {
			if g.get(p) == 15 {
				stuck++
			}
		}
		if stuck != g.Saturations() {
			t.Fatalf("%d counters at 15, Saturations %d", stuck, g.Saturations())
		}
		g.Add([]byte("x"))
		g.Contains([]byte("y"))
	})
}
