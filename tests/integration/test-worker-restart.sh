#!/usr/bin/env bash
# A worker killed and started again on its work dir (a new process, so a
# new id): the master takes the new registration as the end of the old
# worker at once, rather than after liveness x interval: the old record
# is DEAD "replaced by" the new one, its executor LOST, a replacement
# executor placed on the new worker, and the job ends with exactly its
# output.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 90
export TMPDIR=$T
# liveness x interval of 5 s: a DEAD seen sooner is the replacement's doing
INTERVAL_MS=1000

start_master || exit 1
CORES=2 start_worker w1 || exit 1
OLD=$ID_w1
CORES=2 start_worker w2 || exit 1

N=200
J=$(job steady "{\"name\":\"steady\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"sleep 0.1; echo {i}\"], \"count\":$N}]}]}")
seq 0 $((N - 1)) >"$T/expected"
submit --master "$MASTER_URL" --log-level info "$J" &
SUB=$!
PIDS+=($SUB)
on_both() {
  jq_state '[.apps[] | select(.state == "RUNNING") | .executors[]
    | select(.state == "RUNNING")] | length == 2'
}
check "the job runs on both workers" wait_for 30 on_both

kill9 "$PID_w1"
t_kill=$(now_ms)
CORES=2 start_worker w1 || exit 1
NEW=$ID_w1
check "the restarted worker has a new id" test "$NEW" != "$OLD"
dead() { [[ $(worker_state "$OLD") == DEAD ]]; }
check "the old worker is DEAD at once" wait_for 3 dead
took=$(($(log_ms "$T/master.log" "worker $OLD .* is DEAD") - t_kill))
say "old worker DEAD ${took} ms after the kill (liveness x interval: 5000 ms)"
check "... well before liveness x interval (${took} ms < 2500 ms)" \
  test "$took" -lt 2500
check "... replaced by the new one" \
  grep -q "worker $OLD .* is DEAD: replaced by worker $NEW" "$T/master.log"
replacement() {
  jq_state "[.apps[] | select(.state == \"RUNNING\") | .executors[]
    | select(.state == \"RUNNING\" and .worker_id == \"$NEW\")] | length == 1"
}
check "a replacement executor runs on the new worker" wait_for 10 replacement

wait "$SUB"
check "the job succeeds" test $? -eq 0
check "... with exactly its output" same "$T/out" "$T/expected"

# Two workers that give the same host and the same work dir path but work
# in different directories (each its own mount namespace, as containers
# on one host): neither replaces the other.
SHARED=$T/shared-path
mkdir -p "$SHARED"
in_own_mount() { # NAME: a worker on its own tmpfs mounted at $SHARED
  unshare -m sh -c "mount -t tmpfs none '$SHARED' && exec \"\$0\" \"\$@\"" \
    "$BIN/hearth-worker" --master "$MASTER_URL" --work-dir "$SHARED" \
    --host 10.9.9.9 --cores 1 --memory 1G --heartbeat-interval "${INTERVAL_MS}ms" \
    --heartbeat-liveness "$LIVENESS" --log-level debug >>"$T/$1.log" 2>&1 &
  PIDS+=($!)
}
if unshare -m true 2>/dev/null; then
  in_own_mount ns1
  in_own_mount ns2
  two() { jq_state '[.workers[] | select(.host == "10.9.9.9" and .state == "ALIVE")]
    | length == 2'; }
  check "two workers on one path in two mount namespaces both register" wait_for 10 two
  sleep $((3 * INTERVAL_MS / 1000))
  check "... and both stay ALIVE (3 intervals later)" two
  check "... neither replaced the other" \
    eval '! grep -q "is DEAD: replaced by .* in $SHARED" "$T/master.log"'
else
  say "SKIP (part): unshare -m needs root; the mount-namespace case is not run"
fi
finish
