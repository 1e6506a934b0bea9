#!/usr/bin/env bash
# Issue 43: the CSV scanner's CPU-specific path against the portable one,
# on the machine at hand. The scanner's masks come from an AVX2 assembly
# call per 8 KiB block (csvscan.scanMasks) where the CPU has AVX2 (and an
# edge list's lines are then found by csvscan.twoColSteps, scalar
# assembly with the state in registers), or from
# the portable Go word loop with ACBFJOIN_CPU=portable; a colleague's Intel
# Xeon paid an SSE/AVX transition on every call of the former per-64-byte
# assembly (the map phase 277 -> 436 ms), which AMD does not. The same
# switch turns off the vector hash of integer keys (hashing.Sum8Ints:
# AVX-512, eight keys a step, or AVX2, four, where AVX-512 is missing, as
# on AMD Zen 3; the ACBF's and the blocked filter's ContainsInts):
# "native" runs both where the CPU has them, "portable" neither.
#
# Builds the CLI once, then runs the join (`join run`, ACBF, CSV output,
# MAPPERS mappers, default 1, one reducer) with ACBFJOIN_CPU=native and
# =portable, alternated in ABBA order over ROUNDS rounds (default 5) so
# that a drift of the machine's speed falls on both; wall time and peak RSS
# from /usr/bin/time, the map phase from --report-json (timings_ms.map, as
# bench/join.sh reads it). Both paths' outputs must be the same rows (the
# script stops otherwise). Then the Go microbenchmarks of the scanner
# (BenchmarkScanMasks: ns per 64 bytes of the block scanner, the word loop
# and the byte reference; ReadCite/batch and batch-words: the reader over
# 32 MiB; NextFieldPatents: the key side's reader on NBER patent rows,
# block masks with quotes against the word loop), BENCHCOUNT runs each
# (default 5), medians; and a check that every vector instruction of
# masksBlockAVX2, masksQBlockAVX2, parseLast8AVX2, twoColSteps and
# sum8IntsAVX2 is VEX-encoded (objdump). BenchmarkParseLast8: the join column's integers
# parsed four at a time in AVX2 (parseLast8AVX2) against the Go loop.
#
# Data as bench/join.sh makes it: `join gen --scale SCALE --seed 1` and
# `join keys --sample 65771*SCALE --seed 1`, in DATA (default bench/out/data
# at SCALE 1, bench/out/data-SCALE otherwise), made if absent. SCALE=0.1
# for a quick run. Writes bench/results/cpu-paths.md.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/permodel.sh
rounds=${ROUNDS:-5}
scale=${SCALE:-1}
mappers=${MAPPERS:-1}
benchcount=${BENCHCOUNT:-5}
if [ "$scale" = 1 ]; then data=${DATA:-bench/out/data}; else data=${DATA:-bench/out/data-$scale}; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/join" ./cmd/join
if [ ! -f "$data/cite75_99.txt" ] || [ ! -f "$data/keys.txt" ]; then
  sample=$(awk -v s="$scale" 'BEGIN{n=int(65771*s+0.5); print (n<1)?1:n}')
  "$tmp/join" gen --scale "$scale" --seed 1 --out "$data"
  "$tmp/join" keys --patents "$data/apat63_99.txt" --sample "$sample" --seed 1 --out "$data/keys.txt"
fi
rows=$(($(wc -l < "$data/cite75_99.txt") - 1))
load0=$(cut -d' ' -f1-3 /proc/loadavg)
mb=$(du -m "$data/cite75_99.txt" | cut -f1)

one() { # path round: one join with ACBFJOIN_CPU=path
  ACBFJOIN_CPU=$1 /usr/bin/time -f "$1 $2 %e %M" -a -o "$tmp/times" \
    "$tmp/join" run --keys "$data/keys.txt" --input "$data/cite75_99.txt" --filter acbf \
    --mappers "$mappers" --reducers 1 --out "$tmp/$1.csv" --quiet --report-json "$tmp/$1-$2.json" > /dev/null
  printf '%s %s %s\n' "$1" "$2" "$(grep -A12 '"timings_ms"' "$tmp/$1-$2.json" | grep -o '"map": [0-9.]*' | head -1 | awk '{print $2}')" >> "$tmp/maps"
}
for i in $(seq 1 "$rounds"); do
  echo "round $i of $rounds" >&2
  if [ $((i % 2)) = 1 ]; then one native "$i"; one portable "$i"; else one portable "$i"; one native "$i"; fi
done
if ! cmp -s <(sort "$tmp/native.csv") <(sort "$tmp/portable.csv"); then
  echo "the native and the portable path wrote different rows" >&2
  exit 1
fi
joinrows=$(($(wc -l < "$tmp/native.csv") - 1))
load1=$(cut -d' ' -f1-3 /proc/loadavg)

median() { sort -g | awk '{a[NR]=$1} END{if (NR==0) print "n/a"; else print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
col() { awk -v p="$2" -v c="$3" '$1==p{print $c}' "$1"; }
wall_n=$(col "$tmp/times" native 3 | median); wall_p=$(col "$tmp/times" portable 3 | median)
rss_n=$(col "$tmp/times" native 4 | median); rss_p=$(col "$tmp/times" portable 4 | median)
map_n=$(col "$tmp/maps" native 3 | median | awk '{printf "%.1f", $1}'); map_p=$(col "$tmp/maps" portable 3 | median | awk '{printf "%.1f", $1}')
# Pair by pair: round i's native over round i's portable.
pairs() { # file field
  awk -v c="$2" '{v[$1" "$2]=$c; r[$2]=1} END{for (i in r) if (v["portable "i] > 0) print v["native "i]/v["portable "i]}' "$1" | median
}
wall_r=$(pairs "$tmp/times" 3); map_r=$(pairs "$tmp/maps" 3)

# The scanner's microbenchmarks, and the switch's effect on the block
# scanner itself.
(cd csvscan && go test -c -o "$tmp/csvscan.test" .)
load2=$(cut -d' ' -f1-3 /proc/loadavg)
(cd csvscan && "$tmp/csvscan.test" -test.run '^$' -test.bench 'ScanMasks|ReadCite/batch([+]ints)?(-words)?$|NextFieldPatents|ParseLast8' -test.count "$benchcount") > "$tmp/bench.txt"
(cd csvscan && ACBFJOIN_CPU=portable "$tmp/csvscan.test" -test.run '^$' -test.bench 'ScanMasks/block' -test.count "$benchcount") > "$tmp/bench-portable.txt"
# The integer keys' hash, both paths in one run (BenchmarkSum8Ints), and
# the ACBF's batch probe of integers under each setting of the switch.
(cd internal/hashing && go test -c -o "$tmp/hashing.test" .)
(cd internal/hashing && "$tmp/hashing.test" -test.run '^$' -test.bench 'Sum8Ints' -test.count "$benchcount") > "$tmp/bench-hash.txt"
(cd acbf && go test -c -o "$tmp/acbf.test" .)
(cd acbf && "$tmp/acbf.test" -test.run '^$' -test.bench 'ContainsBatch/keys=65771/ints' -test.count "$benchcount") > "$tmp/bench-acbf.txt"
(cd acbf && ACBFJOIN_CPU=portable "$tmp/acbf.test" -test.run '^$' -test.bench 'ContainsBatch/keys=65771/ints' -test.count "$benchcount") > "$tmp/bench-acbf-portable.txt"
benchmed() { # file name field-unit: the median of the value before unit on the rows of name
  awk -v n="$2" -v u="$3" '$1 ~ "^"n"(-[0-9]+)?$" {for (i=2;i<=NF;i++) if ($i==u) print $(i-1)}' "$1" | median
}
# Every instruction of the assembly (masksBlockAVX2, NextBatch's;
# masksQBlockAVX2, NextField's) that names an xmm or ymm register is
# VEX-encoded (its mnemonic starts with v in objdump's AT&T syntax).
vexcheck() { # symbol [binary, default csvscan.test]: its verdict
  local sym start nvec legacy nvz bin=${2:-csvscan.test}
  go tool nm "$tmp/$bin" > "$tmp/nm.txt"
  sym=$(awk -v s="$1" '$3 ~ "[.]"s"([.]abi0)?$" {print $1; exit}' "$tmp/nm.txt")
  [ -n "$sym" ] || { echo "$1 not found: not checked"; return; }
  start=$((16#$sym))
  objdump -d --no-show-raw-insn --start-address=$start --stop-address=$((start + 1024)) "$tmp/$bin" |
    awk -v s="$1" '$0 ~ s {on=1; next} on && /^$/{exit} on' | sed -n '/:/p' | awk '/ret/{print; exit} {print}' > "$tmp/asm.txt"
  nvec=$(grep -c '%[xy]mm' "$tmp/asm.txt" || true)
  legacy=$(grep '%[xy]mm' "$tmp/asm.txt" | awk '{m=$2} m !~ /^v/' | wc -l)
  nvz=$(grep -c vzeroupper "$tmp/asm.txt" || true)
  local ymm; ymm=$(grep -c '%ymm' "$tmp/asm.txt" || true)
  local vz="$nvz vzeroupper, before ret"; [ "$ymm" = 0 ] && [ "$nvz" = 0 ] && vz="no YMM register, so no vzeroupper needed"
  if [ "$legacy" = 0 ] && [ "$nvec" -gt 0 ]; then echo "$1: all $nvec instructions naming an XMM or YMM register are VEX (v...); $vz"; else echo "$1: **$legacy legacy SSE instruction(s)** among $nvec"; fi
}
vex="objdump not installed: not checked"
if command -v objdump > /dev/null; then
  vex="$(vexcheck masksBlockAVX2); $(vexcheck masksQBlockAVX2); $(vexcheck parseLast8AVX2); $(vexcheck twoColSteps); $(vexcheck sum8IntsAVX2 hashing.test)"
fi

cpu=$(cpu_model)
flags=$(grep -m1 '^flags' /proc/cpuinfo)
avx2=no; case " $flags " in *" avx2 "*) avx2=yes;; esac
avx512=no; if grep -qw avx512f <<< "$flags" && grep -qw avx512dq <<< "$flags" && grep -qw avx512bw <<< "$flags"; then avx512=yes; fi
{
  echo "# The scanner's CPU paths (issue 43)"
  echo
  echo "Generated by \`bash bench/cpu-paths.sh\` (do not edit by hand). One section a processor model: a run replaces its own model's section (bench/permodel.sh)."
} > "$tmp/head.md"
{
  echo "Machine: $cpu (AVX2: $avx2; AVX-512 F, DQ and BW: $avx512), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(go version | cut -d' ' -f3-4); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo
  echo "Data: \`join gen --scale $scale --seed 1\` ($rows citations, $mb MB) and \`join keys --seed 1\` ($(($(wc -l < "$data/keys.txt") - 1)) keys); \`join run --filter acbf --mappers $mappers --reducers 1\`, CSV output ($joinrows rows, the same for both paths). $rounds rounds, native and portable alternated ABBA; wall time and peak RSS from /usr/bin/time, the map phase from \`--report-json\` (timings_ms.map). Load average (1, 5, 15 min) before the joins $load0, after $load1$(awk -v a="${load0%% *}" -v b="${load1%% *}" -v n="$(nproc)" 'BEGIN{if (a > n || b > n) print ": above the " n " cores, other work shared the machine: noisier figures"}')."
  echo
  echo "| ACBFJOIN_CPU | scanner; integer hash | median wall s | median map ms | median peak RSS MB | all walls s | all maps ms |"
  echo "|---|---|---|---|---|---|---|"
  native_path="Go word loop"; [ "$avx2" = yes ] && native_path="AVX2 block (8 KiB a call), two-column steps in assembly (twoColSteps)"
  if [ "$avx512" = yes ]; then native_path="$native_path; AVX-512 (8 keys a step)"; elif [ "$avx2" = yes ]; then native_path="$native_path; AVX2 (4 keys a step)"; else native_path="$native_path; Go"; fi
  echo "| native | $native_path | $wall_n | $map_n | $(awk -v k="$rss_n" 'BEGIN{printf "%.0f", k/1024}') | $(col "$tmp/times" native 3 | tr '\n' ' ') | $(col "$tmp/maps" native 3 | awk '{printf "%.0f ", $1}') |"
  echo "| portable | Go word loop (8 bytes a step); Go | $wall_p | $map_p | $(awk -v k="$rss_p" 'BEGIN{printf "%.0f", k/1024}') | $(col "$tmp/times" portable 3 | tr '\n' ' ') | $(col "$tmp/maps" portable 3 | awk '{printf "%.0f ", $1}') |"
  echo
  echo "native/portable: wall $(awk -v a="$wall_n" -v b="$wall_p" 'BEGIN{printf "%.3f", a/b}') (ratio of medians), $(awk -v r="$wall_r" 'BEGIN{printf "%.3f", r}') (median of the rounds' ratios); map phase $(awk -v a="$map_n" -v b="$map_p" 'BEGIN{printf "%.3f", a/b}') (ratio of medians), $(awk -v r="$map_r" 'BEGIN{printf "%.3f", r}') (median of the rounds' ratios). Below 1: the native path is faster."
  echo
  echo "### The scanner alone (\`go test ./csvscan -bench 'ScanMasks|ReadCite/batch'\`, $benchcount runs, medians)"
  echo
  echo "| benchmark | ns per 64 bytes | MB/s |"
  echo "|---|---|---|"
  for n in block/8KiB words/8KiB bytes/8KiB block/64KiB words/64KiB bytes/64KiB; do
    echo "| ScanMasks/$n | $(benchmed "$tmp/bench.txt" "BenchmarkScanMasks/$n" ns/64B) | $(benchmed "$tmp/bench.txt" "BenchmarkScanMasks/$n" MB/s) |"
  done
  for n in block/8KiB block/64KiB; do
    echo "| ScanMasks/$n with ACBFJOIN_CPU=portable (masksBlockGo) | $(benchmed "$tmp/bench-portable.txt" "BenchmarkScanMasks/$n" ns/64B) | $(benchmed "$tmp/bench-portable.txt" "BenchmarkScanMasks/$n" MB/s) |"
  done
  for n in batch batch-words; do
    echo "| ReadCite/$n (the whole reader, 32 MiB) | | $(benchmed "$tmp/bench.txt" "BenchmarkReadCite/$n" MB/s) |"
  done
  for n in batch+ints batch+ints-words; do # the map phase's path: the join column's integers parsed by the scan
    echo "| ReadCite/$n (the reader with Batch.ScanInts, 32 MiB) | | $(benchmed "$tmp/bench.txt" "BenchmarkReadCite/${n/+/[+]}" MB/s) |"
  done
  for n in masks words; do
    echo "| NextFieldPatents/path=$n (the key side's reader, 16 MiB of NBER patent rows) | | $(benchmed "$tmp/bench.txt" "BenchmarkNextFieldPatents/path=$n" MB/s) |"
  done
  echo
  echo "| the join column's integers (\`BenchmarkParseLast8\`, 4,096 NBER-like records) | ns a record |"
  echo "|---|---|"
  for n in native portable; do
    echo "| ParseLast8/$n ($([ $n = native ] && echo 'parseLast8AVX2, four a step' || echo 'the Go loop, digits8')) | $(benchmed "$tmp/bench.txt" "BenchmarkParseLast8/$n" ns/record) |"
  done
  echo
  echo "### The integer keys' hash (\`go test ./internal/hashing -bench Sum8Ints\`, \`go test ./acbf -bench ContainsBatch/keys=65771/ints\`, $benchcount runs, medians)"
  echo
  echo "| benchmark | ns a key |"
  echo "|---|---|"
  for n in portable avx2 avx512; do
    echo "| Sum8Ints/$n (256 keys a call) | $(benchmed "$tmp/bench-hash.txt" "BenchmarkSum8Ints/$n" ns/key) |"
  done
  echo "| ACBF ContainsInts, 65,771 keys, 2^16 probes (native) | $(benchmed "$tmp/bench-acbf.txt" "BenchmarkContainsBatch/keys=65771/ints" cpu-ns/key) |"
  echo "| ACBF ContainsInts, the same with ACBFJOIN_CPU=portable | $(benchmed "$tmp/bench-acbf-portable.txt" "BenchmarkContainsBatch/keys=65771/ints" cpu-ns/key) |"
  echo
  echo "Load average before these: $load2; after: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "block: scanMasks as NextBatch calls it; words: the portable word loop's masks (zeroBytes); bytes: the byte-at-a-time reference. ReadCite/batch-words is the reader with the block scanner turned off, as on a CPU without AVX2 or with ACBFJOIN_CPU=portable; batch+ints is the map phase's read of an integer join column (the last column's scan, Reader.lastBlocks, on the block scanner, its two-column steps in twoColSteps; the word loop for batch+ints-words). NextFieldPatents is the key side's build path (NextField of the key column on quoted 23-field rows): path=masks on the block scanner's separator, line-break and quote masks (masksQBlockAVX2, lineFieldMasks), path=words on the word loop (lineField), which ACBFJOIN_CPU=portable takes."
  echo
  echo "Encodings (objdump of the test binary): $vex."
} > "$tmp/body.md"
permodel_write bench/results/cpu-paths.md "$tmp/head.md" "$tmp/body.md"
cat bench/results/cpu-paths.md
