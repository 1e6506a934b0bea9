package join

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
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
		rec, _, err := MapKeyRow(&ks, fields, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		line := AppendOutputRow(nil, []byte("a,b"), rec.Row)
		if string(line) != c.want {
			t.Errorf("%v %v: %q, want %q", c.header, c.keyRow, line, c.want)
		}
		h := OutputHeader([]string{"a", "b"}, key.Spec{Cols: []int{0}, Types: []key.Type{key.Int}}, c.header, ks, "")
		got, err := csv.NewReader(bytes.NewReader(line)).Read()
		if err != nil || len(got) != len(h.Names) {
			t.Errorf("%v: row %q has %d fields, header %v: %v", c.header, line, len(got), h.Names, err)
		}
	}
}

// patentFields is an NBER patents row's 23 fields as the reader gives
// them: slices of its buffer (here a line), the quoted ones unquoted.
func patentFields() [][]byte {
	line := []byte(`3070801,1963,1096,,BE,,,1,,269,6,69,,1,,0,,,,,,,` + "\n" + strings.Repeat("x", 100))
	var fields [][]byte
	start := 0
	for i, c := range line {
		if c == ',' || c == '\n' {
			fields = append(fields, line[start:i])
			start = i + 1
		}
		if c == '\n' {
			break
		}
	}
	return fields
}

// BenchmarkMapKeyRow is the build's work a key-side row: its key and its
// other fields, CSV-encoded, for the shuffle.
func BenchmarkMapKeyRow(b *testing.B) {
	fields := patentFields()
	ks := key.Spec{Cols: []int{0}, Names: []string{"PATENT"}, Types: []key.Type{key.Int}}
	var buf []byte
	for b.Loop() {
		rec, out, err := MapKeyRow(&ks, fields, 0, buf[:0])
		if err != nil || len(rec.Row) == 0 {
			b.Fatal(err)
		}
		buf = out
	}
}

// TestAppendKeyFieldsModel: AppendKeyFields writes what AppendField writes
// for each field but the key columns, comma separated (one empty field as
// ""), into buffers that are empty, full or hold bytes already: random
// fields of 0 to 12 bytes (commas, quotes, line breaks among them) as
// slices of one line (room for a word past them) or of their own (none),
// one-column and composite keys.
func TestAppendKeyFieldsModel(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	alphabet := []byte("ab19,\"\r\n ")
	for trial := range 20000 {
		n := 1 + rng.IntN(8)
		shared := make([]byte, 0, 200)
		fields := make([][]byte, n)
		for i := range fields {
			f := make([]byte, rng.IntN(13))
			for j := range f {
				f[j] = alphabet[rng.IntN(len(alphabet))]
			}
			if trial%2 == 0 {
				start := len(shared)
				shared = append(append(shared, f...), 'X')
				f = shared[start : start+len(f)]
			}
			fields[i] = f
		}
		cols := []int{rng.IntN(n)}
		if n > 2 && rng.IntN(3) == 0 {
			cols = append(cols, (cols[0]+1+rng.IntN(n-1))%n)
		}
		ks := key.Spec{Cols: cols}
		prefix := []byte("pre")[:rng.IntN(4)]
		var want []byte
		want = append(want, prefix...)
		m := 0
		for i, f := range fields {
			if slices.Contains(cols, i) {
				continue
			}
			if m > 0 {
				want = append(want, ',')
			}
			m++
			want = csvscan.AppendField(want, f)
		}
		if m == 1 && len(want) == len(prefix) {
			want = append(want, '"', '"')
		}
		buf := append(make([]byte, 0, rng.IntN(40)), prefix...)
		if got := AppendKeyFields(buf, ks, fields); !bytes.Equal(got, want) {
			t.Fatalf("fields %q, key columns %v, prefix %q: %q, want %q", fields, cols, prefix, got, want)
		}
	}
}
