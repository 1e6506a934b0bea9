#!/usr/bin/env bash
# What join run's join-size estimate costs (issue 17): the default join
# (bench/join.sh's data: full generated scale, 65,771 keys, ACBF) with the
# binary of BASE (default 85b0374, before issue 17), this tree's, and this
# tree's with the survivors' count-min sketch taken out of the map phase
# (sed in a scratch worktree), ROUNDS alternating rounds (default 5); medians
# of the wall time and the map phase. Prints a Markdown table.
#
#   bash bench/stream/estimate-cost.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${ROUNDS:-5}
base=${BASE:-85b0374}
data=${DATA:-bench/out/data}
tmp=$(mktemp -d)
cleanup() { git worktree remove --force "$tmp/wt" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
go build -o "$tmp/join-head" ./cmd/join
if [ ! -f "$data/cite75_99.txt" ] || [ ! -f "$data/keys.txt" ]; then
  "$tmp/join-head" gen --scale 1 --seed 1 --out "$data" >&2
  "$tmp/join-head" keys --patents "$data/apat63_99.txt" --sample 65771 --seed 1 --out "$data/keys.txt" >&2
fi
git worktree add --detach -q "$tmp/wt" "$base"
(cd "$tmp/wt" && go build -o "$tmp/join-base" ./cmd/join)
git worktree remove --force "$tmp/wt"
git worktree add --detach -q "$tmp/wt" HEAD
(cd "$tmp/wt" && sed -i 's/^\(\t*\)m\.sk\.add(h1, h2)/\1_ = h2/' join/local/mapper.go && go build -o "$tmp/join-nosketch" ./cmd/join)
for r in $(seq "$rounds"); do
  for b in base head nosketch; do
    "$tmp/join-$b" run --keys "$data/keys.txt" --input "$data/cite75_99.txt" --filter acbf --quiet --out "$tmp/out.csv" --report-json "$tmp/$b-$r.json"
  done
done
python3 - "$tmp" "$rounds" "$base" <<'PY'
import json, statistics, sys
tmp, rounds, base = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print("| binary | median wall ms | median map ms | map ns a row a core |")
print("|---|---|---|---|")
for b, name in [("base", base + " (before issue 17)"), ("head", "this tree"), ("nosketch", "this tree without the survivors' sketch")]:
    js = [json.load(open(f"{tmp}/{b}-{r}.json")) for r in range(1, rounds + 1)]
    print("| %s | %.0f | %.0f | %.1f |" % (name, statistics.median(j["timings_ms"]["total"] for j in js),
          statistics.median(j["timings_ms"]["map"] for j in js), statistics.median(j["ns_per_row_core"]["map"] for j in js)))
PY
