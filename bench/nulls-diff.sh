#!/usr/bin/env bash
# The NULL and empty key cases (join/jointest/nullcases: an empty
# string of a Parquet or Arrow side, NULLs, empty CSV fields quoted or not,
# string, integer and composite keys) joined by DuckDB 1.4.5
# (bench/peers/duckdb_join --join, each type), written to testdata/nulls as
# the goldens that join/local's, join/stream's and beam's TestNullCases
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
