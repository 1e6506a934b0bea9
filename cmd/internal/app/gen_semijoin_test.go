package app

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/datasets/semijoin"
)

// readRecords reads a CSV file with encoding/csv, the header dropped.
func readRecords(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("%s: %v (%d records)", path, err, len(recs))
	}
	return recs[1:]
}

// TestGenSemijoin: join gen --dataset semijoin writes keys.csv and
// input.csv with exactly round(S*rows) rows whose key is a key, prints one
// line saying so, and join run --filter exact on the two files returns
// those rows, for each key shape (string keys with --key-type string).
func TestGenSemijoin(t *testing.T) {
	for _, tc := range []struct {
		shape string
		args  []string
		keys  int
		rows  int64
		sel   float64
	}{
		{"dense", []string{"--keys", "300", "--rows", "5000", "--selectivity", "0.2"}, 300, 5000, 0.2},
		{"sparse", []string{"--keys", "1000", "--rows", "7001", "--selectivity", "0.001", "--distinct", "10"}, 1000, 7001, 0.001},
		{"string", []string{"--keys", "50", "--rows", "3000", "--selectivity", "0.5"}, 50, 3000, 0.5},
		{"string", []string{"--keys", "20", "--rows", "100", "--selectivity", "1"}, 20, 100, 1},
		{"dense", []string{"--keys", "20", "--rows", "100", "--selectivity", "0"}, 20, 100, 0},
		{"sparse", []string{"--keys", "500", "--rows", "4000", "--selectivity", "0.1", "--zipf", "1.5"}, 500, 4000, 0.1},
	} {
		dir := filepath.Join(t.TempDir(), "data")
		args := append([]string{"gen", "--dataset", "semijoin", "--key-shape", tc.shape, "--seed", "4", "--out", dir}, tc.args...)
		out, errOut, err := runCmd(args...)
		if err != nil {
			t.Fatalf("join %q: %v\n%s", args, err, errOut)
		}
		t.Logf("%s", out)
		members := int64(math.Round(tc.sel * float64(tc.rows)))
		keysPath, inputPath := filepath.Join(dir, semijoin.KeysFile), filepath.Join(dir, semijoin.InputFile)
		skew := ""
		if i := slices.Index(tc.args, "--zipf"); i >= 0 {
			skew = "; keys Zipf " + tc.args[i+1]
		}
		want := fmt.Sprintf("wrote %s (%d keys) and %s (%d rows, %d with a key: selectivity %g%s)\n", keysPath, tc.keys, inputPath, tc.rows, members, tc.sel, skew)
		if out != want {
			t.Errorf("join %q printed %q, want %q", args, out, want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 2 {
			t.Errorf("%d entries in %s, want the two files", len(ents), dir)
		}
		keys := map[string]bool{}
		for _, rec := range readRecords(t, keysPath) {
			keys[rec[0]] = true
		}
		var got int64
		input := readRecords(t, inputPath)
		for _, rec := range input {
			if keys[rec[1]] {
				got++
			}
		}
		if len(keys) != tc.keys || int64(len(input)) != tc.rows || got != members {
			t.Fatalf("join %q: %d distinct keys, %d rows, %d with a key; want %d, %d, %d", args, len(keys), len(input), got, tc.keys, tc.rows, members)
		}

		joined := filepath.Join(t.TempDir(), "joined.csv")
		run := []string{"run", "--keys", keysPath, "--key-col", "K", "--input", inputPath, "--join-col", "K", "--filter", "exact", "--quiet", "--out", joined}
		if tc.shape == "string" {
			run = append(run, "--key-type", "string")
		}
		if _, errOut, err := runCmd(run...); err != nil {
			t.Fatalf("join %q: %v\n%s", run, err, errOut)
		}
		rows := readRecords(t, joined)
		if int64(len(rows)) != members {
			t.Errorf("join %q: %d rows, want the %d member rows", run, len(rows), members)
		}
		for _, rec := range rows {
			if !keys[rec[1]] {
				t.Fatalf("join %q: row %q has no key", run, rec)
			}
		}
	}
}

// TestGenSemijoinFlags: bad values, and the flags of other datasets, are
// refused in one line naming the flag; semijoin's flags are refused by the
// other datasets; nothing is written.
func TestGenSemijoinFlags(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--selectivity", "1.5"}, "--selectivity 1.5"},
		{[]string{"--selectivity", "-0.1"}, "--selectivity -0.1"},
		{[]string{"--selectivity", "NaN"}, "--selectivity NaN"},
		{[]string{"--selectivity", "half"}, "selectivity"},
		{[]string{"--key-shape", "bitmap"}, "--key-shape bitmap: want dense, sparse or string"},
		{[]string{"--key-shape", ""}, "--key-shape is empty"},
		{[]string{"--keys", "0"}, "--keys 0"},
		{[]string{"--keys", "100000001"}, "--keys 100000001"},
		{[]string{"--rows", "-1"}, "--rows -1"},
		{[]string{"--rows", "10000000001"}, "--rows 10000000001"},
		{[]string{"--distinct", "0"}, "--distinct 0"},
		{[]string{"--distinct", "-5"}, "--distinct -5"},
		{[]string{"--scale", "0.5"}, "--scale"},
		{[]string{"--workers", "2"}, "--workers"},
		{[]string{"--domain", "5"}, "--domain"},
		{[]string{"--zipf", "1"}, "--zipf 1"},
		{[]string{"--zipf", "0.5"}, "--zipf 0.5"},
		{[]string{"--zipf", "9"}, "--zipf 9"},
		{[]string{"--events", "10"}, "--events"},
		{[]string{"--live", "10"}, "--live"},
	} {
		args := append([]string{"gen", "--dataset", "semijoin", "--out", dir}, tc.args...)
		_, _, err := runCmd(args...)
		var u usageError
		if err == nil || !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("join %q = %v, want a one-line usage error naming %s", args, err, tc.want)
		}
	}
	for _, ds := range []string{"nber", "imdb-ratings", "triples", "ipstream"} {
		for _, flag := range []string{"--keys", "--selectivity", "--key-shape"} {
			_, _, err := runCmd("gen", "--dataset", ds, "--out", dir, flag, "1")
			if err == nil || !strings.Contains(err.Error(), flag) {
				t.Errorf("join gen --dataset %s %s 1 = %v, want it refused", ds, flag, err)
			}
		}
	}
	if _, _, err := runCmd("gen", "--dataset", "semi", "--out", dir); err == nil || !strings.Contains(err.Error(), "semijoin") {
		t.Errorf("join gen --dataset semi = %v, want the list of datasets with semijoin", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("refused runs made %s: %v", dir, err)
	}
}
