package cms

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite testdata/golden-v1.cms")

func sampleSketches(t testing.TB) map[string]*Sketch {
	out := map[string]*Sketch{}
	mk := func(name string, c Config, keys [][]byte, count uint64) {
		s := mustNew(t, c)
		for _, k := range keys {
			s.Add(k, count)
		}
		out[name] = s
	}
	mk("empty", Config{Width: 10, Depth: 3}, nil, 1)
	mk("plain", Config{Width: 101, Depth: 4, Seed: 42}, testutil.Keys(0, 300), 3)
	mk("conservative", Config{Width: 37, Depth: 5, Conservative: true, Seed: 1}, testutil.Keys(100, 200), 2)
	mk("one", Config{Width: 1, Depth: 1}, testutil.Keys(0, 5), 7)
	mk("saturated", Config{Width: 2, Depth: 2}, testutil.Keys(0, 3), math.MaxUint64/2)
	return out
}

func TestRoundTrip(t *testing.T) {
	for name, s := range sampleSketches(t) {
		t.Run(name, func(t *testing.T) {
			data, err := s.MarshalBinary()
			if err != nil || int64(len(data)) != s.SerializedSize() {
				t.Fatalf("MarshalBinary: %d bytes, %v; SerializedSize %d", len(data), err, s.SerializedSize())
			}
			var g Sketch
			if err := g.UnmarshalBinary(data); err != nil {
				t.Fatal(err)
			}
			if !g.Equal(s) {
				t.Fatal("UnmarshalBinary(MarshalBinary(s)) != s")
			}
			// The decoded sketch hashes as the original: same answers after
			// the same Add.
			g.Add([]byte("new"), 5)
			s2 := s.Clone()
			s2.Add([]byte("new"), 5)
			if !g.Equal(s2) {
				t.Fatal("decoded sketch and original differ after the same Add")
			}
			var buf bytes.Buffer
			n1, err1 := s.WriteTo(&buf)
			n2, err2 := s.WriteTo(&buf)
			if err1 != nil || err2 != nil || n1 != s.SerializedSize() || n2 != n1 {
				t.Fatalf("WriteTo = %d, %v; %d, %v", n1, err1, n2, err2)
			}
			var h1, h2 Sketch
			if n, err := h1.ReadFrom(&buf); err != nil || n != n1 {
				t.Fatalf("ReadFrom = %d, %v", n, err)
			}
			if _, err := h2.ReadFrom(&buf); err != nil {
				t.Fatal(err)
			}
			if !h1.Equal(s) || !h2.Equal(s) || buf.Len() != 0 {
				t.Fatal("two sketches in one stream do not read back")
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	testutil.SkipUnderRace(t)
	data, _ := sampleSketches(t)["plain"].MarshalBinary()
	check := func(what string, input []byte, want error) {
		t.Helper()
		g := sampleSketches(t)["conservative"]
		keep := g.Clone()
		err := g.UnmarshalBinary(input)
		if !errors.Is(err, ErrFormat) || (want != nil && !errors.Is(err, want)) {
			t.Fatalf("%s: UnmarshalBinary = %v, want ErrFormat (%v)", what, err, want)
		}
		if !g.Equal(keep) {
			t.Fatalf("%s: failed UnmarshalBinary changed the receiver", what)
		}
		if what == "trailing" {
			return // a stream may go on after a sketch
		}
		_, err = g.ReadFrom(bytes.NewReader(input))
		if !errors.Is(err, ErrFormat) || !g.Equal(keep) {
			t.Fatalf("%s: ReadFrom = %v (changed %v), want an error and no change", what, err, !g.Equal(keep))
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
	check("foreign", []byte("CBF4\x01\x00 a cbf header is not a cms one......................."), nil)

	// Each header field out of range, with a valid checksum so that only
	// the field is wrong.
	reseal := func(b []byte) []byte {
		b = b[:len(b)-trailerSize]
		return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
	}
	for _, tc := range []struct {
		name  string
		off   int
		value uint64
		size  int
	}{
		{"version", 4, 2, 2},
		{"flags", 6, 2, 2},
		{"width 0", 8, 0, 8},
		{"depth 0", 16, 0, 8},
		{"depth", 16, MaxDepth + 1, 8},
		{"total", 32, 899, 8}, // rows sum to 900
	} {
		bad := bytes.Clone(data)
		if tc.size == 2 {
			binary.LittleEndian.PutUint16(bad[tc.off:], uint16(tc.value))
		} else {
			binary.LittleEndian.PutUint64(bad[tc.off:], tc.value)
		}
		check(tc.name, reseal(bad), nil)
	}
	// One more in a counter of row 0, resealed: the row sums to 901, Total
	// is 900.
	bad := bytes.Clone(data)
	binary.LittleEndian.PutUint64(bad[headerSize:], binary.LittleEndian.Uint64(bad[headerSize:])+1)
	check("row sum", reseal(bad), nil)
}

// TestAbsurdHeaders: a header whose sizes are out of range is rejected from
// the header alone, and one whose sizes are in range but whose stream is
// short fails without allocating the counters it claims.
func TestAbsurdHeaders(t *testing.T) {
	data, _ := sampleSketches(t)["plain"].MarshalBinary()
	header := func(width, depth uint64) []byte {
		h := bytes.Clone(data[:headerSize])
		binary.LittleEndian.PutUint64(h[8:], width)
		binary.LittleEndian.PutUint64(h[16:], depth)
		return h
	}
	for _, tc := range []struct {
		name         string
		width, depth uint64
		want         error
	}{
		{"2^64-1 wide", math.MaxUint64, 4, ErrConfig},
		{"width*depth wraps", 1 << 62, 8, ErrConfig},
		{"2^64-1 deep", 10, math.MaxUint64, ErrConfig},
		{"2^32+1 counters", 1<<30 + 1, 4, ErrConfig},
		{"2^32 counters on a short stream", 1 << 30, 4, io.ErrUnexpectedEOF},
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var g Sketch
		err := g.UnmarshalBinary(header(tc.width, tc.depth))
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrFormat) || !errors.Is(err, tc.want) {
			t.Errorf("%s: UnmarshalBinary = %v, want ErrFormat and %v", tc.name, err, tc.want)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
			t.Errorf("%s: decoding a %d-byte header allocated %d bytes", tc.name, headerSize, n)
		}
	}
}

func TestGolden(t *testing.T) {
	s := sampleSketches(t)["plain"]
	data, _ := s.MarshalBinary()
	path := filepath.Join("testdata", "golden-v1.cms")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(data, want) {
		t.Fatalf("serialization changed: %d bytes, golden %s %d bytes", len(data), path, len(want))
	}
	// The golden file pins the hash too: Count of the keys added reads back.
	var g Sketch
	if err := g.UnmarshalBinary(want); err != nil {
		t.Fatal(err)
	}
	for _, k := range testutil.Keys(0, 300) {
		if c := g.Count(k); c < 3 {
			t.Fatalf("golden sketch: Count(%x) = %d, want >= 3", k, c)
		}
	}
}

// FuzzDecode: arbitrary input never panics and fails with ErrFormat; what
// decodes re-encodes to the same bytes, keeps its invariants under Add and
// Merge, and can be queried.
func FuzzDecode(f *testing.F) {
	f.Add([]byte{})
	for _, s := range sampleSketches(f) {
		b, _ := s.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var g Sketch
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
		g.Count([]byte("x"))
		g.InnerProduct(&g)
		g.Add([]byte("x"), 3)
		if err := g.Merge(g.Clone()); err != nil {
			t.Fatal(err)
		}
		if err := checkRows(g.cfg, g.counters, g.total); err != nil {
			t.Fatalf("after Add and Merge: %v", err)
		}
		if c := g.Count([]byte("x")); c < 6 {
			t.Fatalf("Count(x) = %d after adding 3 and doubling, want >= 6", c)
		}
	})
}
