package nber

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/csvscan"
	"github.com/acbfjoin/acbfjoin/internal/testutil"
)

// TestRealSample parses the real NBER sample completely: headers, field counts,
// and the type of every non-empty field; empty fields only where the schema
// allows them.
func TestRealSample(t *testing.T) {
	for _, tc := range []struct {
		file   string
		schema Schema
		rows   int
	}{{"cite75_99.mini.txt", Cite, 8274}, {"apat63_99.mini.txt", Pat, 17732}} {
		path := filepath.Join(testutil.NBERMini(t), tc.file)
		rc, name, err := csvscan.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r := csvscan.NewReader(rc, name)
		if err := ExpectHeader(r, tc.schema); err != nil {
			t.Fatal(err)
		}
		n := 0
		for r.Next() {
			n++
			for i, f := range r.Fields() {
				col := tc.schema.Columns[i]
				if len(f) == 0 {
					if !col.Nullable {
						t.Fatalf("%s:%d: %s is empty", name, r.Line(), col.Name)
					}
					continue
				}
				var err error
				switch col.Type {
				case Int:
					_, err = csvscan.ParseInt(f)
				case Float:
					_, err = strconv.ParseFloat(string(f), 64)
				}
				if err != nil {
					t.Fatalf("%s:%d: %s: %v", name, r.Line(), col.Name, err)
				}
			}
		}
		rc.Close()
		if r.Err() != nil || n != tc.rows {
			t.Fatalf("%s: %d rows, %v; want %d", name, n, r.Err(), tc.rows)
		}
	}
}

// TestExpectHeader: a header other than the schema's is refused with the
// file, line and column.
func TestExpectHeader(t *testing.T) {
	err := ExpectHeader(csvscan.NewReader(strings.NewReader("\"PATENT\",\"X\"\n"), "p"), Cite)
	if err == nil || !strings.Contains(err.Error(), "p:1: header column 1 is \"PATENT\", want \"CITING\"") {
		t.Fatalf("wrong header: %v", err)
	}
	if err := ExpectHeader(csvscan.NewReader(strings.NewReader("\"CITING\",\"CITED\"\n"), "c"), Cite); err != nil {
		t.Fatal(err)
	}
}
