package csvscan

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// fieldRec is what TestNextFieldMatchesNext compares of a record: testRec
// and every field.
type fieldRec struct {
	testRec
	fields string
}

// readFields reads data with Next (field < 0) or NextField(field),
// keeping of each record its raw line, field col, every field, offset and
// line; with NextField, mixed says to call Next for some records (chosen by
// rng) and to ask for Fields before Field for some.
func readFields(data []byte, col int, skip, asRange bool, nfields, chunk int, sep byte, useField bool, rng *rand.Rand) ([]fieldRec, error) {
	var out []fieldRec
	r := newTestReader(data, asRange, nfields, chunk, sep)
	if !asRange {
		if _, err := r.ReadHeader(); err != nil {
			return nil, err
		}
	}
	if skip {
		r.SkipBad(func(pe *ParseError) {
			out = append(out, fieldRec{testRec: testRec{off: pe.Offset, line: pe.Line, bad: pe.Msg}})
		})
	}
	for {
		var ok, viaField bool
		if useField && rng.IntN(8) != 0 {
			ok, viaField = r.NextField(col), true
		} else {
			ok = r.Next()
		}
		if !ok {
			break
		}
		var f []byte
		var all [][]byte
		if viaField && rng.IntN(2) == 0 {
			f, all = r.Field(), r.Fields()
		} else {
			all = r.Fields()
			f = all[col]
			if viaField {
				f = r.Field()
			}
		}
		q := make([]string, len(all))
		for i, a := range all {
			q[i] = fmt.Sprintf("%q", a)
		}
		out = append(out, fieldRec{
			testRec: testRec{raw: string(r.Raw()), field: string(f), off: r.Offset(), line: r.Line()},
			fields:  strings.Join(q, " "),
		})
	}
	return out, r.Err()
}

// sameField checks that NextField reads what Next reads, on the block
// scanner's masks (lineFieldMasks, where the CPU has AVX2) and on the
// word loop (lineField).
func sameField(t *testing.T, data []byte, sep byte, rng *rand.Rand) {
	t.Helper()
	defer func(old bool) { blockAsm = old }(blockAsm)
	for _, asm := range []bool{false, true} {
		blockAsm = asm && hasBlockAsm
		sameFieldOnce(t, data, sep, rng)
	}
}

// sameFieldOnce is sameField on the path blockAsm chooses.
func sameFieldOnce(t *testing.T, data []byte, sep byte, rng *rand.Rand) {
	t.Helper()
	defer func(old int) { maxRecord = old }(maxRecord)
	if rng.IntN(3) == 0 {
		maxRecord = 1 + rng.IntN(64)
	}
	nfields := 1 + rng.IntN(4)
	for _, asRange := range []bool{false, true} {
		for _, skip := range []bool{false, true} {
			col := rng.IntN(nfields)
			if !asRange {
				if h, err := newSepReader(bytes.NewReader(data), "t", sep).ReadHeader(); err == nil && len(h) > 0 {
					col = rng.IntN(len(h))
				}
			}
			chunk := []int{0, 1, 7, 64}[rng.IntN(4)]
			want, werr := readFields(data, col, skip, asRange, nfields, chunk, sep, false, rng)
			got, gerr := readFields(data, col, skip, asRange, nfields, chunk, sep, true, rng)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) || !slices.Equal(got, want) {
				t.Fatalf("sep %q, range %v, skip %v, col %d, chunk %d, maxRecord %d, block scanner %v:\nNextField: %v %+v\nNext:      %v %+v\ninput %q",
					sep, asRange, skip, col, chunk, maxRecord, blockAsm, gerr, got, werr, want, data)
			}
		}
	}
}

// nberPatents is n rows shaped as the NBER patents' (23 fields, two
// quoted text fields, empty ones), some with CRLF, a quoted comma or a
// blank line.
func nberPatents(rng *rand.Rand, n int) []byte {
	var b bytes.Buffer
	b.WriteString(`"PATENT","GYEAR","GDATE","APPYEAR","COUNTRY","POSTATE","ASSIGNEE","ASSCODE","CLAIMS","NCLASS","CAT","SUBCAT","CMADE","CRECEIVE","RATIOCIT","GENERAL","ORIGINAL","FWDAPLAG","BCKGTLAG","SELFCTUB","SELFCTLB","SECDUPBD","SECDLWBD"` + "\n")
	for range n {
		state := []string{`"TX"`, `""`, `"W,A"`, ``, `"CA"`}[rng.IntN(5)]
		fmt.Fprintf(&b, `%d,1963,1096,1960,"US",%s,152807,2,,733,5,53,,5,,0.48,,25.6,,,,0,%d`, 3070801+rng.IntN(1e7), state, rng.IntN(3))
		switch rng.IntN(20) {
		case 0:
			b.WriteString("\r\n")
		case 1:
			b.WriteString("\n\n")
		default:
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

// TestNextFieldMatchesNext: on NBER-shaped, random valid and random
// malformed CSV (quotes, separators and line breaks inside them, doubled
// quotes, CRLF and stray CRs, blank lines, wrong field counts, over-long
// records, no final line break), read as a stream with a header and as a
// range, whole or in small reads, with and without skipping bad rows,
// NextField (mixed with Next) gives what Next gives: the same records,
// field, fields, offsets, lines, skipped rows and error. The same with tabs.
func TestNextFieldMatchesNext(t *testing.T) {
	testutil.SkipUnderRace(t)
	for _, sep := range []byte{',', '\t'} {
		t.Run(fmt.Sprintf("sep=%q", sep), func(t *testing.T) {
			rng := testutil.Rand(testutil.Seed(t))
			inputs := [][]byte{
				[]byte("\"CITING\",\"CITED\"\n3858241,956203\n3858241,1324234\n\n3858242,3398406\r\n3858242,x\n"),
				[]byte("A,B\n1,2\n3\n4,5,6\n\"7\",8\n9,10"),
				[]byte("A\n\n\r\n1\n\r\n2"),
				[]byte("A,B,C\n,,\n1,,3\r\n,2,\n\"a\",\"b\"\r\r\n\"a\"\r\n"),
				[]byte("A,B\n\"1\n2\",3\n\"x\"\"y\",z\n\"q\"r,s\nt,u\"v\"\n\"\",\"\"\n"),
			}
			if sep != ',' {
				for i, in := range inputs {
					inputs[i] = bytes.ReplaceAll(in, []byte(","), []byte{sep})
				}
			}
			for range 5 {
				p := nberPatents(rng, 1+rng.IntN(40))
				if sep != ',' {
					p = bytes.ReplaceAll(p, []byte(","), []byte{sep})
				}
				inputs = append(inputs, p)
			}
			for i := range 300 {
				inputs = append(inputs, randomSV(rng, rng.IntN(60), 1+rng.IntN(4), []float64{0, 0.05, 0.5}[i%3], sep))
			}
			for range 100 { // rows of many fields, most longer than a step of the block scanner (64 bytes)
				inputs = append(inputs, randomSV(rng, rng.IntN(30), 10+rng.IntN(30), []float64{0, 0.05, 0.5}[rng.IntN(3)], sep))
			}
			for i := range 400 { // malformed: random bytes over a CSV alphabet
				alphabet := []byte("a1,\n\r\"\"\"x " + string(sep))
				if i%2 == 0 { // long lines: few line breaks
					alphabet = []byte("a1,,,\"\"\"xxxxxxxxx \n" + string(sep))
				}
				b := []byte("A" + string(sep) + "B\n")
				for range rng.IntN([]int{160, 1500}[i%2]) {
					b = append(b, alphabet[rng.IntN(len(alphabet))])
				}
				inputs = append(inputs, b)
			}
			for _, in := range inputs {
				sameField(t, in, sep, rng)
			}
		})
	}
}

// FuzzNextField: on any bytes and any valid separator, NextField reads
// what Next reads.
func FuzzNextField(f *testing.F) {
	f.Add([]byte("A,B\n1,2\n3,4\n"), uint64(1), byte(','))
	f.Add([]byte("\"CITING\",\"CITED\"\r\n1,2\r\n\r\n\"3\",4\n5,6"), uint64(2), byte(','))
	f.Add([]byte("A,B,C\n1,\"x,y\",3\n\"a\"\"b\",c,d\n\"\",,\"\"\r\n1,\"2\n3\",4\n"), uint64(3), byte(','))
	f.Add([]byte("A\tB\n1,5\t2\n\"x\ty\"\t\"\"\r\n\n3\t4"), uint64(4), byte('\t'))
	f.Add(nberPatents(testutil.Rand(5), 6), uint64(5), byte(','))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, sep byte) {
		if validSep(sep) != nil {
			return
		}
		sameField(t, data, sep, testutil.Rand(seed))
	})
}

// TestLineFieldMasks: the block path itself (lineFieldMasks, not its
// fallbacks) reads every simple record whose line ends a step before the
// buffered data's end, with the field and raw line Next would give: quoted
// fields of 0-150 bytes that hold separators and cross the 64-byte steps,
// CRLFs; and it leaves to Next a quote that opens inside a field or does
// not close at one's end, at every offset around the steps' edges. On the
// AVX2 masks and on the portable ones.
func TestLineFieldMasks(t *testing.T) {
	defer func(old bool) { blockAsm = old }(blockAsm)
	rng := testutil.Rand(testutil.Seed(t))
	for _, asm := range []bool{false, true} {
		blockAsm = asm && hasBlockAsm
		for range 200 {
			var b bytes.Buffer
			b.WriteString("A,B,C,D\n")
			col := rng.IntN(4)
			type row struct{ field, raw string }
			var rows []row
			for i := range 40 {
				long := make([]byte, rng.IntN(151))
				for j := range long {
					long[j] = "ab ,;\r"[rng.IntN(6)]
				}
				f := []string{fmt.Sprint(i), string(long), "", "US"}
				if rng.IntN(2) == 0 {
					f[2] = "x"
				}
				raw := fmt.Sprintf(`%s,"%s",%s,"%s"`, f[0], f[1], f[2], f[3])
				if rng.IntN(2) == 0 {
					raw = fmt.Sprintf(`%s,"%s","%s",%s`, f[0], f[1], f[2], f[3])
				}
				b.WriteString(raw + []string{"\n", "\r\n"}[rng.IntN(2)])
				rows = append(rows, row{f[col], raw})
			}
			data := b.Bytes()
			r := newTestReader(data, false, 0, 0, ',')
			if _, err := r.ReadHeader(); err != nil {
				t.Fatal(err)
			}
			for i, w := range rows {
				if r.start+len(w.raw)+2+64 > r.end {
					break // its line ends in the last step: lineField's
				}
				if v := r.lineFieldMasks(col); v != fieldRead {
					t.Fatalf("row %d %q: lineFieldMasks %d, want fieldRead", i, w.raw, v)
				}
				if string(r.Field()) != w.field || string(r.Raw()) != w.raw {
					t.Fatalf("row %d %q: field %q raw %q, want %q", i, w.raw, r.Field(), r.Raw(), w.field)
				}
			}
		}
		pad := strings.Repeat("1,2\n", 40)
		for k := 1; k < 140; k++ {
			x := strings.Repeat("x", k)
			for _, bad := range []string{x + `"q",z`, x + `,"q"z`, x + `,"q`, `"` + x + `"q,z`} {
				r := newTestReader([]byte("A,B\n"+bad+"\n"+pad), false, 0, 0, ',')
				if _, err := r.ReadHeader(); err != nil {
					t.Fatal(err)
				}
				if v := r.lineFieldMasks(1); v == fieldRead {
					t.Fatalf("%q: lineFieldMasks read it as field %q, want it left to Next", bad, r.Field())
				}
			}
			r := newTestReader([]byte("A,B\n"+x+`,"q"`+"\n"+pad), false, 0, 0, ',')
			if _, err := r.ReadHeader(); err != nil {
				t.Fatal(err)
			}
			if v := r.lineFieldMasks(1); v != fieldRead || string(r.Field()) != "q" {
				t.Fatalf("%q: lineFieldMasks %d, field %q, want q", x+`,"q"`, v, r.Field())
			}
		}
	}
}

// sameOthers reads data with NextField(col) (mixed with Next) and checks
// AppendOthers on every record: where it reports true, the bytes after
// what dst held are AppendFields of the record's fields but col; where
// false, dst is as it was. It returns how many records it took.
func sameOthers(t *testing.T, data []byte, col int, rng *rand.Rand) (took, all int) {
	t.Helper()
	r := newTestReader(data, false, 0, []int{0, 0, 7, 4096}[rng.IntN(4)], ',')
	if _, err := r.ReadHeader(); err != nil {
		return 0, 0
	}
	prefix := []byte("p|")
	for {
		var ok bool
		if rng.IntN(8) == 0 {
			ok = r.Next()
		} else {
			ok = r.NextField(col)
		}
		if !ok {
			return took, all
		}
		all++
		got, ok := r.AppendOthers(append([]byte(nil), prefix...))
		if !ok {
			if string(got) != string(prefix) {
				t.Fatalf("line %d: reported false and wrote %q", r.Line(), got[len(prefix):])
			}
			continue
		}
		took++
		fields := r.Fields()
		var others [][]byte
		for i, f := range fields {
			if i != col {
				others = append(others, f)
			}
		}
		if want := AppendFields(append([]byte(nil), prefix...), others); string(got) != string(want) {
			t.Fatalf("line %d %q, col %d:\nAppendOthers %q\nAppendFields %q", r.Line(), r.Raw(), col, got, want)
		}
	}
}

// TestAppendOthers: on NBER-shaped rows (quoted text, a quoted comma,
// quoted empty fields, CRLF) and random valid and malformed CSV, with
// every column asked for, AppendOthers writes AppendFields' bytes of the
// other fields or reports false; on the NBER rows, with the block
// scanner, it takes most records.
func TestAppendOthers(t *testing.T) {
	testutil.SkipUnderRace(t)
	defer func(old bool) { blockAsm = old }(blockAsm)
	rng := testutil.Rand(testutil.Seed(t))
	for _, asm := range []bool{true, false} {
		blockAsm = asm && hasBlockAsm
		took, all := 0, 0
		for range 20 {
			a, b := sameOthers(t, nberPatents(rng, 50+rng.IntN(100)), rng.IntN(23), rng)
			took, all = took+a, all+b
		}
		if blockAsm && took < all/2 {
			t.Fatalf("the block path took %d of %d NBER records", took, all)
		}
		for range 300 {
			sameOthers(t, randomSV(rng, rng.IntN(60), 1+rng.IntN(12), []float64{0, 0.05, 0.5}[rng.IntN(3)], ','), rng.IntN(12), rng)
		}
		for range 200 {
			alphabet := []byte("a1,,\"\"xxxxxxxx \r\n")
			b := []byte("A,B,C,D\n")
			for range rng.IntN(1500) {
				b = append(b, alphabet[rng.IntN(len(alphabet))])
			}
			sameOthers(t, b, rng.IntN(4), rng)
		}
	}
}

// FuzzAppendOthers: on any bytes, AppendOthers writes AppendFields' bytes
// of the other fields or reports false.
func FuzzAppendOthers(f *testing.F) {
	f.Add(nberPatents(testutil.Rand(1), 8), uint8(0), uint64(1))
	f.Add([]byte("A,B,C\n\"a,b\",\"\",c\r\n1,\"x\",\"y\"\n"), uint8(1), uint64(2))
	f.Fuzz(func(t *testing.T, data []byte, col uint8, seed uint64) {
		sameOthers(t, data, int(col%8), testutil.Rand(seed))
	})
}
