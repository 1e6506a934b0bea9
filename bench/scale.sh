#!/usr/bin/env bash
# How cost grows as the work grows (issue 36), from one run, written to
# bench/results/scale.md with its plots (bench/results/scale-*.svg):
#  - rows: the NBER generator at SIZES times full scale (default 1/16, 1/4,
#    1, 4 and 8; 8x is 132M citations, 2.1 GB), keys fixed at 65,771 (the
#    paper's, sampled from the 1x patents): ours (ACBF, 2 mappers) against
#    DuckDB (2 threads) and Polars (nodejs-polars 0.25.2, bench/peers/polars),
#    wall time, peak RSS, shuffle and spill;
#  - keys: KEYSIZES keys (default 10^3 .. 10^7), sampled from the 4x patent
#    file (11.7M rows) against the 1x citations. The generator repeats
#    patent numbers past 1x (4x holds each of the 2.9M numbers about four
#    times), so every repeat is renumbered first (10,000,000 + its line: a
#    number no citation cites), making 11.7M distinct keys of which the
#    2.9M real ones match: a sample of N keys matches about N/11.7M of the
#    citations. Every kind of KINDS
#    (the fixed ones with --keep-filter: the kind's own cost) and auto,
#    against DuckDB and Polars: build time, broadcast bytes, map ns a row a
#    core, total;
#  - memory: the 8x join with --sort, and with --sort --mem 64MiB;
#  - Beam (BEAM=1, default): beamjoin on prism at 1x and 4x.
# Each point's runs alternate ours and the peer, ROUNDS rounds (default 3);
# the tables quote medians. Data are generated once into OUT (default
# bench/out/scale) and kept.
#
#   bash bench/scale.sh
#   SIZES="0.0625 0.25" KEYSIZES="1000 10000" BEAM=0 ROUNDS=1 bash bench/scale.sh   # a quick look
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/permodel.sh
rounds=${ROUNDS:-3}
out=${OUT:-bench/out/scale}
sizes=${SIZES:-"0.0625 0.25 1 4 8"}
keysizes=${KEYSIZES:-"1000 10000 100000 1000000 10000000"}
kinds=${KINDS:-"none exact bloom blocked fuse cbf acbf auto"}
beam=${BEAM:-1}
results=${RESULTS:-bench/results}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)

go build -o "$tmp/join" ./cmd/join
go build -o "$tmp/scaletable" ./bench/cmd/scaletable
(cd bench/peers && go build -tags duckdb -o "$tmp/duckdb_join" .)
(cd bench/peers/polars && npm ci --no-audit --no-fund --loglevel=error > /dev/null)
if [ "$beam" = 1 ]; then (cd beam && go build -o "$tmp/beamjoin" ./cmd/beamjoin); fi
mkdir -p "$out"
for s in $sizes 1 4; do
  [ -f "$out/x$s/cite75_99.txt" ] || "$tmp/join" gen --scale "$s" --seed 1 --out "$out/x$s" >&2
done
if [ ! -f "$out/apat-unique.txt" ]; then
  awk 'NR==1{print;next} { p=index($0,","); k=substr($0,1,p-1); if (k in seen) { $0 = (10000000+NR) substr($0,p) } else seen[k]=1; print }' \
    "$out/x4/apat63_99.txt" > "$out/apat-unique.tmp" && mv "$out/apat-unique.tmp" "$out/apat-unique.txt"
fi
[ -f "$out/keys-65771.txt" ] || "$tmp/join" keys --patents "$out/x1/apat63_99.txt" --sample 65771 --seed 1 --out "$out/keys-65771.txt" >&2
for n in $keysizes; do
  [ -f "$out/keys-$n.txt" ] || "$tmp/join" keys --patents "$out/apat-unique.txt" --sample "$n" --seed 1 --out "$out/keys-$n.txt" >&2
done

tsv="$tmp/runs.tsv"
printf 'sweep\tx\tconfig\tround\twall_s\trss_kb\treport\n' > "$tsv"
# run SWEEP X CONFIG ROUND REPORT CMD...: one timed run, a line of $tsv.
run() {
  local sweep=$1 x=$2 config=$3 round=$4 report=$5; shift 5
  echo "$sweep $x $config round $round" >&2
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$@" > /dev/null
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$sweep" "$x" "$config" "$round" $(cat "$tmp/time") "$report" >> "$tsv"
  rm -f "$tmp/o.csv" "$tmp/duck.csv"
}
ours() { # sweep x config round keys input extra...
  local sweep=$1 x=$2 config=$3 round=$4 keys=$5 input=$6; shift 6
  local rep="$tmp/rep-$sweep-$x-$config-$round.json"
  run "$sweep" "$x" "$config" "$round" "$rep" "$tmp/join" run --keys "$keys" --input "$input" --mappers 2 --reducers 2 \
    --quiet --out "$tmp/o.csv" --report-json "$rep" --tmp-dir "$tmp" "$@"
}
duck() { # sweep x round keys input
  run "$1" "$2" duckdb "$3" - "$tmp/duckdb_join" --cite "$5" --keys "$4" --out "$tmp/duck.csv" --threads 2
}
polars() { # sweep x round keys input
  run "$1" "$2" polars "$3" - node bench/peers/polars/join.js "$4" "$5" PATENT CITED "$tmp/o.csv"
}

for r in $(seq 1 "$rounds"); do
  for s in $sizes; do
    ours rows "$s" acbf "$r" "$out/keys-65771.txt" "$out/x$s/cite75_99.txt" --filter acbf
    duck rows "$s" "$r" "$out/keys-65771.txt" "$out/x$s/cite75_99.txt"
    polars rows "$s" "$r" "$out/keys-65771.txt" "$out/x$s/cite75_99.txt"
  done
done
for r in $(seq 1 "$rounds"); do
  for n in $keysizes; do
    for k in $kinds; do
      if [ "$k" = auto ]; then
        ours keys "$n" auto "$r" "$out/keys-$n.txt" "$out/x1/cite75_99.txt" --filter auto
      else
        ours keys "$n" "$k" "$r" "$out/keys-$n.txt" "$out/x1/cite75_99.txt" --filter "$k" --keep-filter
      fi
    done
    duck keys "$n" "$r" "$out/keys-$n.txt" "$out/x1/cite75_99.txt"
    polars keys "$n" "$r" "$out/keys-$n.txt" "$out/x1/cite75_99.txt"
  done
done
big=$(echo "$sizes" | tr ' ' '\n' | sort -g | tail -1)
ours memory "$big" sort 1 "$out/keys-65771.txt" "$out/x$big/cite75_99.txt" --filter acbf --sort
ours memory "$big" sort-mem64 1 "$out/keys-65771.txt" "$out/x$big/cite75_99.txt" --filter acbf --sort --mem 64MiB
if [ "$beam" = 1 ]; then
  for r in $(seq 1 "$rounds"); do
    for s in 1 4; do
      run beam "$s" beamjoin "$r" - "$tmp/beamjoin" --keys "$out/keys-65771.txt" --input "$out/x$s/cite75_99.txt" --filter acbf --quiet --out "$tmp/o.csv"
    done
  done
fi
# Every run kept: the TSV and its reports, for scaletable to read again.
rm -rf "$out/runs" && mkdir -p "$out/runs" && cp "$tmp"/rep-*.json "$out/runs/" 2>/dev/null || true
sed "s|$tmp/|$out/runs/|" "$tsv" > "$out/runs/runs.tsv"
mkdir -p "$results"
"$tmp/scaletable" -runs "$out/runs/runs.tsv" -plots "$results" -seconds $(( $(date +%s) - t0 )) \
  -machine "$(cpu_model), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(go version | cut -d' ' -f3-4); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  > "$tmp/scale.md"
mv "$tmp/scale.md" "$results/scale.md"
echo "wrote $results/scale.md" >&2
