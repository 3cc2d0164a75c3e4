#!/usr/bin/env bash
# The master's recovery deadline (docs/failures.md): a master restarted on
# its journal waits --recovery-timeout for the workers and drivers it
# knows, then gives up on whoever is not back.
#  1. A worker killed while the master is down: after the deadline it is
#     DEAD "did not come back", its executor LOST; the job (whose driver
#     is back) still finishes with exactly its output on the other worker.
#  2. A driver killed while the master is down: after the deadline its
#     application is FAILED "driver lost", and nothing of it runs anywhere.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T
JOURNAL=$T/journal
TIMEOUT_MS=2000

# --resume-window 0: an application whose driver is not back ends FAILED at
# the deadline, as before issue 39 (test-resume-window.sh tests the window)
start_master --journal "$JOURNAL" --resume-window 0 || exit 1
CORES=2 start_worker w1 || exit 1
CORES=2 start_worker w2 || exit 1

restart_master() {
  PORT=$MASTER_PORT start_master --journal "$JOURNAL" \
    --recovery-timeout "${TIMEOUT_MS}ms" --resume-window 0
}
app_field() { # APP FILTER: a field of that application in MASTER_STATE
  state_json | jq -r --arg app "$1" ".apps[] | select(.id == \$app) | $2"
}

# --- 1. a worker that does not come back -----------------------------------
N=600
J=$(job steady "{\"name\":\"steady\",\"stages\":[{\"name\":\"s\",\"tasks\":[
  {\"cmd\":[\"sh\",\"-c\",\"sleep 0.05; echo {i}\"], \"count\":$N}]}]}")
seq 0 $((N - 1)) >"$T/expected"
submit --master "$MASTER_URL" --log-level info "$J" &
SUBMIT=$!
PIDS+=($SUBMIT)
on_both() {
  jq_state '[.apps[] | select(.state == "RUNNING") | .executors[]
    | select(.state == "RUNNING")] | length == 2'
}
check "the job runs on 2 executors, one per worker" wait_for 30 on_both
APP=$(state_json | jq -r '.apps[0].id')

kill9 "$MASTER_PID"
kill9 "$PID_w2"
restart_master || exit 1
t_start=$(now_ms)
"$BIN/hearth-tail" --master "$MASTER_URL" --topic executor --json \
  >"$T/exec-events" 2>/dev/null &
PIDS+=($!)
check "the master is RECOVERING" jq_state '.status == "RECOVERING"'
alive() { jq_state '.status == "ALIVE"'; }
check "ALIVE again once the deadline has passed" wait_for 15 alive
took=$(($(now_ms) - t_start))
check "... not before the deadline (${took} ms, deadline $TIMEOUT_MS ms)" \
  test "$took" -ge $((TIMEOUT_MS - 300))
check "the master gave up on the worker: DEAD" \
  test "$(worker_state "$ID_w2")" = DEAD
check "... because it did not come back" \
  grep -q "worker $ID_w2 .* is DEAD: did not come back within $TIMEOUT_MS ms" \
  "$T/master.log"
check "... and said so in its recovery summary" \
  grep -q 'recovery done in [0-9]* ms (the recovery deadline passed): 1 of 2 workers and 1 of 1 applications back, 1 executors re-adopted, 1 lost' \
  "$T/master.log"
lost_event() {
  jq -e --arg w "$ID_w2" 'select(.executor.worker_id == $w
    and .executor.state == "LOST" and .worker_lost == true)' \
    "$T/exec-events" >/dev/null
}
check "its executor is LOST, worker lost (an executor event)" \
  wait_for 5 lost_event
check "the other worker is ALIVE" test "$(worker_state "$ID_w1")" = ALIVE
wait "$SUBMIT"
check "the job succeeds" test $? -eq 0
check "... with exactly its output" same "$T/out" "$T/expected"
check "the application FINISHED" test "$(app_field "$APP" .state)" = FINISHED

# --- 2. a driver that does not come back -----------------------------------
J2=$(job forever '{"name":"forever","stages":[{"name":"s","tasks":[
  {"cmd":["sleep","60"],"count":2}]}]}')
"$BIN/hearth-submit" --master "$MASTER_URL" --heartbeat-interval \
  "${INTERVAL_MS}ms" --heartbeat-liveness "$LIVENESS" "$J2" \
  >"$T/out2" 2>"$T/err2" &
DRIVER=$!
PIDS+=($DRIVER)
running2() {
  jq_state '[.apps[] | select(.state == "RUNNING")] | length == 1'
}
check "a second job runs" wait_for 30 running2
APP2=$(state_json | jq -r '.apps[] | select(.state == "RUNNING") | .id')
check "... with its tasks on worker 1" wait_for 10 \
  test -n "$(procs_in "$T/w1/$APP2")"

kill9 "$MASTER_PID"
kill9 "$DRIVER"
restart_master || exit 1
check "ALIVE again once the deadline has passed" wait_for 15 alive
check "the application FAILED" test "$(app_field "$APP2" .state)" = FAILED
check "... because its driver did not come back" \
  grep -q "application $APP2 FAILED: driver lost: it did not come back" \
  "$T/master.log"
check "nothing of it runs on worker 1" wait_for 10 none_in "$T/w1/$APP2"
check "worker 1 is ALIVE and free" jq_state \
  ".workers[] | select(.id == \"$ID_w1\") | .state == \"ALIVE\"
    and .cores_used == 0"
finish
