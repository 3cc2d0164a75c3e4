#!/usr/bin/env bash
# Why an application with --executor-label waits (issue 37): the reason
# looks at the workers carrying its labels only.  Executors bigger than
# every labelled worker can never be placed, however big the others are:
# a never code (too_many_cores), which --unschedulable-timeout ends, not
# cluster_full, which waits for ever; the reason names the labels.
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
check "no executor is left" wait_for 10 eval '! executors_running'
finish
