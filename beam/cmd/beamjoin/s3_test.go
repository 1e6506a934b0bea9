package main

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// fakeS3 is an S3 server on loopback (gofakes3, in memory) behind a
// middleware that denies requests, cuts answers or dies, on demand.
type fakeS3 struct {
	srv     *httptest.Server
	backend *s3mem.Backend
	mu      sync.Mutex
	fault   fault
	gets    map[string]int // GETs by path
	dead    bool           // every request's connection is closed
}

// fault is what the server does to the requests of method whose path
// holds Path, after the first After GETs of that path have passed.
type fault struct {
	Kind   string // "deny" (403 AccessDenied), "cut" (half the answer, then the connection closed), "die" (cut, then every request refused)
	Method string
	Path   string
	After  int
}

func newFakeS3(t *testing.T) *fakeS3 {
	t.Helper()
	f := &fakeS3{backend: s3mem.New(), gets: map[string]int{}}
	h := gofakes3.New(f.backend).Server()
	f.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		if r.Method == http.MethodGet {
			f.gets[r.URL.Path]++
		}
		ft, dead := f.fault, f.dead
		hit := ft.Kind != "" && r.Method == ft.Method && strings.Contains(r.URL.Path, ft.Path) && (r.Method != http.MethodGet || f.gets[r.URL.Path] > ft.After)
		if hit && ft.Kind == "die" {
			f.dead = true
		}
		f.mu.Unlock()
		switch {
		case dead:
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
		case hit && ft.Kind == "deny":
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`)
		case hit: // cut, die: half the answer, then the connection closed
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			body := rec.Body.Bytes()
			w.Write(body[:len(body)/2])
			w.(http.Flusher).Flush()
			if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
				conn.Close()
			}
		default:
			h.ServeHTTP(w, r)
		}
	}))
	// A client that closes a range it no longer needs makes the server
	// log its failed write: not this test's business.
	f.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL": f.srv.URL, "AWS_REGION": "us-east-1",
		"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull,
		"AWS_MAX_ATTEMPTS": "1",
	} {
		t.Setenv(k, v)
	}
	return f
}

// set sets the fault and clears the counts and death of the last run.
func (f *fakeS3) set(ft fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fault, f.gets, f.dead = ft, map[string]int{}, false
}

func (f *fakeS3) put(t *testing.T, bucket, key string, data []byte) {
	t.Helper()
	if _, err := f.backend.PutObject(bucket, key, map[string]string{}, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatal(err)
	}
}

func (f *fakeS3) get(t *testing.T, bucket, key string) []byte {
	t.Helper()
	o, err := f.backend.GetObject(bucket, key, nil)
	if err != nil {
		t.Fatalf("%s/%s: %v", bucket, key, err)
	}
	defer o.Contents.Close()
	b, err := io.ReadAll(o.Contents)
	testutil.Check(t, err)
	return b
}

// keys lists the bucket's keys under prefix.
func (f *fakeS3) keys(t *testing.T, bucket, prefix string) []string {
	t.Helper()
	l, err := f.backend.ListBucket(bucket, &gofakes3.Prefix{Prefix: prefix, HasPrefix: true}, gofakes3.ListBucketPage{})
	testutil.Check(t, err)
	var out []string
	for _, c := range l.Contents {
		out = append(out, c.Key)
	}
	sort.Strings(out)
	return out
}

// bodyRows are a CSV output's lines after its header, sorted.
func bodyRows(t *testing.T, data []byte) (header string, rows []string) {
	t.Helper()
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	rows = slices.Clone(lines[1:])
	sort.Strings(rows)
	return lines[0], rows
}

// TestS3 runs the whole join with its keys, a folder of part files and
// the output in a bucket of an S3 server on loopback (issue 47): the
// shards hold the rows of the same join of the local files; a missing
// object, a denied request and a server that dies mid-read each end in
// one line naming the object, with no shard committed and the temporary
// folder removed.
func TestS3(t *testing.T) {
	testutil.SkipUnderRace(t)
	f := newFakeS3(t)
	testutil.Check(t, f.backend.CreateBucket("data"))
	mini := testutil.NBERMini(t)
	keysText, err := os.ReadFile(filepath.Join(mini, "apat63_99.mini.txt"))
	testutil.Check(t, err)
	citeText, err := os.ReadFile(filepath.Join(mini, "cite75_99.mini.txt"))
	testutil.Check(t, err)
	f.put(t, "data", "keys/apat.csv", keysText)
	lines := strings.SplitAfter(string(citeText), "\n")
	header, body := lines[0], lines[1:]
	third := len(body) / 3
	for i, b := range [][]string{body[:third], body[third : 2*third], body[2*third:]} {
		f.put(t, "data", fmt.Sprintf("cite/part-%05d.csv", i), []byte(header+strings.Join(b, "")))
	}
	f.put(t, "data", "cite/_SUCCESS", nil)
	tmp := t.TempDir()
	local := filepath.Join(tmp, "local.csv")
	base := []string{"--key-col", "PATENT", "--join-col", "CITED", "--quiet"}
	// partGets is how many GETs of part-00002 a run makes: the launcher's
	// (its header, its ranges' ends), then a worker's for each range. A
	// fault after all but the last hits a worker, in the pipeline.
	var partGets int
	for _, jt := range []string{"inner", "left"} {
		args := append(slices.Clone(base), "--join", jt)
		code, _, stderr := runCmd(t, t.TempDir(), append(args, "--keys", filepath.Join(mini, "apat63_99.mini.txt"), "--input", filepath.Join(mini, "cite75_99.mini.txt"), "--out", local)...)
		if code != 0 {
			t.Fatalf("local %s join: exit %d: %s", jt, code, stderr)
		}
		wantHeader, want := bodyRows(t, readFile(t, local))
		out := "out-" + jt + "/joined.csv"
		f.set(fault{})
		code, _, stderr = runCmd(t, t.TempDir(), append(args, "--keys", "s3://data/keys/apat.csv", "--input", "s3://data/cite", "--out", "s3://data/"+out, "--shards", "3")...)
		if code != 0 {
			t.Fatalf("S3 %s join: exit %d: %s", jt, code, stderr)
		}
		f.mu.Lock()
		partGets = f.gets["/data/cite/part-00002.csv"]
		f.mu.Unlock()
		keys := f.keys(t, "data", "out-"+jt+"/")
		wantKeys := []string{"out-" + jt + "/joined-00000-of-00003.csv", "out-" + jt + "/joined-00001-of-00003.csv", "out-" + jt + "/joined-00002-of-00003.csv"}
		if !slices.Equal(keys, wantKeys) {
			t.Fatalf("%s: the bucket holds %q, want %q (no temporary folder left)", jt, keys, wantKeys)
		}
		var got []string
		for _, k := range keys {
			h, rows := bodyRows(t, f.get(t, "data", k))
			if h != wantHeader {
				t.Errorf("%s: header %q, want %q", k, h, wantHeader)
			}
			if len(rows) == 0 {
				t.Errorf("%s: no rows (the rows are spread over the shards by hash)", k)
			}
			got = append(got, rows...)
		}
		sort.Strings(got)
		if len(want) < 1000 || !slices.Equal(got, want) {
			t.Errorf("%s join from S3: %d rows, want %d as the local join's: %s", jt, len(got), len(want), testutil.FirstDiff(got, want))
		}
	}

	// A second run with fewer shards replaces the first run's: a glob of
	// the output never mixes two runs.
	code, _, stderr := runCmd(t, t.TempDir(), append(slices.Clone(base), "--keys", "s3://data/keys/apat.csv", "--input", "s3://data/cite", "--out", "s3://data/out-inner/joined.csv", "--shards", "2")...)
	if code != 0 {
		t.Fatalf("second run: %s", stderr)
	}
	if keys := f.keys(t, "data", "out-inner/"); !slices.Equal(keys, []string{"out-inner/joined-00000-of-00002.csv", "out-inner/joined-00001-of-00002.csv"}) {
		t.Errorf("after a run of 2 shards: %q", keys)
	}

	// Keys are names as they are: ?, # and % are not URL syntax. An input
	// object "odd/x?y #1%41.csv" beside "odd/x" (which must not be read),
	// and an output named with them.
	f.put(t, "data", "odd/x?y #1%41.csv", []byte(header+strings.Join(body[:third], "")))
	f.put(t, "data", "odd/x", []byte(header))
	code, _, stderr = runCmd(t, t.TempDir(), append(slices.Clone(base), "--keys", "s3://data/keys/apat.csv", "--input", "s3://data/odd/x?y_#1%41.csv", "--out", "s3://data/odd-out/a?b#c%41.csv", "--shards", "1")...)
	if code == 0 {
		t.Fatalf("a missing object (x?y_#1%%41.csv): exit 0")
	}
	// (no spaces on runCmd's command line: the glob ? stands for the space)
	code, stdout, stderr := runCmd(t, t.TempDir(), append(slices.Clone(base), "--keys", "s3://data/keys/apat.csv", "--input", "s3://data/odd/x[?]y?#1%41.csv", "--out", "s3://data/odd-out/a?b#c%41.csv", "--shards", "1")...)
	if code != 0 {
		t.Fatalf("odd names: exit %d: %s", code, stderr)
	}
	if keys := f.keys(t, "data", "odd-out/"); !slices.Equal(keys, []string{"odd-out/a?b#c%41-00000-of-00001.csv"}) {
		t.Errorf("odd names: the bucket's odd-out/ holds %q", keys)
	}
	if !strings.Contains(stdout, fmt.Sprintf("input: %d rows", third)) {
		t.Errorf("odd names: want %d input rows (the object x?y #1%%41.csv, not x): %s", third, stdout)
	}
	// An output in the folder of an input (or matching its glob) is
	// refused, as a local one: the next run would read it.
	for _, c := range []struct{ input, out string }{{"s3://data/cite", "s3://data/cite/joined.csv"}, {"s3://data/cite/*.csv", "s3://data/cite/joined.csv"}} {
		code, _, stderr := runCmd(t, t.TempDir(), append(slices.Clone(base), "--keys", "s3://data/keys/apat.csv", "--input", c.input, "--out", c.out)...)
		if code != 2 || !strings.Contains(stderr, "--out "+c.out) || !strings.Contains(stderr, "next run") {
			t.Errorf("--input %s --out %s: exit %d: %s", c.input, c.out, code, stderr)
		}
	}

	// Failures: one line naming the object, exit status not 0, nothing
	// under the output's prefix.
	for _, c := range []struct {
		name        string
		keys, input string
		fault       fault
		want        []string
	}{
		{"missing keys", "s3://data/keys/nope.csv", "s3://data/cite", fault{}, []string{"s3://data/keys/nope.csv", "NotFound", "404"}},
		{"missing input", "s3://data/keys/apat.csv", "s3://data/nothing/*.csv", fault{}, []string{"s3://data/nothing/*.csv", "no file matches it"}},
		{"denied read (launcher)", "s3://data/keys/apat.csv", "s3://data/cite", fault{"deny", "GET", "/data/cite/part-00001.csv", 0}, []string{"s3://data/cite/part-00001.csv", "Access Denied", "403"}},
		{"denied read (worker)", "s3://data/keys/apat.csv", "s3://data/cite", fault{"deny", "GET", "/data/cite/part-00002.csv", partGets - 1}, []string{"s3://data/cite/part-00002.csv", "Access Denied", "403"}},
		{"denied write (launcher)", "s3://data/keys/apat.csv", "s3://data/cite", fault{"deny", "PUT", "/data/fail/", 0}, []string{"--out s3://data/fail/joined.csv", "Access Denied", "403"}},
		{"denied write (worker)", "s3://data/keys/apat.csv", "s3://data/cite", fault{"deny", "PUT", "/shard-00001", 0}, []string{"s3://data/fail/_beamjoin-joined-", "/shard-00001", "Access Denied", "403"}},
		{"denied commit (launcher)", "s3://data/keys/apat.csv", "s3://data/cite", fault{"deny", "PUT", "/data/fail/joined-00001-of-00002.csv", 0}, []string{"s3://data/fail/joined-00001-of-00002.csv", "Access Denied", "403"}},
		{"failed look at a shard (launcher)", "s3://data/keys/apat.csv", "s3://data/cite", fault{"deny", "HEAD", "/shard-00001", 0}, []string{"shard-00001", "403"}},
		{"connection cut mid-read (worker)", "s3://data/keys/apat.csv", "s3://data/cite", fault{"cut", "GET", "/data/cite/part-00002.csv", partGets - 1}, []string{"s3://data/cite/part-00002.csv", "the connection was cut"}},
		{"server dies mid-read (worker)", "s3://data/keys/apat.csv", "s3://data/cite", fault{"die", "GET", "/data/cite/part-00002.csv", partGets - 1}, []string{"s3://data/cite/part-00002.csv"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.set(c.fault)
			defer f.set(fault{})
			code, stdout, stderr := runCmd(t, t.TempDir(), append(slices.Clone(base), "--keys", c.keys, "--input", c.input, "--out", "s3://data/fail/joined.csv", "--shards", "2")...)
			msg := strings.TrimSpace(stderr)
			t.Logf("exit %d: %s", code, msg)
			if code == 0 || strings.Count(msg, "\n") != 0 {
				t.Fatalf("exit %d, stdout %q, stderr (want one line) %q", code, stdout, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			f.set(fault{}) // alive again, to be looked into
			keys := f.keys(t, "data", "fail/")
			if c.fault.Kind == "die" {
				// A dead server could not be told to remove the
				// temporary folder's marker; no shard is under the
				// output's names.
				keys = slices.DeleteFunc(keys, func(k string) bool { return strings.HasPrefix(k, "fail/_beamjoin-joined-") })
			}
			if len(keys) != 0 {
				t.Errorf("left in the bucket: %q", keys)
			}
		})
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	testutil.Check(t, err)
	return b
}
