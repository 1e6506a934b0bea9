#!/usr/bin/env bash
# Runs the filter benchmarks (bench/filters) ROUNDS times, each round running
# every variant of a shape back to back (CBF first, then the ACBFs), and writes
# the medians, ratios to the CBF and the goal checks to bench/results/filters.md.
#
#   bash bench/filters.sh            # 5 rounds, 0.5 s per benchmark
#   ROUNDS=9 BENCHTIME=1s bash bench/filters.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
benchtime=${BENCHTIME:-0.5s}
filter=${BENCH:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go test -c -o "$tmp/filters.test" ./bench/filters
go build -o "$tmp/benchtable" ./bench/cmd/benchtable
for i in $(seq 1 "$rounds"); do
  echo "round $i of $rounds" >&2
  "$tmp/filters.test" -test.run='^$' -test.bench="$filter" -test.benchtime="$benchtime" -test.benchmem > "$tmp/run$i.txt"
done
cpu=$(. bench/permodel.sh; cpu_model)
machine="$cpu, $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(go version | cut -d' ' -f3-4); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
mkdir -p bench/results
"$tmp/benchtable" -machine "$machine" "$tmp"/run*.txt > bench/results/filters.md.tmp
mv bench/results/filters.md.tmp bench/results/filters.md
cat bench/results/filters.md
