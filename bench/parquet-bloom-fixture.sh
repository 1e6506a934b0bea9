#!/usr/bin/env bash
# Writes testdata/parquet-bloom/: bloom.parquet, a Parquet file with
# split-block Bloom filters written by DuckDB 1.4.5 (bench/peers/duckdb_join),
# and probes.csv, DuckDB's own answers (parquet_bloom_probe) for a set of
# values in each filtered column, which columnar's test holds our reader to.
#
# bloom.parquet: 20,000 rows in 10 row groups of 2,048 (the last 1,568).
# Row i of row group g (i counted within it) has the key
#   id = ((i * 37) % 200) * 50 + 3g
# (NULL where i % 500 = 499): 200 distinct keys a row group, each some 10
# times, which makes DuckDB write the column dictionary-encoded and so with
# a Bloom filter; row group g holds exactly the keys = 3g (mod 50) below
# 10,000, so every row group's min and max span nearly 0..9,999 and
# statistics cannot skip one, while a key is in at most one row group.
#   s   = 'k' || id (VARCHAR, NULL where id is)
#   v   = id as INTEGER (a Parquet INT32, no NULLs)
#   row = the row's index (BIGINT, plain: no filter), pay = 'payload-' || row
set -euo pipefail
cd "$(dirname "$0")/.."
out=testdata/parquet-bloom
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd bench/peers && go build -tags duckdb -o "$tmp/duckdb_join" .)
mkdir -p "$out"
key="((i % 2048 * 37) % 200) * 50 + (i // 2048) * 3"
null="i % 2048 % 500 = 499"
"$tmp/duckdb_join" --sql "COPY (SELECT CASE WHEN $null THEN NULL ELSE $key END::BIGINT AS id,
    CASE WHEN $null THEN NULL ELSE 'k' || ($key) END AS s,
    ($key)::INTEGER AS v, i AS row, 'payload-' || i AS pay
  FROM range(20000) t(i) ORDER BY i) TO '$out/bloom.parquet' (FORMAT parquet, ROW_GROUP_SIZE 2048)" > /dev/null
# The probes: keys of row groups 0, 2, 5 and 9, and values in no row group.
vals="0 50 356 1006 1015 5015 9977 9950 9999 1 2 51 100 101 4321 7777 10000 123456 -3 -50"
sel=()
for v in $vals; do
  sel+=("SELECT 'id' AS col, '$v' AS value, row_group_id, bloom_filter_excludes FROM parquet_bloom_probe('$out/bloom.parquet', 'id', $v::BIGINT)")
  sel+=("SELECT 's', 'k$v', row_group_id, bloom_filter_excludes FROM parquet_bloom_probe('$out/bloom.parquet', 's', 'k$v')")
  sel+=("SELECT 'v', '$v', row_group_id, bloom_filter_excludes FROM parquet_bloom_probe('$out/bloom.parquet', 'v', $v::INTEGER)")
done
union=$(printf '%s UNION ALL ' "${sel[@]}")
"$tmp/duckdb_join" --sql "COPY (SELECT * FROM (${union% UNION ALL }) ORDER BY col, value, row_group_id) TO '$out/probes.csv' (HEADER)" > /dev/null
"$tmp/duckdb_join" --sql "COPY (SELECT row_group_id, path_in_schema, stats_min, stats_max, stats_null_count, encodings, bloom_filter_offset, bloom_filter_length FROM parquet_metadata('$out/bloom.parquet')) TO '$tmp/meta.csv' (HEADER)" > /dev/null
grep -c ',[0-9][0-9]*,[0-9][0-9]*$' "$tmp/meta.csv" | sed 's/^/column chunks with a Bloom filter: /'
ls -l "$out"
