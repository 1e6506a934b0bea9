#!/usr/bin/env bash
# Peak RSS and wall time against the key side's size (issue 45): key sides
# of KEYSIZES keys (default 10^3 .. 10^7, sampled as bench/scale.sh samples
# them: from the 4x patents, every repeated number renumbered so that none
# of the repeats matches) against the 1x citations (16.5M rows), with
# --mem 64MiB and with the default budget, ours (ACBF, 2 mappers, 2
# reducers) against DuckDB 1.4.5 (bench/peers, 2 threads) at its default
# and Polars (nodejs-polars 0.25.2, pinned in bench/peers/polars), and,
# given BASE=<commit>, that commit's binary beside ours, alternated.
# ROUNDS rounds (default 1: the 10^7 runs take a minute each); the table
# quotes medians. Then, once (WHOLE=0 to skip), the issue's own case: the
# whole 2.9M-row patent file as the key side of a left join with --sort
# under --mem 64MiB. Goal: peak RSS <= the budget + 200 MB at every size.
# Writes bench/results/keymem.md. Data are generated once into OUT
# (default bench/out/scale, shared with scale.sh) and kept.
#
# FILTER (default acbf) is our filter kind (auto: as a user runs it);
# RESULTS the folder keymem.md goes to (default bench/results).
#
#   bash bench/keymem.sh
#   BASE=b2cdf74 KEYSIZES="1000000 10000000" bash bench/keymem.sh
#   FILTER=auto KEYSIZES=1000000 WHOLE=0 ROUNDS=5 RESULTS=bench/results/keymem-auto bash bench/keymem.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-1}
out=${OUT:-bench/out/scale}
keysizes=${KEYSIZES:-"1000 10000 100000 1000000 10000000"}
base=${BASE:-}
results=${RESULTS:-bench/results}
filter=${FILTER:-acbf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; git worktree prune' EXIT
commit=$(git rev-parse --short HEAD)
dirty=$(git status --porcelain --untracked-files=no | grep -q . && echo " (with uncommitted changes)" || true)
t0=$(date +%s)

go build -o "$tmp/ours" ./cmd/join
(cd bench/peers && go build -tags duckdb -o "$tmp/duckdb_join" .)
(cd bench/peers/polars && npm ci --no-audit --no-fund --loglevel=error > /dev/null)
if [ -n "$base" ]; then
  git worktree add -q --detach "$tmp/base-src" "$base"
  (cd "$tmp/base-src" && go build -o "$tmp/base" ./cmd/join)
  git worktree remove --force "$tmp/base-src"
fi
mkdir -p "$out"
for s in 1 4; do
  [ -f "$out/x$s/cite75_99.txt" ] || "$tmp/ours" gen --scale "$s" --seed 1 --out "$out/x$s" >&2
done
if [ ! -f "$out/apat-unique.txt" ]; then
  awk 'NR==1{print;next} { p=index($0,","); k=substr($0,1,p-1); if (k in seen) { $0 = (10000000+NR) substr($0,p) } else seen[k]=1; print }' \
    "$out/x4/apat63_99.txt" > "$out/apat-unique.tmp" && mv "$out/apat-unique.tmp" "$out/apat-unique.txt"
fi
for n in $keysizes; do
  [ -f "$out/keys-$n.txt" ] || "$tmp/ours" keys --patents "$out/apat-unique.txt" --sample "$n" --seed 1 --out "$out/keys-$n.txt" >&2
done

runs="$tmp/runs.tsv"
: > "$runs"
# timed N CONFIG CMD...: one run, "N CONFIG secs kb rows" appended to $runs.
timed() {
  local n=$1 config=$2; shift 2
  echo "keys $n $config" >&2
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$@" > /dev/null 2> "$tmp/stderr" || { echo "keymem.sh: $config at $n keys failed: $(head -3 "$tmp/stderr")" >&2; exit 1; }
  local rows
  rows=$(($(wc -l < "$tmp/o.csv") - 1))
  echo "$n $config $(cat "$tmp/time") $rows" >> "$runs"
  rm -f "$tmp/o.csv"
}
join() { # n bin mem-label flags...
  local n=$1 bin=$2 label=$3; shift 3
  timed "$n" "$bin-$label" "$tmp/$bin" run --keys "$out/keys-$n.txt" --input "$out/x1/cite75_99.txt" --filter "$filter" \
    --mappers 2 --reducers 2 --quiet --out "$tmp/o.csv" --tmp-dir "$tmp" "$@"
}
bins="ours"
[ -n "$base" ] && bins="ours base"
for r in $(seq 1 "$rounds"); do
  for n in $keysizes; do
    for b in $bins; do
      join "$n" "$b" mem64 --mem 64MiB
      join "$n" "$b" default
    done
    timed "$n" duckdb "$tmp/duckdb_join" --cite "$out/x1/cite75_99.txt" --keys "$out/keys-$n.txt" --out "$tmp/o.csv" --threads 2 --temp-dir "$tmp/duck-tmp"
    timed "$n" polars node bench/peers/polars/join.js "$out/keys-$n.txt" "$out/x1/cite75_99.txt" PATENT CITED "$tmp/o.csv"
  done
done
# The issue's own case, once: the whole patent file (2.9M rows) as the key
# side of a left join with --sort under --mem 64MiB, as a new user tried it.
if [ "${WHOLE:-1}" = 1 ]; then
  for b in $bins; do
    timed whole "$b-left-sort-mem64" "$tmp/$b" run --keys "$out/x1/apat63_99.txt" --input "$out/x1/cite75_99.txt" --join left --sort --mem 64MiB \
      --mappers 2 --reducers 2 --quiet --out "$tmp/o.csv" --tmp-dir "$tmp"
  done
fi
# Every configuration must give the same rows at a size.
awk '{ if (($1) in rows && rows[$1] != $5) { print "keymem.sh: " $2 " at " $1 " keys gave " $5 " rows, another " rows[$1] > "/dev/stderr"; bad=1 } rows[$1]=$5 } END { exit bad }' "$runs"

machine="$(. bench/permodel.sh; cpu_model), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(go version | cut -d' ' -f3-4); $(date -u +%Y-%m-%d); commit $commit$dirty"
{
  echo "# Peak RSS against the key side's size"
  echo
  echo "Written by \`bash bench/keymem.sh\` (do not edit by hand): $rounds round(s), medians;"
  echo "$machine; load average at the end $(cut -d' ' -f1-3 /proc/loadavg); took $(( $(date +%s) - t0 )) s."
  [ -n "$base" ] && echo "\`base\` is commit $base's binary, alternated with ours."
  echo
  echo "Key sides sampled from the 4x patents (repeats renumbered, so a sample of N keys"
  echo "matches about N/11.7M of the citations) against the 1x citations (16.5M rows);"
  echo "ours with --filter $filter, 2 mappers, 2 reducers; DuckDB 1.4.5 with 2 threads at its default memory limit;"
  echo "Polars (nodejs-polars 0.25.2) at its defaults (both cores). A peer's time is the whole"
  echo "process's, as ours is."
  echo "The goal: peak RSS <= the budget + 200 MB (64 MiB + 200 MB = 267 MB; 256 MiB + 200 MB = 468 MB)."
  echo
  echo "| keys | join rows | config | wall s | peak RSS MB | within budget + 200 MB |"
  echo "|---:|---:|---|---:|---:|---|"
  awk '{ k=$1" "$2; n[k]++; w[k,n[k]]=$3; m[k,n[k]]=$4; rows[$1]=$5; if (!(k in seen)) { seen[k]=1; order[++o]=k } }
    function med(a, k, c,   i, j, t, v) { for (i=1;i<=c;i++) v[i]=a[k,i]; for (i=1;i<=c;i++) for (j=i+1;j<=c;j++) if (v[j]<v[i]) { t=v[i]; v[i]=v[j]; v[j]=t } return (c%2) ? v[(c+1)/2] : (v[c/2]+v[c/2+1])/2 }
    END { for (i=1;i<=o;i++) { k=order[i]; split(k, p, " "); c=n[k]; rss=med(m, k, c)*1024/1e6
      budget = (p[2] ~ /mem64/) ? 64*1048576/1e6 + 200 : (p[2] ~ /default/) ? 256*1048576/1e6 + 200 : 0
      r = rows[p[1]]; if (p[1] == "whole") p[1] = "2.9M (whole patent file, left join, --sort)"
      verdict = budget ? (rss <= budget ? "yes" : "**no**") : ""
      printf "| %s | %s | %s | %.2f | %.0f | %s |\n", p[1], r, p[2], med(w, k, c), rss, verdict } }' "$runs"
  echo
  echo "Time against the peers (medians; ours at the default budget):"
  echo
  echo "| keys | ours s | DuckDB s | Polars s | ours / DuckDB | ours / Polars |"
  echo "|---:|---:|---:|---:|---:|---:|"
  awk '$1 != "whole" { k=$1" "$2; n[k]++; w[k,n[k]]=$3; if (!($1 in seen)) { seen[$1]=1; order[++o]=$1 } }
    function med(k,   c, i, j, t, v) { c=n[k]; for (i=1;i<=c;i++) v[i]=w[k,i]; for (i=1;i<=c;i++) for (j=i+1;j<=c;j++) if (v[j]<v[i]) { t=v[i]; v[i]=v[j]; v[j]=t } return (c%2) ? v[(c+1)/2] : (v[c/2]+v[c/2+1])/2 }
    END { for (i=1;i<=o;i++) { x=order[i]; a=med(x" ours-default"); d=med(x" duckdb"); p=med(x" polars")
      printf "| %s | %.2f | %.2f | %.2f | %.2fx | %.2fx |\n", x, a, d, p, a/d, a/p } }' "$runs"
} > "$tmp/keymem.md"
mkdir -p "$results"
mv "$tmp/keymem.md" "$results/keymem.md"
echo "wrote $results/keymem.md" >&2
