package join

import (
	"bytes"
	"fmt"
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
