#!/usr/bin/env bash
# Shipped files spread peer to peer (issue 38, "files once per node",
# second part): four worker "hosts", each a network namespace on an
# address of its own joined to the master's and driver's namespace m by a
# veth pair whose two ends are rate-limited (tbf), 2 executors a host.
# - A 256 MiB file to 8 executors: every task reads a copy identical to
#   the file, and the driver sends at most 1.2 x the file (its own count
#   of chunk bytes): the nodes take the rest from each other's workers.
# - A holder killed (kill -9) while serving: host 1's node holds the whole
#   file first (the only worker of a second application), then hosts 2-4
#   come and fetch from it; once they hold some chunks, host 1's worker is
#   killed: they finish from each other and the driver, the copies are
#   the file, the job's output exact, and the executors said which holder
#   they dropped.
# Skipped (77) where namespaces cannot be created.
# Heartbeats of 0.5 s, 10 missed: the links are full for seconds, and a
# heartbeat queued behind chunks on a rate-limited link is late (the
# default 200 ms x 5 took a busy worker for dead).
INTERVAL_MS=500 LIVENESS=10
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
. "$(dirname "$0")/../lib/security.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/hosts.sh"
deadline 420
export TMPDIR=$T

NS_M=hearth-$$-pm
netns_first "$NS_M"
NS=() M=() H=()
for k in 1 2 3 4; do
  NS[k]=hearth-$$-p$k M[k]=10.216.$k.1 H[k]=10.216.$k.2
done
# each link at RATE both ways, so that a transfer lasts long enough to be
# cut in the middle
RATE=${RATE:-400mbit}
links() {
  local k
  hosts_star "$NS_M" MADE 4 || return 1
  for k in 1 2 3 4; do
    ip netns exec "$NS_M" tc qdisc add dev "m$k" root tbf rate "$RATE" \
      burst 256kb latency 50ms &&
      ip netns exec "${NS[k]}" tc qdisc add dev w root tbf rate "$RATE" \
        burst 256kb latency 50ms || return 1
  done
}
if ! links 2>"$T/netns.err"; then
  say "SKIP: cannot set up the namespaces' network ($(head -1 "$T/netns.err"))"
  say "0 passed, 0 failed"
  exit 77
fi
pass "5 network namespaces, 4 rate-limited veth pairs"

{ make_keys && "$BIN/hearth-keygen" --client w3 "$K" >/dev/null &&
  "$BIN/hearth-keygen" --client w4 "$K" >/dev/null; } ||
  { fail "keys"; finish; exit 1; }
WRAP="ip netns exec $NS_M" start_master --host "${M[1]}" \
  --curve-secret "$K/master.key_secret" --curve-allow "$K/clients" ||
  { fail "the master starts in its namespace"; finish; exit 1; }
host_worker() { # host_worker K: worker wK on host K
  # shellcheck disable=SC2046
  WRAP="ip netns exec ${NS[$1]}" CORES=2 start_worker "w$1" --host "${H[$1]}" \
    $(client_keys "w$1")
}
for k in 1 2 3 4; do
  host_worker "$k" || { fail "worker w$k registers from ${H[k]}"; finish; exit 1; }
done

in_m() { ip netns exec "$NS_M" "$@"; }
head -c 256M /dev/urandom >"$T/big.bin"
SUM=$(sha1sum <"$T/big.bin" | cut -d' ' -f1)
SIZE=$(stat -c %s "$T/big.bin")
# 8 tasks, each the SHA-1 of the copy in its work dir, once GO exists
readjob() {
  job "$1" "{\"name\": \"$1\", \"files\": [\"$T/big.bin\"], \"stages\":
    [{\"name\": \"s\", \"tasks\": [{\"cmd\": [\"sh\", \"-c\",
    \"while [ ! -e $2 ]; do sleep 0.1; done; sha1sum <big.bin | cut -d' ' -f1\"],
    \"count\": 8}]}]}"
}
run_job() { # run_job JOBFILE
  # shellcheck disable=SC2046
  in_m "$BIN/hearth-submit" --master "$MASTER_URL" $(client_keys client) \
    --heartbeat-interval "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" \
    --executor-cores 1 --total-executor-cores 8 --executor-memory 256M \
    --log-level info "$1" >"$T/out" 2>"$T/err"
}
sent() {
  sed -n 's/.*shipped files and libraries: \([0-9]*\) bytes sent.*/\1/p' \
    "$T/err" | tail -1
}
eight_sums() { same "$T/out" <(for i in $(seq 8); do echo "$SUM"; done); }
# every executor's copy (a link to its node's cache) is the file
copies_same() {
  local f n=0
  for f in "$@"; do
    cmp -s "$f" "$T/big.bin" || { say "$f differs"; return 1; }
    n=$((n + 1))
  done
  [ "$n" -gt 0 ]
}

# the copies are looked at while the tasks wait (the executors' dirs go
# with the application)
run_job "$(readjob spread "$T/go1")" &
SUBMIT=$!
PIDS+=($SUBMIT)
on_every_host() {
  local k
  for k in 1 2 3 4; do
    ls "$T"/w$k/app-*/[0-9]*/big.bin >/dev/null 2>&1 || return 1
  done
}
check "a 256 MiB file to 8 executors on 4 hosts: a copy on every host" \
  wait_for 200 on_every_host
check "... every executor's copy is the file, byte for byte" \
  copies_same "$T"/w[1-4]/app-*/[0-9]*/big.bin
touch "$T/go1"
wait "$SUBMIT"
check "... the job ends well" test $? -eq 0
check "... every task read the file, byte for byte" eight_sums
say "the driver sent $(sent) bytes for a file of $SIZE"
check "... the driver sent at most 1.2 x the file" \
  test "$(sent)" -le $((SIZE * 12 / 10))

# --- a holder killed while serving -----------------------------------------
for k in 2 3 4; do kill -TERM "$(eval echo "\$PID_w$k")"; done
gone() {
  # shellcheck disable=SC2046
  in_m "$BIN/hearth-tail" --master "$MASTER_URL" --state --json --timeout 3s \
    $(client_keys client) |
    jq -e '[.workers[] | select(.state == "ALIVE")] | length == 1' >/dev/null
}
check "hosts 2-4's workers leave" wait_for 20 gone
readjob held "$T/go2" >/dev/null
run_job "$T/held.json" &
SUBMIT=$!
PIDS+=($SUBMIT)
# the second application's cache on host 1: its entry
APP1=$(basename "$(ls -d "$T"/w1/app-*)")
app2_whole() {
  local d
  for d in "$T"/w1/app-*; do
    [ "$(basename "$d")" != "$APP1" ] || continue
    ls "$d"/.ship/*-big.bin >/dev/null 2>&1 && return 0
  done
  return 1
}
check "a second application: host 1 alone holds the whole file first" \
  wait_for 120 app2_whole
APP2=$(basename "$(ls -d "$T"/w1/app-* | grep -v "/$APP1\$")")
for k in 2 3 4; do
  host_worker "$k" || fail "worker w$k comes back"
done
# chunks marked held in hosts 2-4's progress files (the bytes 1 after
# the 16-byte header)
held_some() {
  local f n=0
  for f in "$T"/w[2-4]/"$APP2"/.ship/.*.have; do
    [ -e "$f" ] || continue
    n=$((n + $(tail -c +17 "$f" | tr -cd '\001' | wc -c)))
  done
  [ "$n" -ge 6 ]
}
check "... hosts 2-4 fetch from it, and hold some chunks" wait_for 120 held_some
kill9 "$PID_w1"
say "host 1's worker killed while it served its chunks"
touch "$T/go2"
wait "$SUBMIT"
check "... the job ends well" test $? -eq 0
check "... every task read the file, byte for byte" eight_sums
check "... each copy on hosts 2-4 is the file" \
  copies_same "$T"/w[2-4]/"$APP2"/[0-9]*/big.bin
check "... an executor dropped host 1's holder and went on without it" \
  grep -q "holder tcp://${H[1]}:[0-9]* of shipped files .*not asked again" \
  "$T"/w[2-4]/"$APP2"/[0-9]*/stderr
finish
