package local

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/internal/testutil"
	"github.com/acbfjoin/acbfjoin/join"
)

// TestJSONLOutput (issue 46): the JSON lines sink writes the CSV sink's
// rows as objects keyed by the header's names, in order, every line a JSON
// object (encoding/json reads it): integer and float columns as numbers,
// text as strings, NULL (an empty CSV field, a table's NULL) as null; from
// CSV and from Parquet sides, every join type, sorted and not.
func TestJSONLOutput(t *testing.T) {
	keys, input := genTables(testutil.Seed(t))
	dir := t.TempDir()
	kf, inf := sideFiles(t, dir, "keys", keys), sideFiles(t, dir, "input", input)
	for _, format := range []string{"csv", "parquet-plain"} {
		for _, jt := range raceJoinTypes(testutil.RaceSeed(t), 2) {
			opt := join.Options{Sides: join.Sides{Keys: kf[format], Input: inf[format]}, Keying: join.Keying{KeyCol: "K", JoinCol: "K"}, JoinType: jt, Output: join.Output{Sort: true}}
			var c, j bytes.Buffer
			if _, err := Run(context.Background(), opt, NewCSV(&c)); err != nil {
				t.Fatal(err)
			}
			sink, err := NewJSONL(&j, dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Run(context.Background(), opt, sink); err != nil {
				t.Fatal(err)
			}
			want := parseOutput(t, c.Bytes())
			header := strings.Split(strings.SplitN(c.String(), "\n", 2)[0], ",")
			var got []string
			sc := bufio.NewScanner(&j)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
				dec.UseNumber()
				var obj map[string]any
				if err := dec.Decode(&obj); err != nil {
					t.Fatalf("%s, %s: %q: %v", format, jt, sc.Text(), err)
				}
				if len(obj) != len(header) {
					t.Fatalf("%s, %s: %d keys, header %q", format, jt, len(obj), header)
				}
				var row []string
				for _, name := range header {
					v, ok := obj[name]
					if !ok {
						t.Fatalf("%s: no key %q in %q", jt, name, sc.Text())
					}
					switch x := v.(type) {
					case nil:
						row = append(row, "")
					case json.Number:
						if name == "P" || name == "S" {
							t.Fatalf("%s: the text column %s as a number: %q", jt, name, sc.Text())
						}
						row = append(row, string(x))
					case string:
						if name == "ID" || name == "W" || name == "G" {
							t.Fatalf("%s: the number column %s as text: %q", jt, name, sc.Text())
						}
						row = append(row, x)
					default:
						row = append(row, fmt.Sprint(x))
					}
				}
				got = append(got, strings.Join(row, "\x1f"))
			}
			slices.Sort(got)
			if len(want) < 10 || !slices.Equal(got, want) {
				t.Fatalf("%s, %s: %s", format, jt, testutil.FirstDiff(got, want))
			}
			for _, n := range testutil.DirNames(t, dir) {
				if strings.Contains(n, "jsonl-") {
					t.Fatalf("left behind: %s", n)
				}
			}
		}
	}
}
