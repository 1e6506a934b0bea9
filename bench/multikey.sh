#!/usr/bin/env bash
# Seed 001 (issue 16): multi-attribute keys, in one run, written to
# bench/results/multikey.md:
#  - the seed's experiment (`join multikey seed`): per-column Bloom filters
#    at its sizes (m = 10^7 bits a column, k = 3, n = 10^6 random triples),
#    measured FP over QUERIES fresh triples (default 10^8) against the
#    formula, a composite filter of the same 3 x 10^7 bits beside it, and
#    the sequential count the seed printed (3) against its expectation;
#  - the per-column design on the real sample's COUNTRY x GYEAR x NCLASS
#    (`join multikey absent`): FP over every absent combination;
#  - composite-key joins against DuckDB's ON a.x = b.x AND a.y = b.y
#    (bench/peers/multikey, ordered like --sort): byte-equal rows on the
#    real sample's (CITING, CITED) pairs, on generated triples with
#    duplicates on both sides (integer and string keys), and at full
#    generated scale (16.5 million citations, 100,000 sampled pairs), with
#    the wall time of each;
#  - single-column joins before and after composite keys: the full-scale
#    join (65,771 keys, ACBF) with the binary of BASE (default 3a216de, the
#    commit before issue 16) and of this tree, ROUNDS alternating rounds
#    (default 5), medians of the wall time and of the map phase's ns a row.
#
#   bash bench/multikey.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
queries=${QUERIES:-100000000}
data=${DATA:-bench/out/data}
base=${BASE:-3a216de}
mini=testdata/nber-mini
tmp=$(mktemp -d)
cleanup() { git worktree remove --force "$tmp/base" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

go build -o "$tmp/join" ./cmd/join
git worktree add --detach -q "$tmp/base" "$base"
(cd "$tmp/base" && go build -o "$tmp/join-base" ./cmd/join)
(cd bench/peers && go build -tags duckdb -o "$tmp/duck" ./multikey)
if [ ! -f "$data/cite75_99.txt" ] || [ ! -f "$data/keys.txt" ]; then
  "$tmp/join" gen --scale 1 --seed 1 --out "$data"
  "$tmp/join" keys --patents "$data/apat63_99.txt" --sample 65771 --seed 1 --out "$data/keys.txt"
fi
med() { sort -g | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
verdict() { awk "BEGIN{print ($1)?\"met\":\"**missed**\"}"; }

echo "seed experiment ($queries fresh triples)" >&2
t0=$(date +%s)
"$tmp/join" multikey seed --queries "$queries" --markdown > "$tmp/seed.md"
seed_s=$(( $(date +%s) - t0 ))

echo "absent combinations" >&2
have_mini=0
if [ -f "$mini/apat63_99.mini.txt" ]; then
  have_mini=1
  "$tmp/join" multikey absent --keys "$mini/apat63_99.mini.txt" --key-col COUNTRY,GYEAR,NCLASS --key-type string --markdown > "$tmp/absent.md"
fi

# equal NAME KEYS INPUT KEYCOL JOINCOL TYPE: ours (--sort) and DuckDB's
# ordered join; rows byte-equal, headers equal as fields. Appends a table row.
equal() {
  local name=$1 keys=$2 input=$3 kc=$4 jc=$5 kt=$6
  local t0 t1 ours duck
  t0=$(date +%s%N)
  "$tmp/join" run --keys "$keys" --input "$input" --key-col "$kc" --join-col "$jc" --key-type "$kt" --sort --quiet --out "$tmp/ours.csv"
  t1=$(date +%s%N); ours=$(( (t1 - t0) / 1000000 ))
  t0=$(date +%s%N)
  "$tmp/duck" --keys "$keys" --input "$input" --key-col "$kc" --join-col "$jc" --key-type "$kt" --out "$tmp/duck.csv" > /dev/null
  t1=$(date +%s%N); duck=$(( (t1 - t0) / 1000000 ))
  local rows=$(( $(wc -l < "$tmp/ours.csv") - 1 ))
  local body=no header=no
  cmp -s <(tail -n +2 "$tmp/ours.csv") <(tail -n +2 "$tmp/duck.csv") && body=yes
  [ "$(head -1 "$tmp/ours.csv" | tr -d '"')" = "$(head -1 "$tmp/duck.csv" | tr -d '"')" ] && header=yes
  echo "| $name | \`$kc\` ($kt) | $rows | $body | $header | $ours | $duck |" >> "$tmp/equal.md"
  [ "$body" = yes ] && [ "$header" = yes ]
}
: > "$tmp/equal.md"
ok=1
echo "DuckDB equality" >&2
if [ $have_mini = 1 ]; then
  "$tmp/join" keys --from "$mini/cite75_99.mini.txt" --sample 2000 --seed 1 --out "$tmp/pairs-mini.csv" > /dev/null
  equal "real sample: cite75_99.mini x 2,000 sampled pairs" "$tmp/pairs-mini.csv" "$mini/cite75_99.mini.txt" CITING,CITED CITING,CITED int || ok=0
fi
"$tmp/join" gen --dataset triples --rows 2000 --seed 1 --domain 8 --out "$tmp/tk" > /dev/null
# The key side's ROW becomes KROW: both sides' ROW in one output would be
# two columns of one name, which DuckDB renames (ROW_1) and we keep.
sed -i '1s/ROW$/KROW/' "$tmp/tk/triples.csv"
"$tmp/join" gen --dataset triples --rows 200000 --seed 2 --domain 8 --out "$tmp/ti" > /dev/null
equal "triples, integers 0..7: 2,000 x 200,000 rows" "$tmp/tk/triples.csv" "$tmp/ti/triples.csv" A,B,C A,B,C int || ok=0
equal "the same as strings" "$tmp/tk/triples.csv" "$tmp/ti/triples.csv" A,B,C A,B,C string || ok=0
equal "the same, mixed types" "$tmp/tk/triples.csv" "$tmp/ti/triples.csv" A,B,C A,B,C int,string,int || ok=0
"$tmp/join" keys --from "$data/cite75_99.txt" --sample 100000 --seed 1 --out "$tmp/pairs.csv" > /dev/null
equal "full scale: 16,522,438 citations x 100,000 sampled pairs" "$tmp/pairs.csv" "$data/cite75_99.txt" CITING,CITED CITING,CITED int || ok=0

echo "single-column before and after ($rounds rounds)" >&2
: > "$tmp/times"
for i in $(seq 1 "$rounds"); do
  for who in base new; do
    bin="$tmp/join"; [ $who = base ] && bin="$tmp/join-base"
    /usr/bin/time -f "$who %e %M" -a -o "$tmp/times" "$bin" run --keys "$data/keys.txt" --input "$data/cite75_99.txt" --filter acbf \
      --out "$tmp/single-$who.csv" --quiet --report-json "$tmp/single-$who-$i.json"
  done
done
# Unsorted output comes in the order the mappers finish: compare sorted.
cmp -s <(tail -n +2 "$tmp/single-base.csv" | LC_ALL=C sort) <(tail -n +2 "$tmp/single-new.csv" | LC_ALL=C sort) &&
  [ "$(head -1 "$tmp/single-base.csv")" = "$(head -1 "$tmp/single-new.csv")" ] && same=yes || same=no
wall() { awk -v w="$1" '$1==w{print $2}' "$tmp/times" | med; }
nsrow() { for f in "$tmp"/single-"$1"-*.json; do grep -o '"map": [0-9.]*' "$f" | tail -1 | awk '{print $2}'; done | med | awk '{printf "%.1f", $1}'; }
wb=$(wall base); wn=$(wall new); nb=$(nsrow base); nn=$(nsrow new)

# The goals' figures, from the tables above: the per-column row's z and
# its FP over the composite's; the per-column rate of absent combinations.
pcz=$(awk -F'|' '$2 ~ /^ per-column $/ {gsub(/ /, "", $8); print $8}' "$tmp/seed.md")
pcratio=$(awk -F'|' '$2 ~ /^ per-column $/ {gsub(/ /, "", $11); print $11}' "$tmp/seed.md")
absrate=$([ $have_mini = 1 ] && awk -F'|' '$2 ~ /^ per-column $/ {gsub(/ /, "", $7); print $7}' "$tmp/absent.md" || echo -)
cpu=$(. bench/permodel.sh; cpu_model)
{
  echo "# Multi-attribute keys (seed 001)"
  echo
  echo "Generated by \`bash bench/multikey.sh\` (do not edit by hand)."
  echo
  echo "Machine: $cpu, $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(go version | cut -d' ' -f3-4); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo
  echo "## The seed's experiment (\`join multikey seed --queries $queries\`, ${seed_s} s)"
  echo
  cat "$tmp/seed.md"
  if [ $have_mini = 1 ]; then
    echo
    echo "## Absent combinations of the real sample's COUNTRY x GYEAR x NCLASS"
    echo
    echo "\`join multikey absent --keys apat63_99.mini.txt --key-col COUNTRY,GYEAR,NCLASS --key-type string\`:"
    echo
    cat "$tmp/absent.md"
  fi
  echo
  echo "## Composite-key joins against DuckDB"
  echo
  echo "\`join run --sort\` against DuckDB 1.4.5 (bench/peers/multikey: every column read as text, integer components compared and ordered as BIGINT, ordered by the key, then each side's row number). Rows compared byte for byte; headers as fields (ours keeps the large side's header as it is in its file, quotes included). Wall times of one run each, in ms; DuckDB's includes numbering the rows with a one-thread scan of each side, which its order needs."
  echo
  echo "| data | key | join rows | rows byte-equal | header equal | acbfjoin ms | DuckDB ms |"
  echo "|---|---|---|---|---|---|---|"
  cat "$tmp/equal.md"
  echo
  echo "## Single-column joins before and after"
  echo
  echo "The full-scale join (16,522,438 citations, 65,771 keys, ACBF, CSV) with the binary of $base (before composite keys) and of this commit, $rounds alternating rounds; outputs the same rows (sorted, byte for byte): $same."
  echo
  echo "| binary | median wall s | median map ns a row a core | all walls s |"
  echo "|---|---|---|---|"
  echo "| before ($base) | $wb | $nb | $(awk '$1=="base"{printf "%s ", $2}' "$tmp/times") |"
  echo "| after | $wn | $nn | $(awk '$1=="new"{printf "%s ", $2}' "$tmp/times") |"
  echo
  echo "| goal | measured | verdict |"
  echo "|---|---|---|"
  echo "| the seed's per-column FP over $queries fresh triples within 4 sd of its formula at m = 10^7 | z = $pcz | $(verdict "$pcz <= 4 && $pcz >= -4") |"
  echo "| a composite filter of the same bits cuts FP >= 5x against the seed's per-column design | ${pcratio}x | $(verdict "$pcratio >= 5") |"
  echo "| per-column FP on absent COUNTRY x GYEAR x NCLASS combinations (expected near 1) | $absrate | $([ $have_mini = 1 ] && verdict "$absrate >= 0.9" || echo "not run (no nber-mini)") |"
  echo "| composite joins equal DuckDB's | $([ $ok = 1 ] && echo "all equal" || echo "a difference") | $([ $ok = 1 ] && echo met || echo "**missed**") |"
  echo "| single-column output unchanged | $same | $([ $same = yes ] && echo met || echo "**missed**") |"
  echo "| no slowdown of single-column joins (wall within 5%) | $(awk -v a="$wn" -v b="$wb" 'BEGIN{printf "%.3fx", a/b}') | $(verdict "$wn <= 1.05*$wb") |"
  echo "| map phase no slower (within 5%) | $(awk -v a="$nn" -v b="$nb" 'BEGIN{printf "%.3fx", a/b}') | $(verdict "$nn <= 1.05*$nb") |"
} > bench/results/multikey.md.tmp
mv bench/results/multikey.md.tmp bench/results/multikey.md
cat bench/results/multikey.md
