// Package formattest is the one test harness of the serialized formats
// (cbf, acbf, blocked, cuckoo, scalable, fuse): round trips, truncations
// and flipped bytes, the golden file and its fuzz corpus, and the fuzz
// target's common checks. A format's own tests add what only it knows
// (its field-by-field edits behind a valid checksum, its invariants).
package formattest

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"slices"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// Serial is what a format's value implements.
type Serial interface {
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
	io.WriterTo
	io.ReaderFrom
	SerializedSize() int64
}

// Format describes a format under test; T is a pointer type.
type Format[T Serial] struct {
	// New returns an empty value to decode into.
	New func() T
	// Equal reports whether two values are the same (the package's Equal).
	Equal func(a, b T) bool
	// ErrFormat is what every decoding error wraps.
	ErrFormat error
	// Samples returns the named values the tests encode; they seed the
	// fuzz corpus. Golden names the one whose bytes the golden file holds,
	// GoldenPath (testdata/golden-v1.ext).
	Samples    func(t testing.TB) map[string]T
	Golden     string
	GoldenPath string
}

// RoundTrip: every sample marshals to SerializedSize bytes that unmarshal
// to an equal value; two in one stream read back one after the other.
func RoundTrip[T Serial](t *testing.T, f Format[T]) {
	samples := f.Samples(t)
	for _, name := range slices.Sorted(maps.Keys(samples)) {
		v := samples[name]
		data, err := v.MarshalBinary()
		if err != nil || int64(len(data)) != v.SerializedSize() {
			t.Fatalf("%s: MarshalBinary: %d bytes, %v; SerializedSize %d", name, len(data), err, v.SerializedSize())
		}
		g := f.New()
		if err := g.UnmarshalBinary(data); err != nil || !f.Equal(g, v) {
			t.Fatalf("%s: UnmarshalBinary(MarshalBinary(v)) != v (%v)", name, err)
		}
		var buf bytes.Buffer
		v.WriteTo(&buf)
		v.WriteTo(&buf)
		h1, h2 := f.New(), f.New()
		if n, err := h1.ReadFrom(&buf); err != nil || n != v.SerializedSize() {
			t.Fatalf("%s: ReadFrom = %d, %v; want %d", name, n, err, v.SerializedSize())
		}
		if _, err := h2.ReadFrom(&buf); err != nil {
			t.Fatalf("%s: second ReadFrom: %v", name, err)
		}
		if !f.Equal(h1, v) || !f.Equal(h2, v) || buf.Len() != 0 {
			t.Fatalf("%s: two values in one stream do not read back", name)
		}
	}
}

// Refuses checks that input is refused with ErrFormat (and want, if not
// nil) by UnmarshalBinary and ReadFrom, leaving the receiver (a copy of
// sample keep) unchanged.
func Refuses[T Serial](t *testing.T, f Format[T], keep, what string, input []byte, want error) {
	t.Helper()
	ref := f.Samples(t)[keep]
	g := f.Samples(t)[keep]
	err := g.UnmarshalBinary(input)
	if !errors.Is(err, f.ErrFormat) || (want != nil && !errors.Is(err, want)) {
		t.Fatalf("%s: UnmarshalBinary = %v, want ErrFormat (%v)", what, err, want)
	}
	if !f.Equal(g, ref) {
		t.Fatalf("%s: a failed UnmarshalBinary changed the receiver", what)
	}
	_, err = g.ReadFrom(bytes.NewReader(input))
	if !errors.Is(err, f.ErrFormat) || (want != nil && !errors.Is(err, want)) || !f.Equal(g, ref) {
		t.Fatalf("%s: ReadFrom = %v (want ErrFormat, %v), changed %v", what, err, want, !f.Equal(g, ref))
	}
}

// Corruptions: the encoding of sample name, cut at every length, with
// each byte flipped, with a byte after it, and a foreign file are refused
// (Refuses, the receiver a copy of sample keep). Returns the encoding, for
// the format's own edits.
//
// It skips t under the race detector (testutil.SkipUnderRace): the
// decoders run on the test's goroutine, and so do the samples' builds
// (too few keys for a parallel build, parbuild.MinProbes); the thousands
// of decodes run without -race.
func Corruptions[T Serial](t *testing.T, f Format[T], name, keep string) []byte {
	testutil.SkipUnderRace(t)
	data, err := f.Samples(t)[name].MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(data) {
		Refuses(t, f, keep, fmt.Sprintf("truncated to %d", n), data[:n], io.ErrUnexpectedEOF)
	}
	for i := range data {
		bad := bytes.Clone(data)
		bad[i] ^= 0x24
		Refuses(t, f, keep, fmt.Sprintf("byte %d flipped", i), bad, nil)
	}
	g := f.New()
	if err := g.UnmarshalBinary(append(bytes.Clone(data), 0)); !errors.Is(err, f.ErrFormat) {
		t.Fatalf("a byte after the value: UnmarshalBinary = %v, want ErrFormat", err)
	}
	Refuses(t, f, keep, "foreign", []byte("PK\x03\x04 a zip file is no filter.................................."), nil)
	return data
}

// Golden compares the golden sample's encoding with the golden file; with
// update it rewrites the file and the fuzz corpus of every sample
// (testutil.Golden). Returns the file's value, decoded.
func Golden[T Serial](t *testing.T, f Format[T], update bool) T {
	samples := f.Samples(t)
	data, err := samples[f.Golden].MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	want := testutil.Golden(t, f.GoldenPath, data, update, func() map[string][]byte {
		corpus := map[string][]byte{}
		for name, v := range samples {
			corpus[name], _ = v.MarshalBinary()
		}
		return corpus
	})
	g := f.New()
	if err := g.UnmarshalBinary(want); err != nil || !f.Equal(g, samples[f.Golden]) {
		t.Fatalf("golden file %s: %v, or another value", f.GoldenPath, err)
	}
	return g
}

// Fuzz runs the fuzz target of the format: arbitrary input never panics;
// an error wraps ErrFormat; what decodes re-encodes to the same bytes and
// passes check (the format's invariants).
func Fuzz[T Serial](fz *testing.F, f Format[T], check func(t *testing.T, v T)) {
	fz.Add([]byte{})
	fz.Fuzz(func(t *testing.T, data []byte) {
		g := f.New()
		if err := g.UnmarshalBinary(data); err != nil {
			if !errors.Is(err, f.ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		again, err := g.MarshalBinary()
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("re-encoding differs (%v)", err)
		}
		if check != nil {
			check(t, g)
		}
	})
}

// Reseal recomputes the trailing CRC-32C of an encoding (every format ends
// with one of the bytes before it) after an edit, so that a test reaches
// the checks behind the checksum. It changes data in place and returns it.
func Reseal(data []byte) []byte {
	n := len(data) - 4
	binary.LittleEndian.PutUint32(data[n:], crc32.Checksum(data[:n], crc32.MakeTable(crc32.Castagnoli)))
	return data
}

// Edit returns a copy of data with the little-endian field of size bytes
// (2, 4 or 8) at off set to v, resealed.
func Edit(data []byte, off int, v uint64, size int) []byte {
	bad := bytes.Clone(data)
	switch size {
	case 2:
		binary.LittleEndian.PutUint16(bad[off:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(bad[off:], uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(bad[off:], v)
	}
	return Reseal(bad)
}
