#!/usr/bin/env bash
# The NULL and empty key cases (join/jointest/nullcases: an empty
# string of a Parquet or Arrow side, NULLs, empty CSV fields quoted or not,
# string, integer and composite keys) joined by DuckDB 1.4.5
# (bench/peers/duckdb_join --join, each type), written to testdata/nulls as
# the goldens that join/local's, join/stream's and beam's TestNullCases
# (JSON lines sides too: checked below against DuckDB's read_json)
# compare every engine with. Run it after changing the cases; `git diff
# testdata/nulls` then shows whether DuckDB's answers moved. Needs the
# DuckDB peer's build (cgo, offline through the module proxy).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd bench/peers && go build -tags duckdb -o "$tmp/duckdb_join" .)
mkdir -p "$tmp/sides" testdata/nulls
go run ./bench/cmd/nullcases --dir "$tmp/sides" > "$tmp/list"
rm -f testdata/nulls/*.csv
n=0
while IFS=$'\t' read -r golden keys input kc jc jt; do
  "$tmp/duckdb_join" --cite "$input" --keys "$keys" --join-col "$jc" --key-col "$kc" --join "$jt" --threads 1 --out "testdata/nulls/$golden" > /dev/null
  n=$((n + 1))
done < "$tmp/list"
echo "nulls-diff: $n goldens written to testdata/nulls by DuckDB ($(go version | cut -d' ' -f3)); git diff --stat testdata/nulls:"
git diff --stat testdata/nulls || true
# The JSON lines twins: DuckDB's read_json must give the answers its
# read_parquet gave (the engines' tests hold JSON lines to the same goldens).
go run ./bench/cmd/nullcases --dir "$tmp/sides" --table jsonl > "$tmp/jlist"
same=0; total=0
while IFS=$'\t' read -r golden keys input kc jc jt; do
  total=$((total + 1))
  "$tmp/duckdb_join" --cite "$input" --keys "$keys" --join-col "$jc" --key-col "$kc" --join "$jt" --threads 1 --out "$tmp/j.csv" > /dev/null
  if cmp -s <(tail -n +2 "$tmp/j.csv" | LC_ALL=C sort) <(tail -n +2 "testdata/nulls/$golden" | LC_ALL=C sort); then
    same=$((same + 1))
  else
    echo "read_json differs from read_parquet: $golden"
  fi
done < "$tmp/jlist"
echo "nulls-diff: DuckDB's read_json on the JSON lines twins equals its read_parquet on $same of $total goldens"
[ "$same" = "$total" ]
