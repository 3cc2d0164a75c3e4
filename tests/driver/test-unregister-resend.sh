#!/usr/bin/env bash
# A job that finishes while the master is down (issue 14, defect 6): the
# driver's unregistration is not lost with the master.  The driver says
# it waits for the master, registers again when it comes back and tells
# it how the application ended, so that after the restart on the journal
# the application is FINISHED (or FAILED with its job's error), not
# FAILED "driver lost".  A master that does not come back within the
# wait (register-timeout) leaves the driver to exit anyway, saying so.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 150
export TMPDIR=$T
JOURNAL=$T/journal

start_master --journal "$JOURNAL" || exit 1
start_worker w1 || exit 1

app_state() {
  state_json | jq -r --arg n "$1" '.apps[] | select(.name == $n) | .state'
}
app_reason() {
  state_json | jq -r --arg n "$1" '.apps[] | select(.name == $n) | .reason'
}
running() { [[ $(app_state "$1") == RUNNING ]]; }
tasks_running() { [[ -n $(procs_in "$T/w1") ]]; }

# across_restart NAME JOB EXIT: run JOB as NAME; kill -9 the master while
# its tasks run; once the driver waits for it, start it again.
across_restart() {
  local name=$1 j=$2 want=$3
  "$BIN/hearth-submit" --heartbeat-interval "${INTERVAL_MS}ms" \
    --heartbeat-liveness "$LIVENESS" --master "$MASTER_URL" --name "$name" \
    --executor-memory 512M "$j" >"$T/$name.out" 2>"$T/$name.err" &
  local sub=$!
  PIDS+=($sub)
  check "$name: the job runs" wait_for 20 running "$name"
  check "$name: ... its tasks too" wait_for 10 tasks_running
  kill9 "$MASTER_PID"
  check "$name: the job ends while the master is down; the driver says it waits" \
    wait_for 20 grep -q 'waiting up to .* for the master' "$T/$name.err"
  check "$name: ... and is still there" eval "kill -0 $sub 2>/dev/null"
  sleep 1
  PORT=$MASTER_PORT start_master --journal "$JOURNAL" || exit 1
  wait "$sub"
  local rc=$?
  check "$name: the driver exits $want once the master has its end ($rc)" test "$rc" -eq "$want"
}

J=$(job ok '{"name":"ok","stages":[{"name":"s","tasks":[
  {"cmd":["sh","-c","sleep 2; echo {i}"],"count":2}]}]}')
across_restart fine "$J" 0
check "fine: its results" eval '[[ $(sort "$T/fine.out" | tr "\n" " ") == "0 1 " ]]'
check "fine: the application is FINISHED after the restart" \
  eval '[[ $(app_state fine) == FINISHED ]]'
check "fine: ... and stays so past the recovery" eval \
  'sleep 2; [[ $(app_state fine) == FINISHED ]]'

F=$(job bad '{"name":"bad","stages":[{"name":"s","tasks":[
  {"cmd":["sh","-c","sleep 2; echo disk on fire >&2; exit 3"]}]}]}')
across_restart failing "$F" 1
check "failing: the application is FAILED with its job's error, not 'driver lost'" \
  eval '[[ $(app_state failing) == FAILED && $(app_reason failing) == *"disk on fire"* ]]'

# The master does not come back: the driver gives up after the wait.
"$BIN/hearth-submit" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --master "$MASTER_URL" --name lonely \
  --executor-memory 512M --register-timeout 3s "$J" >"$T/lonely.out" 2>"$T/lonely.err" &
SUB=$!
PIDS+=($SUB)
check "lonely: the job runs" wait_for 20 running lonely
kill9 "$MASTER_PID"
start=$(now_ms)
wait "$SUB"
rc=$? took=$(($(now_ms) - start))
check "lonely: the driver exits 0 (its job succeeded) after the wait ($took ms)" \
  eval "[[ $rc -eq 0 && $took -ge 3000 && $took -lt 15000 ]]"
check "lonely: ... saying the master did not hear the end" \
  grep -q 'did not confirm' "$T/lonely.err"
finish
