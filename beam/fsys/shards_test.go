package fsys

import (
	"bytes"
	"context"
	"errors"
	"io"
	iofs "io/fs"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/acbfjoin/acbfjoin/internal/testutil"

	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
)

func TestSharding(t *testing.T) {
	for _, c := range []struct {
		out, prefix, ext, name1, err string
	}{
		{"s3://b/out/joined.csv", "s3://b/out/joined", ".csv", "s3://b/out/joined-00001-of-00003.csv", ""},
		{"s3://b/out/joined.csv.gz", "s3://b/out/joined", ".csv.gz", "s3://b/out/joined-00001-of-00003.csv.gz", ""},
		{"/tmp/x/rows", "/tmp/x/rows", "", "/tmp/x/rows-00001-of-00003", ""},
		{"s3://b/out.2024.csv", "s3://b/out.2024", ".csv", "s3://b/out.2024-00001-of-00003.csv", ""},
		{"s3://b", "", "", "", "names a bucket"},
		{"s3://b/", "", "", "", "names a folder"},
		{"gs://b/dir/", "", "", "", "names a folder"},
	} {
		sh, err := NewSharding(c.out, 3)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want %q", c.out, err, c.err)
			}
			continue
		}
		if err != nil || sh.Prefix != c.prefix || sh.Ext != c.ext || sh.Name(1) != c.name1 {
			t.Errorf("%s: %+v %q %v", c.out, sh, sh.Name(1), err)
			continue
		}
		if !sh.Owns(sh.Name(2)) || !sh.Owns(c.prefix+"-00007-of-00009"+c.ext) || !sh.Owns(sh.Temp+"/shard-00000") {
			t.Errorf("%s: does not own its shards", c.out)
		}
		if sh.Owns(c.prefix+"-1-of-3"+c.ext) || sh.Owns(c.prefix+"-0000a-of-00003"+c.ext) || sh.Owns(c.prefix+c.ext) || sh.Owns(c.prefix+"x-00001-of-00003"+c.ext) {
			t.Errorf("%s: owns what is not its shard", c.out)
		}
	}
	if _, err := NewSharding("s3://b/k.csv", 100000); err == nil {
		t.Error("100000 shards")
	}
}

func TestGlobEscape(t *testing.T) {
	for _, name := range []string{"s3://b/out[1]/j*?.csv", `a\b`, "plain"} {
		if ok, err := path.Match(globEscape(name)+"-*", name+"-00001"); !ok || err != nil {
			t.Errorf("%q: %v %v", name, ok, err)
		}
		if ok, _ := path.Match(globEscape(name), name+"x"); ok {
			t.Errorf("%q matches more than itself", name)
		}
	}
}

// TestCommitStopped: a commit whose context ends (a stop signal) keeps
// none of this run's shards under their names and removes the temporary
// folder; an earlier run's shards were removed first (RemovedEarlier), so
// the output is never a mix of two runs. A commit that runs through
// replaces them.
func TestCommitStopped(t *testing.T) {
	ctx := context.Background()
	fs, err := New(ctx, "memfs://stop/")
	if err != nil {
		t.Fatal(err)
	}
	list := func() []string {
		var all []string
		for _, p := range []string{"memfs://stop/*", "memfs://stop/*/*"} {
			l, err := fs.List(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, l...)
		}
		slices.Sort(all)
		return all
	}
	run := func(n int, stop bool) ([]string, error) {
		sh, err := NewSharding("memfs://stop/j.csv", n)
		if err != nil {
			t.Fatal(err)
		}
		if err := sh.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			rows := []string{fmt.Sprint("row", i)}
			next := func(s *string) bool {
				if len(rows) == 0 {
					return false
				}
				*s, rows = rows[0], rows[1:]
				return true
			}
			if err := sh.WriteShard(ctx, i, []byte("h\n"), next); err != nil {
				t.Fatal(err)
			}
		}
		cctx := ctx
		if stop {
			c, cancel := context.WithCancel(ctx)
			cancel()
			cctx = c
		}
		return sh.Commit(cctx, []byte("h\n"))
	}
	names, err := run(3, false)
	if err != nil || !slices.Equal(list(), names) {
		t.Fatalf("a first run: %v, %v; the folder holds %q", names, err, list())
	}
	if _, err := run(3, true); err == nil {
		t.Fatal("a stopped commit succeeded")
	}
	if got := list(); len(got) != 0 || !RemovedEarlier() {
		t.Errorf("after a stopped commit: %q (want nothing: the earlier run's removed first, this run's taken back); RemovedEarlier %v", got, RemovedEarlier())
	}
	names, err = run(2, false)
	if err != nil || !slices.Equal(list(), names) || len(names) != 2 {
		t.Errorf("a run after it: %v, %v; the folder holds %q", names, err, list())
	}
}

// flakyFS is a file system in memory (scheme flaky://) whose Rename of
// a name holding failOn renames and then fails: a store's copy that
// succeeded before the removal of its source did not.
type flakyFS struct {
	mu     sync.Mutex
	files  map[string][]byte
	failOn string
}

var flaky = &flakyFS{files: map[string][]byte{}}

func init() {
	filesystem.Register("flaky", func(context.Context) filesystem.Interface { return flaky })
}

func (f *flakyFS) Close() error { return nil }
func (f *flakyFS) List(_ context.Context, glob string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for n := range f.files {
		if ok, _ := path.Match(glob, n); ok {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}
func (f *flakyFS) OpenRead(_ context.Context, name string) (io.ReadCloser, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.files[name]
	if !ok {
		return nil, iofs.ErrNotExist
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

type flakyWriter struct {
	bytes.Buffer
	name string
}

func (w *flakyWriter) Close() error {
	flaky.mu.Lock()
	defer flaky.mu.Unlock()
	flaky.files[w.name] = w.Bytes()
	return nil
}
func (f *flakyFS) OpenWrite(_ context.Context, name string) (io.WriteCloser, error) {
	return &flakyWriter{name: name}, nil
}
func (f *flakyFS) Size(_ context.Context, name string) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.files[name]
	if !ok {
		return -1, iofs.ErrNotExist
	}
	return int64(len(b)), nil
}
func (f *flakyFS) Remove(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.files, name)
	return nil
}
func (f *flakyFS) Rename(_ context.Context, from, to string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[to] = f.files[from]
	delete(f.files, from)
	if f.failOn != "" && strings.Contains(to, f.failOn) {
		return errors.New("renamed, then failed")
	}
	return nil
}

// TestCommitTakesBack: a move that did its work and then failed still
// leaves its shard under its name; the failed commit removes that one too,
// with the others it moved: nothing of the run is left.
func TestCommitTakesBack(t *testing.T) {
	ctx := context.Background()
	sh, err := NewSharding("flaky://b/j.csv", 4)
	testutil.Check(t, err)
	testutil.Check(t, sh.Begin(ctx))
	for i := range 4 {
		done := false
		testutil.Check(t, sh.WriteShard(ctx, i, []byte("h\n"), func(s *string) bool {
			if done {
				return false
			}
			*s, done = fmt.Sprint("row", i), true
			return true
		}))
	}
	flaky.failOn = "-00002-of-"
	if _, err := sh.Commit(ctx, []byte("h\n")); err == nil || !strings.Contains(err.Error(), "renamed, then failed") {
		t.Fatalf("commit: %v", err)
	}
	if all, _ := flaky.List(ctx, "flaky://b/*"); len(all) != 0 {
		t.Errorf("left after a failed commit: %q", all)
	}
	if all, _ := flaky.List(ctx, "flaky://b/*/*"); len(all) != 0 {
		t.Errorf("left in the temporary folder: %q", all)
	}
}
