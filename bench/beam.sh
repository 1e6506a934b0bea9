#!/usr/bin/env bash
# beamjoin on prism against join run, at the full generated scale (issue 20):
# `join gen --scale SCALE --seed 1` (default 1: 16,522,438 citations) and
# `join keys` (65,771 keys), then ROUNDS rounds (default 3) of, one after
# another: beamjoin on prism in its own process (the default runner), join
# run, and beamjoin submitted to a separate prism job server with its
# workers in a Go SDK worker pool (EXTERNAL environment). Each run's wall time
# and peak RSS come from /usr/bin/time (for the out-of-process run, the
# submitting process's RSS; prism's and the pool's are their own); and
# beamjoin on prism reading both sides from an S3 server on loopback
# (beam/cmd/fakes3: gofakes3 over files, in its own process; issue 47),
# writing the same local output. Once after the rounds, beamjoin reads from
# and writes its output to the S3 server, as shards. Every beamjoin output
# (the shards' rows together) is compared, sorted, with join run's. Writes
# bench/results/beam.md.
# Goals: in-process prism <= 20 s and <= 1.2 GB at full scale, its output
# equal to join run's; read from S3 on loopback <= 1.5x the time from the
# local files.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/cluster.sh
rounds=${ROUNDS:-3}
scale=${SCALE:-1}
out=bench/out/beam
data=$out/data-$scale
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -- -"$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$out"

go build -o "$tmp/join" ./cmd/join
(cd beam && go build -o "$tmp/beamjoin" ./cmd/beamjoin && go build -o "$tmp/prism" github.com/apache/beam/sdks/v2/go/cmd/prism &&
  go build -o "$tmp/boot" github.com/apache/beam/sdks/v2/go/container && go build -o "$tmp/fakes3" ./cmd/fakes3)
if [ ! -f "$data/keys.txt" ]; then
  "$tmp/join" gen --scale "$scale" --seed 1 --out "$data" >&2
  "$tmp/join" keys --patents "$data/apat63_99.txt" --out "$data/keys.txt" >&2
fi
keys=$data/keys.txt
input=$data/cite75_99.txt
rows=$(($(wc -l < "$input") - 1))

# The out-of-process cluster: a prism job server and a worker pool, each in
# its own process group.
start_cluster

# The S3 server, in its own process: the sides put in bucket data (a
# copy in its store, made before it serves).
mkdir -p "$tmp/s3src/data"
ln "$keys" "$tmp/s3src/data/keys.txt" 2>/dev/null || cp "$keys" "$tmp/s3src/data/keys.txt"
ln "$input" "$tmp/s3src/data/cite75_99.txt" 2>/dev/null || cp "$input" "$tmp/s3src/data/cite75_99.txt"
setsid "$tmp/fakes3" -dir "$tmp/s3store" -load "$tmp/s3src" > "$tmp/fakes3.url" 2> "$tmp/fakes3.log" &
pids+=($!)
for _ in $(seq 1 600); do [ -s "$tmp/fakes3.url" ] && break; sleep 0.1; done
[ -s "$tmp/fakes3.url" ] || { echo "fakes3 did not start:" >&2; cat "$tmp/fakes3.log" >&2; exit 1; }
s3env=(env AWS_ENDPOINT_URL="$(head -1 "$tmp/fakes3.url")" AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_EC2_METADATA_DISABLED=true AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null)

run() { # name, command...: appends "name wall_s rss_kb" to $tmp/times
  local name=$1; shift
  /usr/bin/time -f "$name %e %M" -a -o "$tmp/times" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" || {
    echo "$name failed:" >&2; tail -5 "$tmp/$name.err" >&2; exit 1; }
}
same() { # file: 1 if its rows equal join run's
  if cmp -s <(tail -n +2 "$1" | sort) "$tmp/local.sorted"; then echo 1; else echo 0; fi
}
: > "$tmp/times"
: > "$tmp/equal"
for i in $(seq 1 "$rounds"); do
  echo "round $i of $rounds" >&2
  run prism "$tmp/beamjoin" --keys "$keys" --input "$input" --filter acbf --quiet --out "$tmp/beam.csv"
  run local "$tmp/join" run --keys "$keys" --input "$input" --filter acbf --quiet --out "$tmp/local.csv"
  tail -n +2 "$tmp/local.csv" | sort > "$tmp/local.sorted"
  echo "prism $(same "$tmp/beam.csv")" >> "$tmp/equal"
  run external "$tmp/beamjoin" --keys "$keys" --input "$input" --filter acbf --quiet --out "$tmp/ext.csv" \
    --runner=universal --endpoint=localhost:"$port" --environment_type=EXTERNAL --environment_config=localhost:50000 --worker_binary="$tmp/beamjoin"
  echo "external $(same "$tmp/ext.csv")" >> "$tmp/equal"
  run s3 "${s3env[@]}" "$tmp/beamjoin" --keys s3://data/keys.txt --input s3://data/cite75_99.txt --filter acbf --quiet --out "$tmp/s3.csv"
  echo "s3 $(same "$tmp/s3.csv")" >> "$tmp/equal"
done
run s3out "${s3env[@]}" "$tmp/beamjoin" --keys s3://data/keys.txt --input s3://data/cite75_99.txt --filter acbf --quiet --out s3://data/out/joined.csv
shards=$(ls "$tmp/s3store/buckets/data/out/" | grep -c '^joined-.*-of-.*\.csv$')
left=$(find "$tmp/s3store/buckets/data/out/" -type f ! -name 'joined-*' | wc -l)
if cmp -s <(awk 'FNR > 1' "$tmp/s3store/buckets/data/out/"joined-*.csv | sort) "$tmp/local.sorted"; then eq_s3out=1; else eq_s3out=0; fi
joinrows=$(wc -l < "$tmp/local.sorted")

med() { # name field(2: wall s, 3: rss KB) -> median
  awk -v n="$1" -v f="$2" '$1 == n { print $f }' "$tmp/times" | sort -g | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; print m }'
}
list() { awk -v n="$1" '$1 == n { printf "%s%s", sep, $2; sep = ", " }' "$tmp/times"; }
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; } # an expression, two decimals
pw=$(med prism 2); pr=$(med prism 3); lw=$(med local 2); lr=$(med local 3); ew=$(med external 2); er=$(med external 3)
sw=$(med s3 2); sr=$(med s3 3); ow=$(med s3out 2); or=$(med s3out 3)
eq_s3=$(awk '$1 == "s3" && $2 == 1' "$tmp/equal" | wc -l)
eq_prism=$(awk '$1 == "prism" && $2 == 1' "$tmp/equal" | wc -l)
eq_ext=$(awk '$1 == "external" && $2 == 1' "$tmp/equal" | wc -l)
cpu=$(. bench/permodel.sh; cpu_model)
cores=$(nproc)
{
  echo "# beamjoin on prism against join run"
  echo
  echo "Generated by \`bash bench/beam.sh\` (do not edit by hand)."
  echo
  echo "Machine: $cpu, $cores cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(go version | cut -d' ' -f3-4); Beam Go SDK $(grep 'apache/beam/sdks/v2 v' beam/go.mod | awk '{print $2}'); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo
  echo "Data: \`join gen --scale $scale --seed 1\` ($rows citations) and \`join keys\` ($(($(wc -l < "$keys") - 1)) keys); the ACBF at 32 bits a key; $joinrows join rows. $rounds rounds, each: beamjoin on prism in its own process, join run, beamjoin submitted to a prism job server in another process with its workers in a Go SDK worker pool (EXTERNAL). Wall time and peak RSS from /usr/bin/time; medians, every run listed."
  echo
  echo "| run | wall s (median) | every run | peak RSS MB (median) | rows equal to join run's | input rows/s | rows/s a core |"
  echo "|---|---|---|---|---|---|---|"
  echo "| beamjoin, prism in process | $pw | $(list prism) | $(calc "$pr/1024") | $eq_prism of $rounds | $(calc "$rows/$pw/1e6")M | $(calc "$rows/$pw/$cores/1e6")M |"
  echo "| join run | $lw | $(list local) | $(calc "$lr/1024") | (the reference) | $(calc "$rows/$lw/1e6")M | $(calc "$rows/$lw/$cores/1e6")M |"
  echo "| beamjoin, prism job server + EXTERNAL worker pool | $ew | $(list external) | $(calc "$er/1024") (the submitting process) | $eq_ext of $rounds | $(calc "$rows/$ew/1e6")M | $(calc "$rows/$ew/$cores/1e6")M |"
  echo "| beamjoin, prism in process, both sides read from S3 on loopback | $sw | $(list s3) | $(calc "$sr/1024") | $eq_s3 of $rounds | $(calc "$rows/$sw/1e6")M | $(calc "$rows/$sw/$cores/1e6")M |"
  echo "| beamjoin, prism in process, from S3 and written to S3 as $shards shards | $ow | $(list s3out) | $(calc "$or/1024") | $eq_s3out of 1 (the shards' rows) | $(calc "$rows/$ow/1e6")M | $(calc "$rows/$ow/$cores/1e6")M |"
  echo
  echo "The S3 server is beam/cmd/fakes3 (gofakes3 $(grep 'johannesboyne/gofakes3 v' beam/go.mod | awk '{print $2}'), its file-system store) in its own process on 127.0.0.1, serving a copy of the same files; it shares the machine's $cores cores with the pipeline. After the shards were committed, $left other files were left under out/ in the store (the temporary folder's empty directory is the fake store's, which keeps folders; S3 has none)."
  echo
  echo "beamjoin on prism / join run: $(calc "$pw/$lw")x the wall time. Read from S3 / read from local files: $(calc "$sw/$pw")x."
  echo
  echo "| goal | measured | verdict |"
  echo "|---|---|---|"
  v1=met; awk -v w="$pw" 'BEGIN { exit !(w <= 20) }' || v1="**missed**"
  v2=met; awk -v r="$pr" 'BEGIN { exit !(r <= 1.2 * 1024 * 1024) }' || v2="**missed**"
  v3=met; [ "$eq_prism" = "$rounds" ] && [ "$eq_ext" = "$rounds" ] || v3="**missed**"
  [ "$scale" = 1 ] || { v1="(not at full scale)"; v2="(not at full scale)"; }
  echo "| full scale on prism in process <= 20 s | $pw s | $v1 |"
  echo "| full scale on prism in process <= 1.2 GB peak RSS | $(calc "$pr/1024/1024") GB | $v2 |"
  echo "| output equal to join run's, in and out of process | $eq_prism + $eq_ext of $((2 * rounds)) runs | $v3 |"
  v4=met; awk -v s="$sw" -v p="$pw" 'BEGIN { exit !(s <= 1.5 * p) }' || v4="**missed**"
  v5=met; [ "$eq_s3" = "$rounds" ] && [ "$eq_s3out" = 1 ] && [ "$left" = 0 ] || v5="**missed**"
  echo "| read from S3 on loopback <= 1.5x the time from local files | $(calc "$sw/$pw")x | $v4 |"
  echo "| output from S3 and as S3 shards equal to join run's, nothing else left | $eq_s3 of $rounds, $eq_s3out of 1; $left files left | $v5 |"
} > bench/results/beam.md
echo "wrote bench/results/beam.md" >&2
