package acbf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite testdata/golden-v1.acbf and the fuzz seed corpus")

func sampleFilters(t testing.TB) map[string]*Filter {
	t.Helper()
	out := map[string]*Filter{}
	mk := func(name string, cfg Config, keys [][]byte) {
		f, err := Build(cfg, keys)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = f
	}
	mk("empty", ConfigOptimal(100, 10, 3), nil)
	mk("opt", ConfigOptimal(8*300, 300, 3), testutil.Keys(0, 300))
	mk("acbf1-dups", ConfigJ(1, 500, 100, 4), append(testutil.Keys(0, 60), testutil.Keys(0, 40)...))
	mk("tiny", ConfigOptimal(2, 1, 1), testutil.Keys(5, 1))
	mk("k14", ConfigJ(2, 20*200, 200, 14), testutil.Keys(1000, 200))
	return out
}

func TestRoundTrip(t *testing.T) {
	for name, f := range sampleFilters(t) {
		t.Run(name, func(t *testing.T) {
			data, err := f.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(data)) != f.SerializedSize() {
				t.Fatalf("MarshalBinary wrote %d bytes, SerializedSize says %d", len(data), f.SerializedSize())
			}
			// The payload is the paper's logical layout: m1 + Len*k bits, padded
			// to words.
			s := f.Stats()
			payload := len(data) - headerSize - trailerSize - 8*(s.Depth-1)
			if want := 8 * int(words(s.FirstLevelBits)+words(s.CounterBits)); payload != want {
				t.Fatalf("payload %d bytes, want %d", payload, want)
			}
			var g Filter
			if err := g.UnmarshalBinary(data); err != nil {
				t.Fatal(err)
			}
			if !g.Equal(f) {
				t.Fatal("UnmarshalBinary(MarshalBinary(f)) != f")
			}
			checkInvariants(t, &g)
			// Streams: two filters back to back are read one after the other.
			var buf bytes.Buffer
			n1, err1 := f.WriteTo(&buf)
			n2, err2 := f.WriteTo(&buf)
			if err1 != nil || err2 != nil || n1 != int64(len(data)) || n2 != n1 {
				t.Fatalf("WriteTo = %d, %v; %d, %v", n1, err1, n2, err2)
			}
			var h1, h2 Filter
			r1, err1 := h1.ReadFrom(&buf)
			r2, err2 := h2.ReadFrom(&buf)
			if err1 != nil || err2 != nil || r1 != n1 || r2 != n1 || !h1.Equal(f) || !h2.Equal(f) || buf.Len() != 0 {
				t.Fatalf("ReadFrom = %d, %v; %d, %v; %d bytes left", r1, err1, r2, err2, buf.Len())
			}
			// A decoded filter keeps working (its arena was sized to the data).
			for i, key := range testutil.Keys(1<<40, min(50, g.Cap()-g.Len())) {
				if err := g.Add(key); err != nil {
					t.Fatalf("Add #%d after decode: %v", i, err)
				}
			}
			checkInvariants(t, &g)
		})
	}
}

// TestDecodeErrors: every truncation, every single-byte corruption, trailing
// bytes and foreign input give an error wrapping ErrFormat and leave the
// receiver unchanged.
func TestDecodeErrors(t *testing.T) {
	f := sampleFilters(t)["acbf1-dups"]
	data, _ := f.MarshalBinary()
	keep := sampleFilters(t)["opt"]
	check := func(what string, input []byte, want error) {
		t.Helper()
		g := sampleFilters(t)["opt"]
		err := g.UnmarshalBinary(input)
		if !errors.Is(err, ErrFormat) || (want != nil && !errors.Is(err, want)) {
			t.Fatalf("%s: UnmarshalBinary = %v, want ErrFormat (%v)", what, err, want)
		}
		if !g.Equal(keep) {
			t.Fatalf("%s: failed UnmarshalBinary changed the receiver", what)
		}
		var h Filter
		if _, err := h.ReadFrom(bytes.NewReader(input)); err == nil && what != "trailing" {
			t.Fatalf("%s: ReadFrom accepted it", what)
		}
	}
	for n := 0; n < len(data); n++ {
		check(fmt.Sprintf("truncated to %d", n), data[:n], io.ErrUnexpectedEOF)
	}
	for i := range data {
		bad := bytes.Clone(data)
		bad[i] ^= 0x41
		check(fmt.Sprintf("byte %d flipped", i), bad, nil)
	}
	check("trailing", append(bytes.Clone(data), 0), nil)
	check("foreign", []byte("PK\x03\x04 this is a zip file, not a filter......................"), nil)
}

// forge builds a serialized filter with the given header fields and payload and
// a correct checksum, to test the semantic checks behind the checksum.
func forge(k uint16, m, n, m1, elems uint64, sizes []uint64, payload []uint64) []byte {
	var buf bytes.Buffer
	ww := newTestWriter(&buf)
	ww.Bytes([]byte(magic))
	ww.U16(formatVersion)
	ww.U16(k)
	ww.U64(m)
	ww.U64(n)
	ww.U64(m1)
	ww.U64(elems)
	ww.U64(uint64(1 + len(sizes)))
	for _, s := range sizes {
		ww.U64(s)
	}
	ww.Words(payload)
	ww.Finish()
	return buf.Bytes()
}

// hugeDepth claims 2^60 levels; the decoder must refuse before reading sizes.
func hugeDepth() []byte {
	data := forge(1, 16, 4, 60, 1, []uint64{1}, []uint64{1 << 5, 0})
	binary.LittleEndian.PutUint64(data[40:], 1<<60)
	return data
}

func TestDecodeSemanticChecks(t *testing.T) {
	// One element, k = 1, m = 16 (64-bit budget), m1 = 60: B1 has one 1 bit, level
	// 2 has one 0 bit.
	good := forge(1, 16, 4, 60, 1, []uint64{1}, []uint64{1 << 5, 0})
	var f Filter
	if err := f.UnmarshalBinary(good); err != nil {
		t.Fatalf("forged valid filter: %v", err)
	}
	if f.Count([]byte("anything")) > 1 || f.Len() != 1 {
		t.Fatalf("forged filter: Len %d", f.Len())
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"huge m, short stream", forge(3, MaxCounters, 1, 1<<37, 0, nil, nil)},
		{"m too large", forge(3, MaxCounters+1, 1, 64, 0, nil, []uint64{0})},
		{"k zero", forge(0, 16, 4, 60, 0, nil, []uint64{0})},
		{"m1 zero", forge(1, 16, 4, 0, 0, nil, nil)},
		{"over capacity", forge(1, 16, 4, 60, 5, []uint64{5}, []uint64{1, 0})},
		{"levels disagree with Len", forge(1, 16, 4, 60, 1, []uint64{2}, []uint64{1 << 5, 0})},
		{"too many levels", forge(1, 16, 4, 60, 1, []uint64{1, 1}, []uint64{1 << 5, 0})},
		{"level 2 shorter than ones of B1", forge(1, 16, 4, 60, 1, []uint64{1}, []uint64{3 << 5, 0})},
		{"deepest level has a one", forge(1, 16, 4, 60, 1, []uint64{1}, []uint64{1 << 5, 1})},
		{"B1 padding set", forge(1, 16, 4, 60, 1, []uint64{1}, []uint64{1<<5 | 1<<62, 0})},
		{"zero level size", forge(1, 16, 4, 60, 1, []uint64{0}, []uint64{1 << 5, 0})},
		{"huge depth", hugeDepth()},
	} {
		err := f.UnmarshalBinary(tc.data)
		t.Logf("%s: %v", tc.name, err)
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: UnmarshalBinary = %v, want ErrFormat", tc.name, err)
		}
	}
}

// TestGolden pins the format: a fixed filter must serialize to the checked-in
// bytes. Regenerate with go test ./acbf -run Golden -update after a deliberate
// format change (and bump formatVersion).
func TestGolden(t *testing.T) {
	f := sampleFilters(t)["acbf1-dups"]
	data, _ := f.MarshalBinary()
	path := filepath.Join("testdata", "golden-v1.acbf")
	if *update {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		writeSeedCorpus(t)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(data, want) {
		t.Fatalf("serialization changed: %d bytes, golden %d bytes", len(data), len(want))
	}
	var g Filter
	if err := g.UnmarshalBinary(want); err != nil || !g.Equal(f) {
		t.Fatalf("golden file decodes to a different filter: %v", err)
	}
}

func writeSeedCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzUnmarshalBinary")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, f := range sampleFilters(t) {
		data, _ := f.MarshalBinary()
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzUnmarshalBinary: arbitrary input never panics; whatever decodes satisfies
// the structure's invariants, re-encodes to the same bytes, and stays usable.
func FuzzUnmarshalBinary(f *testing.F) {
	f.Add([]byte{})
	f.Add(forge(1, 16, 4, 60, 1, []uint64{1}, []uint64{1 << 5, 0}))
	f.Fuzz(func(t *testing.T, data []byte) {
		var g Filter
		if err := g.UnmarshalBinary(data); err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		checkInvariants(t, &g)
		again, err := g.MarshalBinary()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("re-encoding differs (%v)", err)
		}
		key := []byte("probe")
		g.Contains(key)
		if g.Len() < g.Cap() {
			if err := g.Add(key); err != nil {
				t.Fatal(err)
			}
			if err := g.Remove(key); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(must(g.MarshalBinary()), data) {
				t.Fatal("Add+Remove did not restore the decoded filter")
			}
		}
	})
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
