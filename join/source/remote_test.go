package source_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/remote"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join/local"
	"github.com/acbfjoin/acbfjoin/join/source"
)

// spanRows reads every span of path (Spans, then OpenSpan each) into
// lines of its fields, with each row's line number.
func spanRows(t *testing.T, path string) []string {
	t.Helper()
	sp, err := source.Spans(path, "", 0)
	if err != nil {
		t.Fatalf("Spans(%s): %v", path, err)
	}
	var out []string
	for _, s := range sp {
		p := path
		if s.Path != "" {
			p = s.Path
		}
		r, c, err := source.OpenSpan(context.Background(), p, "", s, 2, ',')
		if err != nil {
			t.Fatalf("OpenSpan(%s, %+v): %v", p, s, err)
		}
		for r.Next() {
			out = append(out, fmt.Sprintf("%d %q", r.Line(), r.Fields()))
		}
		if err := r.Err(); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		c.Close()
	}
	return out
}

// TestRemoteSpans reads the NBER sample's citations as a beam worker does
// (Spans, OpenSpan) from a remote file system (remote.Mem) and from the
// local disk: as CSV, gzip, Parquet of several row groups, and a folder and
// a glob of three parts; the rows are the same, and the remote file is
// read by ranges.
func TestRemoteSpans(t *testing.T) {
	cite := filepath.Join(testutil.NBERMini(t), "cite75_99.mini.txt")
	text, err := os.ReadFile(cite)
	testutil.Check(t, err)
	dir := t.TempDir()
	pq := filepath.Join(dir, "cite.parquet")
	if _, err := local.ConvertCSVFile(context.Background(), cite, pq, 1000, dir); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(text)
	zw.Close()
	testutil.WriteFile(t, filepath.Join(dir, "cite.csv.gz"), gz.Bytes(), 0o644)
	lines := strings.SplitAfter(string(text), "\n")
	header, body := lines[0], lines[1:]
	parts := filepath.Join(dir, "parts")
	os.Mkdir(parts, 0o755)
	m := &remote.Mem{}
	remote.Register("memspans", m)
	third := len(body) / 3
	for i, b := range [][]string{body[:third], body[third : 2*third], body[2*third:]} {
		data := []byte(header + strings.Join(b, ""))
		testutil.WriteFile(t, filepath.Join(parts, fmt.Sprintf("part-%d.csv", i)), data, 0o644)
		m.Put(fmt.Sprintf("memspans://b/parts/part-%d.csv", i), data)
	}
	m.Put("memspans://b/parts/_SUCCESS", nil)
	m.Put("memspans://b/parts/_temporary/0/x.csv", []byte("x\n"))
	m.Put("memspans://b/cite.csv", text)
	m.Put("memspans://b/cite.csv.gz", gz.Bytes())
	pqData, err := os.ReadFile(pq)
	testutil.Check(t, err)
	m.Put("memspans://b/cite.parquet", pqData)
	for _, c := range []struct{ local, url string }{
		{cite, "memspans://b/cite.csv"},
		{filepath.Join(dir, "cite.csv.gz"), "memspans://b/cite.csv.gz"},
		{pq, "memspans://b/cite.parquet"},
		{parts, "memspans://b/parts"},
		{filepath.Join(parts, "part-*.csv"), "memspans://b/parts/part-*.csv"},
	} {
		want, got := spanRows(t, c.local), spanRows(t, c.url)
		if len(want) < 1000 || !slices.Equal(got, want) {
			t.Errorf("%s: %d rows, want %d as %s's: %s", c.url, len(got), len(want), c.local, testutil.FirstDiff(got, want))
		}
	}
	// A file written again after the spans were cut is refused by name.
	sp, err := source.Spans("memspans://b/cite.csv", "", 0)
	testutil.Check(t, err)
	m.Put("memspans://b/cite.csv", text)
	if _, _, err := source.OpenSpan(context.Background(), "memspans://b/cite.csv", "", sp[0], 2, ','); err == nil || !strings.Contains(err.Error(), "memspans://b/cite.csv changed after the pipeline cut it") {
		t.Errorf("a file written again: %v", err)
	}
	// A folder and a glob by the rules of local ones.
	for _, c := range []struct{ path, want string }{
		{"memspans://b/nothing/*.csv", "no file matches it"},
		{"memspans://b", "holds the folder parts"},
	} {
		if _, _, err := source.Files(c.path, ""); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
	if files, many, err := source.Files("memspans://b/nope.csv", ""); err != nil || many || len(files) != 1 {
		t.Errorf("a missing file, for its reader to report: %v %v %v", files, many, err)
	}
	if _, _, err := source.OpenSpan(context.Background(), "memspans://b/nope.csv", "", source.WholeFile, 2, ','); err == nil || !strings.Contains(err.Error(), "memspans://b/nope.csv") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestUnregisteredURL: a URL of a scheme no file system of the program
// reads is refused by name, not read as a local path (s3:/b/...).
func TestUnregisteredURL(t *testing.T) {
	for _, p := range []string{"nosuch://b/x.csv", "nosuch://b/parts/*.csv"} {
		_, _, err := source.Files(p, "")
		if err == nil || !strings.Contains(err.Error(), "nosuch:// is read by beamjoin") || !errors.Is(err, remote.ErrScheme) {
			t.Errorf("%s: %v", p, err)
		}
	}
}
