package stream

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestNested: a key side table with list, struct and map columns joins
// semi and anti (which write the probe's columns only) as the same table
// without them does; inner, which writes the key side's columns, a probe
// table with one, and a nested key or time column are refused, naming the
// file and the column.
func TestNested(t *testing.T) {
	dir := t.TempDir()
	n, f := columnartest.Nested(30)
	defer n.Release()
	defer f.Release()
	nf := columnartest.Write(t, dir, "nested", n, 6, false)
	ff := columnartest.Write(t, dir, "flat", f, 6, false)
	b := []byte("ID,T\n")
	for i := 0; i < 60; i += 3 {
		b = fmt.Appendf(b, "%d,%d\n", i, 400+i)
	}
	probe := filepath.Join(dir, "probe.csv")
	if err := os.WriteFile(probe, b, 0o644); err != nil {
		t.Fatal(err)
	}
	timed := func(keys string, jt join.JoinType) Options {
		return Options{Keying: join.Keying{KeyCol: "K", JoinCol: "ID"}, KeyEvents: keys, Probe: probe, Window: 1000, KeyTime: "Q", ProbeTime: "T", JoinType: jt, TempDir: t.TempDir()}
	}
	for _, format := range []string{"parquet", "arrow-file"} {
		nested, flat := map[string]string{"parquet": nf.Parquet, "arrow-file": nf.ArrowFile}[format], map[string]string{"parquet": ff.Parquet, "arrow-file": ff.ArrowFile}[format]
		for _, jt := range []join.JoinType{join.JoinSemi, join.JoinAnti} {
			var got, want bytes.Buffer
			if _, err := Run(t.Context(), timed(nested, jt), &got); err != nil {
				t.Errorf("%s %s: %v", format, jt, err)
				continue
			}
			if _, err := Run(t.Context(), timed(flat, jt), &want); err != nil {
				t.Fatalf("%s %s flat: %v", format, jt, err)
			}
			if got.String() != want.String() || strings.Count(want.String(), "\n") < 2 {
				t.Errorf("%s %s: got\n%s\nwant\n%s", format, jt, got.String(), want.String())
			}
		}
		keyCol := timed(nested, join.JoinSemi)
		keyCol.KeyCol = "tags"
		timeCol := timed(nested, join.JoinSemi)
		timeCol.KeyTime = "attrs"
		probeTable := Options{Keying: join.Keying{KeyCol: "ID", JoinCol: "K"}, KeyEvents: probe, Probe: nested, Window: 1000, KeyTime: "T", ProbeTime: "Q", JoinType: join.JoinSemi, TempDir: t.TempDir()}
		for _, c := range []struct {
			name string
			opt  Options
			want []string
		}{
			{"inner", timed(nested, join.JoinInner), []string{`column "tags" is nested`, "a stream writes every column"}},
			{"key column", keyCol, []string{`column "tags" is nested`, "a join key is a flat column"}},
			{"time column", timeCol, []string{`column "attrs" is nested`, "a time column is a flat"}},
			{"probe", probeTable, []string{`column "tags" is nested`, "a stream writes every column"}},
		} {
			_, err := Run(t.Context(), c.opt, new(bytes.Buffer))
			if err == nil {
				t.Errorf("%s %s: no error", format, c.name)
				continue
			}
			if !errors.Is(err, ErrOptions) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), filepath.Base(nested)) {
				t.Errorf("%s %s: %v: want one line naming the file, an options error", format, c.name, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s %s: %q does not say %s", format, c.name, err, w)
				}
			}
			if testing.Verbose() && format == "parquet" {
				t.Log(err)
			}
		}
	}
}
