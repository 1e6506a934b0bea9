package csvscan

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// onlyReader hides every method but Read: a pipe, as the Input sees it.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// record is a parsed record or a skipped bad one, with its offset.
type record struct {
	off    int64
	fields []string
	bad    string // the ParseError's message, for a skipped row
}

// sequential reads data with one Reader, fields separated by sep: the
// reference.
func sequential(data []byte, skip bool, sep byte) (recs []record, err error) {
	r := newSepReader(bytes.NewReader(data), "f", sep)
	if _, err := r.ReadHeader(); err != nil {
		return nil, err // a malformed header is never skipped
	}
	if skip {
		r.SkipBad(func(pe *ParseError) { recs = append(recs, record{off: pe.Offset, bad: pe.Msg}) })
	}
	for r.Next() {
		recs = append(recs, record{off: r.Offset(), fields: mustStrings(r.Fields())})
	}
	return recs, r.Err()
}

// viaInput reads data through an Input, as a regular file (stream false) or
// a pipe, part by part on two goroutines, and puts the records in file order.
func viaInput(t *testing.T, data []byte, opt InputOptions, asStream bool) (recs []record, err error) {
	t.Helper()
	s := &stream{r: bytes.NewReader(data), name: "f"}
	if asStream {
		s.r = onlyReader{bytes.NewReader(data)}
	} else {
		s.regular, s.size = bytes.NewReader(data), int64(len(data))
	}
	in, err := openInput(context.Background(), "f", s, opt)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	type result struct {
		recs []record
		err  error
	}
	results := make(chan result, 2)
	for range 2 {
		go func() {
			var res result
			for {
				p, err := in.Next()
				if err != nil || p == nil {
					res.err = err
					break
				}
				if opt.SkipBad {
					p.SkipBad(func(pe *ParseError) { res.recs = append(res.recs, record{off: pe.Offset, bad: pe.Msg}) })
				}
				for p.Next() {
					res.recs = append(res.recs, record{off: p.Offset(), fields: mustStrings(p.Fields())})
				}
				if p.Err() != nil {
					res.err = p.Err()
				}
				p.Release()
				if res.err != nil {
					break
				}
			}
			results <- res
		}()
	}
	var errs []error
	for range 2 {
		res := <-results
		recs = append(recs, res.recs...)
		errs = append(errs, res.err)
	}
	slices.SortStableFunc(recs, func(a, b record) int { return int(a.off - b.off) })
	sep, _ := opt.sep()
	hr := newSepReader(bytes.NewReader(data), "f", sep)
	hr.ReadHeader()
	if want := int64(len(data)) - hr.Pos(); in.Progress() != want && FirstError(errs) == nil {
		t.Errorf("Progress() = %d after the whole input, want %d", in.Progress(), want)
	}
	return recs, FirstError(errs)
}

// sameParse checks that the parts read what one sequential reader reads: the
// same records and skipped rows, or the same first error (parts after the
// first malformed row may read anything: see Input).
func sameParse(t *testing.T, what string, data []byte, opt InputOptions, stream bool) {
	t.Helper()
	sep, err := opt.sep()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	want, werr := sequential(data, opt.SkipBad, sep)
	got, gerr := viaInput(t, data, opt, stream)
	var wpe, gpe *ParseError
	if werr != nil || gerr != nil {
		if errors.As(werr, &wpe) != errors.As(gerr, &gpe) || (wpe == nil && (werr == nil) != (gerr == nil)) ||
			(wpe != nil && (wpe.Offset != gpe.Offset || wpe.Msg != gpe.Msg)) {
			t.Fatalf("%s: error %v, sequential reader %v\ninput %q", what, gerr, werr, data)
		}
		if wpe == nil {
			return
		}
		got = slices.DeleteFunc(got, func(r record) bool { return r.off >= wpe.Offset })
	}
	if !slices.EqualFunc(got, want, func(a, b record) bool {
		return a.off == b.off && a.bad == b.bad && slices.Equal(a.fields, b.fields)
	}) {
		t.Fatalf("%s: %d records %v\nsequential reader: %d records %v\ninput %q", what, len(got), got, len(want), want, data)
	}
}

// randomCSV writes valid RFC 4180 CSV: fields with commas, quotes and line
// breaks (quoted), empty fields, LF or CRLF line ends.
func randomCSV(rng *rand.Rand, rows, cols int, quoteRate float64) []byte {
	return randomSV(rng, rows, cols, quoteRate, ',')
}

// randomSV is randomCSV with fields separated by sep. For another separator
// than ',' the fields may hold sep, commas (data then) and CRLF too.
func randomSV(rng *rand.Rand, rows, cols int, quoteRate float64, sep byte) []byte {
	var b bytes.Buffer
	alphabet := []string{"a", "b", "7", ",", "\"", "\n", " ", "x"}
	special := ",\"\n"
	if sep != ',' {
		alphabet = append(alphabet, string(sep), string(sep), "\r\n")
		special = string(sep) + "\"\n\r"
	}
	for row := -1; row < rows; row++ {
		for c := range cols {
			if c > 0 {
				b.WriteByte(sep)
			}
			var f strings.Builder
			if row < 0 {
				fmt.Fprintf(&f, "C%d", c)
			} else {
				for range rng.IntN(6) {
					if rng.Float64() < quoteRate {
						f.WriteString(alphabet[rng.IntN(len(alphabet))])
					} else {
						f.WriteString(alphabet[rng.IntN(3)])
					}
				}
			}
			v := f.String()
			if strings.ContainsAny(v, special) || (v != "" && rng.IntN(8) == 0) || (cols == 1 && v == "") {
				v = `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
			}
			b.WriteString(v)
		}
		if rng.IntN(4) == 0 {
			b.WriteString("\r\n")
		} else {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// TestInputMatchesEncodingCSV: random valid CSV with quoted line breaks,
// commas and quotes, cut at every part count 1-8 (regular file) and into
// small chunks (pipe), with and without skipping, reads exactly what
// encoding/csv reads. With a small maxRecord the window rule is exercised too.
func TestInputMatchesEncodingCSV(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	for _, mr := range []int{1 << 20, 300} {
		t.Run(fmt.Sprintf("maxRecord=%d", mr), func(t *testing.T) {
			defer func(old int) { maxRecord = old }(maxRecord)
			maxRecord = mr
			for iter := range testutil.RaceSize(60, 6) { // under -race, 6 inputs (each density twice): each read by 2 goroutines in 1 to 8 parts
				cols := 1 + rng.IntN(4)
				data := randomCSV(rng, rng.IntN(200), cols, []float64{0, 0.05, 0.5}[iter%3])
				cr := csv.NewReader(bytes.NewReader(data))
				cr.FieldsPerRecord = cols
				want, err := cr.ReadAll()
				if err != nil {
					t.Fatalf("encoding/csv: %v\n%q", err, data)
				}
				want = want[1:]
				for _, skip := range []bool{false, true} {
					for n := 1; n <= 8; n++ {
						for _, stream := range []bool{false, true} {
							opt := InputOptions{Parts: n, SkipBad: skip, ChunkSize: 1 + rng.IntN(200), Taper: rng.IntN(2) == 0}
							got, err := viaInput(t, data, opt, stream)
							if err != nil {
								t.Fatalf("parts %d, skip %v, stream %v: %v\n%q", n, skip, stream, err, data)
							}
							var fields [][]string
							for _, r := range got {
								// encoding/csv drops a CR before LF inside quotes.
								f := slices.Clone(r.fields)
								for i := range f {
									f[i] = strings.ReplaceAll(f[i], "\r\n", "\n")
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

// TestInputNBER: a quote-free file is cut into as many ranges as asked, and
// a gzip stream into chunks; both read as one reader does.
func TestInputNBER(t *testing.T) {
	var b strings.Builder
	b.WriteString("\"CITING\",\"CITED\"\n")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "%d,%d\n", 4000000+i, 3000000+i*7)
	}
	data := []byte(b.String())
	for n := 1; n <= 9; n++ {
		in, err := openInput(context.Background(), "c", &stream{r: bytes.NewReader(data), name: "c", regular: bytes.NewReader(data), size: int64(len(data))}, InputOptions{Parts: n})
		if err != nil {
			t.Fatal(err)
		}
		if len(in.ranges) != n || in.ranges[0].Start != int64(len("\"CITING\",\"CITED\"\n")) || in.Size != int64(len(data))-in.ranges[0].Start {
			t.Fatalf("n=%d: ranges %v, size %d", n, in.ranges, in.Size)
		}
		sameParse(t, fmt.Sprintf("n=%d", n), data, InputOptions{Parts: n}, false)
	}
	sameParse(t, "chunks", data, InputOptions{ChunkSize: 4096}, true)
	// More parts than records.
	in, err := openInput(context.Background(), "c", &stream{r: strings.NewReader("A\n1\n"), name: "c", regular: strings.NewReader("A\n1\n"), size: 4}, InputOptions{Parts: 8})
	if err != nil || len(in.ranges) != 1 || in.ranges[0] != (Range{2, 4}) {
		t.Fatalf("tiny input: %v %v", in.ranges, err)
	}
	// A range reader reports byte offsets.
	r := newRangeReader(strings.NewReader("1,2\n3\n"), "c", 100, 2, ',')
	for r.Next() {
	}
	if err := r.Err(); err == nil || err.Error() != "c: record at byte 104: 1 fields, want 2" {
		t.Fatalf("range reader error: %v", err)
	}
}

// TestInputQuotedNewlines: the case that once split a quoted field between
// mappers: line breaks inside quotes right where the cuts fall.
func TestInputQuotedNewlines(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("ID,TEXT\n")
	for i := range 400 {
		fmt.Fprintf(&b, "%d,\"line one\nline, two\n\"\"three\"\"\n%d\"\n", i, i)
	}
	data := b.Bytes()
	for _, skip := range []bool{false, true} {
		for n := 1; n <= 8; n++ {
			sameParse(t, fmt.Sprintf("skip %v parts %d", skip, n), data, InputOptions{Parts: n, SkipBad: skip}, false)
			sameParse(t, fmt.Sprintf("skip %v stream chunk %d", skip, 64*n), data, InputOptions{ChunkSize: 64 * n, SkipBad: skip}, true)
		}
	}
	// Skipping with quotes everywhere and a small maxRecord: no cut can be
	// proven in a stream, and the rest is read by one reader.
	defer func(old int) { maxRecord = old }(maxRecord)
	maxRecord = 64
	in, err := openInput(context.Background(), "f", &stream{r: onlyReader{bytes.NewReader(data)}, name: "f"}, InputOptions{ChunkSize: 16, SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := in.Next()
	if err != nil || p == nil || p.Len != 0 {
		t.Fatalf("first part: %v %v, want the rest of the stream", p, err)
	}
	n := 0
	for p.Next() {
		n++
	}
	if p.Err() != nil || n != 400 {
		t.Fatalf("rest of the stream: %d records, %v", n, p.Err())
	}
	if p, err := in.Next(); p != nil || err != nil {
		t.Fatalf("after the rest: %v %v", p, err)
	}
}

// FuzzInput: on any bytes, the parts of a regular file and the chunks of a
// stream read what one sequential reader reads (records and skipped rows, or
// the same first error), at a small maxRecord so that every rule is reached.
//
// sep is InputOptions.Sep (0: ','); an invalid one is refused.
func FuzzInput(f *testing.F) {
	for _, s := range []string{"A,B\n1,2\n3,4\n", "A,B\n1,\"x\ny\"\n\"a\"\"b\",c\n2,3\n", "A,B\n1,x\"y\n2,\"a\nb\"\n3,4\n",
		"A\n\"unclosed\n1\n2\n", "\xef\xbb\xbf\"A\",B\r\n1,2\r\n"} {
		f.Add([]byte(s), uint8(3), uint8(5), false, byte(','))
		f.Add([]byte(s), uint8(2), uint8(1), true, byte(0))
		tsv := strings.ReplaceAll(s, ",", "\t")
		f.Add([]byte(tsv), uint8(3), uint8(5), false, byte('\t'))
		f.Add([]byte(tsv), uint8(2), uint8(1), true, byte('\t'))
	}
	f.Add([]byte("A\tB\n1,2\t\"x\ty\n\"\"z\"\n3\t4\n"), uint8(4), uint8(3), false, byte('\t'))
	f.Fuzz(func(t *testing.T, data []byte, parts, chunk uint8, skip bool, sep byte) {
		defer func(old int) { maxRecord = old }(maxRecord)
		maxRecord = 48
		opt := InputOptions{Parts: int(parts%9) + 1, ChunkSize: int(chunk%64) + 1, SkipBad: skip, Sep: sep}
		if _, err := opt.sep(); err != nil {
			if _, err := openInput(context.Background(), "f", &stream{r: bytes.NewReader(data), name: "f"}, opt); err == nil {
				t.Fatalf("separator %q accepted", sep)
			}
			return
		}
		sameParse(t, "regular", data, opt, false)
		sameParse(t, "stream", data, opt, true)
	})
}

// TestOpenInputSources: standard input, a FIFO, gzip and zip recognised by
// content, a BOM, a zip from a pipe refused, and a FIFO with no writer given
// up when the context ends.
func TestOpenInputSources(t *testing.T) {
	dir := t.TempDir()
	content := "\xef\xbb\xbf\"CITING\",CITED\n1,2\n3,4\n"
	plain := filepath.Join(dir, "plain.csv")
	testutil.WriteFile(t, plain, []byte(content), 0o644)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(content))
	zw.Close()
	gzPath := filepath.Join(dir, "named.txt") // gzip whatever its name
	testutil.WriteFile(t, gzPath, gz.Bytes(), 0o644)
	readAllParts := func(in *Input) []string {
		var out []string
		for {
			p, err := in.Next()
			if err != nil {
				t.Fatal(err)
			}
			if p == nil {
				return out
			}
			for p.Next() {
				out = append(out, strings.Join(mustStrings(p.Fields()), "|"))
			}
			if p.Err() != nil {
				t.Fatal(p.Err())
			}
			p.Release()
		}
	}
	for _, path := range []string{plain, gzPath} {
		in, err := OpenInput(context.Background(), path, InputOptions{Parts: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := readAllParts(in); !slices.Equal(in.Header, []string{"CITING", "CITED"}) || string(in.HeaderRaw) != "\"CITING\",CITED" ||
			!slices.Equal(got, []string{"1|2", "3|4"}) || in.Regular != (path == plain) {
			t.Fatalf("%s: header %q (raw %q), records %v, regular %v", path, in.Header, in.HeaderRaw, got, in.Regular)
		}
		in.Close()
	}
	// A FIFO, written by another goroutine.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			w.Write(gz.Bytes())
			w.Close()
		}
	}()
	in, err := OpenInput(context.Background(), fifo, InputOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := readAllParts(in); !slices.Equal(got, []string{"1|2", "3|4"}) || in.Regular {
		t.Fatalf("fifo: %v", got)
	}
	in.Close()
	// A FIFO nobody writes: the open gives up when the context ends.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := OpenInput(ctx, fifo, InputOptions{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("fifo without a writer: %v after %v", err, time.Since(start))
	}
	// A FIFO removed while the open waits for a writer: the open gives up
	// all the same (it waited for good: nothing could open it to end it).
	gone := filepath.Join(t.TempDir(), "gone")
	if err := syscall.Mkfifo(gone, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx3, cancel3 := context.WithCancel(context.Background())
	opened := make(chan error, 1)
	// Threads already blocked so are not this open's: an earlier run's
	// removed FIFO stays blocked for good (go test -count 8 failed here
	// when the FIFO was removed before this open's stat).
	before, known := waitsInOpen()
	go func() {
		_, err := OpenInput(ctx3, gone, InputOptions{})
		opened <- err
	}()
	for known {
		if n, _ := waitsInOpen(); n > before {
			break
		}
		time.Sleep(time.Millisecond)
	}
	os.Remove(gone)
	cancel3()
	if err := <-opened; !errors.Is(err, context.Canceled) {
		t.Fatalf("a removed fifo: %v", err)
	}
	// A writer that connects but never writes: the blocked read ends too.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	done := make(chan struct{})
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			<-done
			w.Close()
		}
	}()
	defer close(done)
	if _, err := OpenInput(ctx2, fifo, InputOptions{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("fifo with a silent writer: %v", err)
	}
	// A zip archive through a pipe cannot be read.
	var zb bytes.Buffer
	zb.WriteString("PK\x03\x04rest")
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			w.Write(zb.Bytes())
			w.Close()
		}
	}()
	if _, err := OpenInput(context.Background(), fifo, InputOptions{}); err == nil || !strings.Contains(err.Error(), "zip archive can only be read from a file") {
		t.Fatalf("zip from a fifo: %v", err)
	}
	if _, err := OpenInput(context.Background(), dir, InputOptions{}); !errors.Is(err, ErrFolder) {
		t.Fatalf("folder: %v", err)
	}
}

// TestFirstError: the parse error with the lowest offset wins.
func TestFirstError(t *testing.T) {
	io1 := errors.New("disk")
	a, b := &ParseError{File: "f", Offset: 90, Msg: "late"}, &ParseError{File: "f", Offset: 10, Msg: "early"}
	if got := FirstError([]error{nil, io1, a, nil, b}); got != b {
		t.Fatalf("FirstError = %v, want %v", got, b)
	}
	if got := FirstError([]error{nil, io1}); got != io1 {
		t.Fatalf("FirstError = %v, want %v", got, io1)
	}
	if FirstError(nil) != nil {
		t.Fatal("FirstError(nil) != nil")
	}
}

// TestProgressSmooth: a regular file's progress counts the bytes of a part as
// they are read, not when the part is done (the map bar jumped by 25%).
func TestProgressSmooth(t *testing.T) {
	testutil.SkipUnderRace(t)
	var b bytes.Buffer
	b.WriteString("A,B\n")
	for b.Len() < 8<<20 {
		fmt.Fprintf(&b, "%d,%d\n", b.Len(), b.Len()*7)
	}
	data := b.Bytes()
	in, err := openInput(context.Background(), "f", &stream{r: bytes.NewReader(data), name: "f", regular: bytes.NewReader(data), size: int64(len(data))}, InputOptions{Parts: 2})
	if err != nil {
		t.Fatal(err)
	}
	p, err := in.Next()
	if err != nil || p == nil {
		t.Fatal(p, err)
	}
	for i := 0; i < 1000 && p.Next(); i++ {
	}
	if got := in.Progress(); got == 0 || got >= p.Len {
		t.Fatalf("after 1000 records of a %d-byte part, progress %d", p.Len, got)
	}
	for p.Next() {
	}
	if got := in.Progress(); got != p.Len {
		t.Fatalf("after the whole part, progress %d, want %d", got, p.Len)
	}
}

// TestOpenRange: the Ranges of an Input, each read by OpenRange in another
// Reader, give the records one sequential reader gives, quoted line breaks
// included; an invalid range and a missing file are errors.
func TestOpenRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := randomCSV(rng, 2000, 5, 0.2)
	path := filepath.Join(t.TempDir(), "r.csv")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := sequential(data, false, ',')
	if err != nil {
		t.Fatal(err)
	}
	for _, parts := range []int{1, 3, 8} {
		in, err := OpenInput(context.Background(), path, InputOptions{Parts: parts})
		if err != nil {
			t.Fatal(err)
		}
		var got []record
		for _, rg := range in.Ranges() {
			r, c, err := OpenRange(path, rg, len(in.Header), 0)
			if err != nil {
				t.Fatal(err)
			}
			for r.Next() {
				var fs []string
				for _, f := range r.Fields() {
					fs = append(fs, string(f))
				}
				got = append(got, record{off: r.Offset(), fields: fs})
			}
			if r.Err() != nil {
				t.Fatal(r.Err())
			}
			c.Close()
		}
		in.Close()
		if !slices.EqualFunc(got, want, func(a, b record) bool { return a.off == b.off && slices.Equal(a.fields, b.fields) }) {
			t.Fatalf("%d parts: %d records, sequential %d", parts, len(got), len(want))
		}
	}
	if _, _, err := OpenRange(path, Range{5, 2}, 5, 0); err == nil {
		t.Error("range [5, 2) accepted")
	}
	if _, _, err := OpenRange(filepath.Join(t.TempDir(), "none.csv"), Range{0, 1}, 5, 0); err == nil {
		t.Error("a missing file opened")
	}
}

// waitsInOpen returns how many threads of this process wait in the open
// of a FIFO (Linux's wait_for_partner), and false where /proc cannot tell.
func waitsInOpen() (int, bool) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0, false
	}
	n := 0
	for _, task := range tasks {
		if w, _ := os.ReadFile("/proc/self/task/" + task.Name() + "/wchan"); string(w) == "wait_for_partner" {
			n++
		}
	}
	return n, true
}

// TestSampleRanges: Sample cuts a regular file at line breaks, in order,
// covering every byte once, and on a file without quoted line breaks its
// parts read exactly what the proven cuts' do; with them, a part may start
// inside a record (the sample's error, by design), and reading it with
// SkipBad ends without an error.
func TestSampleRanges(t *testing.T) {
	var plain, quoted bytes.Buffer
	plain.WriteString("ID,TEXT\n")
	quoted.WriteString("ID,TEXT\n")
	for i := range 3000 {
		fmt.Fprintf(&plain, "%d,\"text, %d\"\n", i, i*7)
		fmt.Fprintf(&quoted, "%d,\"line one\nline %d\"\n", i, i)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{{"plain", plain.Bytes()}, {"quoted", quoted.Bytes()}} {
		path := filepath.Join(t.TempDir(), "f.csv")
		if err := os.WriteFile(path, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2, 7, 16, 64} {
			in, err := OpenInput(context.Background(), path, InputOptions{Parts: n, SkipBad: true, Sample: true})
			if err != nil {
				t.Fatal(err)
			}
			rs := in.Ranges()
			prev := int64(len("ID,TEXT\n"))
			for _, r := range rs {
				if r.Start != prev || r.End <= r.Start || tc.data[r.End-1] != '\n' {
					t.Fatalf("%s, %d parts: ranges %v", tc.name, n, rs)
				}
				prev = r.End
			}
			if prev != int64(len(tc.data)) {
				t.Fatalf("%s, %d parts: ranges end at %d of %d", tc.name, n, prev, len(tc.data))
			}
			rows := 0
			for {
				p, err := in.Next()
				if err != nil {
					t.Fatal(err)
				}
				if p == nil {
					break
				}
				p.SkipBad(func(*ParseError) {})
				for p.Next() {
					rows++
				}
				if p.Err() != nil {
					t.Fatalf("%s, %d parts: %v", tc.name, n, p.Err())
				}
				p.Release()
			}
			in.Close()
			if tc.name == "plain" && rows != 3000 {
				t.Fatalf("plain, %d parts: %d rows, want 3000", n, rows)
			}
		}
	}
}

// TestSampleLongRecords: a sample's parts read sampleReadSize bytes at a
// time, and records longer than that (and than readSize) grow the buffer:
// every record read whole, by Next and by NextBatch, as a part of an
// ordinary Input reads it.
func TestSampleLongRecords(t *testing.T) {
	var data bytes.Buffer
	data.WriteString("ID,K,TEXT\n")
	const rows = 60
	for i := range rows {
		fmt.Fprintf(&data, "%d,%d,%s\n", i, i*7, strings.Repeat(string(rune('a'+i%26)), 1000*(i%5)+sampleReadSize*(i%3)+readSize*(i%7/6)))
	}
	path := filepath.Join(t.TempDir(), "f.csv")
	if err := os.WriteFile(path, data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, batch := range []bool{false, true} {
		got := map[string]int{}
		in, err := OpenInput(context.Background(), path, InputOptions{Parts: 4, SkipBad: true, Sample: true})
		if err != nil {
			t.Fatal(err)
		}
		for {
			p, err := in.Next()
			if err != nil {
				t.Fatal(err)
			}
			if p == nil {
				break
			}
			if batch {
				var b Batch
				for p.NextBatch(1, 7, &b) {
					for i := range b.Len() {
						got[string(b.Field(i))]++
					}
				}
			} else {
				for p.Next() {
					f := p.Fields()
					if want := 1000*(atoi(t, f[0])%5) + sampleReadSize*(atoi(t, f[0])%3) + readSize*(atoi(t, f[0])%7/6); len(f[2]) != want {
						t.Fatalf("row %s: TEXT of %d bytes, want %d", f[0], len(f[2]), want)
					}
					got[string(f[1])]++
				}
			}
			if p.Err() != nil {
				t.Fatal(p.Err())
			}
			p.Release()
		}
		in.Close()
		for i := range rows {
			if k := strconv.Itoa(i * 7); got[k] != 1 {
				t.Fatalf("batch %v: key %s read %d times, want once (%d keys read)", batch, k, got[k], len(got))
			}
		}
	}
}

func atoi(t *testing.T, b []byte) int {
	t.Helper()
	n, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestClearWindowsSameCuts: the cuts of files whose quotes, quoted line
// breaks and record lengths vary, at small maxRecord windows, are the same
// with the windows read beforehand in parallel (clearWindows) and without
// (each read by splitRanges in turn), with and without parity.
func TestClearWindowsSameCuts(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	defer func(old int) { maxRecord = old }(maxRecord)
	defer func(old bool) { parallelWindows = old }(parallelWindows)
	defer func(old func()) { onClearWindows = old }(onClearWindows)
	defer func(old int64) { parityChunk = old }(parityChunk)
	defer func(old func()) { onParities = old }(onParities)
	used, counted := 0, 0
	onClearWindows = func() { used++ }
	onParities = func() { counted++ }
	defer func() {
		if used < 50 || counted < 20 {
			t.Errorf("clearWindows read the windows in %d of 600 splits, quoteParities counted in %d; want 50 and 20 at the least", used, counted)
		}
	}()
	for trial := range 300 {
		maxRecord = 8 + rng.IntN(200)
		parityChunk = int64(1 + rng.IntN(3000)) // several pieces a part, or one
		var b bytes.Buffer
		b.WriteString("A,B\n")
		quoteEvery := []int{0, 3, 50, 400}[rng.IntN(4)]
		for i := range 50 + rng.IntN(400) {
			switch {
			case quoteEvery > 0 && i%quoteEvery == quoteEvery-1 && rng.IntN(2) == 0:
				fmt.Fprintf(&b, "%d,\"x\ny\"\n", i)
			case quoteEvery > 0 && i%quoteEvery == quoteEvery-1:
				fmt.Fprintf(&b, "%d,\"q\"\n", i)
			default:
				fmt.Fprintf(&b, "%d,%s\n", i, strings.Repeat("v", rng.IntN(maxRecord/2)))
			}
		}
		data := b.Bytes()
		path := filepath.Join(t.TempDir(), "f.csv")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path) // a local file: clearWindows reads only those
		if err != nil {
			t.Fatal(err)
		}
		for _, parity := range []bool{false, true} {
			taper := rng.IntN(2) == 0
			n := 1 + rng.IntN(40)
			if rng.IntN(2) == 0 { // parts longer than a window: clearWindows reads them
				n = 2 + rng.IntN(max(1, len(data)/(maxRecord+2)))
			}
			parallelWindows = false
			want, err := splitRanges(f, 4, int64(len(data)), n, parity, false, taper)
			if err != nil {
				t.Fatal(err)
			}
			parallelWindows = true
			got, err := splitRanges(f, 4, int64(len(data)), n, parity, false, taper)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("trial %d (maxRecord %d, quotes every %d, %d parts, parity %v, pieces of %d): cuts %v, want %v", trial, maxRecord, quoteEvery, n, parity, parityChunk, got, want)
			}
		}
		f.Close()
	}
}

// TestCutTargets: the bounds start at start and end at size, never fall
// back, shrink part by part when tapered (only where the last part still
// holds a window) and are equal otherwise, and a span near 2^62 does not
// overflow.
func TestCutTargets(t *testing.T) {
	w := int64(maxRecord + 2)
	for _, c := range []struct {
		start, size int64
		n           int
		taper       bool
		tapered     bool
	}{
		{0, 64 * w, 8, true, true},
		{10, 10 + 64*w - 1, 8, true, false}, // the last part would be under a window
		{0, 64 * w, 8, false, false},
		{0, 1 << 62, 16, true, true},
		{0, 1 << 62, 16, false, false},
		{5, 5, 3, true, false},
		{0, 100, 1, true, false},
	} {
		tg := cutTargets(c.start, c.size, c.n, c.taper)
		if len(tg) != c.n+1 || tg[0] != c.start || tg[c.n] != c.size {
			t.Fatalf("%+v: bounds %v", c, tg)
		}
		for i := 1; i <= c.n; i++ {
			part, prev := tg[i]-tg[i-1], int64(0)
			if i > 1 {
				prev = tg[i-1] - tg[i-2]
			}
			switch {
			case part < 0:
				t.Fatalf("%+v: part %d is %d bytes", c, i-1, part)
			case c.tapered && i > 1 && part >= prev:
				t.Fatalf("%+v: part %d (%d bytes) not shorter than the one before (%d)", c, i-1, part, prev)
			case c.tapered && part < w:
				t.Fatalf("%+v: part %d (%d bytes) shorter than a window", c, i-1, part)
			case !c.tapered && i > 1 && (part-prev > 1 || prev-part > 1):
				t.Fatalf("%+v: parts %d and %d of %d and %d bytes, want equal", c, i-2, i-1, prev, part)
			}
		}
	}
	// n = 8 tapered: the shares are (2(n-j)-1)/n^2, 15/64 down to 1/64.
	tg := cutTargets(0, 128<<20, 8, true)
	for j := range 8 {
		if got, want := tg[j+1]-tg[j], int64(2*(8-j)-1)<<21; got != want {
			t.Errorf("part %d: %d bytes, want %d", j, got, want)
		}
	}
}

// TestInputTaper: a file's parts taper only when asked (InputOptions.Taper:
// parts handed out as readers finish them); without it, as where each
// reader gets one part, they are equal (a part a reader of a 2-part file
// was 3/4 and 1/4 of it).
func TestInputTaper(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("a,b\n")
	for i := 0; b.Len() < 9<<20; i++ {
		fmt.Fprintf(&b, "%d,%s\n", i, strings.Repeat("x", 50))
	}
	path := filepath.Join(t.TempDir(), "f.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, taper := range []bool{false, true} {
		in, err := OpenInput(context.Background(), path, InputOptions{Parts: 2, Taper: taper})
		if err != nil {
			t.Fatal(err)
		}
		rs := in.Ranges()
		in.Close()
		if len(rs) != 2 {
			t.Fatalf("taper %v: %d ranges", taper, len(rs))
		}
		a, z := rs[0].End-rs[0].Start, rs[1].End-rs[1].Start
		if equal := a-z < 100 && z-a < 100; equal == taper {
			t.Errorf("taper %v: parts of %d and %d bytes", taper, a, z)
		}
	}
}

// TestOpenFIFOCancelled: an open of a FIFO whose context has already ended
// returns the context's error and leaves no thread blocked in the FIFO's
// open. Before openFile tried again on ENXIO, its own open had not begun
// when the write-open that ends it was tried, and then blocked for good: a
// thread lost a call.
func TestOpenFIFOCancelled(t *testing.T) {
	before, known := waitsInOpen()
	if !known {
		t.Skip("/proc cannot tell a thread's wait")
	}
	// However late the goroutine's open begins on a loaded machine, it
	// is waited for: the verdict is on the retries, not on the second.
	defer func(old int) { fifoRetries = old }(fifoRetries)
	fifoRetries = math.MaxInt32
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 50 {
		path := filepath.Join(dir, fmt.Sprintf("fifo%d", i))
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if f, err := openFile(ctx, path, st); !errors.Is(err, context.Canceled) {
			if f != nil {
				f.Close()
			}
			t.Fatalf("open %d: %v", i, err)
		}
	}
	if n, _ := waitsInOpen(); n > before {
		t.Fatalf("%d threads left blocked in a FIFO's open (%d before)", n, before)
	}
}

// TestStreamBlankFirstLine: a stream's chunks and the rest-of-stream
// reader begin with their data already in memory; a blank line first
// (right after the header, or where a chunk is cut) is skipped as the
// sequential reader skips it, with one field or two, LF or CRLF, and
// with bad rows skipped or not. It once read as a record of one empty
// field (an extra row of a one-column side) or a field-count error
// (FuzzInput's "0\n\n"; `join run --input -`).
func TestStreamBlankFirstLine(t *testing.T) {
	for _, data := range []string{"A\n\n1\n", "A\n\n\n1\n2\n", "A,B\n\n1,2\n", "A,B\r\n\r\n1,2\r\n", "0\n\n", "A\n1\n\n2\n"} {
		for _, chunk := range []int{1, 2, 3, 4096} {
			for _, skip := range []bool{false, true} {
				sameParse(t, fmt.Sprintf("%q chunk %d skip %v", data, chunk, skip), []byte(data), InputOptions{ChunkSize: chunk, SkipBad: skip}, true)
			}
		}
	}
	// The readers themselves, their data in memory from the start.
	for _, r := range []*Reader{newChunkReader([]byte("\n1\n"), "f", 2, 1, 1, ','),
		newStreamReader([]byte("\n1\n"), strings.NewReader(""), "f", 2, 1, 1, ',')} {
		var got []string
		for r.Next() {
			got = append(got, fmt.Sprintf("%d:%q", r.Offset(), r.Fields()))
		}
		if r.Err() != nil || len(got) != 1 || got[0] != `3:["1"]` {
			t.Errorf("records %v, error %v; want only 3:[\"1\"]", got, r.Err())
		}
	}
}
