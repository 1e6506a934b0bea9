#!/usr/bin/env bash
# Issue 43: what `runtime.asyncPreempt` in our CPU profiles stands for.
# Go's profiler (pprof, SIGPROF) puts 1-17% of a join's samples on it, in
# the memory-bound loops (the filter build, the reduce's lookups); three
# measurements that do not go through that profiler say whether it costs
# CPU:
#  1. the join with asynchronous preemption off (GODEBUG=asyncpreemptoff=1)
#     against on, alternated (ABBA) over ROUNDS rounds (default 5): CPU
#     (user + sys) and wall from /usr/bin/time, medians and paired ratios;
#  2. the preemption signals the runtime sends in a run (tgkill, counted by
#     strace -c, where strace is installed);
#  3. the share of CPU samples in runtime.asyncPreempt by pprof
#     (bench/cmd/profilejoin -cpuprofile) and by perf (perf record -F 999,
#     the kernel's sampling, where perf is installed and allowed).
# The join: KEYS (default bench/out/data/keys.txt, bench/join.sh's 65,771
# keys, where pprof puts the most on asyncPreempt; keys1m.txt for 10^6)
# against bench/out/data/cite75_99.txt, ACBF, 2 mappers, 2 reducers.
# Writes bench/results/asyncpreempt.md.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-7}
data=${DATA:-bench/out/data}
keys=${KEYS:-$data/keys.txt}
input=$data/cite75_99.txt
[ -f "$input" ] || { echo "asyncpreempt.sh: no $input: run bench/join.sh first (it generates the data)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/join" ./cmd/join
go build -o "$tmp/profilejoin" ./bench/cmd/profilejoin
run=("$tmp/join" run --keys "$keys" --input "$input" --filter acbf --mappers 2 --reducers 2 --quiet --out "$tmp/o.csv" --tmp-dir "$tmp")

: > "$tmp/times"
one() { # label [env...]: one timed run, "label wall cpu" appended to times
  local label=$1; shift
  env "$@" /usr/bin/time -f "$label %e %U %S" -o "$tmp/t" "${run[@]}"
  awk '{ printf "%s %s %.3f\n", $1, $2, $3 + $4 }' "$tmp/t" >> "$tmp/times"
}
for r in $(seq 1 "$rounds"); do
  echo "round $r of $rounds" >&2
  if [ $((r % 2)) = 1 ]; then one on; one off GODEBUG=asyncpreemptoff=1; else one off GODEBUG=asyncpreemptoff=1; one on; fi
done
signals=""
if command -v strace > /dev/null; then
  strace -f -c -o "$tmp/strace" -e trace=tgkill "${run[@]}" 2> /dev/null || true
  signals=$(awk '$NF == "tgkill" { print $4 }' "$tmp/strace")
fi
# pprof's share: profilejoin runs the same join with the CPU profiler on.
"$tmp/profilejoin" -keys "$keys" -input "$input" -cpuprofile "$tmp/cpu.pprof" > /dev/null 2>&1
pprofshare=$(go tool pprof -top "$tmp/cpu.pprof" 2>/dev/null | awk '$NF == "runtime.asyncPreempt" { print $2; found=1 } END { if (!found) print "0%" }')
perfshare="not measured (perf not installed or not allowed)"
if command -v perf > /dev/null && perf record -q -o "$tmp/perf.data" -F 999 "${run[@]}" > /dev/null 2>&1; then
  perfshare=$(perf report -i "$tmp/perf.data" --no-children --sort symbol -g none 2> /dev/null |
    awk '/runtime.asyncPreempt/ { s += $1 } END { printf "%.2f%%", s + 0 }')
fi
{
  echo "# What runtime.asyncPreempt stands for"
  echo
  echo "Written by \`bash bench/asyncpreempt.sh\` (do not edit by hand); $(. bench/permodel.sh; cpu_model),"
  echo "$(nproc) cores; $(go version | cut -d' ' -f3-4); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD); load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "The join: \`$(basename "$keys")\` ($(($(wc -l < "$keys") - 1)) key rows) against \`$(basename "$input")\`, ACBF, 2 mappers, 2 reducers."
  echo
  echo "## 1. Asynchronous preemption off against on ($rounds alternated pairs, medians)"
  echo
  echo "| | wall s | CPU s |"
  echo "|---|---:|---:|"
  awk '{ w[$1]=w[$1] " " $2; c[$1]=c[$1] " " $3 }
    function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i=1;i<=n;i++) for (j=i+1;j<=n;j++) if (a[j] < a[i]) { t=a[i]; a[i]=a[j]; a[j]=t } return (n%2) ? a[(n+1)/2] : (a[n/2]+a[n/2+1])/2 }
    END { printf "| preemption on (default) | %.3f | %.3f |\n", med(w["on"]), med(c["on"]); printf "| GODEBUG=asyncpreemptoff=1 | %.3f | %.3f |\n", med(w["off"]), med(c["off"]) }' "$tmp/times"
  # Paired ratios: the k-th off run over the k-th on run.
  awk '$1 == "on" { won[++a]=$2; con[a]=$3 } $1 == "off" { woff[++b]=$2; coff[b]=$3 }
    function med(s,   x, n, i, j, t) { n = split(s, x, " "); for (i=1;i<=n;i++) for (j=i+1;j<=n;j++) if (x[j] < x[i]) { t=x[i]; x[i]=x[j]; x[j]=t } return (n%2) ? x[(n+1)/2] : (x[n/2]+x[n/2+1])/2 }
    END { for (i=1;i<=a;i++) { rw = rw " " woff[i]/won[i]; rc = rc " " coff[i]/con[i] }
      printf "\nPaired ratios off/on, medians: wall %.3fx, CPU %.3fx.\n", med(rw), med(rc) }' "$tmp/times"
  echo
  echo "## 2. Preemption signals in one run"
  echo
  if [ -n "$signals" ]; then echo "$signals preemption signals (tgkill, strace -c) in the whole run."; else echo "Not counted (strace not installed)."; fi
  echo
  echo "## 3. The share of CPU samples in runtime.asyncPreempt"
  echo
  echo "| profiler | share |"
  echo "|---|---:|"
  echo "| pprof (Go's SIGPROF sampling, bench/cmd/profilejoin -cpuprofile) | $pprofshare |"
  echo "| perf record -F 999 (the kernel's sampling) | $perfshare |"
  echo
  echo "If turning preemption off leaves the CPU time where it was, and perf finds next to none of"
  echo "the samples pprof puts on asyncPreempt, then those samples are not time spent"
  echo "preempting: they are where Go's signal-based profiler attributes samples, not a cost of"
  echo "the join. docs/status.md says what this run found."
} > "$tmp/out.md"
mkdir -p bench/results
mv "$tmp/out.md" bench/results/asyncpreempt.md
echo "wrote bench/results/asyncpreempt.md" >&2
