#!/usr/bin/env bash
# Skew in the batch join (issue 17): a cite-to-cite join on CITED with
# `join run --sort --skew off|auto` at 2 and 8 reducers, ROUNDS alternating
# rounds (default 3), medians of wall time; the outputs compared with cmp.
# Prints a Markdown section to stdout.
#
# Two data sets, both from `join gen --scale $SCALE` (default 0.05):
#  - generated: the self-join of cite75_99.txt on CITED as the issue asks.
#    Its in-degree is capped by the generator (popCap: the most cited
#    patent holds about 0.1% of the rows at this scale, under 1% at any
#    scale), far below N/R, so --skew auto must find no hot key and change
#    nothing: this checks that.
#  - skewed: the same file with CITED rewritten on 55%, 15% and 6% of the
#    rows (every 20 rows: 11, 3, 1) to three patents cited 3 times in it, as
#    the large side; the unmodified file is the key side (a self-join of the
#    skewed file would have 0.55^2 N^2 rows).
# Goals: --skew auto brings the largest reducer to <= 1.5x the mean rows and
# the wall time down; output identical with --sort.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${ROUNDS:-3}
scale=${SCALE:-0.05}
out=bench/out/skew
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${BIN:-bench/out/join} # BIN: a binary built elsewhere (the same tree)
[ -n "${BIN:-}" ] || go build -o "$bin" ./cmd/join
data=$out/data-$scale
if [ ! -f "$data/cite75_99.txt" ]; then
  "$bin" gen --scale "$scale" --seed 1 --out "$data" >&2
fi
cite=$data/cite75_99.txt
skewed=$data/cite_skewed.txt
if [ ! -f "$skewed" ]; then
  # Three patents cited exactly 3 times, the first in number order.
  hot=$(tail -n +2 "$cite" | cut -d, -f2 | sort | uniq -c | awk '$1==3{print $2}' | sort -n | awk 'NR<=3' | tr '\n' ' ')
  read -r h1 h2 h3 <<< "$hot"
  awk -F, -v OFS=, -v a="$h1" -v b="$h2" -v c="$h3" 'NR==1{print; next} {i=(NR-2)%20; if(i<11)$2=a; else if(i<14)$2=b; else if(i<15)$2=c; print}' "$cite" > "$skewed"
fi

timed() { # label, command...: appends "label secs" to $tmp/times
  local label=$1; shift
  /usr/bin/time -f "$label %e" -a -o "$tmp/times" "$@" > /dev/null
}
for set in generated skewed; do
  input=$cite; [ $set = skewed ] && input=$skewed
  for r in 2 8; do
    for i in $(seq 1 "$rounds"); do
      echo "$set r=$r round $i of $rounds" >&2
      for skew in off auto; do
        timed "$set-$r-$skew" "$bin" run --keys "$cite" --key-col CITED --input "$input" --join-col CITED --sort --reducers "$r" --mappers 2 \
          --skew "$skew" --out "$tmp/$set-$r-$skew.csv" --quiet --report-json "$tmp/$set-$r-$skew-$i.json"
      done
    done
    if cmp -s "$tmp/$set-$r-off.csv" "$tmp/$set-$r-auto.csv"; then echo identical > "$tmp/$set-$r.cmp"; else echo "**differ**" > "$tmp/$set-$r.cmp"; fi
    wc -l < "$tmp/$set-$r-auto.csv" > "$tmp/$set-$r.rows"
    rm -f "$tmp/$set-$r-off.csv" "$tmp/$set-$r-auto.csv"
  done
done

med() { awk -v l="$1" '$1==l{print $2}' "$tmp/times" | sort -g | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
jq_() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }
medjson() { # label, python expression over r: median over the rounds
  for f in "$tmp/$1"-[0-9]*.json; do jq_ "$f" "$2"; done | sort -g | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'
}
cpu=$(. bench/permodel.sh; cpu_model)
top=$(tail -n +2 "$cite" | cut -d, -f2 | sort | uniq -c | sort -rn | awk 'NR==1{print $1}')
n=$(($(wc -l < "$cite") - 1))
echo "## Skew in the batch join (bench/stream/skew.sh)"
echo
echo "Machine: $cpu, $(nproc) cores; $(go version | cut -d' ' -f3-4); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
echo
echo "Data: \`join gen --scale $scale --seed 1\`: $n citations; the most cited patent has $top rows ($(awk -v a="$top" -v n="$n" 'BEGIN{printf "%.2f%%", 100*a/n}') of N), against N/R = $((n/2)) (R=2) and $((n/8)) (R=8): the generated in-degree is not skewed enough for any key to be hot. *skewed*: the same rows with CITED rewritten to three patents cited 3 times on 55%, 15% and 6% of the rows; key side: the generated file. \`join run --keys cite75_99.txt --key-col CITED --input INPUT --join-col CITED --sort --mappers 2 --reducers R --skew off|auto\`, $rounds alternating rounds, median wall time from /usr/bin/time."
echo
echo "| data | R | skew | largest partition / mean (shuffle records) | largest partition / mean (join rows) | hot keys | sample ms | reduce ms | finish ms | median wall s | join rows | estimate (ratio) | output |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for set in generated skewed; do
  for r in 2 8; do
    for skew in off auto; do
      l=$set-$r-$skew; f=$tmp/$l-1.json
      echo "| $set | $r | $skew | $(jq_ "$f" '"%.2fx" % r["skew"]["after"]["largest_over_mean"]') | $(jq_ "$f" '"%.2fx" % r["skew"]["join_rows"]["largest_over_mean"]') | $(jq_ "$f" '", ".join("%s (%.0f%%, %d parts)" % (h["key"], 100*h["share"], len(h["partitions"])) for h in r["skew"].get("hot_keys") or []) or "-"') | $(medjson "$l" 'r["timings_ms"].get("sample", 0)') | $(medjson "$l" 'r["timings_ms"]["reduce"]') | $(medjson "$l" 'r["timings_ms"]["finish"]') | $(med "$l") | $(jq_ "$f" 'r["join_rows"]') | $(jq_ "$f" '"%d (%.4f)" % (r["join_rows_estimate"], r["join_rows_estimate"]/max(r["join_rows"],1))') | $(cat "$tmp/$set-$r.cmp") |"
    done
  done
done
echo
echo "Plain hashing as counted by the auto runs (\"before\"): $(for set in generated skewed; do for r in 2 8; do echo -n "$set R=$r $(jq_ "$tmp/$set-$r-auto-1.json" '"%.2fx" % r["skew"]["before"]["largest_over_mean"]'); "; done; done)"
echo
verdict() { awk "BEGIN{print ($1)?\"met\":\"**missed**\"}"; }
echo "| goal (skewed data) | R=2 | R=8 |"
echo "|---|---|---|"
row1="| largest reducer <= 1.5x the mean rows with --skew auto |"
row2="| wall time down with --skew auto |"
row3="| output identical with --sort (both data sets) |"
for r in 2 8; do
  lm=$(jq_ "$tmp/skewed-$r-auto-1.json" 'r["skew"]["after"]["largest_over_mean"]')
  row1="$row1 $(printf '%.2fx' "$lm"): $(verdict "$lm <= 1.5") |"
  a=$(med "skewed-$r-auto"); o=$(med "skewed-$r-off")
  row2="$row2 $o s -> $a s ($(awk -v a="$a" -v o="$o" 'BEGIN{printf "%.2fx", a/o}')): $(verdict "$a < $o") |"
  c="$(cat "$tmp/generated-$r.cmp"), $(cat "$tmp/skewed-$r.cmp")"
  row3="$row3 $c: $(verdict "\"$c\" == \"identical, identical\"") |"
done
echo "$row1"
echo "$row2"
echo "$row3"
