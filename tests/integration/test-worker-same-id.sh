#!/usr/bin/env bash
# A worker restarted under the same --id on the same work dir replaces its
# old record (master/workers.c, docs/cluster.md "Duplicate ids"): killed with
# kill -9 and started again before the master's liveness expires, it is
# one worker, ALIVE, the new process is the one the master uses (its
# executors are the new pid's children) and a job runs on it; the old
# record's liveness never marks it DEAD.  A second live worker claiming
# that id from another host (and work dir) is refused and the first keeps
# its record; the same host with another work dir is
# test-worker-duplicate.sh.
#
# "Host" is what the worker advertises (--host, sent in REGISTER_WORKER),
# not the connection's source address, so another host is a worker
# started with --host 127.0.0.2 on loopback; a worker on a really
# different machine is not tested here.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 90
SRC=${HEARTH_SRC_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# 25 x 200 ms: the restart has 5 s before the old record would expire.
LIVENESS=25
EXPIRY_MS=$((LIVENESS * INTERVAL_MS))
ID=worker-20260101000000-127.0.0.1-4242

# workers_with_id: how many records MASTER_STATE has under $ID.
workers_with_id() {
  state_json | jq --arg id "$ID" '[.workers[] | select(.id == $id)] | length'
}
# worker_field FIELD: that field of worker $ID.
worker_field() {
  state_json | jq -r --arg id "$ID" ".workers[] | select(.id == \$id) | .$1"
}
# run_job OUT: the job file on the cluster, its output to $T/OUT.
run_job() {
  "$BIN/hearth-submit" --master "$MASTER_URL" --executor-memory 256M \
    "$T/job.json" >"$T/$1" 2>"$T/$1.err"
}
# ppid PID: its parent's pid.
ppid() { awk '$1 == "PPid:" {print $2}' "/proc/$1/status" 2>/dev/null; }

start_master || exit 1
start_worker x --id "$ID" || exit 1
OLD=$PID_x
check "the worker registered under its --id" test "$WORKER_ID" = "$ID"

kill9 "$OLD"
killed_ms=$(now_ms)
echo "--- restarted ---" >>"$T/x.log"
start_worker x --id "$ID" || exit 1
NEW=$PID_x
back_ms=$(now_ms)
say "registered again $((back_ms - killed_ms)) ms after the kill"
check "... before the old record's liveness expired" \
  test $((back_ms - killed_ms)) -lt "$EXPIRY_MS"
check "the master logs it as registered again" \
  grep -q "worker $ID registered again: 127.0.0.1" "$T/master.log"
check "one worker $ID in MASTER_STATE" test "$(workers_with_id)" = 1
check "... ALIVE" test "$(worker_field state)" = ALIVE
check "... with the new worker's cores" test "$(worker_field cores)" = 4

# The new process is the one the master talks to: it spawns the executor.
start_app hold --max-cores 1 --memory-mb 256 || exit 1
check "an application gets an executor on $ID" \
  wait_for 10 grep -q "^EXECUTOR_REGISTERED " "$T/hold.out"
EXEC_PID=$(awk '/^EXECUTOR_REGISTERED /{print $3; exit}' "$T/hold.out")
check "... a child of the new worker (pid $NEW), not of the old ($OLD)" \
  test "$(ppid "$EXEC_PID")" = "$NEW"
check "... which launched it" \
  bash -c "sed -n '/^--- restarted ---/,\$p' '$T/x.log' | grep -q 'executor app-.* started'"
kill -TERM "$APP_PID"
check "the application ends" wait_for 10 bash -c "! kill -0 $APP_PID"

printf '%s\n' '{"name":"n","stages":[{"name":"s","tasks":[{"cmd":["sh","-c","echo {i}"],"count":5}]},{"name":"c","tasks":[{"cmd":["wc","-l"],"input":"s"}]}]}' >"$T/job.json"
check "a job runs on the restarted worker" run_job job.out
check "... with its result" grep -qx 5 "$T/job.out"

# Past the old record's expiry, the record is still the live worker.
sleep $(((EXPIRY_MS + 2 * INTERVAL_MS - ($(now_ms) - back_ms)) / 1000 + 1))
check "past the liveness expiry, $ID is still ALIVE" \
  test "$(worker_field state)" = ALIVE
check "... and was never timed out" \
  bash -c "! grep -q 'worker $ID (.*) is DEAD' '$T/master.log'"
check "... and still one record" test "$(workers_with_id)" = 1

# Another host claiming the live worker's id is refused.
HEARTH_BIN_DIR="$T/bin" "$BIN/hearth-worker" --master "$MASTER_URL" \
  --id "$ID" --host 127.0.0.2 --work-dir "$T/y" --cores 2 --memory 1G \
  --heartbeat-interval "${INTERVAL_MS}ms" >"$T/y.log" 2>&1 &
other=$!
PIDS+=($other)
check "a worker with the same id from 127.0.0.2 stops" \
  wait_for 10 bash -c "! kill -0 $other"
wait "$other"
check "... exiting 1" test $? -eq 1
check "... saying the master refused it" \
  grep -q "the master refused this worker: duplicate worker id" "$T/y.log"
check "the master says why" \
  grep -q "worker $ID at 127.0.0.2 (work dir $T/y) refused: id in use by a live worker at 127.0.0.1 (work dir $T/x" \
  "$T/master.log"
check "the first worker keeps the record: one, ALIVE, on 127.0.0.1, 4 cores" \
  test "$(workers_with_id) $(worker_field state) $(worker_field host) $(worker_field cores)" \
  = "1 ALIVE 127.0.0.1 4"
check "... and keeps heartbeating" wait_for 5 eval \
  '(( $(worker_field heartbeat_age_ms) < 2 * INTERVAL_MS ))'
check "... and running jobs" run_job job2.out
check "... to their end" grep -qx 5 "$T/job2.out"
check "the restarted worker is still running" kill -0 "$NEW"
finish
