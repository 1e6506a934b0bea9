package local

import (
	"bytes"
	"slices"
	"testing"

	"github.com/acbfjoin/acbfjoin/csvscan"
)

// FuzzSplitLine: splitLine gives the fields csvscan's parser gives, or
// its error, on any row and separator, field count 1-5.
func FuzzSplitLine(f *testing.F) {
	for _, s := range []string{"a,b,c", "1,,3", `"x,y",z`, "a\tb", "a,b\r", ",", "", `a,"b""c",d`} {
		f.Add([]byte(s), byte(','), uint8(3))
		f.Add([]byte(s), byte('\t'), uint8(2))
	}
	f.Fuzz(func(t *testing.T, raw []byte, sep byte, n uint8) {
		if _, err := csvscan.ParseRecordSep([]byte("a"), 1, sep); err != nil || bytes.ContainsAny(raw, "\n") {
			return // the join refuses such a separator before the map phase; a row holds no line break
		}
		m := &mapWorker{sep: sep, nfields: int(n%5) + 1}
		got, gotErr := m.splitLine(raw)
		want, wantErr := csvscan.ParseRecordSep(append(slices.Clone(raw), '\r', '\n'), m.nfields, sep) // the record as the reader reads it in a file
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q sep %q n %d: error %v, the parser's %v", raw, sep, m.nfields, gotErr, wantErr)
		}
		if gotErr != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%q sep %q: %d fields, the parser's %d", raw, sep, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%q sep %q: field %d %q, the parser's %q", raw, sep, i, got[i], want[i])
			}
		}
	})
}

// FuzzSinkSplitLine: the sink's splitLine (splitCommas for a line without
// quotes) splits any bytes as splitQuoted, the byte loop, does: the same
// fields, bytes taken and error.
func FuzzSinkSplitLine(f *testing.F) {
	for _, s := range []string{"a,b,c\n", "1,,3\n", "\"x,y\",z\n", ",\n", "\n", "", "abcdefgh,ijklmnop,,,,,,,,,,,,q\nrest", "-,,-,,,,,,,,,,,,,\n", "a\"b\nc", "nolineend,x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, _, gotN, gotErr := splitLine(b, nil, nil)
		want, _, wantN, wantErr := splitQuoted(b, nil, nil)
		if (gotErr == nil) != (wantErr == nil) || gotN != wantN {
			t.Fatalf("%q: took %d, error %v; the byte loop %d, %v", b, gotN, gotErr, wantN, wantErr)
		}
		if gotErr != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d fields, the byte loop %d", b, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%q: field %d %q, the byte loop %q", b, i, got[i], want[i])
			}
		}
	})
}
