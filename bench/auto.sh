#!/usr/bin/env bash
# --filter auto against every fixed kind (issue 19), on a grid of key shape
# (dense int, sparse int, strings) x selectivity (0.001, 0.02, 0.2, 0.9) x
# broadcast budget (64 KiB, 1 MiB, 16 MiB). Data: `join gen --dataset
# semijoin`, KEYS keys (default 100,000) and ROWS large-side rows (default
# 2,000,000) a point. Per dataset and round, one after another: the fixed
# kinds (none, exact, and bloom, blocked, acbf, cuckoo at several bits a key)
# and auto under each budget, auto first in odd rounds and last in even ones
# (so that a drift of the machine does not favour either). A fixed kind counts
# at a budget when its broadcast bytes fit it. ROUNDS rounds (default 5);
# times are the join's wall time from its report (total_ms), medians. Writes
# bench/results/auto.md through bench/cmd/autotable, with the model's
# constants as this run measures them.
# Goals: auto's time within 10% of the best fixed kind that fits the budget,
# at every point, and never above none's; its predicted shuffle bytes within
# 5% of the measured.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
keys=${KEYS:-100000}
rows=${ROWS:-2000000}
out=bench/out/auto
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out/reports"
rm -f "$out"/reports/*.json

go build -o "$tmp/join" ./cmd/join
go build -o "$tmp/autotable" ./bench/cmd/autotable
fixed="none exact bloom:4 bloom:8 bloom:16 bloom:32 blocked:4 blocked:8 blocked:16 blocked:32 acbf:16 acbf:32 cuckoo:8 cuckoo:16"
budgets="64KiB 1MiB 16MiB"
for shape in dense sparse string; do
  kt=int
  [ "$shape" = string ] && kt=string
  for sel in 0.001 0.02 0.2 0.9; do
    d="$out/data/$shape-$sel"
    if [ ! -f "$d/input.csv" ]; then
      "$tmp/join" gen --dataset semijoin --keys "$keys" --rows "$rows" --selectivity "$sel" --key-shape "$shape" --seed 1 --out "$d" >&2
    fi
    for i in $(seq 1 "$rounds"); do
      echo "$shape $sel round $i of $rounds" >&2
      runauto() {
        for b in $budgets; do
          "$tmp/join" run --keys "$d/keys.csv" --key-col K --input "$d/input.csv" --join-col K --key-type "$kt" \
            --filter auto --broadcast-budget "$b" --quiet --out "$tmp/o.csv" --report-json "$out/reports/$shape~$sel~auto~$b~$i.json"
        done
      }
      if [ $((i % 2)) = 1 ]; then runauto; fi
      for f in $fixed; do
        kind=${f%%:*}; bits=${f#*:}
        extra=()
        [ "$bits" != "$f" ] && extra=(--bits-per-key "$bits")
        "$tmp/join" run --keys "$d/keys.csv" --key-col K --input "$d/input.csv" --join-col K --key-type "$kt" \
          --filter "$kind" "${extra[@]}" --quiet --out "$tmp/o.csv" --report-json "$out/reports/$shape~$sel~${f/:/-}~fixed~$i.json"
      done
      if [ $((i % 2)) = 0 ]; then runauto; fi
    done
  done
done
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
machine="$cpu, $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(go version | cut -d' ' -f3-4); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
"$tmp/autotable" --reports "$out/reports" --machine "$machine" --rounds "$rounds" --keys "$keys" --rows "$rows" > bench/results/auto.md
echo "wrote bench/results/auto.md" >&2
