// Command nullcases writes the sides of the NULL and empty key cases
// (join/jointest/nullcases) into a folder and lists one line a golden:
// its file name, the key side and the input side to join for it (the CSV
// or the Parquet form: --table jsonl lists the JSON lines form instead),
// the key and join columns and the join type, tab-separated. bench/nulls-diff.sh joins each with DuckDB to write
// testdata/nulls.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/acbfjoin/acbfjoin/join/jointest/nullcases"
)

func main() {
	dir := flag.String("dir", "", "the folder to write the sides into")
	twin := flag.String("table", "parquet", "the form of a table side to list: parquet, or jsonl (to check that DuckDB's read_json gives the goldens read_parquet gave)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "nullcases: --dir is required")
		os.Exit(2)
	}
	cases, err := nullcases.Write(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nullcases:", err)
		os.Exit(1)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.Golden] || (c.KeysFormat != "csv" && c.KeysFormat != *twin) || (c.InputFormat != "csv" && c.InputFormat != *twin) {
			continue
		}
		seen[c.Golden] = true
		fmt.Printf("%s\t%s\t%s\t%s\t%s\t%s\n", c.Golden, c.Keys, c.Input, c.KeyCol, c.JoinCol, c.JoinType)
	}
}
