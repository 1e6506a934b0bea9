package app

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/datasets/ipstream"
)

// TestGenIPStream: join gen --dataset ipstream writes ipstream.csv and
// ipstream.events, the same as the library's for the same options (the
// defaults filled in as documented), and prints one line naming both.
func TestGenIPStream(t *testing.T) {
	for _, tc := range []struct {
		args []string
		opt  ipstream.Options
	}{
		{[]string{"--rows", "20000"}, ipstream.Options{Rows: 20000, Zipf: 1.1, Distinct: 2000, Events: 2000, Live: 100, Seed: 3}},
		{[]string{"--rows", "5000", "--zipf", "0.7", "--distinct", "400", "--events", "900"},
			ipstream.Options{Rows: 5000, Zipf: 0.7, Distinct: 400, Events: 900, Live: 20, Seed: 3}},
		{[]string{"--rows", "0", "--live", "1"}, ipstream.Options{Rows: 0, Zipf: 1.1, Distinct: 1, Events: 1, Live: 1, Seed: 3}},
	} {
		dir := filepath.Join(t.TempDir(), "data")
		args := append([]string{"gen", "--dataset", "ipstream", "--seed", "3", "--out", dir}, tc.args...)
		out, errOut, err := runCmd(args...)
		if err != nil {
			t.Fatalf("join %q: %v\n%s", args, err, errOut)
		}
		t.Logf("%s", out)
		var probe, events bytes.Buffer
		if err := ipstream.WriteProbe(t.Context(), &probe, tc.opt); err != nil {
			t.Fatal(err)
		}
		st, err := ipstream.WriteEvents(t.Context(), &events, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string][]byte{ipstream.ProbeFile: probe.Bytes(), ipstream.EventsFile: events.Bytes()} {
			got, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("join %q: %s differs from the library's for %+v (%v)", args, name, tc.opt, err)
			}
		}
		if n := bytes.Count(probe.Bytes(), []byte("\n")); n != int(tc.opt.Rows)+1 || !bytes.HasPrefix(probe.Bytes(), []byte(ipstream.ProbeHeader+"\n")) {
			t.Errorf("probe file: %d lines", n)
		}
		if strings.Count(out, "\n") != 1 {
			t.Errorf("want one line, got %q", out)
		}
		for _, s := range []string{filepath.Join(dir, ipstream.ProbeFile), filepath.Join(dir, ipstream.EventsFile),
			fmt.Sprintf("%d rows", tc.opt.Rows), fmt.Sprintf("%d inserts", st.Inserts), fmt.Sprintf("target %d", tc.opt.Live)} {
			if !strings.Contains(out, s) {
				t.Errorf("output lacks %q: %q", s, out)
			}
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 2 {
			t.Errorf("%d entries in %s, want the two files", len(ents), dir)
		}
	}
}

// TestGenIPStreamFlags: bad values and the flags of other datasets are
// refused in one line naming the flag, and nothing is written.
func TestGenIPStreamFlags(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--zipf", "0"}, "--zipf 0"},
		{[]string{"--zipf", "-1.5"}, "--zipf -1.5"},
		{[]string{"--zipf", "NaN"}, "--zipf NaN"},
		{[]string{"--rows", "-1"}, "--rows -1"},
		{[]string{"--rows", "2000000000000"}, "--rows 2000000000000"},
		{[]string{"--distinct", "0"}, "--distinct 0"},
		{[]string{"--distinct", "4294967297"}, "--distinct 4294967297"},
		{[]string{"--events", "-3"}, "--events -3"},
		{[]string{"--rows", "1000", "--live", "101"}, "--live 101"}, // D = 100
		{[]string{"--distinct", "10", "--live", "11"}, "--live 11"},
		{[]string{"--live", "0"}, "--live 0"},
		{[]string{"--scale", "0.5"}, "--scale"},
		{[]string{"--domain", "5"}, "--domain"},
		{[]string{"--workers", "2"}, "--workers"},
	} {
		args := append([]string{"gen", "--dataset", "ipstream", "--out", dir}, tc.args...)
		_, _, err := runCmd(args...)
		var u usageError
		if err == nil || !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("join %q = %v, want a one-line usage error naming %s", args, err, tc.want)
		}
	}
	for _, ds := range []string{"nber", "imdb-ratings", "triples"} {
		for _, flag := range []string{"--zipf", "--distinct", "--events", "--live"} {
			_, _, err := runCmd("gen", "--dataset", ds, "--out", dir, flag, "1")
			if err == nil || !strings.Contains(err.Error(), flag) {
				t.Errorf("join gen --dataset %s %s 1 = %v, want it refused", ds, flag, err)
			}
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("refused runs made %s: %v", dir, err)
	}
}
