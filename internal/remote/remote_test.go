package remote

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"testing"
)

// TestFileReadAt reads a remote file at random offsets and lengths, and
// sequentially by small reads, against bytes.Reader of the same bytes.
func TestFileReadAt(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	data := make([]byte, 3*Window+12345)
	for i := range data {
		data[i] = byte(rng.IntN(256))
	}
	m := &Mem{}
	Register("memtest", m)
	m.Put("memtest://b/x", data)
	f, err := Open(context.Background(), "memtest://b/x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != int64(len(data)) {
		t.Fatalf("size %d, want %d", f.Size(), len(data))
	}
	want := bytes.NewReader(data)
	for range 200 {
		off := rng.Int64N(int64(len(data)) + 10)
		p := make([]byte, rng.IntN(1<<20))
		q := make([]byte, len(p))
		n, err := f.ReadAt(p, off)
		wn, werr := want.ReadAt(q, off)
		if n != wn || !bytes.Equal(p[:n], q[:wn]) || (err == nil) != (werr == nil) {
			t.Fatalf("ReadAt(%d bytes, %d): %d, %v; want %d, %v", len(p), off, n, err, wn, werr)
		}
	}
	// Sequential small reads: one request a window, the windows doubling.
	m.Requests = 0
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	buf := make([]byte, 4096)
	for {
		n, err := f.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got.Bytes(), data) {
		t.Fatal("sequential read differs")
	}
	if m.Requests > 10 {
		t.Errorf("%d requests for %d bytes read in order", m.Requests, len(data))
	}
	// Three readers that take turns, each in order from its own offset
	// (a CSV file's parts): each goes on with its own range.
	m.Requests = 0
	cur := []int64{0, int64(len(data)) / 3, 2 * int64(len(data)) / 3}
	for range 1000 {
		for i := range cur {
			n, err := f.ReadAt(buf, cur[i])
			if err != nil || !bytes.Equal(buf[:n], data[cur[i]:cur[i]+int64(n)]) {
				t.Fatalf("reader %d at %d: %v", i, cur[i], err)
			}
			cur[i] += int64(n)
		}
	}
	if m.Requests > 3*6 { // windows of 256 KiB, 512 KiB, ... 4 MiB: 5 each
		t.Errorf("%d requests for three readers of 4 MB each, in turns", m.Requests)
	}
}

// TestFileShrank: a range shorter than asked (the file written again, a
// connection cut) is an error naming the file, never a short file.
func TestFileShrank(t *testing.T) {
	m := &Mem{}
	Register("memshrink", m)
	m.Put("memshrink://b/x", make([]byte, 1000))
	f, err := Open(context.Background(), "memshrink://b/x")
	if err != nil {
		t.Fatal(err)
	}
	m.Put("memshrink://b/x", make([]byte, 500))
	_, err = io.ReadAll(f)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("memshrink://b/x: the file ended at byte 500 of 1000")) {
		t.Fatalf("err %v", err)
	}
}

func TestSchemeAndMissing(t *testing.T) {
	for _, c := range []struct{ in, want string }{{"s3://b/k", "s3"}, {"/a/b", ""}, {"a.b://x", ""}, {"./x://y", ""}, {"://x", ""}} {
		if got := Scheme(c.in); got != c.want {
			t.Errorf("Scheme(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if Is("nosuchscheme://b/k") {
		t.Error("an unregistered scheme is remote")
	}
	Register("memmiss", &Mem{})
	if _, err := Open(context.Background(), "memmiss://b/k"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Stat(context.Background(), "nosuchscheme://b/k"); !errors.Is(err, ErrScheme) {
		t.Errorf("unregistered: %v", err)
	}
}
