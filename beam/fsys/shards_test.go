package fsys

import (
	"path"
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
