package local

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
)

// nestedSides writes columnartest.Nested(rows) (K, tags list, P, attrs
// struct, props map, Q) and its flat twin (K, P, Q) as Parquet (6-row
// groups), Arrow file and Arrow stream, and a CSV side (ID, X) whose IDs
// 0, 2, 4, ... meet some of K.
func nestedSides(t *testing.T, rows int) (nested, flat map[string]string, csv string) {
	dir := t.TempDir()
	n, f := columnartest.Nested(rows)
	defer n.Release()
	defer f.Release()
	nf := columnartest.Write(t, dir, "nested", n, 6, false)
	ff := columnartest.Write(t, dir, "flat", f, 6, false)
	nested = map[string]string{"parquet": nf.Parquet, "arrow-file": nf.ArrowFile, "arrow-stream": nf.ArrowStream}
	flat = map[string]string{"parquet": ff.Parquet, "arrow-file": ff.ArrowFile, "arrow-stream": ff.ArrowStream}
	b := []byte("ID,X\n")
	for i := 0; i < 2*rows; i += 2 {
		b = fmt.Appendf(b, "%d,x%d\n", i, i)
	}
	csv = filepath.Join(dir, "ids.csv")
	testutil.WriteFile(t, csv, b, 0o644)
	return nested, flat, csv
}

// TestNestedLeftOut: a table side with list, struct and map columns joins,
// on either side, in every format, when Columns leaves them out: the
// output is the same join's on the file without them.
func TestNestedLeftOut(t *testing.T) {
	nested, flat, csv := nestedSides(t, 30)
	for _, format := range []string{"parquet", "arrow-file", "arrow-stream"} {
		for _, jt := range []join.JoinType{join.JoinInner, join.JoinLeft, join.JoinAnti} {
			for _, keysSide := range []bool{true, false} {
				name := fmt.Sprintf("%s/%s/keys=%v", format, jt, keysSide)
				opt := func(table string) join.Options {
					if keysSide {
						cols := []string{"ID", "X", "P", "Q"}
						if jt.LargeOnly() {
							cols = cols[:2]
						}
						return join.Options{Sides: join.Sides{Keys: table, Input: csv}, Keying: join.Keying{KeyCol: "K", JoinCol: "ID"}, Output: join.Output{Columns: cols}, Resources: join.Resources{TempDir: t.TempDir()}, JoinType: jt}
					}
					return join.Options{Sides: join.Sides{Keys: csv, Input: table}, Keying: join.Keying{KeyCol: "ID", JoinCol: "K"}, Output: join.Output{Columns: []string{"Q", "K", "P"}}, Resources: join.Resources{TempDir: t.TempDir()}, JoinType: jt}
				}
				var got, want bytes.Buffer
				if _, err := Run(t.Context(), opt(nested[format]), NewCSV(&got)); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if _, err := Run(t.Context(), opt(flat[format]), NewCSV(&want)); err != nil {
					t.Fatalf("%s: flat: %v", name, err)
				}
				g, w := sortedLines(got.String()), sortedLines(want.String())
				if !slices.Equal(g, w) || len(w) < 2 {
					t.Errorf("%s: got\n%s\nwant\n%s", name, got.String(), want.String())
				}
			}
		}
	}
}

func sortedLines(s string) []string {
	l := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	slices.Sort(l[1:])
	return l
}

// TestNestedRefused: a nested column the join would read (a key column)
// or write (no Columns; Columns naming it) is refused before any work,
// one line naming the file and the column, an options error.
func TestNestedRefused(t *testing.T) {
	nested, _, csv := nestedSides(t, 10)
	for _, format := range []string{"parquet", "arrow-file", "arrow-stream"} {
		tab := nested[format]
		base := filepath.Base(tab)
		for _, c := range []struct {
			name string
			opt  join.Options
			want []string
		}{
			{"key column", join.Options{Sides: join.Sides{Keys: tab, Input: csv}, Keying: join.Keying{KeyCol: "tags", JoinCol: "ID"}}, []string{base, `column "tags" is nested`, "a join key is a flat column"}},
			{"join column", join.Options{Sides: join.Sides{Keys: csv, Input: tab}, Keying: join.Keying{KeyCol: "ID", JoinCol: "attrs"}}, []string{base, `column "attrs" is nested`, "a join key is a flat column"}},
			{"keys, all columns out", join.Options{Sides: join.Sides{Keys: tab, Input: csv}, Keying: join.Keying{KeyCol: "K", JoinCol: "ID"}}, []string{base, `column "tags" is nested`, "leave it out with --columns"}},
			{"input, all columns out", join.Options{Sides: join.Sides{Keys: csv, Input: tab}, Keying: join.Keying{KeyCol: "ID", JoinCol: "K"}, JoinType: join.JoinSemi}, []string{base, `column "tags" is nested`, "leave it out with --columns"}},
			{"keys, asked", join.Options{Sides: join.Sides{Keys: tab, Input: csv}, Keying: join.Keying{KeyCol: "K", JoinCol: "ID"}, Output: join.Output{Columns: []string{"ID", "props"}}}, []string{base, `column "props" is nested (map`, "leave it out with --columns"}},
			{"input, asked", join.Options{Sides: join.Sides{Keys: csv, Input: tab}, Keying: join.Keying{KeyCol: "ID", JoinCol: "K"}, Output: join.Output{Columns: []string{"K", "attrs"}}}, []string{base, `column "attrs" is nested (struct`, "leave it out with --columns"}},
		} {
			c.opt.TempDir = t.TempDir()
			_, err := Run(t.Context(), c.opt, NewCSV(&bytes.Buffer{}))
			if err == nil {
				t.Errorf("%s %s: no error", format, c.name)
				continue
			}
			if !errors.Is(err, join.ErrOptions) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s %s: %v: want one line, an options error", format, c.name, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s %s: %q does not say %s", format, c.name, err, w)
				}
			}
			if testing.Verbose() && format != "arrow-stream" {
				t.Log(err)
			}
		}
	}
}

// TestNestedWhereRefused: a predicate (Where, KeysWhere) over a nested
// column is refused before any row, naming the flag and the column: the
// join never decodes one, and it read as NULL in every row (a review
// found `st == nil` holding of a struct that was there).
func TestNestedWhereRefused(t *testing.T) {
	nested, _, csv := nestedSides(t, 10)
	for _, c := range []struct {
		name string
		opt  join.Options
	}{
		{"Where", join.Options{Sides: join.Sides{Keys: csv, Input: nested["parquet"]}, Keying: join.Keying{KeyCol: "ID", JoinCol: "K"}, Output: join.Output{Columns: []string{"K", "P"}}}},
		{"KeysWhere", join.Options{Sides: join.Sides{Keys: nested["arrow-file"], Input: csv}, Keying: join.Keying{KeyCol: "K", JoinCol: "ID"}, Output: join.Output{Columns: []string{"ID", "X"}}, JoinType: join.JoinSemi}},
	} {
		c.opt.TempDir = t.TempDir()
		if c.name == "Where" {
			c.opt.Where = "attrs == nil"
		} else {
			c.opt.KeysWhere = "tags != nil"
		}
		var out bytes.Buffer
		_, err := Run(t.Context(), c.opt, NewCSV(&out))
		if !errors.Is(err, join.ErrOptions) || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), "which a predicate does not read") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
