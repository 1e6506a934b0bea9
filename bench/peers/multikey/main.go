//go:build duckdb

// Command multikey is the DuckDB peer of the composite-key join (issue 16):
// it runs, for key columns A,B,... of KEYS and join columns X,Y,... of INPUT,
//
//	COPY (SELECT i.*, k.* EXCLUDE (A, B, ...) FROM INPUT i JOIN KEYS k
//	      ON i.X = k.A AND i.Y = k.B ... ORDER BY i.X, i.Y, ..., i's row, k's row) TO OUT
//
// with every column read as text (all_varchar: values are written back as
// they were read) and integer components compared and ordered as BIGINT, so
// that its output is byte-for-byte what `join run --sort` writes for the
// same join (the rows; the header as its fields). Row order within a key is
// file order: each side gets its row number from a one-thread scan. It
// prints the wall time of the query. Built with -tags duckdb in the
// bench/peers module, like duckdb_join.
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
)

func main() {
	keys := flag.String("keys", "", "key file (CSV with header)")
	input := flag.String("input", "", "large file (CSV with header)")
	keyCols := flag.String("key-col", "", "key columns, comma-separated")
	joinCols := flag.String("join-col", "", "join columns, comma-separated, as many")
	types := flag.String("key-type", "int", "int or string, one a column or one for all")
	out := flag.String("out", "", "output CSV")
	threads := flag.Int("threads", 2, "DuckDB threads for the join (the row numbering scans use one)")
	flag.Parse()
	if err := run(*keys, *input, *keyCols, *joinCols, *types, *out, *threads); err != nil {
		fmt.Fprintln(os.Stderr, "multikey:", err)
		os.Exit(1)
	}
}

func ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func lit(s string) string   { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func run(keys, input, keyCols, joinCols, types, out string, threads int) error {
	if keys == "" || input == "" || keyCols == "" || joinCols == "" || out == "" {
		return fmt.Errorf("--keys, --input, --key-col, --join-col and --out are required")
	}
	kc, jc, ts := strings.Split(keyCols, ","), strings.Split(joinCols, ","), strings.Split(types, ",")
	if len(kc) != len(jc) || (len(ts) != 1 && len(ts) != len(kc)) {
		return fmt.Errorf("%d key columns, %d join columns, %d types", len(kc), len(jc), len(ts))
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	// Row numbers in file order: materialize each side from a one-thread
	// scan (insertion order preserved), then join with all threads.
	if _, err := db.Exec("SET threads=1"); err != nil {
		return err
	}
	start := time.Now()
	for _, t := range []struct{ name, path string }{{"i", input}, {"k", keys}} {
		q := fmt.Sprintf("CREATE TABLE %s AS SELECT *, row_number() OVER () AS __rn FROM read_csv(%s, header=true, all_varchar=true)", t.name, lit(t.path))
		if _, err := db.Exec(q); err != nil {
			return err
		}
	}
	if _, err := db.Exec(fmt.Sprintf("SET threads=%d", threads)); err != nil {
		return err
	}
	var on, order, exclude []string
	for n := range kc {
		t := ts[min(n, len(ts)-1)]
		x, a := "i."+ident(jc[n]), "k."+ident(kc[n])
		if t == "int" {
			x, a = "CAST("+x+" AS BIGINT)", "CAST("+a+" AS BIGINT)"
		}
		on = append(on, x+" = "+a)
		order = append(order, x)
		exclude = append(exclude, ident(kc[n]))
	}
	q := fmt.Sprintf("COPY (SELECT i.* EXCLUDE (__rn), k.* EXCLUDE (%s, __rn) FROM i JOIN k ON %s ORDER BY %s, i.__rn, k.__rn) TO %s (HEADER, DELIMITER ',')",
		strings.Join(exclude, ", "), strings.Join(on, " AND "), strings.Join(order, ", "), lit(out))
	if _, err := db.Exec(q); err != nil {
		return err
	}
	fmt.Printf("%.3f\n", time.Since(start).Seconds())
	return nil
}
