package csvscan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// batchRec is what a test compares of a record.
type testRec struct {
	raw, field string
	off, line  int64
	bad        string // a skipped row's message
}

// viaNext reads data with Next, keeping field col; range says to read it as
// a range reader (no header, no line numbers) of nfields fields.
func viaNext(data []byte, col int, skip, asRange bool, nfields, chunk int) ([]testRec, error) {
	var out []testRec
	r := newTestReader(data, asRange, nfields, chunk)
	if !asRange {
		if _, err := r.ReadHeader(); err != nil {
			return nil, err
		}
	}
	if skip {
		r.SkipBad(func(pe *ParseError) { out = append(out, testRec{off: pe.Offset, line: pe.Line, bad: pe.Msg}) })
	}
	for r.Next() {
		out = append(out, testRec{raw: string(r.Raw()), field: string(r.Fields()[col]), off: r.Offset(), line: r.Line()})
	}
	return out, r.Err()
}

// viaBatch reads data with NextBatch, in batches of random sizes.
func viaBatch(data []byte, col int, skip, asRange bool, nfields, chunk int, rng *rand.Rand) ([]testRec, error) {
	var out []testRec
	r := newTestReader(data, asRange, nfields, chunk)
	if !asRange {
		if _, err := r.ReadHeader(); err != nil {
			return nil, err
		}
	}
	if skip {
		r.SkipBad(func(pe *ParseError) { out = append(out, testRec{off: pe.Offset, line: pe.Line, bad: pe.Msg}) })
	}
	var b Batch
	for r.NextBatch(col, 1+rng.IntN(7), &b) {
		if b.Len() == 0 {
			return nil, errors.New("NextBatch reported an empty batch")
		}
		for i := range b.Len() {
			out = append(out, testRec{raw: string(b.Raw(i)), field: string(b.Field(i)), off: b.Offset(i), line: b.Line(i)})
		}
		if last := b.Len() - 1; r.Offset() != b.Offset(last) || r.Line() != b.Line(last) || string(r.Raw()) != string(b.Raw(last)) {
			return nil, fmt.Errorf("after a batch the reader's current record is at %d line %d, the batch's last at %d line %d", r.Offset(), r.Line(), b.Offset(last), b.Line(last))
		}
	}
	return out, r.Err()
}

func newTestReader(data []byte, asRange bool, nfields, chunk int) *Reader {
	src := iotestReader(data, chunk)
	if asRange {
		return newRangeReader(src, "t", 0, nfields)
	}
	return NewReader(src, "t")
}

// iotestReader hands out data chunk bytes at a time (0: all at once).
func iotestReader(data []byte, chunk int) *chunkedReader {
	return &chunkedReader{data: data, n: chunk}
}

type chunkedReader struct {
	data []byte
	n    int
}

func (c *chunkedReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(p)
	if c.n > 0 && n > c.n {
		n = c.n
	}
	n = copy(p, c.data[:min(n, len(c.data))])
	c.data = c.data[n:]
	return n, nil
}

// sameBatch checks that NextBatch reads what Next reads.
func sameBatch(t *testing.T, data []byte, rng *rand.Rand) {
	t.Helper()
	defer func(old int) { maxRecord = old }(maxRecord)
	if rng.IntN(2) == 0 {
		maxRecord = 1 + rng.IntN(64)
	}
	nfields := 1 + rng.IntN(4)
	for _, asRange := range []bool{false, true} {
		for _, skip := range []bool{false, true} {
			col := rng.IntN(nfields)
			if !asRange {
				// The header decides the field count.
				if h, err := NewReader(bytes.NewReader(data), "t").ReadHeader(); err == nil && len(h) > 0 {
					col = rng.IntN(len(h))
				}
			}
			chunk := []int{0, 1, 7, 64}[rng.IntN(4)]
			want, werr := viaNext(data, col, skip, asRange, nfields, chunk)
			got, gerr := viaBatch(data, col, skip, asRange, nfields, chunk, rng)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) || !slices.Equal(got, want) {
				t.Fatalf("range %v, skip %v, col %d, chunk %d, maxRecord %d:\nNextBatch: %v %+v\nNext:      %v %+v\ninput %q",
					asRange, skip, col, chunk, maxRecord, gerr, got, werr, want, data)
			}
		}
	}
}

// TestBatchMatchesNext: on NBER-shaped, random valid and random malformed CSV
// (quotes, CRLF, blank lines, wrong field counts, over-long records, no final
// line break), read as a stream with a header and as a range, whole or in
// small reads, with and without skipping bad rows, NextBatch gives what Next
// gives: the same records, fields, offsets, lines, skipped rows and error.
func TestBatchMatchesNext(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	inputs := [][]byte{
		[]byte("\"CITING\",\"CITED\"\n3858241,956203\n3858241,1324234\n\n3858242,3398406\r\n3858242,x\n"),
		[]byte("A,B\n1,2\n3\n4,5,6\n\"7\",8\n9,10"),
		[]byte("A\n\n\r\n1\n\r\n2"),
		[]byte("A,B,C\n,,\n1,,3\r\n,2,\n"),
	}
	for i := range 300 {
		inputs = append(inputs, randomCSV(rng, rng.IntN(60), 1+rng.IntN(4), []float64{0, 0.05, 0.5}[i%3]))
	}
	for range 200 { // malformed: random bytes over a CSV alphabet
		alphabet := []byte("a1,\n\r\"x ")
		b := []byte("A,B\n")
		for range rng.IntN(120) {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
		}
		inputs = append(inputs, b)
	}
	for _, in := range inputs {
		sameBatch(t, in, rng)
	}
}

// FuzzBatch: on any bytes, NextBatch reads what Next reads.
func FuzzBatch(f *testing.F) {
	f.Add([]byte("A,B\n1,2\n3,4\n"), uint64(1))
	f.Add([]byte("\"CITING\",\"CITED\"\r\n1,2\r\n\r\n\"3\",4\n5,6"), uint64(2))
	f.Add([]byte("A\n\n1\n,\n"), uint64(3))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		sameBatch(t, data, testutil.Rand(seed))
	})
}
