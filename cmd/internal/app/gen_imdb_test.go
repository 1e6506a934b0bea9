package app

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/datasets/imdb"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestGenIMDB: join gen --dataset imdb-ratings writes title.ratings.tsv, the
// same as the library's, and prints one line with the path, the rows and
// the class histogram.
func TestGenIMDB(t *testing.T) {
	testutil.SkipUnderRace(t)
	const rows, seed = 20000, 3
	dir := filepath.Join(t.TempDir(), "data")
	out, errOut, err := runCmd("gen", "--dataset", "imdb-ratings", "--rows", fmt.Sprint(rows), "--seed", fmt.Sprint(seed), "--out", dir)
	if err != nil {
		t.Fatalf("gen: %v\n%s", err, errOut)
	}
	t.Logf("seed %d: %s", seed, out)
	path := filepath.Join(dir, imdb.RatingsFile)
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	res, err := imdb.WriteRatings(t.Context(), &want, imdb.RatingsOptions{Rows: rows, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("%s differs from imdb.WriteRatings's output", path)
	}
	if !bytes.HasPrefix(got, []byte(imdb.RatingsHeader+"\n")) || bytes.Count(got, []byte("\n")) != rows+1 {
		t.Fatalf("%s: want the header and %d rows", path, rows)
	}
	if strings.Count(out, "\n") != 1 {
		t.Fatalf("want one line, got %q", out)
	}
	for _, s := range []string{path, fmt.Sprintf("%d rows", rows), fmt.Sprintf("7:%d", res.Classes[7]), fmt.Sprintf("10:%d", res.Classes[10])} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q: %q", s, out)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries in %s, want the file alone", len(ents), dir)
	}
}

// TestGenIMDBFlags: the flags of one dataset are refused with the other, in
// one line naming the flag, and nothing is written.
func TestGenIMDBFlags(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dataset", "imdb-ratings", "--scale", "0.5"}, "--scale"},
		{[]string{"--dataset", "imdb-ratings", "--workers", "2"}, "--workers"},
		{[]string{"--rows", "1000"}, "--rows"},
		{[]string{"--dataset", "nber", "--rows", "1000"}, "--rows"},
		{[]string{"--dataset", "imdb"}, "--dataset"},
		{[]string{"--dataset", "imdb-ratings", "--rows", "0"}, "--rows 0"},
		{[]string{"--dataset", "imdb-ratings", "--rows", "10000000"}, "--rows 10000000"},
	} {
		_, _, err := runCmd(append([]string{"gen", "--out", dir}, tc.args...)...)
		var u usageError
		if err == nil || !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("join gen %q = %v, want a one-line usage error naming %s", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("refused runs made %s: %v", dir, err)
	}
}
