package local

import (
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
)

// FuzzCSVLineReadsBack: the line csvLine makes of a large-side row (raw,
// as the reader gave it) reads back with encoding/csv, an independent
// reader, as the fields the project's parser read from raw, and holds no
// CR outside quotes: a bare CR inside an unquoted field was passed on raw,
// which Python's csv (not encoding/csv, which keeps it in the field) takes
// for a line break.
func FuzzCSVLineReadsBack(f *testing.F) {
	for _, s := range []string{"a,b,c", "1,a\rb,3", `"x,y",z`, "a\tb", "1,\"a\rb\",c", "\rx,y", "x,y\rz", `a,"b""c",d`, "1,2"} {
		f.Add([]byte(s), byte(','), uint8(2))
		f.Add([]byte(s), byte('\t'), uint8(1))
	}
	f.Fuzz(func(t *testing.T, raw []byte, sep byte, n uint8) {
		if _, err := csvscan.ParseRecordSep([]byte("a"), 1, sep); err != nil || bytes.ContainsAny(raw, "\n") {
			return // a separator the join refuses; a row holds no line break
		}
		m := &mapWorker{sep: sep, nfields: int(n%5) + 1}
		want, err := csvscan.ParseRecordSep(append(slices.Clone(raw), '\r', '\n'), m.nfields, sep) // the record as the reader reads it in a file
		if err != nil || len(want) == 0 || len(want) == 1 && len(want[0]) == 0 {
			return // refused (an error naming the row); a blank line is no row; one empty field is written "" apart (join.AppendOutputRow)
		}
		line, err := m.csvLine(nil, raw)
		if err != nil {
			t.Fatalf("%q sep %q: %v", raw, sep, err)
		}
		if bareCR(line) {
			t.Fatalf("%q sep %q: the line %q holds a CR outside quotes", raw, sep, line)
		}
		rd := csv.NewReader(bytes.NewReader(append(slices.Clone(line), '\n')))
		rd.FieldsPerRecord = -1
		got, err := rd.ReadAll()
		if err != nil || len(got) != 1 {
			t.Fatalf("%q sep %q: the line %q reads back as %q, %v", raw, sep, line, got, err)
		}
		if len(got[0]) != len(want) {
			t.Fatalf("%q sep %q: the line %q reads back as %q, want %q", raw, sep, line, got[0], want)
		}
		for i := range want {
			if got[0][i] != string(want[i]) {
				t.Fatalf("%q sep %q: the line %q reads back as %q, want %q", raw, sep, line, got[0], want)
			}
		}
	})
}

// TestBareCRQuoted: a large-side CSV field holding a bare CR comes out of
// the join quoted, its survivors' and (left join) its rejected rows', so
// that encoding/csv reads the same values.
func TestBareCRQuoted(t *testing.T) {
	dir := t.TempDir()
	in, keys := filepath.Join(dir, "in.csv"), filepath.Join(dir, "keys.csv")
	if err := os.WriteFile(in, []byte("k,v\n1,a\rb\n2,c\n3,\r\n4,d\r\r\n5,e\r\r\n\"6\",f\r\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keys, []byte("k,w\n1,x\n2,y\n4,z\n6,u\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, jt := range []join.JoinType{join.JoinInner, join.JoinLeft} {
		var out bytes.Buffer
		opt := join.Options{Sides: join.Sides{Keys: keys, Input: in}, Keying: join.Keying{KeyCol: "k", JoinCol: "k"}, JoinType: jt,
			Output: join.Output{Sort: true}, Resources: join.Resources{TempDir: t.TempDir()}}
		if _, err := Run(t.Context(), opt, NewCSV(&out)); err != nil {
			t.Fatal(err)
		}
		if bareCR(out.Bytes()) {
			t.Errorf("%s: %q holds a CR outside quotes", jt, out.String())
		}
		got, err := csv.NewReader(strings.NewReader(out.String())).ReadAll()
		if err != nil {
			t.Fatalf("%s: %q: %v", jt, out.String(), err)
		}
		// A line ending CR CR LF: its last field ends with a CR (the
		// line's own CR LF taken away), kept whether its row is
		// re-encoded (left: the rejected row 5) or not.
		want := [][]string{{"k", "v", "w"}, {"1", "a\rb", "x"}, {"2", "c", "y"}}
		if jt == join.JoinLeft {
			want = append(want, []string{"3", "", ""})
		}
		want = append(want, []string{"4", "d\r", "z"})
		if jt == join.JoinLeft {
			want = append(want, []string{"5", "e\r", ""})
		}
		want = append(want, []string{"6", "f\r", "u"}) // a quoted row's raw line kept its CR too
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: %q reads as %q, want %q", jt, out.String(), got, want)
		}
	}
}

// bareCR reports whether CSV text b holds a CR outside quotes.
func bareCR(b []byte) bool {
	quoted := false
	for _, c := range b {
		switch {
		case c == '"':
			quoted = !quoted // a doubled quote toggles twice
		case c == '\r' && !quoted:
			return true
		}
	}
	return false
}

// TestOneColumnTSVNull: a one-column TSV large side's row whose key is
// NULL ("" is its one field) is written as a row in every join type that
// keeps it: "" with the key side's empty fields after it (left, full), or
// "" alone (anti), not a blank line or a row short of a field; every
// output format then takes it (a review found the CSV row short, the
// Parquet and JSON lines outputs refusing it, the anti row blank).
func TestOneColumnTSVNull(t *testing.T) {
	dir := t.TempDir()
	keys, input := filepath.Join(dir, "keys.tsv"), filepath.Join(dir, "in.tsv")
	testutil.WriteFile(t, keys, []byte("K\tZ\n1\ta\n"), 0o644)
	testutil.WriteFile(t, input, []byte("K\n1\n\"\"\n2\n"), 0o644)
	for jt, want := range map[join.JoinType]string{
		join.JoinLeft: "K,Z\n\"\",\n1,a\n2,\n",
		join.JoinFull: "K,Z\n\"\",\n1,a\n2,\n",
		join.JoinAnti: "K\n\"\"\n2\n",
	} {
		_, got := runJoin(t, join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt, Output: join.Output{Sort: true}})
		if string(got) != want {
			t.Errorf("%s: %q, want %q", jt, got, want)
		}
		jl, err := NewJSONL(io.Discard, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for name, sink := range map[string]Sink{"Parquet": NewParquet(io.Discard, t.TempDir()), "JSON lines": jl} {
			if _, err := Run(t.Context(), join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt}, sink); err != nil {
				t.Errorf("%s as %s: %v", jt, name, err)
			}
		}
	}
}

// TestOutputNamesUTF8: a Parquet, Arrow or JSON lines output refuses a
// column name that is no UTF-8 (it became U+FFFD in JSON lines, two such
// names one key, and raw bytes DuckDB refuses in Parquet: a review); a
// CSV output writes it as it is.
func TestOutputNamesUTF8(t *testing.T) {
	dir := t.TempDir()
	keys, input := filepath.Join(dir, "k.csv"), filepath.Join(dir, "i.csv")
	testutil.WriteFile(t, keys, []byte("K,\xff,\xfe\n1,x,y\n"), 0o644)
	testutil.WriteFile(t, input, []byte("ID,K\n1,1\n"), 0o644)
	opt := join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}}
	jl, err := NewJSONL(io.Discard, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ar, err := NewArrow(io.Discard, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	for name, sink := range map[string]Sink{"Parquet": NewParquet(io.Discard, t.TempDir()), "JSON lines": jl, "Arrow": ar} {
		if _, err := Run(t.Context(), opt, sink); err == nil || !strings.Contains(err.Error(), `column "\xff" is no UTF-8 text`) {
			t.Errorf("%s: %v", name, err)
		}
	}
	var out bytes.Buffer
	if _, err := Run(t.Context(), opt, NewCSV(&out)); err != nil || !strings.HasPrefix(out.String(), "ID,K,\xff,\xfe\n") {
		t.Errorf("CSV: %q, %v", out.String(), err)
	}
}
