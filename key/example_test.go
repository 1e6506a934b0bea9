package key_test

import (
	"fmt"

	"github.com/acbfjoin/acbfjoin/key"
)

// nulls is a table side's row as its reader says: which columns are NULL.
type nulls []bool

func (n nulls) Null(c int) bool { return n[c] }

// The one rule of NULL and empty every engine asks (docs/types.md): an
// empty CSV field is NULL, quoted or not, under every key type; a table's
// NULL is NULL, and its empty string a value.
func ExampleSpec_IsNull() {
	ks := key.Spec{Cols: []int{1}, Names: []string{"K"}, Types: []key.Type{key.String}}
	csvRow := [][]byte{[]byte("1"), []byte("")}
	fmt.Println("CSV empty field:", ks.IsNull(key.NullsOf(csvRow), csvRow))
	tableRow := [][]byte{[]byte("1"), []byte("")} // the same text: an empty string, or a NULL
	fmt.Println("table empty string:", ks.IsNull(nulls{false, false}, tableRow))
	fmt.Println("table NULL:", ks.IsNull(nulls{false, true}, tableRow))
	// Output:
	// CSV empty field: true
	// table empty string: false
	// table NULL: true
}

// Key typing from the data: two text sides (CSV) compare as integers only
// when every key of the key side is a canonical integer; a typed side
// (Parquet, Arrow) brings its type.
func ExampleDecide() {
	keys := []key.Source{{File: "keys.csv", Column: "K"}}
	input := []key.Source{{File: "input.csv", Column: "J"}}
	d, _ := key.Decide([]key.Type{key.Auto}, keys, input, func(cols []int) ([]key.Evidence, error) {
		// What a reader of keys.csv found: 3 keys, one of them "007".
		return []key.Evidence{{Keys: 3, Found: true, Value: "007", At: "line 4"}}, nil
	})
	fmt.Println(d.Types[0], "-", d.Why[0])
	typed := []key.Source{{File: "input.parquet", Column: "J", DataType: "int32", KeyType: key.Int}}
	d, _ = key.Decide([]key.Type{key.Auto}, keys, typed, nil)
	fmt.Println(d.Types[0], "-", d.Why[0])
	// Output:
	// string - inferred: column "K" of keys.csv holds "007" at line 4, no canonical integer (digits without sign or leading zero, within int64)
	// int - from the data: column "J" of input.parquet is int32
}
