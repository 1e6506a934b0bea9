package cbf

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
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

func TestRoundTrip(t *testing.T) {
	for name, f := range sampleFilters(t) {
		t.Run(name, func(t *testing.T) {
			data, err := f.MarshalBinary()
			if err != nil || int64(len(data)) != f.SerializedSize() {
				t.Fatalf("MarshalBinary: %d bytes, %v; SerializedSize %d", len(data), err, f.SerializedSize())
			}
			var g Filter
			if err := g.UnmarshalBinary(data); err != nil {
				t.Fatal(err)
			}
			if !g.Equal(f) {
				t.Fatal("UnmarshalBinary(MarshalBinary(f)) != f")
			}
			var buf bytes.Buffer
			f.WriteTo(&buf)
			f.WriteTo(&buf)
			var h1, h2 Filter
			if _, err := h1.ReadFrom(&buf); err != nil {
				t.Fatal(err)
			}
			if _, err := h2.ReadFrom(&buf); err != nil {
				t.Fatal(err)
			}
			if !h1.Equal(f) || !h2.Equal(f) || buf.Len() != 0 {
				t.Fatal("two filters in one stream do not read back")
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	data, _ := sampleFilters(t)["odd-m"].MarshalBinary()
	keep := sampleFilters(t)["k7"]
	check := func(what string, input []byte, want error) {
		t.Helper()
		g := sampleFilters(t)["k7"]
		err := g.UnmarshalBinary(input)
		if !errors.Is(err, ErrFormat) || (want != nil && !errors.Is(err, want)) {
			t.Fatalf("%s: UnmarshalBinary = %v, want ErrFormat (%v)", what, err, want)
		}
		if !g.Equal(keep) {
			t.Fatalf("%s: failed UnmarshalBinary changed the receiver", what)
		}
	}
	for n := 0; n < len(data); n++ {
		check(fmt.Sprintf("truncated to %d", n), data[:n], io.ErrUnexpectedEOF)
	}
	for i := range data {
		bad := bytes.Clone(data)
		bad[i] ^= 0x24
		check(fmt.Sprintf("byte %d flipped", i), bad, nil)
	}
	check("trailing", append(bytes.Clone(data), 0), nil)
	check("foreign", []byte("ACBF\x01\x00 an acbf header is not a cbf one........."), nil)
	// A header that claims 2^36 counters on a short stream fails without
	// allocating them.
	huge := bytes.Clone(data[:headerSize])
	huge[8], huge[9], huge[10], huge[11], huge[12] = 0, 0, 0, 0, 0x10
	check("huge m", huge, io.ErrUnexpectedEOF)
}

func TestGolden(t *testing.T) {
	f := sampleFilters(t)["odd-m"]
	data, _ := f.MarshalBinary()
	path := filepath.Join("testdata", "golden-v1.cbf")
	if *update {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join("testdata", "fuzz", "FuzzUnmarshalBinary")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, g := range sampleFilters(t) {
			b, _ := g.MarshalBinary()
			if err := os.WriteFile(filepath.Join(dir, name), fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(data, want) {
		t.Fatalf("serialization changed: %d bytes, golden %d bytes", len(data), len(want))
	}
}

// FuzzUnmarshalBinary: arbitrary input never panics; what decodes re-encodes to
// the same bytes and has a consistent saturation count.
func FuzzUnmarshalBinary(f *testing.F) {
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
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
