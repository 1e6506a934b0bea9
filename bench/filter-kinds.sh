#!/usr/bin/env bash
# The filter kinds of issue 14 against their formulas and their Go peers, in
# one run, written to bench/results/filter-kinds.md:
#  - `join filter eval` over every kind at n = 100,000 and 1,000,000 keys,
#    10^7 fresh non-member queries, 10 churn rounds (a fifth of the keys
#    deleted and re-inserted a round, for the kinds that delete), at
#    BITS bits per key (default 10): measured FP against the filter's own
#    fill and against the formula (z-scores), false negatives, insert
#    failures;
#  - bench/peers/kinds: cuckoo (b = 4, f = 8) against seiflotfy/cuckoofilter,
#    scalable grown 1,000 -> 100,000 against tylertreat/BoomFilters'
#    ScalableBloomFilter, blocked against our classic Bloom (the bloom kind)
#    at 10 bits per key; ROUNDS rounds alternating between the filters
#    (default 5), medians.
# Goals (issue 14) are checked by bench/peers/kinds and listed at the end.
#
#   bash bench/filter-kinds.sh
#   ROUNDS=9 QUERIES=1e6 bash bench/filter-kinds.sh   # a quicker look
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
queries=${QUERIES:-1e7}
bits=${BITS:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/join" ./cmd/join
(cd bench/peers && go build -o "$tmp/kinds" ./kinds)
evals=()
for n in 1e5 1e6; do
  echo "join filter eval --n $n" >&2
  "$tmp/join" filter eval --kinds all --n "$n" --queries "$queries" --churn 10 --seed 1 \
    --bits-per-key "$bits" --quiet --report-json "$tmp/eval-$n.json" > "$tmp/eval-$n.md"
  evals+=("$tmp/eval-$n.json")
done
echo "bench/peers/kinds, $rounds rounds" >&2
"$tmp/kinds" -rounds "$rounds" -n 1000000 -queries 1000000 -bits-per-key 10 -seed 1 \
  -eval "$(IFS=,; echo "${evals[*]}")" > "$tmp/kinds.md"

cpu=$(. bench/permodel.sh; cpu_model)
machine="$cpu, $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(go version | cut -d' ' -f3-4); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
mkdir -p bench/results
{
  echo "# Filter kinds: formulas and peers (issue 14)"
  echo
  echo "Machine: $machine."
  echo
  echo "Produced by \`bash bench/filter-kinds.sh\` (ROUNDS=$rounds, QUERIES=$queries, BITS=$bits). Times are ns per"
  echo "operation on one goroutine, the median of the rounds, the filters alternating round by round;"
  echo "the machine is shared, so ratios within a table mean more than absolute times."
  echo
  cat "$tmp/kinds.md"
  for n in 1e5 1e6; do
    echo
    echo "### \`join filter eval --kinds all --n $n --queries $queries --churn 10 --seed 1 --bits-per-key $bits\`"
    echo
    cat "$tmp/eval-$n.md"
  done
} > bench/results/filter-kinds.md.tmp
mv bench/results/filter-kinds.md.tmp bench/results/filter-kinds.md
cat bench/results/filter-kinds.md
