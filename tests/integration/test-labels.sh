#!/usr/bin/env bash
# Worker labels (issue 37): hearth-worker --label KEY=VALUE (repeatable,
# HEARTH_LABEL comma-separated) travels with its registration; the master
# shows them (MASTER_STATE, hearth-tail --state, /json) and tells drivers
# with each executor, so that a task preferring "disk=ssd" runs on the
# labelled worker, NODE_LOCAL.  A bad label stops the worker at start,
# saying which.
. "$(dirname "$0")/../lib/cluster.sh"
. "$(dirname "$0")/../lib/driver.sh"
deadline 120
export TMPDIR=$T

start_master || exit 1
CORES=1 start_worker w1 --label disk=ssd --label rack=r1 || exit 1
W1=$WORKER_ID
HEARTH_LABEL=disk=hdd,rack=r2 CORES=1 start_worker w2 || exit 1
W2=$WORKER_ID

check "the master shows each worker's labels" \
  test "$(state_json | jq -c "[.workers[] | {id, labels}] | sort_by(.id)")" \
  = "$(jq -nc --arg a "$W1" --arg b "$W2" '[{id: $a, labels: {disk: "ssd", rack: "r1"}},
        {id: $b, labels: {disk: "hdd", rack: "r2"}}] | sort_by(.id)')"
check "... hearth-tail --state beside the worker" \
  eval '"$BIN/hearth-tail" --master "$MASTER_URL" --state | grep -q " $W1 .*  \[disk=ssd rack=r1\]$"'
WEB=$(state_json | jq -r .web_url)
TOKEN=$("$BIN/hearth-admin" --master "$MASTER_URL" web-token)
check "... and /json" test "$(curl -sf -H "Authorization: Bearer $TOKEN" "$WEB/json" |
  jq -r --arg a "$W1" '.workers[] | select(.id == $a) | .labels.disk')" = ssd

# Four tasks preferring disk=ssd, four the other worker's rack label.
J=$(job labels '{"name": "labels", "stages": [{"name": "s", "tasks": [
  {"cmd": ["echo", "ssd{i}"], "count": 4, "prefer": "disk=ssd"},
  {"cmd": ["echo", "r2-{i}"], "count": 4, "prefer": "rack=r2"}]}]}')
check "a job preferring labels" \
  submit --master "$MASTER_URL" --executor-cores 1 --event-log "$T/ev" "$J"
check "... exact" same "$T/out" <(printf '%s\n' ssd0 ssd1 ssd2 ssd3 r2-0 r2-1 r2-2 r2-3)
L=$(ls "$T"/ev/*.events)
ran_on() { # the worker of each task's first attempt, by index
  jq -rs '(map(select(.event == "executor_added")) | map({key: (.executor | tostring), value: .worker}) | from_entries) as $w
    | .[] | select(.event == "task_start" and .attempt == 0) | "\(.index) \($w[.executor | tostring]) \(.locality)"' "$L" | sort -n
}
check "... each task NODE_LOCAL on the worker carrying its label" \
  same <(ran_on) <(for i in 0 1 2 3; do echo "$i $W1 NODE_LOCAL"; done
    for i in 4 5 6 7; do echo "$i $W2 NODE_LOCAL"; done)

check "a bad label stops a worker at start" \
  eval '! "$BIN/hearth-worker" --master "$MASTER_URL" --work-dir "$T/bad" --label "disk ssd" >"$T/bad.out" 2>&1'
check "... saying which" grep -q "label 'disk ssd': expected KEY=VALUE" "$T/bad.out"
check "no executor is left" wait_for 10 eval '! executors_running'
finish
