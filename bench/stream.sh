#!/usr/bin/env bash
# Seed 003 (issue 17): the streaming join, its sketches and skew, in one run,
# written to bench/results/stream.md:
#  - count-min (repro/cmd/cmseval): P(error > eps*N) against delta over 10^6
#    distinct Zipf keys, underestimates, the inner product, and a windowed
#    sketch (add the new batch, subtract the expired) compared bitwise with
#    one built from scratch;
#  - top-k (bench/peers/topk): top-100 recall on Zipf 1.1 at equal memory,
#    HeavyKeeper and count-min + heap against tylertreat/BoomFilters' TopK
#    in the same run;
#  - join stream on the seed's own experiment (join gen --dataset ipstream:
#    Zipf 1.1 IPv4 probes, a churning key set): ACBF, CBF and cuckoo on the
#    same stream, ROUNDS alternating rounds (default 3), medians of key
#    updates/s and probe rows/s, FP of distinct negative keys against the
#    formula at the live keys per batch (outliers beyond 4 sd), false
#    negatives (--verify), and the output equal as a multiset to the DuckDB
#    reference (bench/peers/stream: each key row's live interval joined in
#    SQL);
#  - memory: peak RSS of the same live key set over a stream 4 times longer;
#  - NBER as a stream (join stream prep; patents by GDATE, citations with
#    the citing patent's GDATE): citations of patents granted in the 5 years
#    before, on the real sample and at full generated scale, equal to
#    DuckDB's range join;
#  - skew (bench/stream/skew.sh): the cite-to-cite self-join on CITED with
#    --skew off and auto.
#
#   bash bench/stream.sh            (about 10 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-3}
rows=${ROWS:-10000000}
data=${DATA:-bench/out/data}
mini=testdata/nber-mini
out=bench/results/stream.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/join" ./cmd/join
go build -o "$tmp/cmseval" ./repro/cmd/cmseval
(cd bench/peers && go build -tags duckdb -o "$tmp/ref" ./stream && go build -o "$tmp/topk" ./topk)
if [ ! -f "$data/cite75_99.txt" ] || [ ! -f "$data/apat63_99.txt" ]; then
  "$tmp/join" gen --scale 1 --seed 1 --out "$data"
fi
med() { sort -g | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
verdict() { awk "BEGIN{print ($1)?\"met\":\"**missed**\"}"; }
json() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
# sameset A B: the rows of our output A (header dropped) and the reference's
# B, sorted, byte-equal.
sameset() {
  tail -n +2 "$1" | LC_ALL=C sort > "$tmp/a.sorted"
  LC_ALL=C sort "$2" > "$tmp/b.sorted"
  if cmp -s "$tmp/a.sorted" "$tmp/b.sorted"; then echo "equal ($(wc -l < "$tmp/b.sorted") rows)"; else echo "**DIFFERENT**"; fi
}

{
echo "# Streaming join, count-min and top-k sketches, skew (issue 17, seed 003)"
echo
echo "\`bash bench/stream.sh\` on $(. bench/permodel.sh; cpu_model) ($(nproc) cores), $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with uncommitted changes)'). One run; ROUNDS=$rounds."
echo
} > "$tmp/head.md"

echo "count-min" >&2
"$tmp/cmseval" --distinct 1000000 --rows 10000000 --zipf 1.1 --eps 0.0001 --delta 0.01 --seed 1 | sed 's/^## /### /; s/^### \([A-Z]\)/#### \1/' > "$tmp/cms.md"

echo "top-k" >&2
"$tmp/topk" --rows 10000000 --distinct 1000000 --zipf 1.1 --k 100 --seed 1 --rounds "$rounds" | sed 's/^## /### /; s/^### \([A-Z]\)/#### \1/' > "$tmp/topk.md"

echo "ipstream: $rows probe rows" >&2
events=$((rows / 5))
batches=$((rows / 100000))
kb=$((events / batches))
"$tmp/join" gen --dataset ipstream --rows "$rows" --zipf 1.1 --distinct 1000000 --events "$events" --live 100000 --seed 1 --out "$tmp/ips" > "$tmp/ipsgen.txt"
ips_args=(--key-events "$tmp/ips/ipstream.events" --probe "$tmp/ips/ipstream.csv" --key-type string --capacity 131072 --batch 100000 --key-batch $kb)
"$tmp/ref" --key-events "$tmp/ips/ipstream.events" --probe "$tmp/ips/ipstream.csv" --key-type string --batch 100000 --key-batch $kb --out "$tmp/ips-ref.csv" > "$tmp/ips-ref.txt"
# KIND@fpp: sized for 1% at the capacity; KIND@bpk: 12 bits a key of the
# capacity, the paper's comparison at equal memory.
kinds=(acbf@fpp cbf@fpp cuckoo@fpp acbf@bpk cbf@bpk)
sizing() { case $1 in *@fpp) echo --fpp 0.01 ;; *@bpk) echo --bits-per-key 12 ;; esac; }
for r in $(seq "$rounds"); do
  for kind in "${kinds[@]}"; do
    verify=()
    [ "$r" = 1 ] && verify=(--verify)
    /usr/bin/time -f %M -o "$tmp/rss-$kind-$r" "$tmp/join" stream "${ips_args[@]}" --filter "${kind%@*}" $(sizing "$kind") "${verify[@]}" --every 0 --quiet \
      --out "$tmp/ips-$kind.csv" --report-json "$tmp/ips-$kind-$r.json"
    if [ "$r" = 1 ]; then sameset "$tmp/ips-$kind.csv" "$tmp/ips-ref.csv" > "$tmp/eq-$kind"; fi
  done
done
{
echo "### join stream on the seed's experiment: ACBF, CBF and cuckoo on one stream"
echo
echo "\`join gen --dataset ipstream --rows $rows --zipf 1.1 --distinct 1000000 --events $events --live 100000\` ($(cat "$tmp/ipsgen.txt" | sed 's/^wrote //; s/ in .*//'))."
echo "\`join stream ${ips_args[*]//$tmp\//} --filter KIND --fpp 0.01 | --bits-per-key 12\`: the filter sized for 131,072 live keys (it holds about 100,000) either at a formula FP of 1% (each kind its own memory) or at 12 bits a key (the same memory: the paper's comparison of ACBF and CBF); $batches batches of 100,000 probe rows and $kb key events."
echo "Medians of $rounds alternating rounds; FP, false negatives and equality from round 1 (\`--verify\`). FP is over distinct negative keys a batch (each a trial of the filter; a hot absent IP repeated in thousands of rows is one), against the formula at the live keys; an outlier batch is beyond 4 sd (Poisson tail where the expectation is below 30)."
echo
echo "| filter | sizing | filter bytes | key updates/s (apply time) | key events/s (wall) | probe rows/s (wall) | wall s | FP keys / negative keys | measured | formula | batches beyond 4 sd | FP rows | false negatives | rows out | output vs DuckDB | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for kind in "${kinds[@]}"; do
  upd=$(for r in $(seq "$rounds"); do json "$tmp/ips-$kind-$r.json" "(r['inserts']+r['deletes'])/(r['apply_ns']/1e9)"; done | med)
  evw=$(for r in $(seq "$rounds"); do json "$tmp/ips-$kind-$r.json" "(r['inserts']+r['deletes'])/(r['wall_ns']/1e9)"; done | med)
  prs=$(for r in $(seq "$rounds"); do json "$tmp/ips-$kind-$r.json" "r['probe_rows']/(r['wall_ns']/1e9)"; done | med)
  wall=$(for r in $(seq "$rounds"); do json "$tmp/ips-$kind-$r.json" "r['wall_ns']/1e9"; done | med)
  rss=$(for r in $(seq "$rounds"); do echo $(( $(tail -1 "$tmp/rss-$kind-$r") / 1024 )); done | med)
  j="$tmp/ips-$kind-1.json"
  printf "| %s | %s | %s | %.0f | %.0f | %.0f | %.2f | %s | %.3g | %.3g | %s of %s | %s of %s | %s | %s | %s | %s |\n" "${kind%@*}" "$(sizing "$kind")" "$(json "$tmp/ips-$kind-1.json" "r['filter_bytes']")" "$upd" "$evw" "$prs" "$wall" \
    "$(json "$j" "'%d / %d' % (r['false_positive_keys'], r['negative_keys'])")" \
    "$(json "$j" "r['false_positive_keys']/max(1,r['negative_keys'])")" "$(json "$j" "r['fpp_formula_mean']")" \
    "$(json "$j" "r['batches_beyond_4sd']")" "$(json "$j" "r['batches']")" \
    "$(json "$j" "r['false_positives']")" "$(json "$j" "r['negatives']")" \
    "$(json "$j" "r['false_negatives']")" "$(json "$j" "r['rows_out']")" "$(cat "$tmp/eq-$kind")" "$rss"
done
echo
acbf_upd=$(for r in $(seq "$rounds"); do json "$tmp/ips-acbf@fpp-$r.json" "(r['inserts']+r['deletes'])/(r['wall_ns']/1e9)"; done | med)
acbf_prs=$(for r in $(seq "$rounds"); do json "$tmp/ips-acbf@fpp-$r.json" "r['probe_rows']/(r['wall_ns']/1e9)"; done | med)
echo "Goal: the stream sustains >= 1M probe rows/s and >= 200k key events/s with ACBF on 2 cores: $(verdict "$acbf_prs >= 1000000 && $acbf_upd >= 200000") (both over the whole run's wall time, parsing included: $(printf %.0f "$acbf_prs") probe rows/s and $(printf %.0f "$acbf_upd") key events/s)."
echo "DuckDB reference: $(cat "$tmp/ips-ref.txt")."
echo
} > "$tmp/ips.md"

echo "memory bound" >&2
short=$((rows / 4))
"$tmp/join" gen --dataset ipstream --rows "$short" --zipf 1.1 --distinct 1000000 --events $((short / 5)) --live 100000 --seed 2 --out "$tmp/ips-short" > /dev/null
/usr/bin/time -f %M -o "$tmp/rss-short" "$tmp/join" stream --key-events "$tmp/ips-short/ipstream.events" --probe "$tmp/ips-short/ipstream.csv" --key-type string --fpp 0.01 --capacity 131072 --batch 100000 --key-batch $kb --quiet --out "$tmp/short.csv"
rss_short=$(( $(tail -1 "$tmp/rss-short") / 1024 ))
rss_long=$(for r in $(seq "$rounds"); do echo $(( $(tail -1 "$tmp/rss-acbf@fpp-$r") / 1024 )); done | med)
rm -rf "$tmp/ips-short" "$tmp/short.csv"
{
echo "### Memory: bounded by the live key set"
echo
echo "The same live set (about 100,000 keys) over $short and $rows probe rows ($((short / 5)) and $events key events), ACBF: peak RSS $rss_short MB and $rss_long MB (ratio $(awk "BEGIN{printf \"%.2f\", $rss_long/$rss_short}")): $(verdict "$rss_long <= 1.25 * $rss_short") (goal: memory follows the live keys, not the stream's length; 25% allowed for the Go runtime's heap sizing)."
echo
} > "$tmp/mem.md"
rm -rf "$tmp/ips" "$tmp"/ips-*.csv

echo "NBER stream" >&2
nber_row() { # NAME PATENTS CITATIONS BATCH
  local name=$1 batch=$4
  "$tmp/join" stream prep --patents "$2" --citations "$3" --out "$tmp/nst-$name" > "$tmp/prep-$name.txt"
  local args=(--key-events "$tmp/nst-$name/patents-by-gdate.csv" --key-col PATENT --key-time GDATE --probe "$tmp/nst-$name/citations-by-gdate.csv" --join-col CITED --window 1826 --batch "$batch")
  "$tmp/ref" "${args[@]}" --out "$tmp/nref-$name.csv" > "$tmp/nref-$name.txt"
  for kind in acbf cbf; do
    "$tmp/join" stream "${args[@]}" --filter "$kind" --fpp 0.01 --verify --quiet --out "$tmp/nout-$name.csv" --report-json "$tmp/n-$name-$kind.json"
    local j="$tmp/n-$name-$kind.json"
    printf "| %s | %s | %s | %s | %s | %.3g | %.3g | %s of %s | %s | %.0f | %.0f | %.2f | %s | %s |\n" "$name" "$kind" \
      "$(json "$j" "r['probe_rows']")" "$(json "$j" "'%d / %d' % (r['inserts'], r['deletes'])")" "$(json "$j" "r['max_live_keys']")" \
      "$(json "$j" "r['false_positive_keys']/max(1,r['negative_keys'])")" "$(json "$j" "r['fpp_formula_mean']")" \
      "$(json "$j" "r['batches_beyond_4sd']")" "$(json "$j" "r['batches']")" "$(json "$j" "r['false_negatives']")" \
      "$(json "$j" "(r['inserts']+r['deletes'])/(r['wall_ns']/1e9)")" "$(json "$j" "r['probe_rows']/(r['wall_ns']/1e9)")" \
      "$(json "$j" "r['wall_ns']/1e9")" "$(json "$j" "r['rows_out']")" "$(sameset "$tmp/nout-$name.csv" "$tmp/nref-$name.csv")"
  done
  rm -rf "$tmp/nst-$name" "$tmp/nout-$name.csv" "$tmp/nref-$name.csv"
}
{
echo "### NBER as a stream: citations of patents granted in the 5 years before"
echo
echo "\`join stream prep\` orders the patents by GDATE and gives each citation its citing patent's GDATE; \`join stream --key-col PATENT --key-time GDATE --join-col CITED --window 1826 --fpp 0.01\` (batches of 500 probe rows on the sample, 100,000 at full scale) joins each citation with the cited patent if it was granted in the 1,826 days up to the citing patent's grant. Output compared with DuckDB's \`ON k.PATENT = c.CITED AND k.GDATE > c.GDATE - 1826 AND k.GDATE <= c.GDATE\`."
echo
echo "| data | filter | probe rows | inserted / expired | live keys at most | FP (distinct keys) | formula | batches beyond 4 sd | false negatives | key events/s | probe rows/s | wall s | rows out | output vs DuckDB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
if [ -f "$mini/apat63_99.mini.txt" ]; then nber_row "real sample" "$mini/apat63_99.mini.txt" "$mini/cite75_99.mini.txt" 500; fi
[ -z "${SKIP_FULL:-}" ] && nber_row "generated, full scale" "$data/apat63_99.txt" "$data/cite75_99.txt" 100000
echo
for f in "$tmp"/prep-*.txt; do echo "- prep: $(cat "$f")"; done
for f in "$tmp"/nref-*.txt; do echo "- DuckDB: $(cat "$f")"; done
echo
} > "$tmp/nber.md"

echo "skew" >&2
if [ -z "${SKIP_SKEW:-}" ]; then bash bench/stream/skew.sh > "$tmp/skew.md"; else echo "(skipped: SKIP_SKEW)" > "$tmp/skew.md"; fi

{
cat "$tmp/head.md"
echo "## Count-min sketch"
echo
cat "$tmp/cms.md"
echo
echo "## Top-k"
echo
cat "$tmp/topk.md"
echo
echo "## join stream"
echo
cat "$tmp/ips.md" "$tmp/mem.md" "$tmp/nber.md"
cat "$tmp/skew.md"
} > "$out"
echo "wrote $out" >&2
