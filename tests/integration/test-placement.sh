#!/usr/bin/env bash
# Executors are placed as the allocator says, with --spread-out and with
# --consolidate: 3 workers of 8 cores and 16 GiB, an application of
# max_cores 12 with 2 cores and 2 GiB per executor (Spark's MasterSuite's first case),
# checked in the driver's EXECUTOR_ADDED messages and in MASTER_STATE.
. "$(dirname "$0")/../lib/cluster.sh"
deadline 90
CORES=8 MEMORY=16G

# cores_by_worker APP: "WORKER_ID CORES" lines from MASTER_STATE.
cores_by_worker() {
  state_json | jq -r --arg app "$1" '.apps[] | select(.id == $app)
    | .executors | group_by(.worker_id)[]
    | "\(.[0].worker_id) \(map(.cores) | add)"'
}
# cores_on APP WORKER_ID: cores of APP's executors on that worker.
cores_on() {
  state_json | jq -r --arg app "$1" --arg w "$2" '[.apps[]
    | select(.id == $app) | .executors[] | select(.worker_id == $w)
    | .cores] | add // 0'
}
added() { test "$(count_lines "$T/$1.out" '^EXECUTOR_ADDED ')" -eq "$2"; }
stop_cluster() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do [[ $pid == "$WATCHDOG" ]] || wait "$pid" 2>/dev/null; done
  PIDS=("$WATCHDOG")
}
WATCHDOG=${PIDS[0]}

# --- spread-out --------------------------------------------------------
start_master --spread-out || exit 1
for w in s1 s2 s3; do start_worker "$w" || exit 1; done
start_app spread --max-cores 12 --cores-per-executor 2 --memory-mb 2048 ||
  exit 1
check "spread: 6 executors added" wait_for 10 added spread 6
check "spread: every EXECUTOR_ADDED has 2 cores and 2048 MiB" \
  test "$(count_lines "$T/spread.out" '^EXECUTOR_ADDED [0-9]* worker-[^ ]* 127.0.0.1 2 2048$')" -eq 6
check "spread: exec ids 0..5" test "$(awk '/^EXECUTOR_ADDED/{print $2}' \
  "$T/spread.out" | sort -n | tr '\n' ' ')" = "0 1 2 3 4 5 "
check "spread: [4,4,4] in MASTER_STATE" \
  test "$(cores_by_worker "$APP_ID" | awk '{print $2}' | sort | tr '\n' ' ')" = "4 4 4 "
check "spread: app RUNNING with 12 cores" jq_state ".apps[] | select(.id ==
  \"$APP_ID\") | .state == \"RUNNING\" and .cores_granted == 12 and .max_cores == 12"
check "spread: workers show 4 cores and 4096 MiB used" \
  jq_state 'all(.workers[]; .cores_used == 4 and .memory_used_mb == 4096)'
# The same placement as the driver heard it.
awk '/^EXECUTOR_ADDED/{c[$3] += $5} END {for (w in c) print w, c[w]}' \
  "$T/spread.out" | sort >"$T/spread.heard"
cores_by_worker "$APP_ID" | sort >"$T/spread.state"
check "spread: driver and MASTER_STATE agree" cmp -s "$T/spread.heard" "$T/spread.state"

kill -TERM "$APP_PID"; wait "$APP_PID"
check "spread: unregistered app FINISHED" wait_for 5 jq_state ".apps[] |
  select(.id == \"$APP_ID\") | .state == \"FINISHED\" and .executors == []"
check "spread: its cores are free again" \
  wait_for 5 jq_state 'all(.workers[]; .cores_used == 0)'

# cores_per_executor unset: one executor per worker with all its cores.
start_app one --max-cores 12 --memory-mb 2048 || exit 1
check "spread, cpe unset: three 4-core executors" wait_for 10 bash -c \
  "[[ \$(grep -c '^EXECUTOR_ADDED .* 4 2048\$' '$T/one.out') == 3 ]]"
kill -TERM "$APP_PID"; wait "$APP_PID"
stop_cluster

# --- consolidate -------------------------------------------------------
start_master --consolidate || exit 1
for w in c1 c2 c3; do start_worker "$w" || exit 1; done
start_app cons --max-cores 12 --cores-per-executor 2 --memory-mb 2048 || exit 1
check "consolidate: 6 executors added" wait_for 10 added cons 6
check "consolidate: 8 cores on the first worker" test "$(cores_on "$APP_ID" "$ID_c1")" -eq 8
check "consolidate: 4 on the second" test "$(cores_on "$APP_ID" "$ID_c2")" -eq 4
check "consolidate: none on the third" test "$(cores_on "$APP_ID" "$ID_c3")" -eq 0
check "consolidate: policy in the state" jq_state '.policy == "consolidate"'

# A second application gets what is left, FIFO: 12 cores.
start_app rest --memory-mb 1024 || exit 1
check "second app gets the remaining 12 cores" wait_for 10 jq_state \
  ".apps[] | select(.id == \"$APP_ID\") | .cores_granted == 12"
check "all 24 cores used" jq_state '[.workers[].cores_used] | add == 24'
finish
