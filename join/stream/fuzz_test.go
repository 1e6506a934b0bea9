package stream

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/join"
)

// FuzzEvents feeds arbitrary key event files to Run: it never panics, never
// loses the alignment of operations and records (an "internal error"), and
// on files without quotes it applies exactly the operations of the
// non-blank lines after the header, each as its line says.
func FuzzEvents(f *testing.F) {
	for _, s := range []string{
		"K,V\n+1,a\n-1\n",
		"K,V\r\n+1,a\r\n\r\n-1\r\n",
		"\ufeffK,V\n+\"1\",\"a,\nb\"\n-\"1\"\n",
		"K\n+\n-\n",
		"K,V\n*1,a\n",
		"K,V\n+1,a\n\r+2,b\n",
		"K,V\n+1,\"a\n",
		"K\n-",
		"K,V\n+1,a,extra\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	probe := filepath.Join(dir, "probe.csv")
	if err := os.WriteFile(probe, []byte("K\n1\n2\n\"\"\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev := filepath.Join(t.TempDir(), "ev.csv")
		if err := os.WriteFile(ev, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		rep, err := Run(context.Background(), Options{Keying: join.Keying{KeyType: "string"}, KeyEvents: ev, Probe: probe, Batch: 1, KeyBatch: 1, NoSketches: true}, &out)
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("operations and records lost their alignment: %v", err)
			}
			return
		}
		if bytes.IndexByte(data, '"') >= 0 || bytes.IndexByte(data, '\r') >= 0 || bytes.HasPrefix(data, []byte("\ufeff")) {
			return
		}
		// No quotes, no CR: records are the non-blank lines; an empty
		// key field is NULL (key.Spec.IsNull), counted and not applied.
		lines := strings.Split(string(data), "\n")
		kc := slices.Index(strings.Split(lines[0], ","), "K")
		var ins, del, null int64
		for _, l := range lines[1:] {
			if l == "" || (l[0] != '+' && l[0] != '-') {
				continue
			}
			fields := strings.Split(l[1:], ",")
			c := 0 // a delete's fields are the key columns
			if l[0] == '+' {
				c = kc
			}
			switch {
			case fields[c] == "":
				null++
			case l[0] == '+':
				ins++
			default:
				del++
			}
		}
		if rep.Inserts != ins || rep.Deletes != del || rep.Keys.KeysNull != null {
			t.Fatalf("applied %d inserts and %d deletes, %d NULL keys; the lines hold %d, %d and %d", rep.Inserts, rep.Deletes, rep.Keys.KeysNull, ins, del, null)
		}
	})
}
