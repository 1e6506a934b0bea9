#!/usr/bin/env bash
# Byte identity across a change (issue 32): the --sort output of `join run`
# and the filter file of `join build-filter`, for every filter kind of BASE
# (a commit, given as BASE=...), and banks (`join bank build`) with a join
# through each (issue 42), on the real NBER sample and on generated data, with single and
# composite keys, written by BASE's binary and by this tree's, compared by
# SHA-256. Prints one line a file and exits 1 on the first difference.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${BASE:?give BASE=<commit> to compare against}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/base" "$base"
(cd "$tmp/base" && go build -o "$tmp/before" ./cmd/join)
git worktree remove --force "$tmp/base"
go build -o "$tmp/after" ./cmd/join
kinds=${KINDS:-$("$tmp/before" filter size --n 1000 | awk -F'|' 'NR>4 && $2 ~ /[a-z]/ {gsub(/ /,"",$2); print $2}')}
sample=testdata/nber-mini
"$tmp/after" gen --scale 0.01 --seed 3 --out "$tmp/gen" > /dev/null
"$tmp/after" keys --patents "$tmp/gen/apat63_99.txt" --sample 2000 --seed 3 --out "$tmp/gen/keys.txt" > /dev/null
"$tmp/after" keys --from "$tmp/gen/cite75_99.txt" --sample 3000 --seed 3 --out "$tmp/gen/pairs.csv" > /dev/null
sets=("gen:$tmp/gen/keys.txt:$tmp/gen/cite75_99.txt:PATENT:CITED" "pairs:$tmp/gen/pairs.csv:$tmp/gen/cite75_99.txt:CITING,CITED:CITING,CITED")
if [ -d "$sample" ]; then
  sets+=("sample:$sample/apat63_99.mini.txt:$sample/cite75_99.mini.txt:PATENT:CITED")
else
  echo "the real sample is not at $sample: generated data only" >&2
fi
# FORMAT_CHANGED (kinds, space-separated) names kinds whose filter files
# BASE writes in an earlier format: their files are compared by what they
# do instead, the --sort output of this tree's binary joining through
# each (it reads both formats), which must be the same (issue 45: the
# exact kind's bitmap is written compact; BASE=11bef8e FORMAT_CHANGED=exact).
changed=" ${FORMAT_CHANGED:-} "
# Each kind at its defaults, then the sizing flags of each kind's own
# options on the generated keys (KIND:FLAGS, flags separated by commas).
sized=(${SIZED:-"bloom:--k,5" "cbf:--fpp,0.001" "acbf:--bits-per-key,40,--k,3,--acbf-capacity,3000" "acbf2:--fpp,0.0001,--k,4"
  "cuckoo:--bucket-size,8,--fingerprint-bits,12" "cuckoo:--fpp,0.001" "scalable:--initial-capacity,100,--growth,4,--tightening,0.8,--fpp,0.01"
  "blocked:--bits-per-key,10,--k,4"})
status=0
# digest FILE: the first 16 hex digits of its SHA-256; a filter or bank
# file's (magic ACJF, ACJB) without its version field and checksum, which
# a new version number changes when nothing else is (issue 45 made filter
# files version 3 and banks version 4 for the exact kind's compact form).
digest() {
  case "$(head -c 4 "$1")" in
    ACJF|ACJB) { head -c 4 "$1"; tail -c +7 "$1" | head -c -4; } | sha256sum | cut -c1-16 ;;
    *) sha256sum < "$1" | cut -c1-16 ;;
  esac
}
compare() { # name kind label, after before/after wrote their files
  if [[ "$changed" == *" $2 "* && -s "$tmp/before.filter" ]]; then
    for bin in before after; do
      "$tmp/after" run --keys "$cur_keys" --input "$cur_input" --key-col "$cur_kc" --join-col "$cur_jc" --filter-file "$tmp/$bin.filter" --sort --quiet --out "$tmp/$bin.ff.csv"
      mv "$tmp/$bin.ff.csv" "$tmp/$bin.filter"
    done
    set -- "$1" "$2" "${3:+$3, }filter files compared by the join through each"
  fi
  for what in csv filter; do
    a=$(digest "$tmp/before.$what"); b=$(digest "$tmp/after.$what")
    if [ "$a" = "$b" ]; then verdict=same; else verdict=DIFFERENT; status=1; fi
    printf '%-7s %-9s %-6s %s %s %s%s\n' "$1" "$2" "$what" "$a" "$b" "$verdict" "${3:+  ($3)}"
  done
}
for set in "${sets[@]}"; do
  IFS=: read -r name keys input kc jc <<< "$set"
  cur_keys=$keys cur_input=$input cur_kc=$kc cur_jc=$jc
  for kind in $kinds; do
    for bin in before after; do
      "$tmp/$bin" run --keys "$keys" --input "$input" --key-col "$kc" --join-col "$jc" --filter "$kind" --sort --mappers 2 --reducers 3 --out "$tmp/$bin.csv" --quiet
      if [ "$kind" != none ]; then
        "$tmp/$bin" build-filter --keys "$keys" --key-col "$kc" --filter "$kind" --out "$tmp/$bin.filter" > /dev/null
      else
        : > "$tmp/$bin.filter"
      fi
    done
    compare "$name" "$kind"
  done
done
IFS=: read -r name keys input kc jc <<< "${sets[0]}"
cur_keys=$keys cur_input=$input cur_kc=$kc cur_jc=$jc
for case in "${sized[@]}"; do
  kind=${case%%:*}
  IFS=, read -r -a flags <<< "${case#*:}"
  for bin in before after; do
    "$tmp/$bin" run --keys "$keys" --input "$input" --filter "$kind" "${flags[@]}" --sort --quiet --out "$tmp/$bin.csv"
    "$tmp/$bin" build-filter --keys "$keys" --filter "$kind" "${flags[@]}" --out "$tmp/$bin.filter" > /dev/null
  done
  compare "$name" "$kind" "${flags[*]}"
done
# Banks (join bank build) of the real sample: by category (a value a
# class, CBF) and by grant year (Bloom at an FPP), and a bank join's
# --sort output; "csv" is the join through the bank, "filter" the bank.
if [ -d "$sample" ]; then
  for case in "CAT:value:cbf:--bits-per-key,12" "GYEAR:round:bloom:--fpp,0.001"; do
    IFS=: read -r col classing kind f <<< "$case"
    IFS=, read -r -a flags <<< "$f"
    for bin in before after; do
      "$tmp/$bin" bank build --keys "$sample/apat63_99.mini.txt" --key-col PATENT --class-col "$col" --classes "$classing" --filter "$kind" "${flags[@]}" --out "$tmp/$bin.filter" --quiet
      "$tmp/$bin" run --bank "$tmp/$bin.filter" --keys "$sample/apat63_99.mini.txt" --input "$sample/cite75_99.mini.txt" --route column --sort --quiet --out "$tmp/$bin.csv"
    done
    compare bank "$kind" "bank over $col ${flags[*]}"
  done
fi
exit $status
