#!/usr/bin/env bash
# The full generated NBER join (16,522,438 citations x 65,771 keys) with both
# sides as Parquet, written by DuckDB with its default writer settings, against
# DuckDB 1.4.5 (read_parquet both sides; bench/peers/duckdb_join) and Polars
# (nodejs-polars 0.25.2, scanParquet both sides; bench/peers/polars), and
# against our own join of the CSV files; then the wide side: all 23 columns
# of apat63_99 joined by PATENT to 1% of the keys, where the map phase
# decodes the key column of every row group and the other 22 only where a
# row passed (late materialization), and the same with every row's NULL
# flag unpacked (ACBFJOIN_LEVELS=unpack, as before the levels' cursor).
# Runs alternate: ours on Parquet, DuckDB, Polars, ours on CSV, and DuckDB
# reading the two columns alone with no join (a floor under any Parquet
# join of the file, set beside the 0.7x goal's time); ROUNDS rounds
# (default 5); medians of wall time (bash's clock, milliseconds: bench/timing.sh) and peak RSS (/usr/bin/time).
# Goals (issue 44, after issue 33's): ours on Parquet <= 0.5x the faster
# peer's time and <= 0.7x ours on the CSV (issue 33 asked 0.6x); peak RSS
# <= 150 MB; the wide join's decoding saved,
# measured from the report (decoded bytes of the table's uncompressed bytes).
# Writes bench/results/parquet.md, or into RESULTS (a folder:
# bench/results/intel-xeon for the Intel Xeon's figures).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
data=${DATA:-bench/out/data}
pq=$data/parquet
res=${RESULTS:-bench/results}/parquet.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/join" ./cmd/join
(cd bench/peers && go build -tags duckdb -o "$tmp/duckdb_join" .)
(cd bench/peers/polars && npm ci --no-audit --no-fund --loglevel=error > /dev/null)
if [ ! -f "$data/cite75_99.txt" ] || [ ! -f "$data/keys.txt" ]; then
  "$tmp/join" gen --scale 1 --seed 1 --out "$data"
  "$tmp/join" keys --patents "$data/apat63_99.txt" --sample 65771 --seed 1 --out "$data/keys.txt"
fi
[ -f "$data/keys1pct.txt" ] || "$tmp/join" keys --from "$data/keys.txt" --sample 658 --seed 2 --out "$data/keys1pct.txt" > /dev/null
mkdir -p "$pq"
twin() { # CSV file, Parquet file: DuckDB's writer, its defaults (row groups of 122,880 rows, Snappy)
  [ -f "$2" ] || "$tmp/duckdb_join" --sql "COPY (SELECT * FROM read_csv('$1')) TO '$2' (FORMAT parquet)" > /dev/null
}
twin "$data/cite75_99.txt" "$pq/cite75_99.parquet"
twin "$data/keys.txt" "$pq/keys.parquet"
twin "$data/apat63_99.txt" "$pq/apat63_99.parquet"
twin "$data/keys1pct.txt" "$pq/keys1pct.parquet"
# The two-cluster key side: 100 patents granted in 1965 and 100 in 1995
# (apat63_99 is in patent order, so are its Parquet twin's row groups):
# its least and greatest keys span most row groups, its keys only a few.
pts=$tmp/keys-1965-1995.csv
{ head -1 "$data/apat63_99.txt" | cut -d, -f1-3; for y in 1965 1995; do awk -F, -v OFS=, -v y=$y '$2==y{print $1, $2, $3; if (++n == 100) exit}' "$data/apat63_99.txt"; done; } > "$pts"
# Two wide clusters: every patent granted up to 1975 and from 1990 (about
# two million keys, more than the points' room under the default budget:
# the map phase tests the row groups against keyBuckets' summary).
wide2=$tmp/keys-to1975-from1990.csv
awk -F, 'NR==1{print "PATENT"; next} ($2<=1975 || $2>=1990){print $1}' "$data/apat63_99.txt" > "$wide2"

. bench/timing.sh # timed and med: wall time to the millisecond
polars=(node bench/peers/polars/join.js)
for i in $(seq 1 "$rounds"); do
  echo "round $i of $rounds" >&2
  timed ourspq "$tmp/join" run --keys "$pq/keys.parquet" --input "$pq/cite75_99.parquet" --out "$tmp/ours-pq.csv" --quiet --report-json "$tmp/pq-$i.json"
  timed ourspqalone env ACBFJOIN_PAIR=off "$tmp/join" run --keys "$pq/keys.parquet" --input "$pq/cite75_99.parquet" --out "$tmp/ours-pq-alone.csv" --quiet
  timed duckdb "$tmp/duckdb_join" --cite "$pq/cite75_99.parquet" --keys "$pq/keys.parquet" --out "$tmp/duck.csv" --threads 2
  timed polars "${polars[@]}" "$pq/keys.parquet" "$pq/cite75_99.parquet" PATENT CITED "$tmp/polars.csv"
  timed ourscsv "$tmp/join" run --keys "$data/keys.txt" --input "$data/cite75_99.txt" --out "$tmp/ours-csv.csv" --quiet
  timed duckscan "$tmp/duckdb_join" --threads 2 --sql "COPY (SELECT sum(CITING) AS citing, sum(CITED) AS cited FROM read_parquet('$pq/cite75_99.parquet')) TO '$tmp/duck-scan.csv' (HEADER)"
  timed wideours "$tmp/join" run --keys "$pq/keys1pct.parquet" --input "$pq/apat63_99.parquet" --key-col PATENT --join-col PATENT --out "$tmp/wide-ours.csv" --quiet --report-json "$tmp/wide-$i.json"
  timed wideduckdb "$tmp/duckdb_join" --cite "$pq/apat63_99.parquet" --keys "$pq/keys1pct.parquet" --join-col PATENT --key-col PATENT --out "$tmp/wide-duck.csv" --threads 2
  timed wideunpack env ACBFJOIN_LEVELS=unpack "$tmp/join" run --keys "$pq/keys1pct.parquet" --input "$pq/apat63_99.parquet" --key-col PATENT --join-col PATENT --out "$tmp/wide-unpack.csv" --quiet
  timed widepolars "${polars[@]}" "$pq/keys1pct.parquet" "$pq/apat63_99.parquet" PATENT PATENT "$tmp/wide-polars.csv"
  timed pointsours "$tmp/join" run --keys "$pts" --input "$pq/apat63_99.parquet" --key-col PATENT --join-col PATENT --out "$tmp/points-ours.csv" --quiet --report-json "$tmp/points-$i.json"
  timed pointsduckdb "$tmp/duckdb_join" --cite "$pq/apat63_99.parquet" --keys "$pts" --join-col PATENT --key-col PATENT --out "$tmp/points-duck.csv" --threads 2
  timed bucketsours "$tmp/join" run --keys "$wide2" --input "$pq/apat63_99.parquet" --key-col PATENT --join-col PATENT --out "$tmp/buckets-ours.csv" --quiet --report-json "$tmp/buckets-$i.json"
  timed bucketsduckdb "$tmp/duckdb_join" --cite "$pq/apat63_99.parquet" --keys "$wide2" --join-col PATENT --key-col PATENT --out "$tmp/buckets-duck.csv" --threads 2
done
"$tmp/join" run --keys "$pq/keys.parquet" --input "$pq/cite75_99.parquet" --out "$tmp/ours-pq.csv" > "$tmp/report.txt" 2>&1
"$tmp/join" run --keys "$pq/keys1pct.parquet" --input "$pq/apat63_99.parquet" --key-col PATENT --join-col PATENT --out "$tmp/wide-ours.csv" > "$tmp/wide-report.txt" 2>&1
rows() { echo $(($(wc -l < "$1") - 1)); }

verdict() { awk "BEGIN{print ($1)?\"met\":\"**missed**\"}"; }
o=$(med ourspq 2); d=$(med duckdb 2); p=$(med polars 2); c=$(med ourscsv 2); om=$(med ourspq 3)
best=$(awk -v d="$d" -v p="$p" 'BEGIN{print (d<p)?d:p}')
# The wide join's decoding: the report's decoded bytes of all the table's.
dec=$(grep -o '"decoded_bytes": [0-9]*' "$tmp/wide-1.json" | awk '{print $2}')
all=$(grep -o '"bytes": [0-9]*' "$tmp/wide-1.json" | tail -1 | awk '{print $2}')
mat=$(grep -o '"chunks_materialized": [0-9]*' "$tmp/wide-1.json" | awk '{print $2}')
chunks=$(grep -o '"chunks": [0-9]*' "$tmp/wide-1.json" | awk '{print $2}')
. bench/permodel.sh; cpu=$(cpu_model) # the model name with its family and model numbers
label() {
  case $1 in
    ourspq) echo "acbfjoin, Parquet both sides";; ourspqalone) echo "acbfjoin, Parquet, each page decoded alone (ACBFJOIN_PAIR=off)";; duckdb) echo "DuckDB 1.4.5, read_parquet, 2 threads";;
    polars) echo "Polars (nodejs-polars 0.25.2), scanParquet";; ourscsv) echo "acbfjoin, the same data as CSV";;
    duckscan) echo "DuckDB 1.4.5, the two columns read and summed, no join (a floor: the read alone)";;
    wideours) echo "wide: acbfjoin";; wideduckdb) echo "wide: DuckDB 1.4.5";; widepolars) echo "wide: Polars";;
    wideunpack) echo "wide: acbfjoin, every row's NULL flag unpacked (ACBFJOIN_LEVELS=unpack)";;
    pointsours) echo "two clusters: acbfjoin";; pointsduckdb) echo "two clusters: DuckDB 1.4.5";;
    bucketsours) echo "two wide clusters: acbfjoin";; bucketsduckdb) echo "two wide clusters: DuckDB 1.4.5";;
  esac
}
{
  echo "# Parquet sides: the join against DuckDB and Polars"
  echo
  echo "Generated by \`bash bench/parquet.sh\` (do not edit by hand)."
  echo
  echo "Machine: $cpu, $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(go version | cut -d' ' -f3-4); node $(node --version); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo
  echo "Data: \`join gen --scale 1 --seed 1\` and \`join keys --sample 65771 --seed 1\` (16,522,438 citations x 65,771 keys), each written as Parquet by DuckDB's \`COPY ... (FORMAT parquet)\` with its defaults: cite75_99.parquet $(du -m "$pq/cite75_99.parquet" | cut -f1) MB (CSV $(du -m "$data/cite75_99.txt" | cut -f1) MB). The wide join: apat63_99.parquet (2,923,922 patents, 23 columns, $(du -m "$pq/apat63_99.parquet" | cut -f1) MB) by PATENT to 658 keys (1% of keys.txt, \`join keys --from keys.txt --sample 658 --seed 2\`). Two clusters: the same file by PATENT to a CSV of 200 keys, the first 100 patents granted in 1965 and the first 100 in 1995. Two wide clusters: the same file by PATENT to every patent granted up to 1975 and from 1990 ($(rows "$wide2") keys: more than the keys' points hold, a summary of them in buckets tests the row groups). Our runs use their defaults (ACBF, 2 mappers, key type from the data). $rounds alternating rounds; wall time from the shell's clock (milliseconds), peak RSS from /usr/bin/time, medians. Node's start (about 0.05 s) is in Polars' wall time."
  echo
  echo "| run | median wall s | median peak RSS MB | all walls s | rows |"
  echo "|---|---|---|---|---|"
  for l in ourspq ourspqalone duckdb polars ourscsv duckscan wideours wideunpack wideduckdb widepolars pointsours pointsduckdb bucketsours bucketsduckdb; do
    case $l in ourspq) f=ours-pq;; ourspqalone) f=ours-pq-alone;; duckdb) f=duck;; polars) f=polars;; ourscsv) f=ours-csv;; duckscan) f=duck-scan;; wideours) f=wide-ours;; wideunpack) f=wide-unpack;; wideduckdb) f=wide-duck;; widepolars) f=wide-polars;; pointsours) f=points-ours;; pointsduckdb) f=points-duck;; bucketsours) f=buckets-ours;; bucketsduckdb) f=buckets-duck;; esac
    echo "| $(label $l) | $(med $l 2) | $(awk -v k="$(med $l 3)" 'BEGIN{printf "%.0f", k/1024}') | $(awk -v l=$l '$1==l{printf "%s ", $2}' "$tmp/times") | $(rows "$tmp/$f.csv") |"
  done
  echo
  echo "| goal | measured | verdict |"
  echo "|---|---|---|"
  echo "| ours on Parquet <= 0.5x the faster of DuckDB and Polars | $(awk -v a="$o" -v b="$best" 'BEGIN{printf "%.2fx", a/b}') (DuckDB $(awk -v a="$o" -v b="$d" 'BEGIN{printf "%.2fx", a/b}'), Polars $(awk -v a="$o" -v b="$p" 'BEGIN{printf "%.2fx", a/b}')) | $(verdict "$o <= 0.5*$best") |"
  echo "| ours on Parquet <= 0.7x ours on the CSV (issue 44; issue 33 asked 0.6x) | $(awk -v a="$o" -v b="$c" 'BEGIN{printf "%.2fx", a/b}') | $(verdict "$o <= 0.7*$c") |"
  echo "| the 0.7x goal's time against DuckDB's read of the two columns alone, no join (duckscan) | $(awk -v c="$c" -v s="$(med duckscan 2)" 'BEGIN{printf "%.3f s against %.3f s (%.2fx)", 0.7*c, s, s/(0.7*c)}') | measured |"
  echo "| two row groups' key pages decoded together against each alone (ACBFJOIN_PAIR=off; the assembly against the portable code) | $(awk -v a="$o" -v b="$(med ourspqalone 2)" 'BEGIN{printf "%.2fx", a/b}') | measured |"
  echo "| peak RSS <= 150 MB (Parquet) | $(awk -v k="$om" 'BEGIN{printf "%.0f MB", k/1024}') | $(verdict "$om <= 150*1024") |"
  echo "| wide side: decoding saved by reading the key column first | $(awk -v d="$dec" -v a="$all" 'BEGIN{printf "%.1f%% of %.0f MB undecoded", 100*(1-d/a), a/1048576}') ($mat of $chunks row groups had a survivor) | measured |"
  echo "| two clusters: row groups skipped by their statistics (every key tested against each group's bounds) | $(grep -o '"chunks_skipped": [0-9]*' "$tmp/points-1.json" | awk '{print $2}') of $(grep -o '"chunks": [0-9]*' "$tmp/points-1.json" | awk '{print $2}') | measured |"
  echo "| two clusters against DuckDB | $(awk -v a="$(med pointsours 2)" -v d="$(med pointsduckdb 2)" 'BEGIN{printf "%.2fx", a/d}') | measured |"
  echo "| two wide clusters: row groups skipped by their statistics (the keys' buckets against each group's bounds) | $(grep -o '"chunks_skipped": [0-9]*' "$tmp/buckets-1.json" | awk '{print $2}') of $(grep -o '"chunks": [0-9]*' "$tmp/buckets-1.json" | awk '{print $2}') | measured |"
  echo "| two wide clusters against DuckDB | $(awk -v a="$(med bucketsours 2)" -v d="$(med bucketsduckdb 2)" 'BEGIN{printf "%.2fx", a/d}') | measured |"
  echo "| wide join: the chosen rows' NULL flags found in the packed levels against every row's unpacked (ACBFJOIN_LEVELS=unpack) | $(awk -v a="$(med wideours 2)" -v b="$(med wideunpack 2)" 'BEGIN{printf "%.2fx", a/b}') | measured |"
  echo "| wide join against the faster peer | $(awk -v a="$(med wideours 2)" -v d="$(med wideduckdb 2)" -v p="$(med widepolars 2)" 'BEGIN{b=(d<p)?d:p; printf "%.2fx", a/b}') | measured |"
  echo
  echo "Report of one more run (Parquet both sides):"
  echo
  echo '```'
  cat "$tmp/report.txt"
  echo '```'
  echo
  echo "The wide join's report:"
  echo
  echo '```'
  cat "$tmp/wide-report.txt"
  echo '```'
  if [ -f bench/parquet-why.md ]; then echo; cat bench/parquet-why.md; fi
} > "$res.tmp"
mv "$res.tmp" "$res"
cat "$res"
