package nber

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

func zipOf(t *testing.T, entry string, content []byte) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.Create(entry)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(content)
	zw.Close()
	return b.Bytes()
}

// fetchFixture serves generated NBER-shaped archives from a local server.
type fetchFixture struct {
	srv    *httptest.Server
	files  []FetchFile
	data   map[string][]byte
	ranges atomic.Int32
}

func newFetchFixture(t *testing.T) *fetchFixture {
	res, _ := genOnce(t, 0.001, 9, 0)
	fx := &fetchFixture{data: map[string][]byte{}}
	for _, spec := range []struct {
		name, entry, path string
		schema            Schema
		rows              int64
	}{
		{"acite75_99.zip", "cite75_99.txt", res.CitePath, Cite, res.Citations},
		{"apat63_99.zip", "apat63_99.txt", res.PatPath, Pat, res.Patents},
	} {
		content, err := os.ReadFile(spec.path)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(content)
		fx.data[spec.name] = zipOf(t, spec.entry, content)
		fx.files = append(fx.files, FetchFile{Name: spec.name, Entry: spec.entry, Schema: spec.schema, Rows: spec.rows, Size: int64(len(content)), SHA256: hex.EncodeToString(sum[:])})
	}
	fx.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		data, ok := fx.data[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Range") != "" {
			fx.ranges.Add(1)
		}
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(fx.srv.Close)
	return fx
}

func (fx *fetchFixture) fetcher() *Fetcher {
	return &Fetcher{BaseURL: fx.srv.URL + "/", Files: fx.files, Client: fx.srv.Client()}
}

func TestFetch(t *testing.T) {
	fx := newFetchFixture(t)
	dir := t.TempDir()
	if err := fx.fetcher().Fetch(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	for _, ff := range fx.files {
		got, err := os.ReadFile(filepath.Join(dir, ff.Name))
		if err != nil || !bytes.Equal(got, fx.data[ff.Name]) {
			t.Fatalf("%s not downloaded intact (%v)", ff.Name, err)
		}
		if _, err := os.Stat(filepath.Join(dir, ff.Name+".part")); !os.IsNotExist(err) {
			t.Fatalf("%s.part left behind", ff.Name)
		}
	}
	// Again: both are kept as they are.
	var lines []string
	f := fx.fetcher()
	f.Log = func(format string, args ...any) { lines = append(lines, format) }
	if err := f.Fetch(context.Background(), dir); err != nil || len(lines) != 2 || !strings.Contains(lines[0], "already present") {
		t.Fatalf("second Fetch: %v, log %q", err, lines)
	}
}

func TestFetchResume(t *testing.T) {
	fx := newFetchFixture(t)
	dir := t.TempDir()
	for _, ff := range fx.files {
		data := fx.data[ff.Name]
		testutil.WriteFile(t, filepath.Join(dir, ff.Name+".part"), data[:len(data)/2], 0o644)
	}
	if err := fx.fetcher().Fetch(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	if fx.ranges.Load() != 2 {
		t.Fatalf("%d range requests, want 2 (one resume per archive)", fx.ranges.Load())
	}
	for _, ff := range fx.files {
		if got, _ := os.ReadFile(filepath.Join(dir, ff.Name)); !bytes.Equal(got, fx.data[ff.Name]) {
			t.Fatalf("%s: resumed download differs", ff.Name)
		}
	}
}

func TestFetchRejects(t *testing.T) {
	// Under the race detector, 2 of the 5 cases (each serves and fetches
	// on the same goroutines), turning with the seed.
	for _, tc := range testutil.RacePick([]struct {
		name   string
		broken string // the archive that must not be in place
		break_ func(fx *fetchFixture)
		want   string
	}{
		{"truncated", "apat63_99.zip", func(fx *fetchFixture) {
			d := fx.data["apat63_99.zip"]
			fx.data["apat63_99.zip"] = d[:len(d)*2/3]
		}, "not a valid zip archive"},
		{"wrong checksum", "apat63_99.zip", func(fx *fetchFixture) { fx.files[1].SHA256 = strings.Repeat("0", 64) }, "has sha256"},
		{"wrong rows", "acite75_99.zip", func(fx *fetchFixture) { fx.files[0].Rows++ }, "rows, want"},
		{"corrupt entry", "acite75_99.zip", func(fx *fetchFixture) {
			d := bytes.Clone(fx.data["acite75_99.zip"])
			d[100] ^= 0xff // inside the stored entry: the zip CRC catches it
			fx.data["acite75_99.zip"] = d
		}, "acite75_99.zip"},
		{"missing on server", "apat63_99.zip", func(fx *fetchFixture) { delete(fx.data, "apat63_99.zip") }, "404"},
	}, 2, testutil.RaceSeed(t)) {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFetchFixture(t)
			tc.break_(fx)
			dir := t.TempDir()
			err := fx.fetcher().Fetch(context.Background(), dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Fetch = %v, want an error with %q", err, tc.want)
			}
			// The broken archive is neither in place nor left as .part.
			if _, serr := os.Stat(filepath.Join(dir, tc.broken)); serr == nil {
				t.Fatalf("%s is in place after %v", tc.broken, err)
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if strings.HasSuffix(e.Name(), ".part") {
					t.Fatalf("%s left behind after %v", e.Name(), err)
				}
			}
		})
	}
}

func TestFetchOffline(t *testing.T) {
	start := time.Now()
	f := &Fetcher{BaseURL: "http://127.0.0.1:1/", Files: NBERFiles}
	err := f.Fetch(context.Background(), t.TempDir())
	if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), "join gen") {
		t.Fatalf("offline Fetch = %v, want ErrOffline pointing to join gen", err)
	}
	t.Logf("offline Fetch failed after %v", time.Since(start))
}
