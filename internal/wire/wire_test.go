package wire

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Bytes([]byte("MAGC"))
	w.U16(7)
	w.U32(1 << 30)
	w.U64(1<<63 + 5)
	ws := make([]uint64, 1500)
	for i := range ws {
		ws[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	w.Words(ws)
	w.Bytes([]byte{1, 2, 3})
	n, err := w.Finish()
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("Finish = %d, %v; buffer has %d bytes", n, err, buf.Len())
	}
	data := buf.Bytes()
	r := NewReader(bytes.NewReader(data))
	var magic [4]byte
	r.Bytes(magic[:])
	if string(magic[:]) != "MAGC" || r.U16() != 7 || r.U32() != 1<<30 || r.U64() != 1<<63+5 {
		t.Fatal("header fields do not round-trip")
	}
	got := r.Words(uint64(len(ws)))
	if len(got) != len(ws) {
		t.Fatalf("Words returned %d words, want %d", len(got), len(ws))
	}
	for i := range ws {
		if got[i] != ws[i] {
			t.Fatalf("word %d = %x, want %x", i, got[i], ws[i])
		}
	}
	if b := r.ByteSlice(3); !bytes.Equal(b, []byte{1, 2, 3}) {
		t.Fatalf("ByteSlice = %v", b)
	}
	if err := r.Verify(); err != nil {
		t.Fatalf("Verify = %v", err)
	}
	// Flip one bit anywhere: the checksum must catch it.
	for i := 0; i < len(data)-4; i += 97 {
		bad := bytes.Clone(data)
		bad[i] ^= 0x10
		r := NewReader(bytes.NewReader(bad))
		r.ByteSlice(uint64(len(bad) - 4))
		if err := r.Verify(); !errors.Is(err, ErrChecksum) {
			t.Fatalf("flip at byte %d: Verify = %v, want ErrChecksum", i, err)
		}
	}
}

func TestShortStreamBoundedAllocation(t *testing.T) {
	r := NewReader(bytes.NewReader(make([]byte, 100)))
	var got []uint64
	allocs := testing.AllocsPerRun(1, func() {
		r = NewReader(bytes.NewReader(make([]byte, 100)))
		got = r.Words(1 << 60)
	})
	if got != nil || !errors.Is(r.Err(), io.ErrUnexpectedEOF) {
		t.Fatalf("Words(1<<60) on 100 bytes = %d words, err %v; want nil, ErrUnexpectedEOF", len(got), r.Err())
	}
	if allocs > 10 {
		t.Errorf("Words on a short stream allocated %.0f times", allocs)
	}
	r = NewReader(bytes.NewReader(nil))
	if r.U64(); !errors.Is(r.Err(), io.ErrUnexpectedEOF) {
		t.Fatalf("U64 on empty stream: err %v, want ErrUnexpectedEOF", r.Err())
	}
}

// TestHeader: Header reads what Writer.Header wrote, and refuses another
// magic, a version out of range and a short header with the errors that
// say so.
func TestHeader(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Header("ABCD", 3)
	if _, err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		data     []byte
		magic    string
		min, max uint16
		version  uint16
		is       error
		want     string
	}{
		{buf.Bytes(), "ABCD", 1, 3, 3, nil, ""},
		{buf.Bytes(), "ABCD", 3, 3, 3, nil, ""},
		{buf.Bytes(), "WXYZ", 1, 3, 0, ErrMagic, `magic "ABCD", want "WXYZ"`},
		{buf.Bytes(), "ABCD", 1, 2, 3, ErrVersion, "format version 3, want 1 to 2"},
		{buf.Bytes(), "ABCD", 4, 4, 3, ErrVersion, "format version 3, want 4"},
		{buf.Bytes()[:5], "ABCD", 1, 3, 0, io.ErrUnexpectedEOF, "header: unexpected EOF"},
	} {
		v, err := NewReader(bytes.NewReader(c.data)).Header(c.magic, c.min, c.max)
		if v != c.version || (c.is == nil) != (err == nil) || (err != nil && (!errors.Is(err, c.is) || err.Error() != c.want)) {
			t.Errorf("Header(%q, %d, %d) of %q = %d, %v; want %d, %q", c.magic, c.min, c.max, c.data, v, err, c.version, c.want)
		}
	}
}

// TestWordsNoSlack: the words come back in a slice of about their size,
// from a source that tells its length (exactly) and from one that does
// not (within an eighth), for counts below, at and above a chunk.
func TestWordsNoSlack(t *testing.T) {
	for _, n := range []int{0, 1, 1000, chunkWords, chunkWords + 1, 3*chunkWords + 7} {
		ws := make([]uint64, n)
		for i := range ws {
			ws[i] = uint64(i) * 0x9e3779b97f4a7c15
		}
		var buf bytes.Buffer
		w := NewWriter(&buf)
		w.Words(ws)
		if _, err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		for _, src := range []struct {
			name  string
			r     io.Reader
			slack int
		}{
			{"bytes.Reader", bytes.NewReader(buf.Bytes()), 0},
			{"plain reader", struct{ io.Reader }{bytes.NewReader(buf.Bytes())}, n / 8},
		} {
			got := NewReader(src.r).Words(uint64(n))
			if !slices.Equal(got, ws) {
				t.Fatalf("%s, %d words: read back wrong", src.name, n)
			}
			if cap(got)-len(got) > src.slack {
				t.Errorf("%s, %d words: capacity %d, at most %d spare wanted", src.name, n, cap(got), src.slack)
			}
		}
	}
}
