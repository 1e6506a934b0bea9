package fsys

import (
	"context"
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
