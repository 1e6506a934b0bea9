package csvscan

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func TestSepFor(t *testing.T) {
	for _, tc := range []struct {
		path string
		want byte
	}{
		{"title.ratings.tsv", '\t'},
		{"title.ratings.tsv.gz", '\t'},
		{"data/x.TSV.GZ", '\t'},
		{"x.Tab", '\t'},
		{"x.tab.zip", '\t'},
		{"x.tsv.ZIP", '\t'},
		{"cite75_99.txt", ','},
		{"cite75_99.csv.gz", ','},
		{"acite75_99.zip", ','},
		{"x.tsv.gz.gz", ','}, // one compression suffix only
		{"x.tsv.bak", ','},
		{"tsv", ','},
		{".tsv", '\t'},
		{"x.gz", ','},
		{"-", ','},
		{"", ','},
	} {
		if got := SepFor(tc.path); got != tc.want {
			t.Errorf("SepFor(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestBadSep: '"', '\n', '\r' and NUL are refused by SetSep, ParseRecordSep
// and OpenInput (before opening the file); every other byte is accepted;
// SetSep after reading began is refused.
func TestBadSep(t *testing.T) {
	for _, sep := range []byte{'"', '\n', '\r', 0} {
		want := fmt.Sprintf("csvscan: separator %q: ", sep)
		if err := NewReader(strings.NewReader("A\n"), "t").SetSep(sep); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("SetSep(%q) = %v, want %q...", sep, err, want)
		}
		if _, err := ParseRecordSep([]byte("a"), 1, sep); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ParseRecordSep(sep %q) = %v, want %q...", sep, err, want)
		}
		if sep == 0 {
			continue // InputOptions.Sep 0 is ','
		}
		// Refused before the file is looked at: a missing file gives the
		// separator's error, not ENOENT.
		missing := filepath.Join(t.TempDir(), "missing.tsv")
		if _, err := OpenInput(context.Background(), missing, InputOptions{Sep: sep}); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("OpenInput(Sep %q) = %v, want %q...", sep, err, want)
		}
		s := &stream{r: strings.NewReader("A\n1\n"), name: "f"}
		if _, err := openInput(context.Background(), "f", s, InputOptions{Sep: sep}); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("openInput(Sep %q) = %v, want %q...", sep, err, want)
		}
	}
	for c := 1; c < 256; c++ {
		sep := byte(c)
		if sep == '"' || sep == '\n' || sep == '\r' {
			continue
		}
		if err := NewReader(strings.NewReader("A\n"), "t").SetSep(sep); err != nil {
			t.Errorf("SetSep(%q): %v", sep, err)
		}
	}
	r := NewReader(strings.NewReader("A\tB\n1\t2\n"), "t")
	if err := r.SetSep('\t'); err != nil {
		t.Fatal(err)
	}
	if err := r.SetSep(';'); err != nil { // again, before reading: fine
		t.Fatal(err)
	}
	if err := r.SetSep('\t'); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadHeader(); err != nil {
		t.Fatal(err)
	}
	if err := r.SetSep(','); err == nil {
		t.Error("SetSep after ReadHeader accepted")
	}
	if !r.Next() || !slices.Equal(mustStrings(r.Fields()), []string{"1", "2"}) {
		t.Errorf("after a refused SetSep: %q, %v", r.Fields(), r.Err())
	}
	// A Part's Reader has its header's separator for good.
	in, err := openInput(context.Background(), "f", &stream{r: strings.NewReader("A\tB\n1\t2\n"), name: "f"}, InputOptions{Sep: '\t'})
	if err != nil {
		t.Fatal(err)
	}
	p, err := in.Next()
	if err != nil || p == nil {
		t.Fatal(p, err)
	}
	if err := p.SetSep(','); err == nil {
		t.Error("SetSep on a Part accepted")
	}
}

// TestTSV: tab-separated records with RFC 4180 quoting: a comma is data, a
// quoted field holds tabs, quotes and line breaks, and a quote inside an
// unquoted field is an error naming the line; read whole, a byte at a time
// and in halves, with Next and with NextBatch.
func TestTSV(t *testing.T) {
	tests := []struct {
		name, in string
		header   []string
		recs     [][]string
		err      string // substring of the error, "" for none
	}{
		{"imdb", "tconst\taverageRating\tnumVotes\ntt0000001\t5.7\t2100\ntt0000002\t5.5\t283\n",
			[]string{"tconst", "averageRating", "numVotes"}, [][]string{{"tt0000001", "5.7", "2100"}, {"tt0000002", "5.5", "283"}}, ""},
		{"comma is data", "A\tB\n1,2\t3\n,\t,,\n", []string{"A", "B"}, [][]string{{"1,2", "3"}, {",", ",,"}}, ""},
		{"comma is data, quoted", "A\tB\n\"1,2\"\t\"a, b\"\n", []string{"A", "B"}, [][]string{{"1,2", "a, b"}}, ""},
		{"quoted tab", "A\tB\n\"x\ty\"\t2\n", []string{"A", "B"}, [][]string{{"x\ty", "2"}}, ""},
		{"quoted quotes", "A\tB\n\"say \"\"hi\"\"\"\t\"\"\n", []string{"A", "B"}, [][]string{{`say "hi"`, ""}}, ""},
		{"quoted newline", "A\tB\n\"two\nlines\"\t2\n3\t4\n", []string{"A", "B"}, [][]string{{"two\nlines", "2"}, {"3", "4"}}, ""},
		{"crlf", "A\tB\r\n1\t2\r\n\"3\"\t4\r\n", []string{"A", "B"}, [][]string{{"1", "2"}, {"3", "4"}}, ""},
		{"empty fields", "A\tB\tC\n\t\t\n1\t\t\"\"\n", []string{"A", "B", "C"}, [][]string{{"", "", ""}, {"1", "", ""}}, ""},
		{"blank lines", "A\tB\n\n1\t2\n\r\n3\t4\n\n", []string{"A", "B"}, [][]string{{"1", "2"}, {"3", "4"}}, ""},
		{"spaces kept", "A\tB\n a \t b\n", []string{"A", "B"}, [][]string{{" a ", " b"}}, ""},
		{"quoted header, bom", "\xef\xbb\xbf\"A\"\t\"B\"\n1\t2", []string{"A", "B"}, [][]string{{"1", "2"}}, ""},
		{"bare quote", "A\tB\n1\t2\n1\tx\"y\n", nil, nil, "t.tsv:3: quote inside unquoted field 2"},
		{"bare quote, imdb title", "tconst\ttitle\ntt1\tThe \"Kid\"\n", nil, nil, "t.tsv:2: quote inside unquoted field 2"},
		{"text after quote", "A\tB\n\"a\"b\t1\n", nil, nil, "t.tsv:2: unexpected 'b' after the closing quote of field 1"},
		{"comma after quote", "A\tB\n\"a\",b\t1\n", nil, nil, "t.tsv:2: unexpected ',' after the closing quote of field 1"},
		{"unclosed quote", "A\tB\n1\t\"abc\n2\t3\n", nil, nil, "t.tsv:2: quoted field 2 is not closed"},
		{"too few fields", "A\tB\tC\n1\t2\t3\n1,2,3\n", nil, nil, "t.tsv:3: 1 fields, want 3"},
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
				header, recs, err := readAll(newSepReader(src, "t.tsv", '\t'))
				checkRawSep(t, tt.in, '\t')
				if tt.err != "" {
					if err == nil || !strings.Contains(err.Error(), tt.err) {
						t.Fatalf("error = %v, want %q", err, tt.err)
					}
					if !errors.Is(err, ErrSyntax) {
						t.Fatalf("error %v does not wrap ErrSyntax", err)
					}
				} else {
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(header, tt.header) || !slices.EqualFunc(recs, tt.recs, slices.Equal) {
						t.Fatalf("header %q, records %q; want %q, %q", header, recs, tt.header, tt.recs)
					}
				}
				// NextBatch reads the same, every column.
				chunk := map[string]int{"whole": 0, "onebyte": 1, "half": 3}[mode]
				cols := max(1, len(tt.header))
				for col := range cols {
					want, werr := viaNext([]byte(tt.in), col, false, false, cols, chunk, '\t')
					got, gerr := viaBatch([]byte(tt.in), col, false, false, cols, chunk, '\t', testutil.Rand(uint64(col)))
					if fmt.Sprint(werr) != fmt.Sprint(gerr) || !slices.Equal(got, want) {
						t.Fatalf("col %d: NextBatch %v %+v, Next %v %+v", col, gerr, got, werr, want)
					}
					if tt.err == "" && (werr != nil || len(want) != len(tt.recs)) {
						t.Fatalf("col %d: Next %v, %d records", col, werr, len(want))
					}
					for i, rec := range want {
						if tt.err == "" && rec.field != tt.recs[i][col] {
							t.Fatalf("col %d record %d: %q, want %q", col, i, rec.field, tt.recs[i][col])
						}
					}
				}
			})
		}
	}
}

func TestParseRecordSep(t *testing.T) {
	for _, tc := range []struct {
		line string
		sep  byte
		n    int
		want []string
		err  string
	}{
		{"tt0000001\t5.7\t2100", '\t', 3, []string{"tt0000001", "5.7", "2100"}, ""},
		{"\"a\tb\"\t\"c\"\"d\"\t1,2", '\t', 3, []string{"a\tb", `c"d`, "1,2"}, ""},
		{"1,2\t3", '\t', 2, []string{"1,2", "3"}, ""},
		{"1\t2", '\t', 3, nil, "record:1: 2 fields, want 3"},
		{"1\tx\"y", '\t', 2, nil, "record:1: quote inside unquoted field 2"},
		{"a;\"b;c\"", ';', 0, []string{"a", "b;c"}, ""},
		{"a,b", ',', 2, []string{"a", "b"}, ""},
		{"a\tb", '"', 2, nil, `csvscan: separator '"'`},
	} {
		got, err := ParseRecordSep([]byte(tc.line), tc.n, tc.sep)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseRecordSep(%q, %q) = %q, %v; want error %q", tc.line, tc.sep, mustStrings(got), err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(mustStrings(got), tc.want) {
			t.Errorf("ParseRecordSep(%q, %q) = %q, %v; want %q", tc.line, tc.sep, mustStrings(got), err, tc.want)
		}
	}
	// ParseRecord is ParseRecordSep with ','.
	a, _ := ParseRecord([]byte("\"x\ty\",1,2"), 3)
	b, _ := ParseRecordSep([]byte("\"x\ty\",1,2"), 3, ',')
	if !slices.Equal(mustStrings(a), mustStrings(b)) || len(a) != 3 {
		t.Errorf("ParseRecord %q, ParseRecordSep %q", a, b)
	}
}

// TestTSVMatchesEncodingCSV: random valid TSV (fields with tabs, commas,
// quotes, quoted line breaks and CRLF, empty fields, LF or CRLF line ends)
// read with Next, with NextBatch (every column) and through an Input cut
// into 1 to 8 parts (regular file) or small chunks (pipe), with and without
// skipping, gives what encoding/csv with Comma '\t' gives. With a small
// maxRecord the window rule of the split is exercised too.
func TestTSVMatchesEncodingCSV(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	// encoding/csv drops a CR before LF inside quotes.
	norm := func(f string) string { return strings.ReplaceAll(f, "\r\n", "\n") }
	for _, mr := range []int{1 << 20, 300} {
		t.Run(fmt.Sprintf("maxRecord=%d", mr), func(t *testing.T) {
			defer func(old int) { maxRecord = old }(maxRecord)
			maxRecord = mr
			for iter := range testutil.RaceSize(60, 6) { // under -race, 6 inputs (each density twice): each read by 2 goroutines in 1 to 8 parts
				cols := 1 + rng.IntN(4)
				data := randomSV(rng, rng.IntN(200), cols, []float64{0, 0.05, 0.5}[iter%3], '\t')
				cr := csv.NewReader(bytes.NewReader(data))
				cr.Comma = '\t'
				cr.FieldsPerRecord = cols
				all, err := cr.ReadAll()
				if err != nil {
					t.Fatalf("encoding/csv: %v\n%q", err, data)
				}
				want := all[1:]
				chunk := []int{0, 1, 7, 64}[rng.IntN(4)]
				// Next.
				header, recs, err := readAll(newSepReader(iotestReader(data, chunk), "t", '\t'))
				if err != nil || !slices.Equal(header, all[0]) {
					t.Fatalf("Next: header %q, %v; encoding/csv %q\n%q", header, err, all[0], data)
				}
				for _, rec := range recs {
					for i := range rec {
						rec[i] = norm(rec[i])
					}
				}
				if !slices.EqualFunc(recs, want, slices.Equal) {
					t.Fatalf("Next: %d records %q\nencoding/csv %d %q\ninput %q", len(recs), recs, len(want), want, data)
				}
				// NextBatch, every column.
				for col := range cols {
					got, err := viaBatch(data, col, false, false, cols, chunk, '\t', rng)
					if err != nil || len(got) != len(want) {
						t.Fatalf("NextBatch col %d: %d records, %v; encoding/csv %d\n%q", col, len(got), err, len(want), data)
					}
					for i, rec := range got {
						if norm(rec.field) != want[i][col] {
							t.Fatalf("NextBatch col %d record %d: %q, encoding/csv %q\n%q", col, i, rec.field, want[i][col], data)
						}
					}
				}
				// Input, several parts.
				for _, skip := range []bool{false, true} {
					for n := 1; n <= 8; n++ {
						for _, stream := range []bool{false, true} {
							opt := InputOptions{Parts: n, SkipBad: skip, ChunkSize: 1 + rng.IntN(200), Sep: '\t'}
							got, err := viaInput(t, data, opt, stream)
							if err != nil {
								t.Fatalf("parts %d, skip %v, stream %v: %v\n%q", n, skip, stream, err, data)
							}
							var fields [][]string
							for _, r := range got {
								f := slices.Clone(r.fields)
								for i := range f {
									f[i] = norm(f[i])
								}
								fields = append(fields, f)
							}
							if !slices.EqualFunc(fields, want, slices.Equal) {
								t.Fatalf("parts %d, skip %v, stream %v: %d records, encoding/csv %d\n%q", n, skip, stream, len(fields), len(want), data)
							}
						}
					}
				}
			}
		})
	}
}

// TestReaderMatchesEncodingCSVTSV: TestReaderMatchesEncodingCSV with tabs:
// random bytes over an alphabet with tabs, commas, quotes and line breaks,
// valid or not, read as encoding/csv with Comma '\t' reads them.
func TestReaderMatchesEncodingCSVTSV(t *testing.T) {
	testutil.SkipUnderRace(t)
	alphabet := []string{"a", "1", "\t", "\t", ",", "\"", "\n", " ", "é"}
	rng := testutil.Rand(testutil.Seed(t))
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(60) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		compareCSVSep(t, b.String(), '\t')
	}
}

// TestEverySep: for every valid separator byte, reading with it is reading
// with ',' after swapping the two bytes in the input (fields, raw records,
// lines and errors), Next and NextBatch agree, and for an ASCII separator
// encoding/csv agrees; on random input, valid or not, CR included.
func TestEverySep(t *testing.T) {
	testutil.SkipUnderRace(t)
	rng := testutil.Rand(testutil.Seed(t))
	for c := 1; c < 256; c++ {
		sep := byte(c)
		if validSep(sep) != nil || sep == ',' {
			continue
		}
		alphabet := []string{"a", "1", string(sep), string(sep), ",", "\"", "\n", "\r\n", " "}
		for i := range 40 {
			var b strings.Builder
			if i%2 == 0 {
				b.WriteString("A" + string(sep) + "B\n")
			}
			for range rng.IntN(50) {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			in := b.String()
			sameSwapped(t, in, sep)
			if i%4 == 0 {
				sameBatch(t, []byte(in), sep, rng)
			}
			if sep < utf8.RuneSelf && !strings.ContainsRune(in, '\r') {
				compareCSVSep(t, in, sep)
			}
		}
		for range 4 {
			sameBatch(t, randomSV(rng, rng.IntN(30), 1+rng.IntN(4), 0.3, sep), sep, rng)
		}
	}
}

// swapBytes returns s with the bytes a and b exchanged.
func swapBytes(s string, a, b byte) string {
	out := []byte(s)
	for i, c := range out {
		switch c {
		case a:
			out[i] = b
		case b:
			out[i] = a
		}
	}
	return string(out)
}

// sepRead is what a Reader read: the header and records, each raw record
// and its line, and the error.
type sepRead struct {
	recs  [][]string
	raws  []string
	lines []int64
	err   error
}

func readSep(in string, sep byte) sepRead {
	var res sepRead
	r := newSepReader(strings.NewReader(in), "f", sep)
	if _, res.err = r.ReadHeader(); res.err != nil {
		return res
	}
	for ok := true; ok; ok = r.Next() {
		res.recs = append(res.recs, mustStrings(r.Fields()))
		res.raws = append(res.raws, string(r.Raw()))
		res.lines = append(res.lines, r.Line())
	}
	res.err = r.Err()
	return res
}

// sameSwapped checks that the Reader with separator sep reads in as it
// reads, with ',', in with sep and ',' exchanged: the separator's byte
// plays no other part. The messages may differ only in the byte they quote
// ("unexpected %q after the closing quote").
func sameSwapped(t *testing.T, in string, sep byte) {
	t.Helper()
	if sep == ',' {
		return
	}
	sw := swapBytes(in, sep, ',')
	if strings.HasPrefix(in, bom) != strings.HasPrefix(sw, bom) {
		return // the swap made or unmade a byte order mark
	}
	if tableMagic([]byte(sw)) != "" || compressionMagic([]byte(sw)) != "" {
		return // the swap made a Parquet, Arrow or compressed file's first bytes, which ReadHeader refuses
	}
	got, want := readSep(in, sep), readSep(sw, ',')
	for i, rec := range want.recs {
		for j := range rec {
			rec[j] = swapBytes(rec[j], sep, ',')
		}
		want.raws[i] = swapBytes(want.raws[i], sep, ',')
	}
	same := slices.EqualFunc(got.recs, want.recs, slices.Equal) && slices.Equal(got.raws, want.raws) && slices.Equal(got.lines, want.lines)
	var gpe, wpe *ParseError
	switch {
	case got.err == nil || want.err == nil:
		same = same && got.err == nil && want.err == nil
	case !errors.As(got.err, &gpe) || !errors.As(want.err, &wpe):
		same = false
	default:
		same = same && gpe.Line == wpe.Line && gpe.Offset == wpe.Offset &&
			(gpe.Msg == wpe.Msg || strings.HasPrefix(gpe.Msg, "unexpected ") && strings.HasPrefix(wpe.Msg, "unexpected "))
	}
	if !same {
		t.Fatalf("sep %q on %q: %q %q %v %v\nwith ',' on %q: %q %q %v %v", sep, in, got.recs, got.raws, got.lines, got.err,
			sw, want.recs, want.raws, want.lines, want.err)
	}
}

// TestOpenInputTSV: a TSV file, plain and gzipped, opened with the separator
// SepFor gives, cut into parts: the header and records read as written.
func TestOpenInputTSV(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("tconst\taverageRating\tnumVotes\n")
	var want []string
	for i := range 3000 {
		title := fmt.Sprintf("tt%07d", i)
		if i%97 == 0 {
			title = fmt.Sprintf("\"tt%d,\t\"\"x\"\"\n\"", i) // quoted: a tab, a comma, quotes, a line break
			want = append(want, fmt.Sprintf("tt%d,\t\"x\"\n|%d.%d|%d", i, i%10, i%7, i*13))
		} else {
			want = append(want, fmt.Sprintf("%s|%d.%d|%d", title, i%10, i%7, i*13))
		}
		fmt.Fprintf(&b, "%s\t%d.%d\t%d\n", title, i%10, i%7, i*13)
	}
	plain := filepath.Join(dir, "title.ratings.tsv")
	testutil.WriteFile(t, plain, []byte(b.String()), 0o644)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(b.String()))
	zw.Close()
	gzPath := filepath.Join(dir, "title.ratings.tsv.gz")
	testutil.WriteFile(t, gzPath, gz.Bytes(), 0o644)
	for _, path := range []string{plain, gzPath} {
		in, err := OpenInput(context.Background(), path, InputOptions{Parts: 4, ChunkSize: 4096, Sep: SepFor(path)})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(in.Header, []string{"tconst", "averageRating", "numVotes"}) {
			t.Fatalf("%s: header %q", path, in.Header)
		}
		type rec struct {
			off int64
			s   string
		}
		var got []rec
		parts := 0
		for {
			p, err := in.Next()
			if err != nil {
				t.Fatal(err)
			}
			if p == nil {
				break
			}
			parts++
			for p.Next() {
				got = append(got, rec{p.Offset(), strings.Join(mustStrings(p.Fields()), "|")})
			}
			if p.Err() != nil {
				t.Fatal(p.Err())
			}
			p.Release()
		}
		in.Close()
		slices.SortFunc(got, func(a, b rec) int { return int(a.off - b.off) })
		var gs []string
		for _, r := range got {
			gs = append(gs, r.s)
		}
		if parts < 2 || !slices.Equal(gs, want) {
			t.Fatalf("%s: %d parts; %s", path, parts, testutil.FirstDiff(gs, want))
		}
	}
}
