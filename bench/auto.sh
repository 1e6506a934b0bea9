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
# The fixed kinds keep probing (--keep-filter: they are measured as kinds, as compare measures them); auto runs as a user runs it, its mappers free to turn the filter off.
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
      # Every fixed kind and auto under each budget, in an order shuffled
      # anew each round (seeded by the round): a burst of load on the
      # machine falls on no configuration more than another.
      configs=$(for f in $fixed; do echo "fixed:$f"; done; for b in $budgets; do echo "auto:$b"; done)
      seed=$(( $(echo "$shape $sel $i" | cksum | cut -d' ' -f1) % 30000 )) # mawk's srand takes small seeds
      for c in $(echo "$configs" | awk -v seed="$seed" 'BEGIN { srand(seed) } { print rand() "\t" $0 }' | sort -n | cut -f2); do
        what=${c%%:*}; arg=${c#*:}
        if [ "$what" = auto ]; then
          "$tmp/join" run --keys "$d/keys.csv" --key-col K --input "$d/input.csv" --join-col K --key-type "$kt" \
            --filter auto --broadcast-budget "$arg" --quiet --out "$tmp/o.csv" --report-json "$out/reports/$shape~$sel~auto~$arg~$i.json"
          continue
        fi
        kind=${arg%%:*}; bits=${arg#*:}
        extra=()
        [ "$bits" != "$arg" ] && extra=(--bits-per-key "$bits")
        "$tmp/join" run --keys "$d/keys.csv" --key-col K --input "$d/input.csv" --join-col K --key-type "$kt" \
          --filter "$kind" "${extra[@]}" --keep-filter --quiet --out "$tmp/o.csv" --report-json "$out/reports/$shape~$sel~${arg/:/-}~fixed~$i.json"
      done
    done
  done
done

# Hot exclusions: a Zipf(1.1) large side (sparse keys, selectivity 0.02, its
# non-member rows over 1,000,000 keys), a Bloom filter of 1% FP, without and
# with --hot-exclusions 1000, on EXSEEDS datasets (default 5). The false
# positives are counted, not timed: one run each.
rm -f "$out"/exreports/*.json
mkdir -p "$out/exreports"
for s in $(seq 1 "${EXSEEDS:-5}"); do
  d="$out/data/zipf-$s"
  if [ ! -f "$d/input.csv" ]; then
    "$tmp/join" gen --dataset semijoin --keys "$keys" --rows "$rows" --selectivity 0.02 --key-shape sparse --distinct 1000000 --zipf 1.1 --seed "$s" --out "$d" >&2
  fi
  echo "hot exclusions, dataset $s" >&2
  for ex in 0 1000; do
    "$tmp/join" run --keys "$d/keys.csv" --key-col K --input "$d/input.csv" --join-col K --filter bloom --fpp 0.01 --keep-filter \
      --hot-exclusions "$ex" --quiet --out "$tmp/o.csv" --report-json "$out/exreports/$s~$ex.json"
  done
done
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
machine="$cpu, $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(go version | cut -d' ' -f3-4); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
"$tmp/autotable" --reports "$out/reports" --exreports "$out/exreports" --machine "$machine" --rounds "$rounds" --keys "$keys" --rows "$rows" > bench/results/auto.md
echo "wrote bench/results/auto.md" >&2
