#!/usr/bin/env bash
# Why an application with --executor-label waits (issue 37): the reason
# looks at the workers carrying its labels only.  Executors bigger than
# every labelled worker can never be placed, however big the others are:
# a never code (too_many_cores), which --unschedulable-timeout ends, not
# cluster_full, which waits for ever; the reason names the labels.
# Labels only a DECOMMISSIONING worker carries: labels_missing (it takes
# no executor and is leaving), as when only a dead one did.
# A label given twice with two values (no worker carries both) is
# refused by hearth-submit, naming them, rather than the last one kept.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 60
export TMPDIR=$T

start_master || exit 1
CORES=1 start_worker w1 --label rack=r1 || exit 1
CORES=4 start_worker w2 || exit 1

J=$(job big '{"name": "big", "stages": [{"name": "s", "tasks": [{"cmd": ["true"]}]}]}')
"$BIN/hearth-submit" --master "$MASTER_URL" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --executor-label rack=r1 --executor-cores 2 \
  "$J" >"$T/big.out" 2>"$T/big.err" &
BIG=$!
PIDS+=($BIG)
code() { state_json | jq -r '.apps[] | select(.name == "big") | .waiting.code'; }
check "2 cores per executor, the only rack=r1 worker has 1: too_many_cores" \
  wait_for 10 eval '[[ $(code) == too_many_cores ]]'
check "... its reason says where it looked" eval \
  'state_json | jq -r ".apps[] | select(.name == \"big\") | .waiting.reason" | grep -q "on workers labelled rack=r1: asks 2 cores per executor; the most any worker has is 1"'
kill "$BIG"
wait "$BIG"
check "--executor-label rack=r1 --executor-label rack=r2: refused" eval \
  '! "$BIN/hearth-submit" --master "$MASTER_URL" --executor-label rack=r1 \
    --executor-label rack=r2 "$J" >"$T/twice.out" 2>"$T/twice.err"'
check "... naming both values" grep -q \
  "bad --executor-label rack=r2: label rack given twice (r1, r2): a worker carries one value per label" "$T/twice.err"
check "... the same value twice is one label" \
  submit --master "$MASTER_URL" --executor-label rack=r1 --executor-label rack=r1 "$J"

# w3 (rack=r3) runs a long task, then is told to leave: it stays
# DECOMMISSIONING while the task runs.
DECOM_TIMEOUT=60s CORES=1 start_worker w3 --label rack=r3 || exit 1
W3=$WORKER_ID
L=$(job long "{\"name\": \"long\", \"stages\": [{\"name\": \"s\", \"tasks\": [
  {\"cmd\": [\"sh\", \"-c\", \"touch $T/long.started; sleep 30\"]}]}]}")
"$BIN/hearth-submit" --master "$MASTER_URL" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --executor-label rack=r3 --executor-cores 1 \
  "$L" >"$T/long.out" 2>"$T/long.err" &
LONG=$!
PIDS+=($LONG)
check "a long task on w3" wait_for 20 test -e "$T/long.started"
kill -TERM "$PID_w3"
check "w3 DECOMMISSIONING" wait_for 10 eval '[[ $(worker_state "$W3") == DECOMMISSIONING ]]'
J=$(job r3 '{"name": "r3", "stages": [{"name": "s", "tasks": [{"cmd": ["true"]}]}]}')
"$BIN/hearth-submit" --master "$MASTER_URL" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --executor-label rack=r3 --executor-cores 1 \
  "$J" >"$T/r3.out" 2>"$T/r3.err" &
R3=$!
PIDS+=($R3)
check "labels only a DECOMMISSIONING worker carries: labels_missing" \
  wait_for 10 eval '[[ $(state_json | jq -r ".apps[] | select(.name == \"r3\") | .waiting.code") == labels_missing ]]'
kill "$R3" "$LONG"
wait "$R3" "$LONG"
check "no executor is left" wait_for 10 eval '! executors_running'
finish
