package local

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/filters"
	"github.com/acbfjoin/acbfjoin/internal/option"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/internal/tmpspace"
	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/source"
	"github.com/acbfjoin/acbfjoin/key"
)

// stream is a source that never ends: head, then body again and again
// (zeros when body is nil; random bytes, as /dev/urandom, with rnd).
type stream struct {
	head, body []byte
	rnd        *rand.Rand
	at         int64
}

func (s *stream) Read(p []byte) (int, error) {
	i := 0
	if s.at < int64(len(s.head)) {
		i = copy(p, s.head[s.at:])
	}
	switch {
	case s.rnd != nil:
		for ; i < len(p); i++ {
			p[i] = byte(s.rnd.Uint32())
		}
	case s.body != nil:
		for i < len(p) {
			i += copy(p[i:], s.body[(s.at+int64(i)-int64(len(s.head)))%int64(len(s.body)):])
		}
	default:
		clear(p[i:])
	}
	s.at += int64(len(p))
	return len(p), nil
}

// fifoOf makes a FIFO named name in a new folder that src is written to
// (until its reader goes), as `cat /dev/zero > fifo` does.
func fifoOf(t *testing.T, name string, src io.Reader) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		io.Copy(f, src) // ends with EPIPE when the reader goes
	}()
	t.Cleanup(func() {
		// A FIFO nobody opened: open it to end the writer's wait.
		if r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			r.Close()
		}
		<-done
	})
	return path
}

func emptyDir(t *testing.T, dir string) {
	t.Helper()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d entries left in the temporary folder: %s", len(ents), ents[0].Name())
	}
}

// TestSpoolBounded: a stream that never ends is not copied without end:
// zeros (no line end) stop at the reader's 1 MiB record limit, random bytes
// at their first malformed record, a Parquet stream of zeros at its magic,
// and good records without end at the temporary folder's reserve (a small
// disk faked), an error of the option that names the side. The copy is
// removed every time.
func TestSpoolBounded(t *testing.T) {
	// 16 MiB free, 4 MiB of it the reserve; under -race 6 MiB free, so that
	// 2 MiB of records are copied rather than 12.
	defer tmpspace.Fake(testutil.RaceSize[uint64](16<<20, 6<<20), 80<<20)()
	for _, tc := range []struct {
		name, file string
		src        io.Reader
		format     string
		skipBad    bool
		want       string
	}{
		{"zeros", "zero", &stream{}, "", false, "zero:1: record longer than 1048576 bytes"},
		{"zeros, skip", "zero", &stream{}, "", true, "zero:1: record longer than 1048576 bytes"},
		{"zeros after a header", "keys.csv", &stream{head: []byte("K,V\n1,2\n")}, "", false, "keys.csv:3: record longer than 1048576 bytes"},
		{"random", "urandom", &stream{rnd: rand.New(rand.NewPCG(3, 4))}, "", false, "urandom:"},
		{"records", "keys.csv", &stream{head: []byte("K,V\n"), body: []byte("x,y\n")}, "", false, "the copy stopped after"},
		{"records, skip", "keys.csv", &stream{head: []byte("K,V\n"), body: []byte("x,y\n")}, "", true, "the copy stopped after"},
		{"parquet zeros", "keys.parquet", &stream{}, "", false, "not a valid file of its format"},
		{"parquet", "keys", &stream{head: []byte("PAR1")}, "parquet", false, "the copy stopped after"},
		{"arrow", "keys.arrow", &stream{head: []byte("\xff\xff\xff\xff")}, "", false, "the copy stopped after"}, // begins as an IPC stream, then never ends
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			path := fifoOf(t, tc.file, tc.src)
			_, _, err := source.Spool(context.Background(), source.Options{Option: "Keys", Path: path, Format: tc.format, SkipBad: tc.skipBad, TempDir: tmp}, "to test")
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line with %q", err, tc.want)
			}
			var oe *option.Error
			if errors.Is(err, tmpspace.ErrFull) {
				if !errors.As(err, &oe) || oe.Name != "Keys" || oe.Value != path || !strings.Contains(oe.Reason, "a stream is copied to the temporary folder to test") {
					t.Errorf("a full folder: %#v, want the option Keys", err)
				}
			} else if !strings.Contains(err.Error(), tc.file) {
				t.Errorf("error %v, want it to name %s", err, tc.file)
			}
			emptyDir(t, tmp)
		})
	}
}

// TestSpoolSkipBad: with SkipBadRows a stream's over-long line is cut in
// its copy, and the copy joins as the stream would: the line is a bad row.
func TestSpoolSkipBad(t *testing.T) {
	long := strings.Repeat("9", 3<<20)
	keys := "K,V\n1,a\n" + long + ",b\n2,c\n"
	tmp := t.TempDir()
	path := fifoOf(t, "keys.csv", strings.NewReader(keys))
	sp, _, err := source.Spool(context.Background(), source.Options{Option: "Keys", Path: path, SkipBad: true, TempDir: tmp}, "to test")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(sp)
	os.Remove(sp)
	if want := "K,V\n1,a\n" + long[:1<<20+1] + "\n2,c\n"; string(data) != want {
		t.Errorf("the copy holds %d bytes, want %d", len(data), len(want))
	}

	input := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(input, []byte("J\n1\n2\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep, err := Run(context.Background(), join.Options{
		Sides:        join.Sides{Keys: fifoOf(t, "keys.csv", strings.NewReader(keys)), Input: input, SkipBadRows: true},
		Keying:       join.Keying{KeyCol: "K", JoinCol: "J"},
		FilterChoice: join.FilterChoice{Filter: filters.Exact},
		Output:       join.Output{Sort: true},
		Resources:    join.Resources{TempDir: tmp},
	}, NewCSV(&out))
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "J,V\n1,a\n2,c\n" || rep.BadRows != 1 {
		t.Errorf("output %q, %d bad rows; want two rows and one bad", out.String(), rep.BadRows)
	}
	emptyDir(t, tmp)
}

// TestRunStreamKeysBounded: Run, Compare and ReadKeySet with a key side on
// a FIFO that never ends, under key type auto (the side is copied to infer
// its type), fail as the same side read without a copy does, and leave
// the temporary folder empty.
func TestRunStreamKeysBounded(t *testing.T) {
	input := filepath.Join(t.TempDir(), "in.csv")
	if err := os.WriteFile(input, []byte("J\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	var pe *csvscan.ParseError
	// Under -race, one of the key types (a stream of zeros read to its
	// limit is slow under the detector, and each type has the same goroutines).
	for _, typ := range testutil.RacePick([]key.Type{key.Auto, key.Int, key.String}, 1, testutil.RaceSeed(t)) {
		opt := join.Options{Sides: join.Sides{Keys: fifoOf(t, "zero", &stream{}), Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "J", KeyType: typ}, Resources: join.Resources{TempDir: tmp}}
		if _, err := Run(context.Background(), opt, NewCSV(io.Discard)); !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), opt.Keys+":1: record longer than 1048576 bytes") {
			t.Errorf("Run, %s: %v", typ, err)
		}
		opt.Keys = fifoOf(t, "zero", &stream{})
		if _, err := Compare(context.Background(), opt, []filters.Kind{filters.Exact}, 1); !errors.As(err, &pe) {
			t.Errorf("Compare, %s: %v", typ, err)
		}
		opt.Keys, opt.Input = input, fifoOf(t, "zero", &stream{})
		opt.KeyCol, opt.JoinCol = "J", "K"
		if _, err := Compare(context.Background(), opt, []filters.Kind{filters.Exact}, 1); !errors.As(err, &pe) {
			t.Errorf("Compare, input, %s: %v", typ, err)
		}
	}
	// 16 MiB free, 4 of them the reserve; under -race 6 MiB free, so that
	// 2 MiB of records are copied rather than 12.
	defer tmpspace.Fake(testutil.RaceSize[uint64](16<<20, 6<<20), 80<<20)()
	opt := join.Options{Sides: join.Sides{Keys: fifoOf(t, "keys.csv", &stream{head: []byte("K\n"), body: []byte("1\n")}), Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "J"}, Resources: join.Resources{TempDir: tmp}}
	if _, err := Run(context.Background(), opt, NewCSV(io.Discard)); !errors.Is(err, tmpspace.ErrFull) || !strings.Contains(err.Error(), "join: Keys "+opt.Keys+": a stream is copied to the temporary folder to infer its key type (a key type given reads it once, without a copy): the copy stopped after") {
		t.Errorf("Run, endless records: %v", err)
	}
	emptyDir(t, tmp)
}

// TestCompareTableStreamBounded: compare copies a stream side of every
// format checked as its reader will read it (columnar.CopyStream): random
// bytes given as Arrow or JSON lines stop at their first bytes, naming the
// stream, and nothing is left behind (they were copied to the disk's
// reserve).
func TestCompareTableStreamBounded(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "k.csv")
	os.WriteFile(keys, []byte("K\n1\n"), 0o644)
	tmp := t.TempDir()
	for _, tc := range []struct{ format, want string }{
		{"arrow", "it does not begin as an Arrow IPC file"},
		{"jsonl", ":1: not a valid file of its format: not a JSON object"},
		{"parquet", "it does not begin as a Parquet file"},
	} {
		in := fifoOf(t, "in", &stream{rnd: rand.New(rand.NewPCG(1, 2))})
		_, err := Compare(context.Background(), join.Options{Sides: join.Sides{Keys: keys, Input: in, InputFormat: tc.format}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, Resources: join.Resources{TempDir: tmp}}, []filters.Kind{filters.Exact}, 1)
		if err == nil || !errors.Is(err, columnar.ErrFormat) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), in) {
			t.Errorf("%s: %v, want %q naming %s", tc.format, err, tc.want, in)
		}
		emptyDir(t, tmp)
	}
}
