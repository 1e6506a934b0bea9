package csvscan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// endless is a stream that never ends: its bytes are b's, again and again.
type endless struct {
	b    []byte
	read int64
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.b[(e.read+int64(i))%int64(len(e.b))]
	}
	e.read += int64(len(p))
	return len(p), nil
}

// randomBytes is a stream of pseudo-random bytes that never ends, as
// /dev/urandom.
type randomBytes struct {
	rng  *rand.Rand
	read int64
}

func (r *randomBytes) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r.rng.Uint32())
	}
	r.read += int64(len(p))
	return len(p), nil
}

// TestCopyExact: a good stream is copied byte for byte: a byte order mark,
// CRLF line ends, blank lines, quoted fields across lines, a tab
// separator, a last line without its line end.
func TestCopyExact(t *testing.T) {
	for _, tc := range []struct {
		in  string
		sep byte
	}{
		{"a,b\n1,2\n", ','},
		{bom + "a,b\r\n1,2\r\n\r\n3,4", ','},
		{"a,b\n\n1,\"x\ny,\"\"z\"\"\"\n2,3\n", ','},
		{"a\tb\n1,2\t3\n", '\t'},
		{"a\n" + strings.Repeat("x", 1<<20) + "\n", ','},
	} {
		var out bytes.Buffer
		n, err := Copy(&out, strings.NewReader(tc.in), "in.csv", tc.sep, false)
		if err != nil || n != int64(len(tc.in)) || out.String() != tc.in {
			t.Errorf("Copy(%.40q) = %d, %v; copy equal: %v", tc.in, n, err, out.String() == tc.in)
		}
	}
}

// TestCopyRefuses: a stream the Reader refuses stops the copy with the
// Reader's error, naming the stream and the line, after a bounded read
// (whatever follows): a stream of zeros (no line end) as the header or
// after it, random bytes, too many fields, a wrong field count, a quote in
// an unquoted field.
func TestCopyRefuses(t *testing.T) {
	testutil.SkipUnderRace(t)
	zeros := func() io.Reader { return &endless{b: []byte{0}} }
	for _, tc := range []struct {
		name string
		src  io.Reader
		skip bool
		want string
	}{
		{"zeros", zeros(), false, "stdin:1: record longer than 1048576 bytes"},
		{"zeros, skip", zeros(), true, "stdin:1: record longer than 1048576 bytes"}, // the header is never skipped
		{"zeros after a header", io.MultiReader(strings.NewReader("a,b\n1,2\n"), zeros()), false, "stdin:3: record longer than 1048576 bytes"},
		{"random", &randomBytes{rng: rand.New(rand.NewPCG(1, 2))}, false, "stdin:"},
		{"fields", io.MultiReader(strings.NewReader(strings.Repeat("a,", MaxFields)+"a\n"), zeros()), false, fmt.Sprintf("stdin:1: more than %d fields", MaxFields)},
		{"count", io.MultiReader(strings.NewReader("a,b\n1,2\n1,2,3\n"), &endless{b: []byte("1,2\n")}), false, "stdin:3: 3 fields, want 2"},
		{"quote", io.MultiReader(strings.NewReader("a,b\n1,x\"y\n"), &endless{b: []byte("1,2\n")}), false, "stdin:2: quote inside unquoted field 2"},
	} {
		var out bytes.Buffer
		n, err := Copy(&out, tc.src, "stdin", ',', tc.skip)
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		if n != int64(out.Len()) || n > 8<<20 {
			t.Errorf("%s: copied %d bytes (%d written), want a bounded copy", tc.name, n, out.Len())
		}
	}
}

// TestCopySkipBad: with skipBad, malformed records are copied for the
// reader of the copy to skip, a line longer than a record may be is cut
// to the 1 MiB and a byte (it is skipped all the same), and a line that
// never ends is read without being written.
func TestCopySkipBad(t *testing.T) {
	testutil.SkipUnderRace(t)
	long := strings.Repeat("x", 3<<20)
	in := "a,b\n1,2\n1,2,3\n" + long + "\n3,4\r\n" + "\"q\n" + long + "\",5\n6,7\n"
	var out bytes.Buffer
	n, err := Copy(&out, strings.NewReader(in), "in.csv", ',', true)
	if err != nil || n != int64(out.Len()) {
		t.Fatalf("Copy = %d, %v", n, err)
	}
	if out.Len() > len(in)-2*len(long)+2*(maxRecord+1) {
		t.Errorf("copied %d bytes, want the long lines cut", out.Len())
	}
	read := func(src io.Reader) (recs []string, bad []string) {
		r := NewReader(src, "in.csv")
		if _, err := r.ReadHeader(); err != nil {
			t.Fatal(err)
		}
		r.SkipBad(func(pe *ParseError) { bad = append(bad, pe.Msg) })
		for r.Next() {
			recs = append(recs, string(r.Raw()))
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
		return recs, bad
	}
	wantRecs, wantBad := read(strings.NewReader(in))
	gotRecs, gotBad := read(&out)
	if strings.Join(gotRecs, "|") != strings.Join(wantRecs, "|") || strings.Join(gotBad, "|") != strings.Join(wantBad, "|") {
		t.Errorf("the copy reads as %q, bad %q; the stream as %q, bad %q", gotRecs, gotBad, wantRecs, wantBad)
	}

	// A line that never ends (cut at 64 MiB here) costs no space.
	src := io.MultiReader(strings.NewReader("a,b\n1,2\n"), io.LimitReader(&endless{b: []byte{0}}, 64<<20), strings.NewReader("\n3,4\n"))
	out.Reset()
	if _, err := Copy(&out, src, "in.csv", ',', true); err != nil {
		t.Fatal(err)
	}
	if out.Len() != len("a,b\n1,2\n")+maxRecord+1+len("\n3,4\n") {
		t.Errorf("copied %d bytes of a line of 64 MiB, want it cut to %d", out.Len(), maxRecord+1)
	}
}

// failWriter fails every write after the first n bytes.
type failWriter struct{ n int }

var errWrite = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errWrite
	}
	w.n -= len(p)
	return len(p), nil
}

// TestCopyWriteError: a failed write ends the copy with the write's error.
func TestCopyWriteError(t *testing.T) {
	src := io.MultiReader(strings.NewReader("a,b\n"), &endless{b: []byte("1,2\n")})
	if _, err := Copy(&failWriter{n: 1 << 20}, src, "in.csv", ',', false); err != errWrite {
		t.Errorf("error %v, want the write's", err)
	}
	if _, err := Copy(io.Discard, strings.NewReader("a\n"), "in.csv", '"', false); err == nil {
		t.Error("a quote as the separator was taken")
	}
}

// TestLineCap: lineCap keeps of every line its first maxRecord+1 bytes and
// its line end, whatever the writes' sizes (a small maxRecord; the model
// cuts line by line).
func TestLineCap(t *testing.T) {
	defer func(old int) { maxRecord = old }(maxRecord)
	maxRecord = 16
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		var in []byte
		for range rng.IntN(8) {
			in = append(in, bytes.Repeat([]byte{'a' + byte(rng.IntN(26))}, rng.IntN(3*maxRecord))...)
			if rng.IntN(4) > 0 {
				in = append(in, '\n')
			}
		}
		var want []byte
		for i, line := range bytes.Split(in, []byte("\n")) {
			if i > 0 {
				want = append(want, '\n')
			}
			want = append(want, line[:min(len(line), maxRecord+1)]...)
		}
		var out bytes.Buffer
		c := &lineCap{w: &out}
		for p := in; len(p) > 0; {
			n := min(len(p), 1+rng.IntN(2*maxRecord))
			if k, err := c.Write(p[:n]); k != n || err != nil {
				t.Fatalf("Write = %d, %v", k, err)
			}
			p = p[n:]
		}
		if !bytes.Equal(out.Bytes(), want) || c.n != int64(out.Len()) {
			t.Fatalf("lineCap(%q) = %q, want %q", in, out.Bytes(), want)
		}
	}
}
