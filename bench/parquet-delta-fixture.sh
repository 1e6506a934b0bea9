#!/usr/bin/env bash
# testdata/parquet-delta: a Parquet file written by DuckDB 1.4.5 with
# PARQUET_VERSION V2, whose integer and text columns it encodes
# DELTA_BINARY_PACKED and DELTA_LENGTH_BYTE_ARRAY (version 2 data pages),
# and its rows as DuckDB reads them (delta.csv): an independent writer
# and reader for columnar's DELTA decoders (TestDeltaDuckDB). 3,000 rows
# in row groups of 1,024: ids, INT32 values with negatives and NULLs,
# random 64-bit values (deltas of every width up to 64 bits), text with
# NULLs and empty strings, INT32s swinging between their bounds and
# UINTEGERs over 2^31 (DuckDB writes an INT32's deltas in 64 bits).
set -euo pipefail
cd "$(dirname "$0")/.."
out=testdata/parquet-delta
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd bench/peers && go build -tags duckdb -o "$tmp/duckdb_join" .)
mkdir -p "$out"
"$tmp/duckdb_join" --sql "COPY (SELECT i::BIGINT AS id,
    CASE WHEN i % 13 = 5 THEN NULL ELSE ((i * 7919) % 2001 - 1000)::INTEGER END AS v,
    (hash(i) % 9223372036854775807)::BIGINT * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) AS h,
    CASE WHEN i % 7 = 3 THEN NULL WHEN i % 7 = 4 THEN '' ELSE 'name-' || (i % 500) || repeat('x', i % 5) END AS s,
    CASE WHEN i % 2 = 0 THEN -2147483648 + i ELSE 2147483647 - i END::INTEGER AS w,
    (4294967295 - i * 3)::UINTEGER AS u
  FROM range(3000) t(i) ORDER BY i) TO '$out/delta.parquet' (FORMAT parquet, PARQUET_VERSION V2, ROW_GROUP_SIZE 1024)" > /dev/null
"$tmp/duckdb_join" --sql "COPY (SELECT id, v, h, s, s IS NULL AS s_null, w, u FROM '$out/delta.parquet') TO '$out/delta.csv' (HEADER)" > /dev/null
"$tmp/duckdb_join" --sql "COPY (SELECT path_in_schema, encodings, count(*) AS chunks FROM parquet_metadata('$out/delta.parquet') GROUP BY ALL ORDER BY ALL) TO '$tmp/meta.csv' (HEADER)" > /dev/null
cat "$tmp/meta.csv"
ls -l "$out"
