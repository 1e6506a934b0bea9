package acbf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/internal/testutil/formattest"
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

var format = formattest.Format[*Filter]{
	New:        func() *Filter { return &Filter{} },
	Equal:      func(a, b *Filter) bool { return a.Equal(b) },
	ErrFormat:  ErrFormat,
	Samples:    sampleFilters,
	Golden:     "acbf1-dups",
	GoldenPath: "testdata/golden-v1.acbf",
}

// TestRoundTrip: the format's round trips (formattest), then the ACBF's
// own: the payload is the paper's logical layout, a decoded filter keeps
// its invariants and takes keys (its arena was sized to the data).
func TestRoundTrip(t *testing.T) {
	formattest.RoundTrip(t, format)
	for name, f := range sampleFilters(t) {
		data, _ := f.MarshalBinary()
		// m1 + Len*k bits, padded to words.
		s := f.Stats()
		payload := len(data) - headerSize - trailerSize - 8*(s.Depth-1)
		if want := 8 * int(words(s.FirstLevelBits)+words(s.CounterBits)); payload != want {
			t.Fatalf("%s: payload %d bytes, want %d", name, payload, want)
		}
		var g Filter
		if err := g.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, &g)
		for i, key := range testutil.Keys(1<<40, min(50, g.Cap()-g.Len())) {
			if err := g.Add(key); err != nil {
				t.Fatalf("%s: Add #%d after decode: %v", name, i, err)
			}
		}
		checkInvariants(t, &g)
	}
}

// TestDecodeErrors: every truncation, every single-byte corruption, trailing
// bytes and foreign input give an error wrapping ErrFormat and leave the
// receiver unchanged (formattest.Corruptions).
func TestDecodeErrors(t *testing.T) { formattest.Corruptions(t, format, "acbf1-dups", "opt") }

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

// TestGolden pins the format: a fixed filter must serialize to the
// checked-in bytes. Regenerate with go test ./acbf -run Golden -update after
// a deliberate format change (and bump formatVersion).
func TestGolden(t *testing.T) { formattest.Golden(t, format, *update) }

// FuzzUnmarshalBinary: arbitrary input never panics; whatever decodes satisfies
// the structure's invariants, re-encodes to the same bytes, and stays usable.
func FuzzUnmarshalBinary(f *testing.F) {
	f.Add(forge(1, 16, 4, 60, 1, []uint64{1}, []uint64{1 << 5, 0}))
	formattest.Fuzz(f, format, func(t *testing.T, g *Filter) {
		checkInvariants(t, g)
		data := must(g.MarshalBinary())
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
