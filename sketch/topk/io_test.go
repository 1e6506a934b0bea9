package topk

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite testdata/golden-v1.topk and the fuzz seed corpus")

func sampleSummaries(t testing.TB) map[string]*TopK {
	out := map[string]*TopK{}
	mk := func(name string, c Config, rows int) {
		s := mustNew(t, c)
		st := zipfStream(7, rows, 500, 1.1)
		st.feed(s, 0, rows)
		out[name] = s
	}
	mk("empty", Config{K: 3, Width: 4, Depth: 2}, 0)
	mk("small", Config{K: 5, Width: 16, Depth: 2, Seed: 3}, 2000)
	mk("decay", Config{K: 4, Width: 8, Depth: 3, Decay: 1.5, Seed: 9}, 3000)
	mk("k1", Config{K: 1, Width: 1, Depth: 1}, 100)
	long := mustNew(t, Config{K: 2, Width: 8, Depth: 2})
	long.Add(bytes.Repeat([]byte("z"), MaxKeyLen), 5)
	long.Add(nil, 2)
	out["long-and-empty-keys"] = long
	return out
}

func TestRoundTrip(t *testing.T) {
	for name, s := range sampleSummaries(t) {
		t.Run(name, func(t *testing.T) {
			data, err := s.MarshalBinary()
			if err != nil || int64(len(data)) != s.SerializedSize() {
				t.Fatalf("MarshalBinary: %d bytes, %v; SerializedSize %d", len(data), err, s.SerializedSize())
			}
			var g TopK
			if err := g.UnmarshalBinary(data); err != nil {
				t.Fatal(err)
			}
			if !g.Equal(s) {
				t.Fatal("UnmarshalBinary(MarshalBinary(s)) != s")
			}
			// The copy behaves as the original from here on.
			s.Add([]byte("after"), 3)
			g.Add([]byte("after"), 3)
			if !g.Equal(s) {
				t.Fatal("copies diverge after the same Add")
			}
			var buf bytes.Buffer
			s.WriteTo(&buf)
			s.WriteTo(&buf)
			var h1, h2 TopK
			if _, err := h1.ReadFrom(&buf); err != nil {
				t.Fatal(err)
			}
			if _, err := h2.ReadFrom(&buf); err != nil {
				t.Fatal(err)
			}
			if !h1.Equal(s) || !h2.Equal(s) || buf.Len() != 0 {
				t.Fatal("two summaries in one stream do not read back")
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	testutil.SkipUnderRace(t)
	data, _ := sampleSummaries(t)["small"].MarshalBinary()
	keep := sampleSummaries(t)["decay"]
	check := func(what string, input []byte, want error) {
		t.Helper()
		g := sampleSummaries(t)["decay"]
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
	check("foreign", []byte("CBF4\x01\x00 a cbf header is not a topk one..........................."), nil)
	// A header that claims 2^32 buckets on a short stream fails without
	// allocating them.
	huge := bytes.Clone(data[:headerSize])
	huge[6], huge[7] = 1, 0                                          // depth 1
	huge[12], huge[13], huge[14], huge[15], huge[16] = 0, 0, 0, 0, 1 // width 2^32
	check("huge width", huge, io.ErrUnexpectedEOF)
	// ReadFrom of a cut stream also leaves the receiver alone.
	g := sampleSummaries(t)["decay"]
	if _, err := g.ReadFrom(bytes.NewReader(data[:len(data)-1])); !errors.Is(err, io.ErrUnexpectedEOF) || !g.Equal(keep) {
		t.Fatalf("ReadFrom(cut) = %v, receiver kept %v", err, g.Equal(keep))
	}
}

func TestGolden(t *testing.T) {
	data, _ := sampleSummaries(t)["small"].MarshalBinary()
	testutil.Golden(t, filepath.Join("testdata", "golden-v1.topk"), data, *update, func() map[string][]byte {
		out := map[string][]byte{}
		for name, s := range sampleSummaries(t) {
			out[name], _ = s.MarshalBinary()
		}
		return out
	})
}

// FuzzUnmarshalBinary: arbitrary input never panics; what decodes re-encodes
// to the same bytes and survives Add, Count, Top and Merge.
func FuzzUnmarshalBinary(f *testing.F) {
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var g TopK
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
		if g.Config().Width*g.Config().Depth > 1<<16 {
			return // a valid but large summary: the rest would be slow
		}
		g.Add([]byte("x"), 1)
		g.Add([]byte("y"), 1000)
		g.Count([]byte("y"))
		top := g.Top()
		for i := 1; i < len(top); i++ {
			if top[i-1].Count < top[i].Count {
				t.Fatalf("Top not sorted at %d", i)
			}
		}
		var h TopK
		if err := h.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		if err := g.Merge(&h); err != nil {
			t.Fatal(err)
		}
	})
}
