package local_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acbfjoin/acbfjoin/join"
	"github.com/acbfjoin/acbfjoin/join/local"
)

// A whole join on this machine: the key side's patents filter the
// citations through an ACBF, the survivors are joined with their key rows
// and written, sorted, as CSV; the report says what the filter saved.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	keys, input := filepath.Join(dir, "patents.csv"), filepath.Join(dir, "citations.csv")
	os.WriteFile(keys, []byte("PATENT,YEAR\n1,1999\n2,2000\n"), 0o644)
	os.WriteFile(input, []byte("CITING,CITED\n10,1\n11,3\n12,2\n13,4\n14,1\n"), 0o644)

	var out bytes.Buffer
	rep, err := local.Run(context.Background(), join.Options{Sides: join.Sides{Keys: keys, Input: input}, Keying: join.Keying{KeyCol: "PATENT", JoinCol: "CITED"}, Output: join.Output{Sort: true}},
		local.NewCSV(&out))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(out.String())
	fmt.Printf("%s: %d of %d rows shuffled, %d joined\n", rep.Filter.Kind, rep.MapOutputRecords, rep.InputRecords, rep.JoinRows)
	// Output:
	// CITING,CITED,YEAR
	// 10,1,1999
	// 14,1,1999
	// 12,2,2000
	// acbf: 3 of 5 rows shuffled, 3 joined
}
