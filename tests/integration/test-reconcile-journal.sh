#!/usr/bin/env bash
# A worker that registers again lists what still runs there, each executor
# with its pid and the custom resources' addresses it holds; for an
# executor the master's books have RUNNING with another pid and other
# addresses, the master takes what the worker says (the reconcile, issue
# 36).  That change is the registry's like any other: it is published (an
# `executor` event `reported`) and journaled, so that a master restarted
# from its journal still has it.
#
# The worker is played by authz-probe (tests/security), which sends the
# master the lines it is given on one connection: a real worker lists its
# executors as they are, and its executors' pids do not change under a
# live master.  The fake worker sends no HEARTBEAT: a long liveness keeps
# it ALIVE for the test's length.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 90
LIVENESS=300 # x 200 ms: a minute before the silent fake worker is DEAD
JOURNAL=$T/journal
PROBE=$BIN/tests/security/authz-probe
W=worker-20260101000000-127.0.0.1-4343

start_master --journal "$JOURNAL" || exit 1
"$BIN/hearth-tail" --master "$MASTER_URL" --full-ids --topic executor --json \
  >"$T/events" 2>&1 &
PIDS+=($!)

mkfifo "$T/fake.in"
"$PROBE" --master "$MASTER_URL" <"$T/fake.in" >"$T/fake.out" 2>&1 &
PIDS+=($!)
exec 3>"$T/fake.in"
# fake N COMMAND BODY: the fake worker sends it; waits until the master
# has handled it (the probe's Nth answer line).
fake() {
  echo "$2 $3" >&3
  wait_for 10 answered "$1"
}
answered() { test "$(count_lines "$T/fake.out" '')" -ge "$1"; }
registration() { # registration EXECUTORS
  echo "{\"id\":\"$W\",\"host\":\"127.0.0.1\",\"cores\":4,\"memory_mb\":4096,
    \"version\":\"0.1.0\",\"resources\":{\"gpu\":[\"0\",\"1\"]},
    \"executors\":$1}" | tr -d '\n'
}
# exec_is FILTER: executor 0 of the application, in MASTER_STATE, passes it.
exec_is() {
  jq_state ".apps[] | select(.id == \"$APP_ID\") | .executors[]
    | select(.exec_id == 0) | $1"
}

fake 1 REGISTER_WORKER "$(registration '[]')"
check "the fake worker registered" grep -q "^REGISTER_WORKER passed REGISTERED_WORKER" "$T/fake.out"
start_app recon --max-cores 1 --memory-mb 256 || exit 1
check "its executor is placed on the fake worker" \
  wait_for 10 exec_is ".worker_id == \"$W\" and .state == \"LAUNCHING\""
fake 2 EXECUTOR_STATE_CHANGED \
  "{\"app_id\":\"$APP_ID\",\"exec_id\":0,\"state\":\"RUNNING\",\"pid\":4111}"
check "it is RUNNING with the pid its worker said" \
  wait_for 5 exec_is '.state == "RUNNING" and .pid == 4111'

# The worker registers again (as after a reconnection) and lists the
# executor with another pid and a GPU; then again alike (nothing
# changes); then with yet another pid.
listed() { # listed PID
  registration "[{\"app_id\":\"$APP_ID\",\"exec_id\":0,\"cores\":1,
    \"memory_mb\":256,\"pid\":$1,\"resources\":{\"gpu\":[\"1\"]}}]"
}
fake 3 REGISTER_WORKER "$(listed 4222)"
check "the master takes the pid and the GPU its worker lists" \
  exec_is '.state == "RUNNING" and .pid == 4222 and .resources.gpu == ["1"]'
fake 4 REGISTER_WORKER "$(listed 4222)"
fake 5 REGISTER_WORKER "$(listed 4333)"
check "... and the next pid" exec_is '.state == "RUNNING" and .pid == 4333'
# reported: the pids of the `reported` events of executor 0, in order.
reported() {
  jq -r --arg app "$APP_ID" 'select(.event == "reported") | .executor
    | select(.app_id == $app and .exec_id == 0 and .resources.gpu == ["1"])
    | .pid' "$T/events" | tr '\n' ' '
}
reported_twice() { test "$(reported)" = "4222 4333 "; }
check "an executor event says each change, once" wait_for 5 reported_twice

# Restarted from its journal, the master has the executor as reconciled.
kill -TERM "$MASTER_PID"
wait "$MASTER_PID" 2>/dev/null
PORT=$MASTER_PORT start_master --journal "$JOURNAL" || exit 1
check "after a restart from the journal: RECOVERING" \
  jq_state '.status == "RECOVERING"'
check "... executor 0 has the pid its worker listed" exec_is '.pid == 4333'
check "... and the GPU" exec_is '.resources.gpu == ["1"]'
finish
