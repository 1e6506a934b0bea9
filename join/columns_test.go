package join

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acbfjoin/acbfjoin/key"
)

// TestPickColumns: the forms of a column asked (an output name, keys.NAME,
// input.NAME, each with AS), and every refusal with its reason.
func TestPickColumns(t *testing.T) {
	large := []string{"city", "state", "latitude", "zip", "keys.x", "a as b"}
	keys := []string{"city", "state", "latitude", "code"}
	ks := key.Spec{Cols: []int{0, 1}, Types: []key.Type{key.String, key.String}}
	for _, c := range []struct {
		cols      []string
		largeOnly bool
		want      string // the picks as side:col:name:as, or the refusal's reason
	}{
		{[]string{"zip", "latitude", "latitude_keys", "code"}, false, "L3:zip:zip L2:latitude:latitude K2:latitude_keys:latitude_keys K3:code:code"},
		{[]string{"input.latitude", "keys.latitude", "keys.code"}, false, "L2:latitude:latitude K2:latitude_keys:latitude_keys K3:code:code"},
		{[]string{"keys.latitude AS airport_lat", "input.latitude as zip_lat", "zip  As  z"}, false, "K2:latitude_keys:airport_lat L2:latitude:zip_lat L3:zip:z"},
		{[]string{"latitude_keys AS lat2", "city"}, false, "K2:latitude_keys:lat2 L0:city:city"},
		{[]string{"keys.x", "a as b"}, false, "L4:keys.x:keys.x L5:a as b:a as b"}, // a column so named wins
		{[]string{"a as b AS c"}, false, "L5:a as b:c"},
		{[]string{"input.city", "state"}, true, "L0:city:city L1:state:state"},
		{[]string{"nope"}, false, `the output has no column "nope" (its columns: "city", "state", "latitude", "zip", "keys.x", "a as b", "latitude_keys", "code")`},
		{[]string{"code"}, true, `the output has no column "code" (its columns: "city", "state", "latitude", "zip", "keys.x", "a as b")`},
		{[]string{"keys.code"}, true, `a semi or anti join writes the large side's columns only, not the key side's "code"`},
		{[]string{"keys.city"}, false, `the key side's key column "city" is not in the output: the large side's join column holds its value`},
		{[]string{"keys.nope"}, false, `the key side has no column "nope" (its columns: "city", "state", "latitude", "code")`},
		{[]string{"input.nope AS x"}, false, `the large side has no column "nope"`},
		{[]string{"zip", "input.zip AS z"}, false, `"zip" asked twice`},
		{[]string{"zip AS a", "code AS a"}, false, `two output columns would be named "a"`},
		{[]string{"zip AS z", "z"}, false, `the output has no column "z"`},
		{[]string{"zip AS "}, false, `"zip AS ": no name after AS`},
	} {
		picks, err := PickColumns(c.cols, large, keys, ks, "", c.largeOnly)
		var got string
		if err != nil {
			got = err.Error()
		} else {
			var parts []string
			for _, p := range picks {
				side := "L"
				if p.Key {
					side = "K"
				}
				parts = append(parts, fmt.Sprintf("%s%d:%s:%s", side, p.Col, p.Name, p.As))
			}
			got = strings.Join(parts, " ")
		}
		// A refusal holds its reason; picks are exactly as wanted.
		if refused := strings.Contains(c.want, `"`); refused != (err != nil) || !refused && got != c.want || refused && !strings.Contains(got, c.want) {
			t.Errorf("%q (largeOnly %v):\n got %s\nwant %s", c.cols, c.largeOnly, got, c.want)
		}
	}
}
