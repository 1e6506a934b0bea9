package join

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/key"
)

// TestAppendCSVField: a field is quoted exactly when it holds a comma, a
// quote or a line break, and encoding/csv reads back every byte of it.
func TestAppendCSVField(t *testing.T) {
	for b := range 256 {
		for _, f := range [][]byte{{byte(b)}, {'a', byte(b), 'z'}, []byte("plain")} {
			got := csvscan.AppendField(nil, f)
			want := bytes.ContainsAny(f, ",\"\r\n")
			if quoted := len(got) > 0 && got[0] == '"'; quoted != want {
				t.Fatalf("csvscan.AppendField(%q) = %q: quoted %v, want %v", f, got, quoted, want)
			}
			if f[0] == '\r' || f[0] == '\n' { // encoding/csv folds a leading line break
				continue
			}
			rec, err := csv.NewReader(bytes.NewReader(append(got, '\n'))).Read()
			if err != nil || len(rec) != 1 || rec[0] != string(bytes.ReplaceAll(f, []byte("\r\n"), []byte("\n"))) {
				t.Fatalf("csvscan.AppendField(%q) = %q reads back as %q, %v", f, got, rec, err)
			}
		}
	}
}

// TestOutputRowOtherFields: the output row has as many fields as the header
// whether the key side has no field but its key, one empty field, or more
// (a key file of only its key column once gave every row a trailing comma).
func TestOutputRowOtherFields(t *testing.T) {
	for _, c := range []struct {
		header, keyRow []string
		keyCols        []int
		want           string
	}{
		{[]string{"K"}, []string{"7"}, []int{0}, "a,b\n"},
		{[]string{"K", "V"}, []string{"7", ""}, []int{0}, "a,b,\n"},
		{[]string{"V", "K"}, []string{"x,y", "7"}, []int{1}, `a,b,"x,y"` + "\n"},
		{[]string{"A", "B"}, []string{"7", "8"}, []int{0, 1}, "a,b\n"},
		{[]string{"A", "V", "B"}, []string{"7", "v", "8"}, []int{0, 2}, "a,b,v\n"},
	} {
		ks := key.Spec{Cols: c.keyCols, Types: make([]key.Type, len(c.keyCols))}
		for i := range ks.Types {
			ks.Types[i], ks.Names = key.Int, append(ks.Names, c.header[c.keyCols[i]])
		}
		var fields [][]byte
		for _, f := range c.keyRow {
			fields = append(fields, []byte(f))
		}
		rec, _, err := MapKeyRow(ks, fields, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		line := AppendOutputRow(nil, []byte("a,b"), rec.Row)
		if string(line) != c.want {
			t.Errorf("%v %v: %q, want %q", c.header, c.keyRow, line, c.want)
		}
		h := OutputHeader([]byte("a,b"), []string{"a", "b"}, key.Spec{Cols: []int{0}, Types: []key.Type{key.Int}}, c.header, ks)
		got, err := csv.NewReader(bytes.NewReader(line)).Read()
		if err != nil || len(got) != len(h.Names) {
			t.Errorf("%v: row %q has %d fields, header %v: %v", c.header, line, len(got), h.Names, err)
		}
	}
}
