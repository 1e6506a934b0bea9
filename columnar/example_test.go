package columnar_test

import (
	"context"
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/acbfjoin/acbfjoin/columnar"
	"github.com/acbfjoin/acbfjoin/columnar/columnartest"
)

// A Parquet side as every engine reads it: its columns' names and types
// (a typed key column brings its key type), and its rows as the canonical
// text a CSV side would hold (a NULL empty, told apart by Null).
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	s := func(v string) *string { return &v }
	rec, _ := columnartest.NewRecord([]string{"PATENT", "TITLE"}, []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String},
		[][]*string{{s("7"), s("a pump")}, {s("9"), nil}, {s("12"), s("")}})
	files, _ := columnartest.WriteFiles(dir, "patents", rec, 2, false)

	t, err := columnar.Open(context.Background(), files.Parquet, "", columnar.Parquet, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer t.Close()
	kt, _ := t.Types[0].KeyType()
	fmt.Println(t.Names, t.Types[0], "keys as", kt, "-", t.Chunks(), "row groups")
	for r := columnar.NewReader(t); r.Next(); {
		fmt.Printf("%s  (TITLE NULL: %v)\n", r.Raw(), r.Null(1))
	}
	// Output:
	// [PATENT TITLE] int32 keys as int - 2 row groups
	// 7,a pump  (TITLE NULL: false)
	// 9,  (TITLE NULL: true)
	// 12,  (TITLE NULL: false)
}
