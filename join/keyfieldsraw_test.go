package join

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/key"
)

// sameKeyFieldsRaw reads data with csvscan (its header counts the fields)
// and, for every record and every key column, checks that
// AppendKeyFieldsRaw, where it reports true, writes AppendKeyFields'
// bytes after what buf held, and leaves buf as it was where it reports
// false. It returns how many records took the raw path.
func sameKeyFieldsRaw(t *testing.T, data []byte) (raw, all int) {
	t.Helper()
	r := csvscan.NewReader(bytes.NewReader(data), "keys")
	if _, err := r.ReadHeader(); err != nil {
		return 0, 0
	}
	prefix := []byte("prefix|")
	for r.Next() {
		fields := r.Fields()
		for col := range fields {
			ks := key.Spec{Cols: []int{col}, Types: []key.Type{key.String}}
			want := AppendKeyFields(append([]byte(nil), prefix...), ks, fields)
			got, ok := AppendKeyFieldsRaw(append([]byte(nil), prefix...), r.Raw(), fields[col], len(fields))
			all++
			if !ok {
				if !bytes.Equal(got, prefix) {
					t.Fatalf("line %d, key column %d: reported false and wrote %q", r.Line(), col, got[len(prefix):])
				}
				continue
			}
			raw++
			if !bytes.Equal(got, want) {
				t.Fatalf("line %d %q, key column %d:\nraw path %q\nfields    %q", r.Line(), r.Raw(), col, got, want)
			}
		}
	}
	return raw, all
}

// TestKeyFieldsRawPatents: on patent-like rows (quoted text, quoted
// empty, empty fields, a comma inside quotes, CRLF) the raw path is taken
// for most records and writes AppendKeyFields' bytes.
func TestKeyFieldsRawPatents(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`"PATENT","GYEAR","COUNTRY","POSTATE","ASSIGNEE","CLAIMS"` + "\r\n")
	rng := testutil.Rand(testutil.Seed(t))
	texts := []string{`"US"`, `""`, ``, `"a,b"`, `"x y"`, `7`, `"0.5"`, `"a""b"`, `" "`}
	for p := range 2000 {
		fmt.Fprintf(&b, "%d,1963,%s,%s,%s,%s", 3070801+p, texts[rng.IntN(len(texts))], texts[rng.IntN(len(texts))], texts[rng.IntN(len(texts))], texts[rng.IntN(len(texts))])
		if p%3 == 0 {
			b.WriteString("\r")
		}
		b.WriteString("\n")
	}
	raw, all := sameKeyFieldsRaw(t, b.Bytes())
	if raw < all/2 {
		t.Fatalf("the raw path took %d of %d records", raw, all)
	}
}

// FuzzKeyFieldsRaw: on any bytes read as a CSV file, AppendKeyFieldsRaw
// writes AppendKeyFields' bytes or reports false and writes nothing.
func FuzzKeyFieldsRaw(f *testing.F) {
	f.Add([]byte("\"PATENT\",\"COUNTRY\",C\n3070801,\"BE\",\n3070802,\"\",\"x,y\"\r\n"))
	f.Add([]byte("A,B,C\n\"a\"\"b\",\"c,d\",e\n\"e\nf\",g,h\n\"h\"i,j,k\n1,\"2\"x,3\n"))
	f.Add([]byte("A,B,C\n,,\n\"\",\"\",\"\"\n1,\r2,3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameKeyFieldsRaw(t, data)
	})
}

// TestKeyFieldsRawLines: raw lines given directly, not as csvscan reads
// them, with the key the first field: a CR or line break outside quotes in
// any byte of a long field, quotes inside unquoted fields, and quoted
// fields that keep or lose their quotes. Where csvscan.ParseRecordSep
// refuses the line the raw path must report false; where it reads it,
// the raw path reports false or writes AppendKeyFields' bytes; and the
// lines that are plain CSV take the raw path.
func TestKeyFieldsRawLines(t *testing.T) {
	long := "abcdefghijklmnopqrstuvwxyz0123456789"
	var lines []string
	for i := range len(long) + 1 {
		for _, c := range []string{"\r", "\n", `"`} {
			bad := long[:i] + c + long[i:]
			lines = append(lines, "7,"+bad+",x", "7,x,"+bad, `7,"`+bad+`",x`)
		}
	}
	plain := []string{"7," + long + ",x", `7,"` + long + `",x`, `7,"a,b` + long + `",""`, `"7",` + long + `,"q"`}
	lines = append(lines, plain...)
	lines = append(lines, `7,"a`+"\r\n"+`b",`+long, `7,"a`+"\n"+`b",`+long)
	for _, line := range lines {
		raw := []byte(line)
		kf := raw[:1]
		if raw[0] == '"' {
			kf = raw[1:2]
		}
		got, ok := AppendKeyFieldsRaw([]byte("p|"), raw, kf, 3)
		fields, err := csvscan.ParseRecordSep(raw, 3, ',')
		switch {
		case err != nil && ok:
			t.Fatalf("%q: csvscan refuses it (%v), the raw path wrote %q", line, err, got)
		case !ok && string(got) != "p|":
			t.Fatalf("%q: reported false and wrote %q", line, got)
		case ok:
			want := AppendKeyFields([]byte("p|"), key.Spec{Cols: []int{0}, Types: []key.Type{key.String}}, fields)
			if !bytes.Equal(got, want) {
				t.Fatalf("%q:\nraw path %q\nfields   %q", line, got, want)
			}
		}
		if !ok && slices.Contains(plain, line) {
			t.Fatalf("%q: a plain line left the raw path", line)
		}
	}
}

// TestMapKeyLineOthers: MapKeyLine with the reader's own AppendOthers
// (csvscan.Reader, NextField) makes the record it makes without it, on
// patent-like rows (quoted text, quoted commas and empties, CRLF) keyed
// on every column, and the reader's path takes most of them where the
// block scanner runs.
func TestMapKeyLineOthers(t *testing.T) {
	rng := testutil.Rand(testutil.Seed(t))
	var b bytes.Buffer
	b.WriteString(`"PATENT","GYEAR","COUNTRY","POSTATE","ASSIGNEE","CLAIMS"` + "\n")
	texts := []string{`"US"`, `""`, ``, `"a,b"`, `"x y"`, `7`, `"0.5"`, `"a""b"`, `" "`}
	for p := range 3000 {
		fmt.Fprintf(&b, "%d,1963,%s,%s,%s,%s", 3070801+p, texts[rng.IntN(len(texts))], texts[rng.IntN(len(texts))], texts[rng.IntN(len(texts))], texts[rng.IntN(len(texts))])
		b.WriteString([]string{"\n", "\r\n"}[rng.IntN(2)])
	}
	for col := range 6 {
		r := csvscan.NewReader(bytes.NewReader(b.Bytes()), "keys")
		if _, err := r.ReadHeader(); err != nil {
			t.Fatal(err)
		}
		ks := &key.Spec{Cols: []int{col}, Types: []key.Type{key.String}}
		keys := make([][]byte, 6)
		took, all := 0, 0
		for r.NextField(col) {
			all++
			keys[col] = r.Field()
			want, wbuf, wok, werr := MapKeyLine(ks, keys, 6, r.Raw(), 7, nil, nil)
			probe, _ := r.AppendOthers(nil)
			got, gbuf, gok, gerr := MapKeyLine(ks, keys, 6, r.Raw(), 7, nil, r)
			if probe != nil {
				took++
			}
			if fmt.Sprint(werr) != fmt.Sprint(gerr) || wok != gok || !bytes.Equal(wbuf, gbuf) ||
				!bytes.Equal(want.Key, got.Key) || !bytes.Equal(want.Row, got.Row) || want.Seq != got.Seq || want.Tag != got.Tag {
				t.Fatalf("col %d, line %d %q:\nwith AppendOthers    %q %q %v %v\nwithout             %q %q %v %v", col, r.Line(), r.Raw(), got.Key, got.Row, gok, gerr, want.Key, want.Row, wok, werr)
			}
		}
		if csvscan.CPUPath() == "avx2" && took < all/2 { // the block scanner's path only
			t.Errorf("col %d: the reader's path took %d of %d rows", col, took, all)
		}
	}
}
