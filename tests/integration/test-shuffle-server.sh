#!/usr/bin/env bash
# The worker's block server (worker/shuffle.c) and the reducer's fetch
# (executor/fetch.c), with real processes: a master, a worker and an
# application (test-app, whose executor gives the worker the
# application's token).  Map outputs are written where executors write
# them (WORK_DIR/shuffle/APP/SHUFFLE/MAP.ATTEMPT, by shuffle-tool write);
# shuffle-tool fetch then asks the worker for one partition of every map
# output, over TCP, and prints it merged.  Checked against a plain
# reference: each partition's records in map order (unsorted), or by key
# with ties in map order (sorted: sort -s); small pieces and a small
# in-flight budget; blocks read in place when local; refusals (a wrong
# token, a missing map output, a damaged block, a silent worker, a worker
# killed, whose connection is refused) end as fetch failures naming the
# map output; and the outputs are removed when the application ends.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
TOOL=$TBIN/shuffle-tool
TOKEN=s3cr3t-token-of-the-app

start_master || { fail "master"; finish; exit 1; }
CORES=2 MEMORY=2G start_worker w1 || { fail "worker"; finish; exit 1; }
URL=$(grep -o 'serving this node.s map outputs at tcp://[0-9.:]*' "$T/w1.log" |
  awk '{print $NF}')
check "the worker serves map outputs at a URL of its own ($URL)" \
  grep -Eq '^tcp://127\.0\.0\.1:[0-9]+$' <<<"$URL"
start_app app --token "$TOKEN" --max-cores 1 || fail "the application registers"
check "its executor runs on the worker (so the worker knows its token)" \
  wait_for 10 grep -q '^EXECUTOR_REGISTERED' "$T/app.out"
DIR=$T/w1/shuffle/$APP_ID

# M map outputs of R partitions each, for shuffle S (sorted or not); their
# inputs kept as $T/in.S.M for the reference.
M=5 R=4
make_maps() {
  local s=$1 sort=$2 m
  mkdir -p "$DIR/$s"
  for ((m = 0; m < M; m++)); do
    awk -v m="$m" -v s="$s" 'BEGIN { srand(1000 * s + m);
      for (i = 0; i < 3000; i++) printf "key%d\tmap%d-rec%d %s\n",
        int(rand() * 97), m, i, substr("abcdefghijklmnopqrstuvwxyz", 1, int(rand() * 26)) }' \
      >"$T/in.$s.$m"
    "$TOOL" write "$DIR/$s/$m.0" "$R" $sort <"$T/in.$s.$m" >"$T/len.$s.$m" || return 1
  done
}
# blocks S P: the block arguments of partition P of shuffle S.
blocks() {
  local m
  for ((m = 0; m < M; m++)); do
    printf '%s:%d:0:%s ' "$URL" "$m" "$(sed -n "$(($2 + 1))p" "$T/len.$1.$m")"
  done
}
# reference S P [sorted]: partition P's records in map order, sorted if asked.
reference() {
  local m
  for ((m = 0; m < M; m++)); do
    "$TOOL" partition "$R" <"$T/in.$1.$m" | awk -F'\t' -v p="$2" '$1 == p' |
      cut -f2-
  done | if [[ ${3:-} == sorted ]]; then LC_ALL=C sort -s -t$'\t' -k1,1; else cat; fi
}
# fetch ARGS...: shuffle-tool fetch into a new directory, $T/fetched.N
# (the last one's in $FETCHED).
fetch() {
  FETCHED=$(mktemp -d "$T/fetched.XXXXXX")
  "$TOOL" fetch --dir "$FETCHED" "$@"
}

check "map outputs of shuffle 1 (unsorted) are written" make_maps 1 ""
check "map outputs of shuffle 2 (sorted) are written" make_maps 2 --sort
for p in 0 3; do
  # shellcheck disable=SC2046
  fetch "$APP_ID" "$TOKEN" 1 "$p" $(blocks 1 "$p") >"$T/got.1.$p" 2>"$T/err"
  check "partition $p fetched over TCP: every record, in map order" \
    same "$T/got.1.$p" <(reference 1 "$p") || cat "$T/err"
  # shellcheck disable=SC2046
  fetch --sorted "$APP_ID" "$TOKEN" 2 "$p" $(blocks 2 "$p") >"$T/got.2.$p" 2>"$T/err"
  check "sorted partition $p: merged by key, ties in map order" \
    same "$T/got.2.$p" <(reference 2 "$p" sorted) || cat "$T/err"
done
# shellcheck disable=SC2046
fetch --local-url "$URL" --local-dir "$DIR" --sorted "$APP_ID" "$TOKEN" 2 1 \
  $(blocks 2 1) >"$T/got.local" 2>"$T/err"
check "blocks of this node are read in place, the same records" \
  same "$T/got.local" <(reference 2 1 sorted) || cat "$T/err"
check "... and none of them was fetched into the reducer's directory" \
  test -z "$(ls "$FETCHED")"

# --- refusals: fetch failures naming the map output -----------------------
# shellcheck disable=SC2046
fetch "$APP_ID" wrong-token 1 0 $(blocks 1 0) >/dev/null 2>"$T/err"
check "a wrong token: a fetch failure (exit 3)" test $? -eq 3
check "... saying so, naming the map output and the worker" \
  grep -q "FETCH_FAILED map=0 attempt=0 url=$URL: .*no executor of it here holds that token" "$T/err"
fetch "$APP_ID" "$TOKEN" 1 0 "$URL:9:0:100" >/dev/null 2>"$T/err"
check "a map output the worker does not have: a fetch failure" \
  grep -q "FETCH_FAILED map=9 .*no such map output" "$T/err"
printf 'X' | dd of="$DIR/1/3.0" bs=1 seek=100 conv=notrunc 2>/dev/null
# shellcheck disable=SC2046
fetch "$APP_ID" "$TOKEN" 1 0 $(blocks 1 0) >"$T/out" 2>"$T/err"
check "a damaged block: a fetch failure naming map 3, its checksum" \
  grep -q "FETCH_FAILED map=3 .*checksum" "$T/err"
check "... and nothing of the partition was printed" test ! -s "$T/out"
kill -STOP "$PID_w1"
t0=$(now_ms)
# shellcheck disable=SC2046
fetch --timeout 300 "$APP_ID" "$TOKEN" 1 1 $(blocks 1 1) >/dev/null 2>"$T/err"
rc=$?
kill -CONT "$PID_w1"
check "a silent worker: a fetch failure after the tries ($(($(now_ms) - t0)) ms)" \
  test $rc -eq 3
check "... saying it did not answer" grep -q "did not answer within 300 ms" "$T/err"
# a worker killed: its host is up, nothing listens on its port any more
CORES=1 start_worker w2 || fail "a second worker"
URL2=$(grep -o 'serving this node.s map outputs at tcp://[0-9.:]*' "$T/w2.log" |
  awk '{print $NF}')
kill9 "$PID_w2"
t0=$(now_ms)
fetch --timeout 3000 "$APP_ID" "$TOKEN" 1 1 "$URL2:4:0:100" >/dev/null 2>"$T/err"
rc=$?
check "a worker gone (killed): a fetch failure ($(($(now_ms) - t0)) ms)" \
  test $rc -eq 3
check "... at once: its connection was refused, not waited out (3 s a try)" \
  grep -q "FETCH_FAILED map=4 attempt=0 url=$URL2: $URL2 refused the connection" "$T/err"

# --- the application ends: its outputs go -------------------------------
kill -TERM "$APP_PID"
check "the application's outputs are removed when it ends" \
  wait_for 10 test ! -e "$DIR"
check "the worker is still ALIVE" test "$(worker_state "$ID_w1")" = ALIVE
finish
