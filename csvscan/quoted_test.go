package csvscan

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// allRec is what TestSplitQuotedMatchesParse compares of a record: every
// field, Raw, the offset and the line; or a skipped row's message.
type allRec struct {
	fields    string // %q of the fields
	raw       string
	off, line int64
	bad       string
}

// readEvery reads data with Next (a range reader of nfields fields with
// asRange, else a stream with a header), chunk bytes a read (0: all at
// once), skipping bad rows into the records with skip.
func readEvery(data []byte, skip, asRange bool, nfields, chunk int, sep byte) ([]allRec, error) {
	var out []allRec
	r := newTestReader(data, asRange, nfields, chunk, sep)
	if !asRange {
		h, err := r.ReadHeader()
		if err != nil {
			return nil, err
		}
		out = append(out, allRec{fields: fmt.Sprintf("%q", h), raw: string(r.Raw())})
	}
	if skip {
		r.SkipBad(func(pe *ParseError) { out = append(out, allRec{off: pe.Offset, line: pe.Line, bad: pe.Msg}) })
	}
	for r.Next() {
		out = append(out, allRec{fields: fmt.Sprintf("%q", r.Fields()), raw: string(r.Raw()), off: r.Offset(), line: r.Line()})
	}
	return out, r.Err()
}

// sameQuoted checks that Next reads data with splitQuoted as it does with
// parseQuoted alone: the same records, fields, Raw, offsets, lines,
// skipped rows and error.
func sameQuoted(t *testing.T, data []byte, sep byte, rng *rand.Rand) {
	t.Helper()
	defer func(old int) { maxRecord = old }(maxRecord)
	if rng.IntN(4) == 0 {
		maxRecord = 1 + rng.IntN(64)
	}
	defer func() { simpleQuotes = true }()
	nfields := 1 + rng.IntN(4)
	for _, asRange := range []bool{false, true} {
		for _, skip := range []bool{false, true} {
			chunk := []int{0, 1, 7, 64}[rng.IntN(4)]
			simpleQuotes = false
			want, werr := readEvery(data, skip, asRange, nfields, chunk, sep)
			simpleQuotes = true
			got, gerr := readEvery(data, skip, asRange, nfields, chunk, sep)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) || !slices.Equal(got, want) {
				t.Fatalf("sep %q, range %v, skip %v, chunk %d, maxRecord %d:\nsplitQuoted: %v %+v\nparseQuoted: %v %+v\ninput %q",
					sep, asRange, skip, chunk, maxRecord, gerr, got, werr, want, data)
			}
		}
	}
}

// TestSplitQuotedMatchesParse: on NBER patent rows (quoted text fields,
// empty ones, quoted empty ones), random valid CSV with quoted fields
// (doubled quotes, separators and line breaks inside quotes, CRLF, no
// final line break) and random malformed bytes over a quote-heavy
// alphabet, read as a stream and as a range, whole and in small reads,
// with and without skipping bad rows, the quoted fast path reads what the
// general parser reads. With tabs too.
func TestSplitQuotedMatchesParse(t *testing.T) {
	testutil.SkipUnderRace(t)
	for _, sep := range []byte{',', '\t'} {
		t.Run(fmt.Sprintf("sep=%q", sep), func(t *testing.T) {
			rng := testutil.Rand(testutil.Seed(t))
			inputs := [][]byte{
				[]byte("\"PATENT\",\"GYEAR\",\"COUNTRY\",\"POSTATE\",\"ASSIGNEE\"\n3070801,1963,\"BE\",\"\",\n3070802,1963,\"US\",\"TX\",152807\r\n3070803,1963,\"US\",\"IL\",\"\"\n"),
				[]byte("A,B\n\"a,b\",\"c\"\n\"x\"\"y\",z\n\"\",\"\"\n\"q\"r,s\nt,u\"v\"\n\"w\" ,x\n\"line\nbreak\",y\n\"end\",\"cr\"\r\r\n\"a\r\",b\r\n\"last\",\"no break\""),
				[]byte("A\n\"\"\n\"a\"\n\"\r\"\n\"\"\"\"\n\"a\"\"\n\"\n"),
				[]byte("A,B,C\n\"1\",2,\"3\"\r\n,\"\",\n\"x\",,\"y\"\n\"a\"\r"),
			}
			if sep != ',' {
				for i, in := range inputs {
					inputs[i] = bytes.ReplaceAll(in, []byte(","), []byte{sep})
				}
				inputs = append(inputs, []byte("A\tB\n\"1,5\"\t2\n\"a\tb\",c\td\n\",\"\t\",\"\n"))
			}
			for i := range 300 {
				inputs = append(inputs, randomSV(rng, rng.IntN(30), 1+rng.IntN(5), []float64{0.05, 0.3, 0.8}[i%3], sep))
			}
			for range 300 { // malformed: random bytes over a quote-heavy alphabet
				alphabet := []byte("a1,\n\r\"\"\"x " + string(sep) + string(sep))
				b := []byte("A" + string(sep) + "B\n")
				for range rng.IntN(120) {
					b = append(b, alphabet[rng.IntN(len(alphabet))])
				}
				inputs = append(inputs, b)
			}
			for _, in := range inputs {
				sameQuoted(t, in, sep, rng)
			}
		})
	}
}

// FuzzSplitQuoted: on any bytes and any valid separator, Next reads with
// the quoted fast path what it reads without it.
func FuzzSplitQuoted(f *testing.F) {
	f.Add([]byte("\"PATENT\",\"COUNTRY\"\n3070801,\"BE\"\n3070802,\"\"\r\n"), uint64(1), byte(','))
	f.Add([]byte("A,B\n\"a\"\"b\",\"c,d\"\n\"e\nf\",g\n\"h\"i,j"), uint64(2), byte(','))
	f.Add([]byte("A\tB\n\"x\ty\"\t\"\"\r\n\"z\"\t\"w\"\r\r\n"), uint64(3), byte('\t'))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, sep byte) {
		if validSep(sep) != nil {
			return
		}
		sameQuoted(t, data, sep, testutil.Rand(seed))
	})
}

// patentLike returns an apat63_99-shaped file of about size bytes: 23
// fields, two of them quoted text ("US","TX"), some empty, some quoted
// empty, as the NBER patents file and its samples (the key side of issue
// 45's joins) are.
func patentLike(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 256)
	b.WriteString(`"PATENT","GYEAR","GDATE","APPYEAR","COUNTRY","POSTATE","ASSIGNEE","ASSCODE","CLAIMS","NCLASS","CAT","SUBCAT","CMADE","CRECEIVE","RATIOCIT","GENERAL","ORIGINAL","FWDAPLAG","BCKGTLAG","SELFCTUB","SELFCTLB","SECDUPBD","SECDLWBD"` + "\n")
	countries := []string{`"US","TX"`, `"BE",""`, `"US","WA"`, `"JP",""`, `"US","IL"`}
	for p := 3070801; b.Len() < size; p++ {
		fmt.Fprintf(&b, "%d,1963,1096,%d,%s,%d,2,,%d,%d,%d,,%d,,0.48,,25.6,,,,0,0\n",
			p, 1960+p%3, countries[p%len(countries)], 152807+p%1000, 300+p%400, p%6+1, 50+p%20, p%7)
	}
	return b.Bytes()
}

// BenchmarkReadPatents reads a 32 MiB apat63_99-shaped file (every row
// has quoted fields) with Next on one goroutine: split, every field; the
// general parser alone (quoted=parse), and the same rows without their
// quotes (fastLine's), for comparison.
func BenchmarkReadPatents(b *testing.B) {
	quoted := patentLike(32 << 20)
	for _, c := range []struct {
		name string
		fast bool
		data []byte
	}{{"split", true, quoted}, {"split-quoted=parse", false, quoted}, {"split-unquoted", true, bytes.ReplaceAll(quoted, []byte(`"`), nil)}} {
		fast, data := c.fast, c.data
		b.Run(c.name, func(b *testing.B) {
			defer func() { simpleQuotes = true }()
			simpleQuotes = fast
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				r := NewReader(bytes.NewReader(data), "apat")
				if _, err := r.ReadHeader(); err != nil {
					b.Fatal(err)
				}
				var n int
				for r.Next() {
					n += len(r.Fields()[4])
				}
				if r.Err() != nil || n == 0 {
					b.Fatal(r.Err(), n)
				}
			}
			// The process's CPU time an op: on a shared machine, steadier
			// than the wall time.
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// cpuTime is the process's user and system CPU time, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// TestPatentLikeQuoted: the benchmark's file reads the same both ways.
func TestPatentLikeQuoted(t *testing.T) {
	data := patentLike(1 << 16)
	if !strings.Contains(string(data), `"BE",""`) {
		t.Fatal("no quoted field")
	}
	sameQuoted(t, data, ',', testutil.Rand(1))
}
