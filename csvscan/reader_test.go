package csvscan

import (
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// readAll reads a header and all records; records are copied.
func readAll(r *Reader) (header []string, recs [][]string, err error) {
	header, err = r.ReadHeader()
	if err != nil {
		return nil, nil, err
	}
	for r.Next() {
		rec := make([]string, len(r.Fields()))
		for i, f := range r.Fields() {
			rec[i] = string(f)
		}
		recs = append(recs, rec)
	}
	return header, recs, r.Err()
}

func TestReader(t *testing.T) {
	tests := []struct {
		name, in string
		header   []string
		recs     [][]string
		err      string // substring of the error, "" for none
	}{
		{"plain", "A,B\n1,2\n3,4\n", []string{"A", "B"}, [][]string{{"1", "2"}, {"3", "4"}}, ""},
		{"crlf", "A,B\r\n1,2\r\n3,4\r\n", []string{"A", "B"}, [][]string{{"1", "2"}, {"3", "4"}}, ""},
		{"no final newline", "A,B\n1,2\n3,4", []string{"A", "B"}, [][]string{{"1", "2"}, {"3", "4"}}, ""},
		{"quoted header", "\"CITING\",\"CITED\"\n5497295,4943137\n", []string{"CITING", "CITED"}, [][]string{{"5497295", "4943137"}}, ""},
		{"empty fields", "A,B,C\n,,\n1,,\"\"\n", []string{"A", "B", "C"}, [][]string{{"", "", ""}, {"1", "", ""}}, ""},
		{"quotes", "A,B\n\"x,y\",\"say \"\"hi\"\"\"\n", []string{"A", "B"}, [][]string{{"x,y", `say "hi"`}}, ""},
		{"quoted newline", "A,B\n\"two\nlines\",2\n3,4\n", []string{"A", "B"}, [][]string{{"two\nlines", "2"}, {"3", "4"}}, ""},
		{"quoted crlf record", "A,B\r\n\"JP\",\"\"\r\n", []string{"A", "B"}, [][]string{{"JP", ""}}, ""},
		{"blank lines", "A,B\n\n1,2\n\r\n3,4\n\n", []string{"A", "B"}, [][]string{{"1", "2"}, {"3", "4"}}, ""},
		{"header only", "\"CITING\",\"CITED\"\n", []string{"CITING", "CITED"}, nil, ""},
		{"empty file", "", nil, nil, "t.csv:1: empty file: no header"},
		{"too few fields", "A,B,C\n1,2,3\n4,5\n", nil, nil, "t.csv:3: 2 fields, want 3"},
		{"too many fields", "A,B\n1,2\n\"4\",5,6\n", nil, nil, "t.csv:3: 3 fields, want 2"},
		{"bare quote", "A,B\n1,x\"y\n", nil, nil, "t.csv:2: quote inside unquoted field 2"},
		{"unclosed quote", "A,B\n1,\"abc\n", nil, nil, "t.csv:2: quoted field 2 is not closed"},
		{"text after quote", "A,B\n\"a\"b,1\n", nil, nil, "t.csv:2: unexpected 'b' after the closing quote of field 1"},
		{"line after quoted newline", "A,B\n\"a\nb\",1\n1\n", nil, nil, "t.csv:4: 1 fields, want 2"},
		// Lines ended by CR alone read as one header line and no rows: an
		// empty join with exit 0, until the header check refused them.
		{"CR line ends", "A,B\r1,2\r3,4\r", nil, nil, "t.csv:1: the header holds a carriage return"},
		{"CR line ends, quoted header", "\"A\",\"B\"\r1,2\r", nil, nil, `t.csv:1: unexpected '\r' after the closing quote of field 2`},
		{"header only, CR end", "A,B\r", []string{"A", "B"}, nil, ""},
		// A CR before a line's own CR LF is the last field's, quoted row
		// or not (a review found the quoted row's Raw without it).
		{"CR CR LF", "A,B\n1,b\r\r\n\"2\",c\r\r\n\"3\",\"d\"\n", []string{"A", "B"}, [][]string{{"1", "b\r"}, {"2", "c\r"}, {"3", "d"}}, ""},
	}
	for _, tt := range tests {
		for _, mode := range []string{"whole", "onebyte", "half"} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				var src io.Reader = strings.NewReader(tt.in)
				switch mode {
				case "onebyte":
					src = iotest.OneByteReader(src)
				case "half":
					src = iotest.HalfReader(src)
				}
				header, recs, err := readAll(NewReader(src, "t.csv"))
				checkRaw(t, tt.in)
				if tt.err != "" {
					if err == nil || !strings.Contains(err.Error(), tt.err) {
						t.Fatalf("error = %v, want %q", err, tt.err)
					}
					if !errors.Is(err, ErrSyntax) {
						t.Fatalf("error %v does not wrap ErrSyntax", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(header, tt.header) {
					t.Fatalf("header = %q, want %q", header, tt.header)
				}
				if len(recs) != len(tt.recs) {
					t.Fatalf("records = %q, want %q", recs, tt.recs)
				}
				for i := range recs {
					if !slices.Equal(recs[i], tt.recs[i]) {
						t.Fatalf("record %d = %q, want %q", i, recs[i], tt.recs[i])
					}
				}
			})
		}
	}
}

// checkRaw: re-parsing each record's Raw bytes, with a line end of their
// own after them (Raw has none: a CR it ends with is the last field's),
// gives the same fields.
func checkRaw(t *testing.T, in string) { checkRawSep(t, in, ',') }

// checkRawSep is checkRaw for fields separated by sep.
func checkRawSep(t *testing.T, in string, sep byte) {
	t.Helper()
	r := newSepReader(strings.NewReader(in), "t", sep)
	for r.Next() {
		want := mustStrings(r.Fields())
		sub := newSepReader(bytes.NewReader(append(slices.Clone(r.Raw()), '\r', '\n')), "raw", sep)
		if !sub.Next() || !slices.Equal(mustStrings(sub.Fields()), want) {
			t.Fatalf("Raw %q does not re-parse to %q", r.Raw(), want)
		}
	}
}

func TestSkipBad(t *testing.T) {
	testutil.SkipUnderRace(t)
	in := "A,B\n1,2\n3\n4,5\n\"x,6\n7,8,9\n10,11\n" + strings.Repeat("z", maxRecord+5) + "\n12,13"
	for _, mode := range []string{"whole", "onebyte"} {
		var src io.Reader = strings.NewReader(in)
		if mode == "onebyte" {
			src = iotest.OneByteReader(src)
		}
		r := NewReader(src, "t")
		var bad []string
		r.SkipBad(func(e *ParseError) { bad = append(bad, e.Error()) })
		_, recs, err := readAll(r)
		if err != nil {
			t.Fatal(err)
		}
		want := [][]string{{"1", "2"}, {"4", "5"}, {"10", "11"}, {"12", "13"}}
		if !slices.EqualFunc(recs, want, slices.Equal) {
			t.Fatalf("%s: records %q, want %q", mode, recs, want)
		}
		if len(bad) != 4 || !strings.HasPrefix(bad[0], "t:3: 1 fields") || !strings.HasPrefix(bad[2], "t:6: 3 fields") {
			t.Fatalf("%s: bad rows %q", mode, bad)
		}
	}
}

func TestParseRecord(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
		ok   bool
	}{
		{`4101646,1978,"JP",""`, []string{"4101646", "1978", "JP", ""}, true},
		{`"a,b","c""d"`, []string{"a,b", `c"d`}, true},
		{`1,2,3`, nil, false}, // nfields 4
		{`1,"2`, nil, false},
	} {
		got, err := ParseRecord([]byte(tc.line), len(tc.want))
		if tc.want == nil {
			got, err = ParseRecord([]byte(tc.line), 4)
		}
		if (err == nil) != tc.ok || (tc.ok && !slices.Equal(mustStrings(got), tc.want)) {
			t.Errorf("ParseRecord(%q) = %q, %v", tc.line, mustStrings(got), err)
		}
	}
}

func TestReaderLongRecords(t *testing.T) {
	long := strings.Repeat("x", 9*maxRecord/10) // spans several fills
	in := "A,B\n" + long + ",1\n\"" + long + "\",2\n"
	_, recs, err := readAll(NewReader(strings.NewReader(in), "t"))
	if err != nil || len(recs) != 2 || recs[0][0] != long || recs[1][0] != long {
		t.Fatalf("long records: %d records, %v", len(recs), err)
	}
	huge := "A\n" + strings.Repeat("y", maxRecord+10) + "\n"
	_, _, err = readAll(NewReader(strings.NewReader(huge), "t"))
	if err == nil || !strings.Contains(err.Error(), "t:2: record longer than") {
		t.Fatalf("over-long record: %v", err)
	}
}

// TestReaderWideRecords: a record may have MaxFields fields (it was 1024,
// which refused real wide files), quoted or not; more is refused naming
// the limit and what reads a wider table.
func TestReaderWideRecords(t *testing.T) {
	testutil.SkipUnderRace(t)
	line := func(n int, quoted bool) string {
		f := make([]string, n)
		for i := range f {
			f[i] = "c" + strconv.Itoa(i)
			if quoted && i%2 == 0 {
				f[i] = `"` + f[i] + `"`
			}
		}
		return strings.Join(f, ",") + "\n"
	}
	for _, n := range []int{1100, MaxFields} {
		for _, quoted := range []bool{false, true} {
			h, recs, err := readAll(NewReader(strings.NewReader(line(n, false)+line(n, quoted)+line(n, false)), "t"))
			if err != nil || len(h) != n || len(recs) != 2 || len(recs[0]) != n || recs[0][n-1] != "c"+strconv.Itoa(n-1) {
				t.Fatalf("%d fields (quoted %v): %d records, %v", n, quoted, len(recs), err)
			}
		}
	}
	_, _, err := readAll(NewReader(strings.NewReader(line(MaxFields+1, false)), "t"))
	if err == nil || !strings.Contains(err.Error(), "t:1: more than 65536 fields, the most a CSV record may have (a wider table can be read as Parquet or Arrow)") {
		t.Fatalf("%d fields: %v", MaxFields+1, err)
	}
}

// TestReaderMatchesEncodingCSV: on random CSV without carriage returns, the
// Reader and encoding/csv agree record for record.
func TestReaderMatchesEncodingCSV(t *testing.T) {
	testutil.SkipUnderRace(t)
	alphabet := []string{"a", "1", ",", "\"", "\n", " ", "é"}
	seed := uint64(20261122)
	rng := newPCG(seed)
	t.Logf("seed %d", seed)
	for trial := 0; trial < 3000; trial++ {
		var b strings.Builder
		for i := 0; i < 1+int(rng()%60); i++ {
			b.WriteString(alphabet[rng()%uint64(len(alphabet))])
		}
		compareCSV(t, b.String())
	}
}

func newPCG(seed uint64) func() uint64 {
	s := seed
	return func() uint64 { // splitmix64
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
}

func compareCSV(t *testing.T, in string) { compareCSVSep(t, in, ',') }

// compareCSVSep is compareCSV with fields separated by sep, an ASCII byte,
// for both readers (encoding/csv's Comma).
func compareCSVSep(t *testing.T, in string, sep byte) {
	t.Helper()
	cr := csv.NewReader(strings.NewReader(in))
	cr.Comma = rune(sep)
	want, werr := cr.ReadAll()
	r := newSepReader(strings.NewReader(in), "f", sep)
	var got [][]string
	if _, err := r.ReadHeader(); err == nil {
		got = append(got, slices.Clone(mustStrings(r.Fields())))
		for r.Next() {
			got = append(got, mustStrings(r.Fields()))
		}
	}
	gerr := r.Err()
	if len(want) == 0 && werr == nil {
		return // empty input: we report "no header", csv returns nothing
	}
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("sep %q, input %q: encoding/csv err %v, ours %v", sep, in, werr, gerr)
	}
	if werr == nil && !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("sep %q, input %q: records %q, encoding/csv %q", sep, in, got, want)
	}
}

func mustStrings(fs [][]byte) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f)
	}
	return out
}

// FuzzReader: never panics; with any valid separator it reads what it reads
// with ',' on the input with that separator and ',' swapped; on input
// without carriage returns and an ASCII separator it agrees with
// encoding/csv. An invalid separator is refused.
func FuzzReader(f *testing.F) {
	for _, s := range []string{"A,B\n1,2\n", "\"a\"\"b\",c\n", "\"x\ny\",1\n2,3", "a,\"b\nc"} {
		f.Add(s, byte(','))
		f.Add(strings.ReplaceAll(s, ",", "\t"), byte('\t'))
	}
	f.Add("A\tB\n1,2\t\"x\ty\"\n", byte('\t'))
	f.Fuzz(func(t *testing.T, in string, sep byte) {
		if validSep(sep) != nil {
			if NewReader(strings.NewReader(in), "f").SetSep(sep) == nil {
				t.Fatalf("SetSep(%q) accepted", sep)
			}
			if _, err := ParseRecordSep([]byte(in), 0, sep); err == nil {
				t.Fatalf("ParseRecordSep with separator %q accepted", sep)
			}
			return
		}
		if tableMagic([]byte(in)) != "" || compressionMagic([]byte(in)) != "" {
			// A Parquet or Arrow file's first bytes, or compressed data's:
			// refused, where encoding/csv would read them as text.
			if _, err := NewReader(strings.NewReader(in), "f").ReadHeader(); err == nil {
				t.Fatalf("%q read as CSV", in)
			}
			return
		}
		sameSwapped(t, in, sep)
		if strings.ContainsRune(in, '\r') || sep >= utf8.RuneSelf {
			return
		}
		compareCSVSep(t, in, sep)
	})
}

// TestCompressedRefused: data compressed by bzip2, xz, zstd or lz4 (which
// the reader does not undo) is refused naming the compression, not read as
// text whose header holds a carriage return (a review found that message).
func TestCompressedRefused(t *testing.T) {
	for name, head := range map[string]string{
		"bzip2": "BZh91AY&SY\x00\x01", "xz": "\xfd7zXZ\x00\x00\x04", "zstd": "\x28\xb5\x2f\xfd\x24\x0a", "lz4": "\x04\x22\x4d\x18\x64\x40",
	} {
		_, err := NewReader(strings.NewReader(head+"id,v\n1,a\n"), "f").ReadHeader()
		if err == nil || !strings.Contains(err.Error(), "f:1: this is no CSV: it begins as "+name+"-compressed data does") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Text that starts like one but is not: read.
	for _, text := range []string{"BZh9,x\n1,2\n", "BZh,x\n1,2\n"} {
		if h, err := NewReader(strings.NewReader(text), "f").ReadHeader(); err != nil || len(h) != 2 {
			t.Errorf("%q: %q, %v", text, h, err)
		}
	}
}

func TestOpenCompressed(t *testing.T) {
	dir := t.TempDir()
	content := "\"CITING\",\"CITED\"\r\n3858241,956203\r\n3858241,1324234\r\n"
	txt := filepath.Join(dir, "cite75_99.txt")
	testutil.WriteFile(t, txt, []byte(content), 0o644)
	gz := filepath.Join(dir, "cite75_99.txt.gz")
	var gb bytes.Buffer
	zw := gzip.NewWriter(&gb)
	zw.Write([]byte(content))
	zw.Close()
	testutil.WriteFile(t, gz, gb.Bytes(), 0o644)
	zp := filepath.Join(dir, "acite75_99.zip")
	var zb bytes.Buffer
	zwr := zip.NewWriter(&zb)
	w, _ := zwr.Create("cite75_99.txt")
	w.Write([]byte(content))
	zwr.Close()
	testutil.WriteFile(t, zp, zb.Bytes(), 0o644)
	for _, path := range []string{txt, gz, zp} {
		rc, name, err := Open(path)
		if err != nil {
			t.Fatalf("Open(%s): %v", path, err)
		}
		r := NewReader(rc, name)
		if h, err := r.ReadHeader(); err != nil || !slices.Equal(h, []string{"CITING", "CITED"}) {
			t.Fatal(h, err)
		}
		n := 0
		for r.Next() {
			n++
		}
		rc.Close()
		if r.Err() != nil || n != 2 {
			t.Fatalf("%s: %d records, %v", name, n, r.Err())
		}
	}
	// A zip with two data files is refused; a file that is not a zip too.
	var zb2 bytes.Buffer
	zwr = zip.NewWriter(&zb2)
	zwr.Create("a.txt")
	zwr.Create("b.txt")
	zwr.Close()
	bad := filepath.Join(dir, "two.zip")
	testutil.WriteFile(t, bad, zb2.Bytes(), 0o644)
	if _, _, err := Open(bad); err == nil || !strings.Contains(err.Error(), "holds 2 files") {
		t.Fatalf("two-file zip: %v", err)
	}
	if _, _, err := Open(txt + ".zip"); err == nil {
		t.Fatal("missing zip opened")
	}
	testutil.WriteFile(t, filepath.Join(dir, "fake.gz"), []byte("\x1f\x8bnot gzip"), 0o644)
	if _, _, err := Open(filepath.Join(dir, "fake.gz")); err == nil || !strings.Contains(err.Error(), "not a gzip file") {
		t.Fatalf("fake gz: %v", err)
	}
}

func FuzzParseInt(f *testing.F) {
	f.Add("3858241", "")
	f.Add("12a", "999")
	f.Fuzz(func(t *testing.T, field, after string) {
		buf := []byte(field + after)
		got, err := ParseInt(buf[:len(field)])
		want, werr := parseIntSlow([]byte(field))
		if got != want || (err == nil) != (werr == nil) {
			t.Fatalf("ParseInt(%q) = %d, %v; slow path %d, %v", field, got, err, want, werr)
		}
	})
}

func TestParseInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{{"0", 0, true}, {"6009554", 6009554, true}, {"-12", -12, true}, {"+7", 7, true},
		{"", 0, false}, {"-", 0, false}, {"1x", 0, false}, {"1.5", 0, false},
		{"9223372036854775807", 9223372036854775807, true}, {"9223372036854775808", 0, false}} {
		got, err := ParseInt([]byte(tc.in))
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	// The 8-byte path against the slow path, on every length and with junk
	// after the field in the same buffer.
	for v := int64(0); v < 100_000_000; v = v*7 + 1 {
		s := strconv.FormatInt(v, 10)
		buf := []byte(s + ",9x\n\x00\x00\x00\x00\x00\x00\x00")
		got, err := ParseInt(buf[:len(s)])
		if err != nil || got != v {
			t.Fatalf("ParseInt(%q in %q) = %d, %v", s, buf, got, err)
		}
	}
	for _, bad := range []string{"12a4", "/", ":", "1 3", "0000000/", "-1", "+5"} {
		buf := []byte(bad + "12345678")
		got, err := ParseInt(buf[:len(bad)])
		slow, serr := parseIntSlow([]byte(bad))
		if got != slow || (err == nil) != (serr == nil) {
			t.Errorf("ParseInt(%q) = %d, %v; slow path %d, %v", bad, got, err, slow, serr)
		}
	}
	b := []byte("3858241")
	if a := testing.AllocsPerRun(100, func() { ParseInt(b) }); a != 0 {
		t.Errorf("ParseInt allocates %.0f times", a)
	}
}

// TestZipOfTable: a zip whose file is Parquet or Arrow, by its name or
// its first bytes, is refused naming the format (as a .parquet.gz is),
// by Open and OpenInput alike, not read as CSV.
func TestZipOfTable(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ member, data, format string }{
		{"x.parquet", "PAR1\x15\x04 and the rest", "Parquet"},
		{"data", "PAR1\x15\x04 and the rest", "Parquet"},
		{"x.feather", "K\n1\n", "Arrow IPC"},
		{"data.bin", "ARROW1\x00\x00 and the rest", "Arrow IPC"},
	} {
		var zb bytes.Buffer
		zw := zip.NewWriter(&zb)
		w, _ := zw.Create(c.member)
		w.Write([]byte(c.data))
		zw.Close()
		zp := filepath.Join(dir, "t.zip")
		testutil.WriteFile(t, zp, zb.Bytes(), 0o644)
		want := fmt.Sprintf("t.zip: a compressed %s file (%s in the zip archive): %s compresses inside", c.format, c.member, c.format)
		if _, _, err := Open(zp); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open, %s: %v", c.member, err)
		}
		if _, err := OpenInput(context.Background(), zp, InputOptions{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("OpenInput, %s: %v", c.member, err)
		}
	}
}

// TestAppendNamesBOM: a header whose first name begins with U+FEFF is
// written so that the reader reads that name back whole, not as a byte
// order mark it drops (a review found such a column renamed).
func TestAppendNamesBOM(t *testing.T) {
	for _, names := range [][]string{{bom + "name", "B"}, {bom + `a"b`, "C"}, {bom}, {"x", bom + "y"}} {
		line := append(AppendNames(nil, names), '\n')
		got, err := NewReader(bytes.NewReader(append(line, "1,2\n"[:len(names)*2]...)), "t").ReadHeader()
		if err != nil || !slices.Equal(got, names) {
			t.Errorf("%q written as %q reads back as %q, %v", names, line, got, err)
		}
	}
}
