package main

import (
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestGCS runs the join with its keys, a glob of part files and the output
// in a bucket of a GCS emulator on loopback (fake-gcs-server, the one
// Beam's own gcs tests use; STORAGE_EMULATOR_HOST points both Beam's file
// system and beam/fsys's range reader at it): the shards hold the local
// join's rows; a missing object is one line naming it, nothing written.
func TestGCS(t *testing.T) {
	testutil.SkipUnderRace(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testutil.Check(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	host := fmt.Sprintf("127.0.0.1:%d", port)
	mini := testutil.NBERMini(t)
	keysText := readFile(t, filepath.Join(mini, "apat63_99.mini.txt"))
	citeText := readFile(t, filepath.Join(mini, "cite75_99.mini.txt"))
	lines := strings.SplitAfter(string(citeText), "\n")
	header, body := lines[0], lines[1:]
	half := len(body) / 2
	objs := []fakestorage.Object{
		{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "data", Name: "keys/apat.csv"}, Content: keysText},
		{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "data", Name: "cite/part-0.csv"}, Content: []byte(header + strings.Join(body[:half], ""))},
		{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: "data", Name: "cite/part-1.csv"}, Content: []byte(header + strings.Join(body[half:], ""))},
	}
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{InitialObjects: objs, Scheme: "http", Host: "127.0.0.1", Port: uint16(port), PublicHost: host})
	testutil.Check(t, err)
	defer srv.Stop()
	t.Setenv("STORAGE_EMULATOR_HOST", host)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")

	local := filepath.Join(t.TempDir(), "local.csv")
	base := []string{"--key-col", "PATENT", "--join-col", "CITED", "--quiet"}
	code, _, stderr := runCmd(t, t.TempDir(), append(slices.Clone(base), "--keys", filepath.Join(mini, "apat63_99.mini.txt"), "--input", filepath.Join(mini, "cite75_99.mini.txt"), "--out", local)...)
	if code != 0 {
		t.Fatalf("local join: %s", stderr)
	}
	wantHeader, want := bodyRows(t, readFile(t, local))
	code, _, stderr = runCmd(t, t.TempDir(), append(slices.Clone(base), "--keys", "gs://data/keys/apat.csv", "--input", "gs://data/cite/part-*.csv", "--out", "gs://data/out/joined.csv", "--shards", "2")...)
	if code != 0 {
		t.Fatalf("GCS join: exit %d: %s", code, stderr)
	}
	listed, _, err := srv.ListObjects("data", "out/", "", false)
	testutil.Check(t, err)
	var names, got []string
	for _, o := range listed {
		names = append(names, o.Name)
		obj, err := srv.GetObject("data", o.Name)
		testutil.Check(t, err)
		h, rows := bodyRows(t, obj.Content)
		if h != wantHeader {
			t.Errorf("%s: header %q, want %q", o.Name, h, wantHeader)
		}
		got = append(got, rows...)
	}
	sort.Strings(names)
	if !slices.Equal(names, []string{"out/joined-00000-of-00002.csv", "out/joined-00001-of-00002.csv"}) {
		t.Fatalf("the bucket's out/ holds %q", names)
	}
	sort.Strings(got)
	if len(want) < 1000 || !slices.Equal(got, want) {
		t.Errorf("GCS join: %d rows, want %d: %s", len(got), len(want), testutil.FirstDiff(got, want))
	}
	code, _, stderr = runCmd(t, t.TempDir(), append(slices.Clone(base), "--keys", "gs://data/keys/nope.csv", "--input", "gs://data/cite/part-*.csv", "--out", "gs://data/fail/joined.csv")...)
	msg := strings.TrimSpace(stderr)
	t.Logf("a missing object: exit %d: %s", code, msg)
	if code == 0 || strings.Contains(msg, "\n") || !strings.Contains(msg, "gs://data/keys/nope.csv") {
		t.Errorf("a missing object: exit %d: %q", code, msg)
	}
	if l, _, _ := srv.ListObjects("data", "fail/", "", false); len(l) != 0 {
		t.Errorf("left after a failed run: %v", l)
	}
}
