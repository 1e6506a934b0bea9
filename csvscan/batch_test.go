package csvscan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"unsafe"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// batchRec is what a test compares of a record.
type testRec struct {
	raw, field string
	off, line  int64
	bad        string // a skipped row's message
}

// viaNext reads data with Next, keeping field col; range says to read it as
// a range reader (no header, no line numbers) of nfields fields. Fields are
// separated by sep.
func viaNext(data []byte, col int, skip, asRange bool, nfields, chunk int, sep byte) ([]testRec, error) {
	var out []testRec
	r := newTestReader(data, asRange, nfields, chunk, sep)
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

// viaBatch reads data with NextBatch, in batches of random sizes (small
// ones, and sometimes the map phase's 256), with or without ScanInts.
func viaBatch(data []byte, col int, skip, asRange bool, nfields, chunk int, sep byte, rng *rand.Rand) ([]testRec, error) {
	size := func() int {
		if rng.IntN(4) == 0 {
			return 256
		}
		return 1 + rng.IntN(7)
	}
	return viaBatchWith(data, col, skip, asRange, nfields, chunk, sep, rng.IntN(2) == 0, size)
}

// viaBatchWith is viaBatch with ScanInts set to scan and the batches'
// sizes from size.
func viaBatchWith(data []byte, col int, skip, asRange bool, nfields, chunk int, sep byte, scan bool, size func() int) ([]testRec, error) {
	var out []testRec
	r := newTestReader(data, asRange, nfields, chunk, sep)
	if !asRange {
		if _, err := r.ReadHeader(); err != nil {
			return nil, err
		}
	}
	if skip {
		r.SkipBad(func(pe *ParseError) { out = append(out, testRec{off: pe.Offset, line: pe.Line, bad: pe.Msg}) })
	}
	b := Batch{ScanInts: scan}
	for r.NextBatch(col, size(), &b) {
		if b.Len() == 0 {
			return nil, errors.New("NextBatch reported an empty batch")
		}
		for i := range b.Len() {
			out = append(out, testRec{raw: string(b.Raw(i)), field: string(b.Field(i)), off: b.Offset(i), line: b.Line(i)})
		}
		if err := checkInts(&b); err != nil {
			return nil, err
		}
		if last := b.Len() - 1; r.Offset() != b.Offset(last) || r.Line() != b.Line(last) || string(r.Raw()) != string(b.Raw(last)) {
			return nil, fmt.Errorf("after a batch the reader's current record is at %d line %d, the batch's last at %d line %d", r.Offset(), r.Line(), b.Offset(last), b.Line(last))
		}
	}
	return out, r.Err()
}

// checkInts checks b.Ints against the fields: the leading values it
// reports are those of the fields, each 1 to 8 digits, and it stops only at a
// field that is not such a number or one at the buffer's end.
func checkInts(b *Batch) error {
	vals := b.Ints()
	n := len(vals)
	if n < 0 || n > b.Len() {
		return fmt.Errorf("Ints = %d of %d records", n, b.Len())
	}
	digits8 := func(f []byte) bool {
		return len(f) >= 1 && len(f) <= 8 && !slices.ContainsFunc(f, func(c byte) bool { return c < '0' || c > '9' })
	}
	for i := range n {
		f := b.Field(i)
		v, err := strconv.ParseInt(string(f), 10, 64)
		if !digits8(f) || err != nil || v != vals[i] {
			return fmt.Errorf("Ints: record %d's field %q gave %d", i, f, vals[i])
		}
	}
	if n < b.Len() && digits8(b.Field(n)) && !b.general && int(b.recs[n].fs)+8 <= len(b.buf) {
		return fmt.Errorf("Ints stopped at record %d, whose field %q is a number", n, b.Field(n))
	}
	return nil
}

func newTestReader(data []byte, asRange bool, nfields, chunk int, sep byte) *Reader {
	src := iotestReader(data, chunk)
	if asRange {
		return newRangeReader(src, "t", 0, nfields, sep)
	}
	return newSepReader(src, "t", sep)
}

// newSepReader is NewReader with SetSep(sep), which must succeed.
func newSepReader(src io.Reader, name string, sep byte) *Reader {
	r := NewReader(src, name)
	if err := r.SetSep(sep); err != nil {
		panic(err)
	}
	return r
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

// sameBatch checks that NextBatch reads what Next reads, fields separated by
// sep.
func sameBatch(t *testing.T, data []byte, sep byte, rng *rand.Rand) {
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
				if h, err := newSepReader(bytes.NewReader(data), "t", sep).ReadHeader(); err == nil && len(h) > 0 {
					col = rng.IntN(len(h))
				}
			}
			chunk := []int{0, 1, 7, 64}[rng.IntN(4)]
			want, werr := viaNext(data, col, skip, asRange, nfields, chunk, sep)
			got, gerr := viaBatch(data, col, skip, asRange, nfields, chunk, sep, rng)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) || !slices.Equal(got, want) {
				t.Fatalf("sep %q, range %v, skip %v, col %d, chunk %d, maxRecord %d:\nNextBatch: %v %+v\nNext:      %v %+v\ninput %q",
					sep, asRange, skip, col, chunk, maxRecord, gerr, got, werr, want, data)
			}
		}
	}
}

// TestBatchMatchesNext: on NBER-shaped, random valid and random malformed CSV
// (quotes, CRLF, blank lines, wrong field counts, over-long records, no final
// line break), read as a stream with a header and as a range, whole or in
// small reads, with and without skipping bad rows, NextBatch gives what Next
// gives: the same records, fields, offsets, lines, skipped rows and error.
// The same with tabs for commas (TSV), commas then being data.
func TestBatchMatchesNext(t *testing.T) {
	testutil.SkipUnderRace(t)
	for _, sep := range []byte{',', '\t'} {
		t.Run(fmt.Sprintf("sep=%q", sep), func(t *testing.T) {
			rng := testutil.Rand(testutil.Seed(t))
			inputs := [][]byte{
				[]byte("\"CITING\",\"CITED\"\n3858241,956203\n3858241,1324234\n\n3858242,3398406\r\n3858242,x\n"),
				[]byte("A,B\n1,2\n3\n4,5,6\n\"7\",8\n9,10"),
				[]byte("A\n\n\r\n1\n\r\n2"),
				[]byte("A,B,C\n,,\n1,,3\r\n,2,\n"),
				[]byte("A,B\n12345678,87654321\n1,123456789\n00000000,-1\n7,7\n"),
			}
			if sep != ',' {
				for i, in := range inputs {
					inputs[i] = bytes.ReplaceAll(in, []byte(","), []byte{sep})
				}
				inputs = append(inputs, []byte("A\tB\n1,5\t2\n\"a\tb\",c\td\n,\t,\n"))
			}
			for i := range 300 {
				inputs = append(inputs, randomSV(rng, rng.IntN(60), 1+rng.IntN(4), []float64{0, 0.05, 0.5}[i%3], sep))
			}
			for i := range 20 { // long enough for full batches of 256 records
				inputs = append(inputs, randomSV(rng, 300+rng.IntN(600), 1+rng.IntN(4), []float64{0, 0.001, 0.05}[i%3], sep))
			}
			for range 200 { // malformed: random bytes over a CSV alphabet
				alphabet := []byte("a1,\n\r\"x " + string(sep))
				b := []byte("A" + string(sep) + "B\n")
				for range rng.IntN(120) {
					b = append(b, alphabet[rng.IntN(len(alphabet))])
				}
				inputs = append(inputs, b)
			}
			for _, asm := range []bool{true, false} {
				withBlockAsm(t, asm) // the AVX2 block scanner where the CPU has it, then the word loop
				for _, in := range inputs {
					sameBatch(t, in, sep, rng)
				}
			}
		})
	}
}

// TestBatchIntsLong: the map phase's read of an NBER-shaped file (the last
// column, ScanInts, batches of 256, whole buffers and small reads), with
// now and then a field the scan does not parse, a CRLF or a blank line,
// gives what Next gives, and Ints the leading values (checkInts).
func TestBatchIntsLong(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	for _, asm := range []bool{true, false} {
		withBlockAsm(t, asm)
		for i := range 60 {
			sep := []byte{',', '\t'}[i%2]
			cols := 1 + rng.IntN(3)
			data := intSV(rng, 300+rng.IntN(3000), cols, []float64{0, 0.0005, 0.01}[i%3], sep)
			for _, chunk := range []int{0, 4096, 100} {
				for _, asRange := range []bool{false, true} {
					want, werr := viaNext(data, cols-1, false, asRange, cols, chunk, sep)
					got, gerr := viaBatchWith(data, cols-1, false, asRange, cols, chunk, sep, true, func() int { return 256 })
					if fmt.Sprint(werr) != fmt.Sprint(gerr) || !slices.Equal(got, want) {
						t.Fatalf("asm %v, sep %q, %d columns, chunk %d, range %v: NextBatch %v, %d records; Next %v, %d records; first difference %s",
							asm, sep, cols, chunk, asRange, gerr, len(got), werr, len(want), firstRecDiff(got, want))
					}
				}
			}
		}
	}
}

// firstRecDiff describes the first record where got and want differ.
func firstRecDiff(got, want []testRec) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("at %d: %+v against %+v", i, got[i], want[i])
		}
	}
	return "in length"
}

// FuzzBatch: on any bytes and any separator, NextBatch reads what Next reads;
// an invalid separator is refused.
func FuzzBatch(f *testing.F) {
	f.Add([]byte("A,B\n1,2\n3,4\n"), uint64(1), byte(','))
	f.Add([]byte("\"CITING\",\"CITED\"\r\n1,2\r\n\r\n\"3\",4\n5,6"), uint64(2), byte(','))
	f.Add([]byte("A\n\n1\n,\n"), uint64(3), byte(','))
	f.Add([]byte("A\tB\n1,5\t2\n\"x\ty\"\t\"\"\r\n\n3\t4"), uint64(4), byte('\t'))
	f.Add([]byte("A;B\n1;2\n\"3;\";4\n"), uint64(5), byte(';'))
	// Longer than 64 bytes: the AVX2 block scanner's steps scan them.
	f.Add([]byte("CITING,CITED\n3858241,956203\n3858241,1324234\n3858241,3398406\n3858241,3557384\n3858241,3634889\n3858242,3668705\r\n\n3858242,3707004\n"), uint64(6), byte(','))
	f.Add([]byte("A,B,C\n1,22,333\n4444,55555,666666\n7,\"8,8\",9\n10,11,12\n13,14,15\n16,17,18\n19,20,21\n22,23,24\n25,26,27\n"), uint64(7), byte(','))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, sep byte) {
		if validSep(sep) != nil {
			if NewReader(bytes.NewReader(data), "t").SetSep(sep) == nil {
				t.Fatalf("SetSep(%q) accepted", sep)
			}
			return
		}
		// The fast path against Next, with the AVX2 steps (where the CPU
		// has them) and with the word loop alone: both agree with the
		// general parser on every input.
		withBlockAsm(t, true)
		sameBatch(t, data, sep, testutil.Rand(seed))
		if blockAsm {
			blockAsm = false
			sameBatch(t, data, sep, testutil.Rand(seed))
		}
	})
}

// TestCountMarks: countMarks counts the marked bytes of every zeroBytes
// mask, as bits.OnesCount64 does.
func TestCountMarks(t *testing.T) {
	for set := range 256 {
		var w, m uint64 // w holds 0 in the bytes of set, m marks them
		for i := range 8 {
			if set>>i&1 == 1 {
				m |= 0x80 << (8 * i)
			} else {
				w |= uint64(1+i*31) << (8 * i)
			}
		}
		if zeroBytes(w) != m {
			t.Fatalf("zeroBytes(%#x) = %#x, want %#x", w, zeroBytes(w), m)
		}
		if got, want := countMarks(m), bits.OnesCount64(m); got != want {
			t.Fatalf("countMarks(%#x) = %d, want %d", m, got, want)
		}
	}
}

// intSV is a header and rows of cols fields of decimal integers of 1 to 8
// digits (the NBER shape, whose last column the scan parses), with, at
// rate odd, a field of 9 digits or a sign (which the scan leaves to Ints'
// callers), a CRLF line end or a blank line.
func intSV(rng *rand.Rand, rows, cols int, odd float64, sep byte) []byte {
	var b bytes.Buffer
	for c := range cols {
		if c > 0 {
			b.WriteByte(sep)
		}
		fmt.Fprintf(&b, "C%d", c)
	}
	b.WriteByte('\n')
	for range rows {
		for c := range cols {
			if c > 0 {
				b.WriteByte(sep)
			}
			switch {
			case rng.Float64() < odd:
				fmt.Fprintf(&b, "%d", 100000000+rng.IntN(900000000))
			case rng.Float64() < odd:
				fmt.Fprintf(&b, "-%d", rng.IntN(1000))
			default:
				fmt.Fprintf(&b, "%d", rng.IntN(1<<(1+rng.IntN(26))))
			}
		}
		switch {
		case rng.Float64() < odd:
			b.WriteString("\r\n")
		case rng.Float64() < odd:
			b.WriteString("\n\n")
		default:
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// TestBatchTwoColumnSteps: lastBlocks' two-column steps (a step whose
// separators and line breaks alternate, its records taken from the two
// masks in turn) read what Next reads on edge-list files whose lines
// are 2 to 70 bytes long (from 32 lines a step to one line over two),
// with CRLF ends, now and then a blank line, a line of three fields or
// an empty field, in batches of every size from 1 to 70 and of 256 (so
// a batch fills at every place in a step), whole and in small reads, and
// with a maxRecord that some lines pass.
func TestBatchTwoColumnSteps(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	withBlockAsm(t, true)
	defer func(old int) { maxRecord = old }(maxRecord)
	defer func(old bool) { useTwoCol = old }(useTwoCol)
	for i := range 40 {
		var b bytes.Buffer
		b.WriteString("A,B\n")
		width := []int{1, 3, 8, 64}[i%4]
		for range 200 + rng.IntN(800) {
			switch x := rng.IntN(400); {
			case x == 0 && i%3 == 0:
				b.WriteString("\n") // a blank line: the line loop's
			case x == 1 && i%3 == 1:
				b.WriteString("1,2,3\n") // three fields: the line loop stops there
			case x < 6:
				fmt.Fprintf(&b, ",%d\n", rng.IntN(100)) // an empty first field
			default:
				for range 1 + rng.IntN(width) {
					b.WriteByte(byte('0' + rng.IntN(10)))
				}
				fmt.Fprintf(&b, ",%d", rng.IntN(1000))
				if rng.IntN(3) == 0 {
					b.WriteString("\r")
				}
				b.WriteString("\n")
			}
		}
		data := b.Bytes()
		if i%4 == 3 && i%8 == 7 { // lines over maxRecord: the first line of a step is checked
			maxRecord = 64 + rng.IntN(6)
		} else {
			maxRecord = 1 << 20
		}
		for _, asm := range []bool{true, false} {
			useTwoCol = asm && hasTwoCol // the assembly's steps, then the line loop's
			for _, size := range []int{1 + i%70, 256} {
				for _, chunk := range []int{0, 100} {
					want, werr := viaNext(data, 1, false, false, 2, chunk, ',')
					got, gerr := viaBatchWith(data, 1, false, false, 2, chunk, ',', true, func() int { return size })
					if fmt.Sprint(werr) != fmt.Sprint(gerr) || !slices.Equal(got, want) {
						t.Fatalf("file %d, twoColSteps %v, batches of %d, chunk %d: NextBatch %v, %d records; Next %v, %d records; first difference %s",
							i, useTwoCol, size, chunk, gerr, len(got), werr, len(want), firstRecDiff(got, want))
					}
				}
			}
		}
	}
}

// TestTwoColStateLayout checks the offsets twocol_amd64.s reads
// twoColState's fields at.
func TestTwoColStateLayout(t *testing.T) {
	var s twoColState
	got := []uintptr{unsafe.Offsetof(s.seps), unsafe.Offsetof(s.nls), unsafe.Offsetof(s.sepsEnd), unsafe.Offsetof(s.buf),
		unsafe.Offsetof(s.pEnd), unsafe.Offsetof(s.p), unsafe.Offsetof(s.ls), unsafe.Offsetof(s.lastSep), unsafe.Offsetof(s.nf),
		unsafe.Offsetof(s.line), unsafe.Offsetof(s.lineMask), unsafe.Offsetof(s.rec), unsafe.Offsetof(s.recEnd), unsafe.Offsetof(s.maxRec), unsafe.Offsetof(s.sh)}
	for i, off := range got {
		if off != uintptr(8*i) {
			t.Fatalf("field %d at offset %d, want %d (twocol_amd64.s's #defines)", i, off, 8*i)
		}
	}
	var r batchRec
	if unsafe.Sizeof(r) != 24 || unsafe.Offsetof(r.re) != 4 || unsafe.Offsetof(r.fs) != 8 || unsafe.Offsetof(r.fe) != 12 || unsafe.Offsetof(r.line) != 16 {
		t.Fatal("batchRec's layout is not the one twocol_amd64.s and parse_amd64.s write and read")
	}
}
