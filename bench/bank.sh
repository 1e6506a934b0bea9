#!/usr/bin/env bash
# Seed 000's filter bank (issue 15), in one run, written to bench/results/bank.md:
#  - `join gen --dataset imdb-ratings` at the seed's size (1,256,196 titles);
#  - `join bank build --validate` (one read of the file: count, build ten
#    filters at p = 0.01, probe every title against the other classes'
#    filters) with the bloom kind (bits-and-blooms, the seed's filter) and
#    the blocked kind, against bench/peers/bank (the same ten
#    bits-and-blooms filters built and probed naively on one goroutine),
#    ROUNDS rounds alternating (default 5), wall time of each process,
#    medians;
#  - the validation table of the bloom bank: every class's FP against the
#    formula for its own (m_i, k_i, n_i), and the bank's bytes against the
#    optimal m_i.
#
#   bash bench/bank.sh
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${ROUNDS:-5}
rows=${ROWS:-1256196}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/join" ./cmd/join
(cd bench/peers && go build -o "$tmp/peer" ./bank)
"$tmp/join" gen --dataset imdb-ratings --rows "$rows" --seed 1 --out "$tmp" > "$tmp/gen.txt"
keys="$tmp/title.ratings.tsv"

now() { date +%s%N; }
declare -A times
for r in $(seq "$rounds"); do
  for who in peer bloom blocked; do
    t0=$(now)
    case $who in
      peer) "$tmp/peer" -keys "$keys" > "$tmp/peer.json" ;;
      *) "$tmp/join" bank build --keys "$keys" --key-col tconst --key-type string --class-col averageRating \
           --fpp 0.01 --filter "$who" --validate --out "$tmp/$who.bank" > "$tmp/$who.md" ;;
    esac
    t1=$(now)
    times[$who]+="$(( (t1 - t0) / 1000000 )) "
  done
  echo "round $r of $rounds" >&2
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
peer=$(echo "${times[peer]}" | median)
bloom=$(echo "${times[bloom]}" | median)
blocked=$(echo "${times[blocked]}" | median)

cpu=$(. bench/permodel.sh; cpu_model)
machine="$cpu, $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GiB; $(go version | cut -d' ' -f3-4); $(date -u +%Y-%m-%d); commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
verdict() { awk -v a="$1" -v b="$2" -v g="$3" 'BEGIN {print (b / a >= g ? "met" : "**missed**")}'; }
under() { awk -v a="$1" -v g="$2" 'BEGIN {print (a <= g ? "met" : "**missed**")}'; }
mkdir -p bench/results
{
  echo "# Filter bank: seed 000 at its size (issue 15)"
  echo
  echo "Machine: $machine."
  echo
  echo "Produced by \`bash bench/bank.sh\` (ROUNDS=$rounds, ROWS=$rows). $(cat "$tmp/gen.txt")"
  echo
  echo "Wall time of each process (reading the file, counting n_i, building ten filters at p = 0.01,"
  echo "probing every title against the other nine), median of $rounds rounds, the three alternating:"
  echo
  echo "| run | median ms | rounds (ms) | peer / this |"
  echo "|---|---:|---|---:|"
  echo "| bench/peers/bank: ten bits-and-blooms filters, naive, one goroutine | $peer | ${times[peer]}| 1.00 |"
  echo "| \`join bank build --validate --filter bloom\` (the same filters) | $bloom | ${times[bloom]}| $(ratio "$peer" "$bloom") |"
  echo "| \`join bank build --validate --filter blocked\` | $blocked | ${times[blocked]}| $(ratio "$peer" "$blocked") |"
  echo
  echo "Goals: build + validate under 2 s: bloom $(under "$bloom" 2000), blocked $(under "$blocked" 2000);"
  echo "at least 3x faster than the naive peer: bloom $(verdict "$bloom" "$peer" 3), blocked $(verdict "$blocked" "$peer" 3)."
  echo
  echo "The peer's own split (last round): \`$(cat "$tmp/peer.json")\`"
  echo
  echo "### \`join bank build --validate --filter bloom\` (last round)"
  echo
  cat "$tmp/bloom.md"
  echo
  echo "### \`join bank build --validate --filter blocked\` (last round)"
  echo
  cat "$tmp/blocked.md"
} | sed "s|$tmp/||g" > bench/results/bank.md.tmp
mv bench/results/bank.md.tmp bench/results/bank.md
echo "wrote bench/results/bank.md" >&2
