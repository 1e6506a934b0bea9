package local

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestTSVOutput (issue 46): the TSV sink writes the rows the CSV sink
// writes, field for field: fields holding tabs, commas, quotes and line
// breaks, empty and NULL ones, read back by csvscan with a tab separator;
// unsorted and sorted, every join type.
func TestTSVOutput(t *testing.T) {
	keys, input := genTables(testutil.Seed(t))
	for i := range input.rows { // tabs in the text column
		if i%7 == 0 {
			input.rows[i][3] = sp([]string{"a\tb", "a\tb,\"c\""}[i%2])
		}
	}
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	read := func(data []byte, sep byte) []string {
		r := csvscan.NewReader(bytes.NewReader(data), "out")
		if err := r.SetSep(sep); err != nil {
			t.Fatal(err)
		}
		h, err := r.ReadHeader()
		if err != nil {
			t.Fatal(err)
		}
		out := []string{strings.Join(h, "\x1f")}
		var rows []string
		for r.Next() {
			var f []string
			for _, b := range r.Fields() {
				f = append(f, string(b))
			}
			rows = append(rows, strings.Join(f, "\x1f"))
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
		slices.Sort(rows)
		return append(out, rows...)
	}
	for _, jt := range raceJoinTypes(testutil.RaceSeed(t), 2) {
		for _, sort := range []bool{false, true} {
			opt := join.Options{Sides: join.Sides{Keys: kf["csv"], Input: inf["csv"]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt, Output: join.Output{Sort: sort}}
			var c, tv bytes.Buffer
			if _, err := Run(context.Background(), opt, NewCSV(&c)); err != nil {
				t.Fatal(err)
			}
			if _, err := Run(context.Background(), opt, NewTSV(&tv)); err != nil {
				t.Fatal(err)
			}
			want, got := read(c.Bytes(), ','), read(tv.Bytes(), '\t')
			if len(want) < 10 || !slices.Equal(got, want) {
				t.Fatalf("%s, sort %v: %d rows against %d: %s", jt, sort, len(got), len(want), testutil.FirstDiff(got, want))
			}
			if sort && jt == join.JoinInner && bytes.Count(tv.Bytes(), []byte("\t")) < len(want) {
				t.Fatalf("no tabs: %.200q", tv.Bytes())
			}
		}
	}
}
