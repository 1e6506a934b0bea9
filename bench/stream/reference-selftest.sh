#!/usr/bin/env bash
# Self-test of the `join stream` reference (bench/peers/stream, DuckDB):
# builds it and runs tiny handmade cases whose expected rows were derived by
# hand from /work/stream-spec.md; exits non-zero on any mismatch.
#
#   bash bench/stream/reference-selftest.sh
#
# Rows are compared as a multiset: records (a quoted line break kept inside
# its record) sorted bytewise.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd peers && go build -tags duckdb -o "$tmp/ref" ./stream)
ref=$tmp/ref
failed=0

# norm: one CSV record a line (a line break inside quotes becomes \n), sorted.
norm() {
  awk '{ r = (open ? r "\\n" : "") $0; n = gsub(/"/, "\"", $0); q = (q + n) % 2; open = q
         if (!open) { print r; r = "" } } END { if (open) print r }' "$1" | LC_ALL=C sort
}
# check NAME EXPECTED-FILE ARGS...: run the reference, compare its rows.
check() {
  local name=$1 want=$2; shift 2
  if ! "$ref" "$@" --out "$tmp/got" > "$tmp/stdout" 2> "$tmp/stderr"; then
    echo "FAIL $name: exit non-zero: $(cat "$tmp/stderr")"; failed=1; return
  fi
  if ! diff <(norm "$want") <(norm "$tmp/got") > "$tmp/diff"; then
    echo "FAIL $name: rows differ (< want, > got):"; cat "$tmp/diff"; failed=1; return
  fi
  echo "ok   $name ($(cat "$tmp/stdout"))"
}
# fails NAME MESSAGE ARGS...: the reference must fail with MESSAGE in stderr.
fails() {
  local name=$1 msg=$2; shift 2
  if "$ref" "$@" --out "$tmp/got" > /dev/null 2> "$tmp/stderr"; then
    echo "FAIL $name: succeeded, want error containing: $msg"; failed=1; return
  fi
  if ! grep -qF -- "$msg" "$tmp/stderr"; then
    echo "FAIL $name: error $(cat "$tmp/stderr"), want containing: $msg"; failed=1; return
  fi
  echo "ok   $name (error: $(head -1 "$tmp/stderr"))"
}
cd "$tmp"

# A. --batch 2 (KB = B = 2). Events idx/batch: 0 +1 a b0; 1 +2 b b0;
# 2 -1 b1 (kills ins0: [0,1)); 3 +1 a2 b1; 4 +2 "b,2" b2; 5 -2 b2 (same
# batch as insert 4, kills the OLDEST 2, ins1: [0,2)); 6 +7 (line break) b3;
# 7 -2 b3 (kills ins4: [2,3)); 8 +007 b4. Probe rows j in batch j/2.
cat > evA.csv <<'EOF'
id,name,note
+1,a,x
+2,b,y
-1
+1,a2,z
+2,"b,2","q""uote"
-2
+7,c,"multi
line"
-2
+007,d,e
EOF
cat > prA.csv <<'EOF'
id,v
1,p0
2,p1
1,p2
2,p3
2,p4
007,p5
7,"p,6"
7,p7
007,"p
8"
2,p9
EOF
cat > wantA <<'EOF'
1,p0,a,x
2,p1,b,y
1,p2,a2,z
2,p3,b,y
2,p4,"b,2","q""uote"
7,"p,6",c,"multi
line"
7,p7,c,"multi
line"
007,"p
8",c,"multi
line"
007,"p
8",d,e
EOF
check "A event mode, int keys" wantA --key-events evA.csv --probe prA.csv --batch 2
# Same as strings: "007" and "7" differ, so p5 still nothing, p8 only d.
cat > wantA2 <<'EOF'
1,p0,a,x
2,p1,b,y
1,p2,a2,z
2,p3,b,y
2,p4,"b,2","q""uote"
7,"p,6",c,"multi
line"
7,p7,c,"multi
line"
007,"p
8",d,e
EOF
check "A event mode, string keys" wantA2 --key-events evA.csv --probe prA.csv --batch 2 --key-type string

# B. Duplicate live rows of one key, FIFO deletes, re-insert after delete.
# KB = B = 1: first [0,2), second [1,4), third [3,inf).
printf 'k,val\n+5,first\n+5,second\n-5\n+5,third\n-5\n' > evB.csv
printf 'k,r\n5,r0\n5,r1\n5,r2\n5,r3\n5,r4\n5,r5\n' > prB.csv
cat > wantB <<'EOF'
5,r0,first
5,r1,first
5,r1,second
5,r2,second
5,r3,second
5,r3,third
5,r4,third
5,r5,third
EOF
check "B FIFO, batch 1" wantB --key-events evB.csv --probe prB.csv --batch 1
# --key-batch 2, --batch 1: first [0,1), second [0,2), third [1,inf).
cat > wantB2 <<'EOF'
5,r0,first
5,r0,second
5,r1,second
5,r1,third
5,r2,third
5,r3,third
5,r4,third
5,r5,third
EOF
check "B FIFO, key-batch 2" wantB2 --key-events evB.csv --probe prB.csv --batch 1 --key-batch 2

# C. BOM before the header, CRLF line ends, --join-col naming another column,
# a key side with no column but the key.
printf '\xef\xbb\xbfid\r\n+1\r\n+2\r\n-1\r\n' > evC.csv
printf '\xef\xbb\xbfx,kid\r\na,1\r\nb,2\r\n' > prC.csv
# Default batches: all three events are in batch 0, so 1 is gone before
# probe batch 0. --batch 1 --key-batch 2: the delete is in batch 1, after
# probe row 0 (batch 0) was probed.
printf 'b,2\n' > wantC
check "C BOM, CRLF, --join-col" wantC --key-events evC.csv --probe prC.csv --join-col kid
printf 'a,1\nb,2\n' > wantC2
check "C delete in a later batch" wantC2 --key-events evC.csv --probe prC.csv --join-col kid --batch 1 --key-batch 2

# D. Timed mode, W = 10: a probe at t joins key rows with t-10 < tk <= t
# (t-10 exactly is out, t itself is in).
printf 'pid,t,title\n1,100,a\n1,105,b\n2,105,c\n1,110,d\n' > kD.csv
printf 'cid,pid,t\nx,1,110\nz,2,114\ny,1,115\nw,2,115\n' > pD.csv
cat > wantD <<'EOF'
x,1,110,105,b
x,1,110,110,d
y,1,115,110,d
z,2,114,105,c
EOF
check "D timed mode boundaries" wantD --key-events kD.csv --probe pD.csv --key-col pid --window 10 --key-time t
printf 'x,1,110,110,d\n' > wantD2
check "D timed mode W=1" wantD2 --key-events kD.csv --probe pD.csv --key-col pid --window 1 --key-time t

# E. Errors name the file and the line (a quoted line break counts).
printf 'id,name\n+1,"a\nb"\n-1\n-1\n' > e1.csv
printf 'id\n1\n' > p1.csv
fails "E delete with no live row" "e1.csv:5:" --key-events e1.csv --probe p1.csv
printf 'k,val\n+5,a\n-5\n-5\n' > e2.csv
fails "E bad delete after the last probe batch" "e2.csv:4:" --key-events e2.csv --probe p1.csv --key-col k --join-col id --batch 1 --key-batch 1
printf 'id,name\n+1,a\n+x,b\n' > e3.csv
fails "E non-integer event key" "e3.csv:3:" --key-events e3.csv --probe p1.csv
printf 'id,w\n1,"a\nb"\n7,q\n x,s\n' > p4.csv
fails "E non-integer probe key" "p4.csv:5:" --key-events evC.csv --probe p4.csv
printf 'pid,t\n1,5\n1,4\n' > k5.csv
fails "E timed key out of order" "k5.csv:3: time 4 after 5" --key-events k5.csv --probe pD.csv --key-col pid --window 3 --key-time t
printf 'cid,pid,t\nx,1,110\ny,1,109\n' > p6.csv
fails "E timed probe out of order" "p6.csv:3: time 109 after 110" --key-events kD.csv --probe p6.csv --key-col pid --window 3 --key-time t

if [ "$failed" != 0 ]; then echo "reference self-test FAILED"; exit 1; fi
echo "reference self-test passed"
