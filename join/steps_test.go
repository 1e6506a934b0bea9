package join

import (
	"bytes"
	"encoding/csv"
	"testing"
)

// TestAppendCSVField: a field is quoted exactly when it holds a comma, a
// quote or a line break, and encoding/csv reads back every byte of it.
func TestAppendCSVField(t *testing.T) {
	for b := range 256 {
		for _, f := range [][]byte{{byte(b)}, {'a', byte(b), 'z'}, []byte("plain")} {
			got := AppendCSVField(nil, f)
			want := bytes.IndexAny(f, ",\"\r\n") >= 0
			if quoted := len(got) > 0 && got[0] == '"'; quoted != want {
				t.Fatalf("AppendCSVField(%q) = %q: quoted %v, want %v", f, got, quoted, want)
			}
			if f[0] == '\r' || f[0] == '\n' { // encoding/csv folds a leading line break
				continue
			}
			rec, err := csv.NewReader(bytes.NewReader(append(got, '\n'))).Read()
			if err != nil || len(rec) != 1 || rec[0] != string(bytes.ReplaceAll(f, []byte("\r\n"), []byte("\n"))) {
				t.Fatalf("AppendCSVField(%q) = %q reads back as %q, %v", f, got, rec, err)
			}
		}
	}
}
