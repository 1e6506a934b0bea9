#!/usr/bin/env bash
# Writes testdata/parquet-bloom/ours.parquet, a Parquet output of this
# tool's own join with its split-block Bloom filters of the join column
# (issue 44), and probes-ours.csv, DuckDB 1.4.5's answers
# (parquet_bloom_probe, bench/peers/duckdb_join) for values in it and not
# in it, row group by row group: the other direction of
# parquet-bloom-fixture.sh, whose bloom.parquet (DuckDB's) our reader is
# held to. columnar's TestBloomOurs holds DuckDB's answers to the file's
# rows (no value of a row group excluded) and to our reader's (the same
# answer for every probe, false positives included).
#
# ours.parquet: bloom.parquet's rows whose id is even, joined to those ids
# (a CSV key side), sorted by id, in row groups of 2,048 rows, at the
# default rate (0.01).
set -euo pipefail
cd "$(dirname "$0")/.."
out=testdata/parquet-bloom
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd bench/peers && go build -tags duckdb -o "$tmp/duckdb_join" .)
go build -o "$tmp/join" ./cmd/join
"$tmp/duckdb_join" --sql "COPY (SELECT DISTINCT id FROM '$out/bloom.parquet' WHERE id % 2 = 0 ORDER BY id) TO '$tmp/keys.csv' (HEADER)" > /dev/null
"$tmp/join" run --keys "$tmp/keys.csv" --key-col id --input "$out/bloom.parquet" --join-col id --sort \
  --row-group 2048 --out "$out/ours.parquet" --quiet
# The probes: values in the file (even ids) and not (odd ones, and beyond).
vals="0 50 356 1006 2012 5018 7024 9950 9974 1 2 3 51 101 4321 7777 10000 123456 -2 -50"
sel=()
for v in $vals; do
  sel+=("SELECT 'id' AS col, '$v' AS value, row_group_id, bloom_filter_excludes FROM parquet_bloom_probe('$out/ours.parquet', 'id', $v::BIGINT)")
done
union=$(printf '%s UNION ALL ' "${sel[@]}")
"$tmp/duckdb_join" --sql "COPY (SELECT * FROM (${union% UNION ALL }) ORDER BY col, value, row_group_id) TO '$out/probes-ours.csv' (HEADER)" > /dev/null
"$tmp/duckdb_join" --sql "COPY (SELECT row_group_id, path_in_schema, bloom_filter_offset, bloom_filter_length FROM parquet_metadata('$out/ours.parquet')) TO '$tmp/meta.csv' (HEADER)" > /dev/null
grep -c ',[0-9][0-9]*,[0-9][0-9]*$' "$tmp/meta.csv" | sed 's/^/column chunks with a Bloom filter (DuckDB reads): /'
echo "DuckDB's probes: $(grep -c ',false$' "$out/probes-ours.csv") might contain, $(grep -c ',true$' "$out/probes-ours.csv") excluded"
ls -l "$out"
