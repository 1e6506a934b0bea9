# bench/timing.sh: the timing of the bench scripts that source it (set
# $tmp, a scratch folder, first). Not run on its own.

# timed label command...: runs the command (its output discarded) and
# appends "label secs kb" to $tmp/times: the wall time from bash's clock
# to the millisecond (/usr/bin/time's %e has two decimals, a sixth of a
# 0.06 s join), /usr/bin/time's own start included for every command
# alike, and the peak RSS from /usr/bin/time. The page cache's dirty
# pages are written out first (sync, untimed): else a command is timed
# while the kernel writes out what the one before it wrote, on the same
# two cores (the Parquet bench's wide join writes 300 MB just before the
# twins' join, whose first run of a round took 0.24 s against 0.16-0.19).
timed() {
  local label=$1; shift
  sync
  local t0=$EPOCHREALTIME
  /usr/bin/time -f "%M" -o "$tmp/rss" "$@" > /dev/null
  local t1=$EPOCHREALTIME
  echo "$label $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') $(cat "$tmp/rss")" >> "$tmp/times"
}

# med label column: the median of column (2: seconds, 3: KB) of label's
# lines in $tmp/times.
med() { awk -v l="$1" -v c="$2" '$1==l{print $c}' "$tmp/times" | sort -g | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
