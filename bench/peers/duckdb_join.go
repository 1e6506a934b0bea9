//go:build duckdb

// Command duckdb_join is the DuckDB peer of the join benchmarks: it runs
//
//	COPY (SELECT * FROM read_csv(CITE) c JOIN read_csv(KEYS) k ON c.CITED = k.PATENT) TO OUT
//
// (read_parquet for a .parquet side, read_json for .jsonl; --join-col and --key-col name other
// columns), or with --sql any statement, such as the COPY ... TO
// 'x.parquet' (FORMAT parquet) that writes bench/parquet.sh's Parquet twins
// with DuckDB's default writer settings.
// with DuckDB 1.4.5 through github.com/duckdb/duckdb-go/v2 v2.5.6 and prints the
// wall time. It lives in its own module (bench/peers) so that the main module
// does not depend on DuckDB; build it with -tags duckdb.
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
	cite := flag.String("cite", "", "citation file")
	keys := flag.String("keys", "", "key file")
	out := flag.String("out", "", "output CSV (Parquet when it ends in .parquet)")
	threads := flag.Int("threads", 2, "DuckDB threads")
	tempDir := flag.String("temp-dir", "", "DuckDB's temp_directory for spilling (default: DuckDB's own, .tmp in the working folder)")
	memLimit := flag.String("memory-limit", "", "DuckDB's memory_limit setting, such as 32MB (default: DuckDB's own)")
	joinCol := flag.String("join-col", "CITED", "the large side's join column")
	keyCol := flag.String("key-col", "PATENT", "the key side's join column")
	stmt := flag.String("sql", "", "run this statement instead of the join")
	where := flag.String("where", "", "an SQL condition on the large side's columns: only its rows that satisfy it are joined (acbfjoin's --where)")
	jt := flag.String("join", "inner", "inner, semi, anti, left, right or full: the columns as acbfjoin writes them (the key side's join column left out)")
	varchar := flag.Bool("all-varchar", false, "read every CSV column as text (a differential check: values printed as they are in the file)")
	flag.Parse()
	if *stmt == "" && (*cite == "" || *keys == "" || *out == "") {
		fmt.Fprintln(os.Stderr, "duckdb_join: --cite, --keys and --out are required")
		os.Exit(2)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		fmt.Fprintln(os.Stderr, "duckdb_join:", err)
		os.Exit(1)
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("SET threads=%d", *threads)); err != nil {
		fmt.Fprintln(os.Stderr, "duckdb_join:", err)
		os.Exit(1)
	}
	if *tempDir != "" {
		if _, err := db.Exec(fmt.Sprintf("SET temp_directory='%s'", esc(*tempDir))); err != nil {
			fmt.Fprintln(os.Stderr, "duckdb_join:", err)
			os.Exit(1)
		}
	}
	if *memLimit != "" {
		if _, err := db.Exec(fmt.Sprintf("SET memory_limit='%s'", esc(*memLimit))); err != nil {
			fmt.Fprintln(os.Stderr, "duckdb_join:", err)
			os.Exit(1)
		}
	}
	src := func(path string) string {
		if r := reader(path); r == "read_csv" && *varchar {
			return fmt.Sprintf("read_csv('%s', all_varchar=true)", esc(path))
		} else {
			return fmt.Sprintf("%s('%s')", r, esc(path))
		}
	}
	// The join columns, several comma-separated for a composite key.
	jcs, kcs := strings.Split(*joinCol, ","), strings.Split(*keyCol, ",")
	if len(jcs) != len(kcs) {
		fmt.Fprintln(os.Stderr, "duckdb_join: --join-col and --key-col name as many columns")
		os.Exit(2)
	}
	var on, excl, repl []string
	for i := range jcs {
		on = append(on, fmt.Sprintf("c.\"%s\" = k.\"%s\"", jcs[i], kcs[i]))
		excl = append(excl, fmt.Sprintf("\"%s\"", kcs[i]))
		repl = append(repl, fmt.Sprintf("coalesce(c.\"%s\", k.\"%s\") AS \"%s\"", jcs[i], kcs[i], jcs[i]))
	}
	sel, how := fmt.Sprintf("c.*, k.* EXCLUDE (%s)", strings.Join(excl, ", ")), "JOIN"
	switch *jt {
	case "semi", "anti":
		sel, how = "c.*", strings.ToUpper(*jt)+" JOIN"
	case "left", "right", "full":
		how = strings.ToUpper(*jt) + " JOIN"
	}
	if *jt == "right" || *jt == "full" { // the key in the join columns, as USING
		sel = fmt.Sprintf("c.* REPLACE (%s), k.* EXCLUDE (%s)", strings.Join(repl, ", "), strings.Join(excl, ", "))
	}
	large := src(*cite)
	if *where != "" {
		large = fmt.Sprintf("(SELECT * FROM %s WHERE %s)", large, *where)
	}
	format := "HEADER, DELIMITER ','"
	if strings.HasSuffix(*out, ".parquet") { // DuckDB's Parquet writer, its defaults (Snappy)
		format = "FORMAT parquet"
	}
	q := fmt.Sprintf("COPY (SELECT %s FROM %s c %s %s k ON %s) TO '%s' (%s)",
		sel, large, how, src(*keys), strings.Join(on, " AND "), esc(*out), format)
	if *stmt != "" {
		q = *stmt
	}
	start := time.Now()
	if _, err := db.Exec(q); err != nil {
		fmt.Fprintln(os.Stderr, "duckdb_join:", err)
		os.Exit(1)
	}
	fmt.Printf("%.3f\n", time.Since(start).Seconds())
}

func reader(path string) string {
	switch {
	case strings.HasSuffix(path, ".parquet"):
		return "read_parquet"
	case strings.HasSuffix(path, ".jsonl"), strings.HasSuffix(path, ".ndjson"):
		return "read_json"
	}
	return "read_csv"
}

func esc(s string) string { return strings.ReplaceAll(s, "'", "''") }
