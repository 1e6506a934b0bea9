package csvscan_test

import (
	"fmt"
	"strings"

	"github.com/acbfjoin/acbfjoin/csvscan"
)

// Reading a CSV file: its header, then each record's fields (valid until
// the next record), with RFC 4180 quoting.
func Example() {
	in := "PATENT,TITLE\n3858241,\"Bloom, \"\"counting\"\" filter\"\n3858242,plain\n"
	r := csvscan.NewReader(strings.NewReader(in), "patents.csv")
	header, err := r.ReadHeader()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(header)
	for r.Next() {
		f := r.Fields()
		fmt.Printf("line %d: %s | %s\n", r.Line(), f[0], f[1])
	}
	if err := r.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// [PATENT TITLE]
	// line 2: 3858241 | Bloom, "counting" filter
	// line 3: 3858242 | plain
}
