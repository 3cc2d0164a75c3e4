#!/usr/bin/env bash
# Worker labels (issue 37): hearth-worker --label KEY=VALUE (repeatable,
# HEARTH_LABEL comma-separated) travels with its registration; the master
# shows them (MASTER_STATE, hearth-tail --state, /json) and tells drivers
# with each executor, so that a task preferring "disk=ssd" runs on the
# labelled worker, NODE_LOCAL; a stage's "require" runs only there, and
# one nobody meets waits with the driver saying why.  Delay scheduling
# idles no core: preferred tasks wait for their worker while the other
# worker runs the unpreferred ones at once.  An application's
# executors go only to workers carrying --executor-label (a job file
# whose every stage requires the same labels asks for them itself); one
# no worker ever had is refused at submit, and one only a dead worker
# had waits with the reason labels_missing.  A bad label stops the
# worker at start, saying which.
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

# "require" is hard: every task on the ssd worker, NODE_LOCAL or not.
J=$(job require '{"name": "require", "stages": [{"name": "s",
  "require": {"disk": "ssd"}, "tasks": [{"cmd": ["echo", "{i}"], "count": 6}]}]}')
check "a stage requiring disk=ssd" \
  submit --master "$MASTER_URL" --executor-cores 1 --event-log "$T/evr" "$J"
check "... exact" same "$T/out" <(seq 0 5)
L=$(ls "$T"/evr/*.events)
check "... every task on the worker carrying it" \
  test "$(ran_on | awk '{print $2}' | sort -u)" = "$W1"
execs_on() { # the workers of the application's executors
  jq -r 'select(.event == "executor_added") | .worker' "$L" | sort -u
}
check "... and, every stage requiring it, every executor asked for there" \
  test "$(execs_on)" = "$W1"
# Delay scheduling idles no core: three tasks preferring disk=ssd and
# three preferring nothing, the wait an hour: the ssd worker runs the
# first three, the other worker the rest at once, side by side.
J=$(job mixed '{"name": "mixed", "stages": [{"name": "s", "tasks": [
  {"cmd": ["sh", "-c", "sleep 1; echo p{i}"], "count": 3, "prefer": "disk=ssd"},
  {"cmd": ["sh", "-c", "sleep 1; echo f{i}"], "count": 3}]}]}')
check "preferred and unpreferred tasks, --locality-wait 1h" \
  submit --master "$MASTER_URL" --executor-cores 1 --locality-wait 1h \
  --event-log "$T/evm" "$J"
check "... exact" same "$T/out" <(printf '%s\n' p0 p1 p2 f0 f1 f2)
L=$(ls "$T"/evm/*.events)
check "... the preferring ones on the ssd worker, the others on the other" \
  same <(ran_on) <(for i in 0 1 2; do echo "$i $W1 NODE_LOCAL"; done
    for i in 3 4 5; do echo "$i $W2 null"; done)
# the share of the two cores' time, from the first start to the last
# end, that ran no task (run_us of each task_end)
idle_share() {
  jq -rs '[.[] | select(.event == "task_end")] as $e
    | ($e | map(.time_ms) | max) as $last
    | ($e | map(.time_ms - .run_us / 1000) | min) as $first
    | 1 - ($e | map(.run_us / 1000) | add) / (2 * ($last - $first))' "$L"
}
check "... both cores busy: idle under a quarter of their time ($(idle_share))" \
  eval 'awk -v s="$(idle_share)" "BEGIN { exit !(s != \"\" && s + 0 < 0.25) }"'
J=$(job any '{"name": "any", "stages": [{"name": "s",
  "tasks": [{"cmd": ["echo", "{i}"], "count": 4}]}]}')
check "--executor-label rack=r2: a job" \
  submit --master "$MASTER_URL" --executor-cores 1 --executor-label rack=r2 \
  --event-log "$T/evx" "$J"
L=$(ls "$T"/evx/*.events)
check "... exact, its executors only on the worker labelled so" \
  eval 'same "$T/out" <(seq 0 3) && test "$(execs_on)" = "$W2"'
J=$(job nvmeall '{"name": "nvmeall", "stages": [{"name": "s",
  "require": {"disk": "nvme"}, "tasks": [{"cmd": ["true"]}]}]}')
check "labels no worker ever had: refused at submit" \
  eval '! submit --master "$MASTER_URL" "$J"'
check "... saying which" \
  grep -q "executors asked on workers labelled disk=nvme: no worker has ever registered with it" "$T/err"
# A requirement no worker meets, beside a stage anyone can run: the
# application runs, the stage's tasks wait, and the driver says why.
J=$(job nvme '{"name": "nvme", "stages": [{"name": "prep",
  "tasks": [{"cmd": ["true"]}]}, {"name": "fast",
  "require": {"disk": "nvme"}, "tasks": [{"cmd": ["true"]}]}]}')
"$BIN/hearth-submit" --master "$MASTER_URL" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --executor-cores 1 "$J" >"$T/nvme.out" 2>"$T/nvme.err" &
NVME=$!
PIDS+=($NVME)
check "a requirement nobody meets: the driver says so after 10 s" \
  wait_for 30 grep -q "stage fast requires disk=nvme: no executor of this application is on a worker with those labels" "$T/nvme.err"
check "... and the job has not run" eval 'kill -0 "$NVME" 2>/dev/null'
kill "$NVME"
wait "$NVME"
# Labels only a dead worker carried: the application waits, saying so.
kill "$PID_w2"
check "w2 stopped: DEAD" wait_for 10 eval \
  '[[ $(state_json | jq -r --arg b "$W2" ".workers[] | select(.id == \$b) | .state") == DEAD ]]'
J=$(job r2 '{"name": "r2", "stages": [{"name": "s", "tasks": [{"cmd": ["true"]}]}]}')
"$BIN/hearth-submit" --master "$MASTER_URL" --heartbeat-interval "${INTERVAL_MS}ms" \
  --heartbeat-liveness "$LIVENESS" --executor-label rack=r2 "$J" >"$T/r2.out" 2>"$T/r2.err" &
R2=$!
PIDS+=($R2)
check "labels only a dead worker had: the application waits, labels_missing" \
  wait_for 10 eval '[[ $(state_json | jq -r ".apps[] | select(.name == \"r2\") | .waiting.code") == labels_missing ]]'
check "... its reason names them" eval \
  'state_json | jq -r ".apps[] | select(.name == \"r2\") | .waiting.reason" | grep -q "labelled rack=r2; no live worker is"'
check "... and its labels are in MASTER_STATE" test \
  "$(state_json | jq -c '.apps[] | select(.name == "r2") | .executor_labels')" = '{"rack":"r2"}'
kill "$R2"
wait "$R2"
J=$(job badreq '{"name": "b", "stages": [{"name": "s",
  "require": {"disk": "a b"}, "tasks": [{"cmd": ["true"]}]}]}')
check "a bad requirement is refused before anything runs" \
  eval '! submit --master "$MASTER_URL" "$J"'
check "... saying where" grep -q 'stages\[0\].require: expected {"KEY": "VALUE"} of worker labels' "$T/err"

check "a bad label stops a worker at start" \
  eval '! "$BIN/hearth-worker" --master "$MASTER_URL" --work-dir "$T/bad" --label "disk ssd" >"$T/bad.out" 2>&1'
check "... saying which" grep -q "label 'disk ssd': expected KEY=VALUE" "$T/bad.out"
check "no executor is left" wait_for 10 eval '! executors_running'
finish
